// SPDX-License-Identifier: Apache-2.0
#pragma once
// xyzz<F>: extended Jacobian ("XYZZ") coordinates (X, Y, ZZ, ZZZ) representing
// the affine point (X/ZZ, Y/ZZZ) on y^2 = x^3 + b (a = 0). The Pippenger
// bucket representation (sppark's xyzz_t): adding an affine point costs
// 8M + 2S against 7M + 4S for Jacobian madd, and none of the formulas needs
// a multiplication by 2, 3 or 8 beyond one doubling of Y.
//
// Invariants: every point built through this API satisfies ZZ^3 = ZZZ^2
// (ZZ = Z^2, ZZZ = Z^3 for some Z); the conversions below do not rely on it.
// The point at infinity has ZZ = ZZZ = 0 (X = Y = 1 by convention, as in
// jacobian<F>); is_infinity() tests ZZ only.
//
// Formulas (Explicit-Formulas Database, "g1p/auto-shortw-xyzz", a = 0);
// cost in field multiplications (M) and squarings (S):
//   add_unchecked      add-2008-s      12M + 2S   P != +-Q, neither infinity
//   add_affine_unchecked madd-2008-s    8M + 2S   Q affine (ZZ2 = ZZZ2 = 1), same preconditions
//   dbl                dbl-2008-s-1     6M + 3S   (a = 0 drops the a*ZZ1^2 term)
//   dbl_affine         mdbl-2008-s-1    4M + 3S   doubling an affine point
//   operator+ / add_affine: the complete versions; they branch on infinity,
//     and when P - Q has zero x-difference (the "P" of the formula) they
//     return dbl (if the y-difference is also zero) or infinity, so they are
//     correct for P == Q and P == -Q (cost of the check: nothing extra).
//   to_jacobian        5M + 1S (no inversion); to_affine: 1 inversion + 5M
// Not constant time: branches on infinity and on P == +-Q; for public data
// (SRS points and bucket sums of public-by-construction MSMs).

#include <type_traits>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/jacobian.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/fp2.hpp>
#include <cuzk/ff/detail/host_device.hpp>

namespace cuzk::ec {

/// a b - c d: the Y coordinate of every XYZZ formula has this shape. The
/// device fields overload it with one Montgomery reduction instead of two
/// (gpu::mul_sub in cuda_arith.cuh for Fp and Fr, found by
/// argument-dependent lookup, more specialised than this); the host fields
/// take this.
CUZK_HD_TEMPLATE template <class F>
CUZK_HD_ATTR constexpr F mul_sub(const F& a, const F& b, const F& c, const F& d) {
  return a * b - c * d;
}

template <class F>
struct xyzz {
  using field = F;
  using affine_type = affine<F>;
  using jacobian_type = jacobian<F>;
  F x, y, zz, zzz;

  CUZK_HD static constexpr xyzz identity() { return {F::one(), F::one(), F::zero(), F::zero()}; }
  CUZK_HD static constexpr xyzz generator() { return from_affine(affine_type::generator()); }

  CUZK_HD static constexpr xyzz from_affine(const affine_type& p) {
    if (p.is_infinity()) return identity();
    return {p.x, p.y, F::one(), F::one()};
  }
  /// (X, Y, Z) -> (X, Y, Z^2, Z^3): 1M + 1S.
  CUZK_HD static constexpr xyzz from_jacobian(const jacobian_type& p) {
    if (p.is_infinity()) return identity();
    const F z2 = p.z.sqr();
    return {p.x, p.y, z2, z2 * p.z};
  }

  CUZK_HD constexpr bool is_infinity() const { return zz.is_zero(); }

  /// Jacobian (X', Y', Z'), 5M + 1S, with Z' = ZZ*ZZZ, X' = X*ZZ*ZZZ^2, Y' = Y*ZZ^3*ZZZ^2:
  /// X'/Z'^2 = X/ZZ and Y'/Z'^3 = Y/ZZZ without assuming ZZ^3 = ZZZ^2.
  CUZK_HD constexpr jacobian_type to_jacobian() const {
    if (is_infinity()) return jacobian_type::identity();
    const F z = zz * zzz;
    const F z2 = z.sqr();
    return {x * zzz * z, y * z2 * zz, z};
  }

  /// 1/ZZ = ZZZ / (ZZ*ZZZ), 1/ZZZ = ZZ / (ZZ*ZZZ): one inversion.
  CUZK_HD affine_type to_affine() const {
    if (is_infinity()) return affine_type::identity();
    const F inv = (zz * zzz).inverse();
    return {x * zzz * inv, y * zz * inv};
  }

  /// Y^2 ZZ^3 == X^3 ZZZ^2 + b ZZ^3 ZZZ^2 (x = X/ZZ, y = Y/ZZZ cleared).
  CUZK_HD constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    const F zz3 = zz.sqr() * zz;
    const F zzz2 = zzz.sqr();
    return y.sqr() * zz3 == (x.sqr() * x + curve_params<F>::b() * zz3) * zzz2;
  }

  /// Equality of the represented points: X1 ZZ2 == X2 ZZ1 and Y1 ZZZ2 == Y2 ZZZ1.
  CUZK_HD friend constexpr bool operator==(const xyzz& p, const xyzz& q) {
    if (p.is_infinity() || q.is_infinity()) return p.is_infinity() && q.is_infinity();
    return p.x * q.zz == q.x * p.zz && p.y * q.zzz == q.y * p.zzz;
  }

  CUZK_HD constexpr xyzz operator-() const { return {x, -y, zz, zzz}; }

  /// dbl-2008-s-1 (a = 0), 6M + 3S.
  CUZK_HD constexpr xyzz dbl() const {
    if (is_infinity()) return *this;
    const F u = y.dbl();
    const F v = u.sqr();
    const F w = u * v;
    const F s = x * v;
    const F x2 = x.sqr();
    const F m = x2.dbl() + x2;
    xyzz r;
    r.x = m.sqr() - s.dbl();
    r.y = mul_sub(m, s - r.x, w, y);
    r.zz = v * zz;
    r.zzz = w * zzz;
    return r;
  }

  /// mdbl-2008-s-1: 2 * q for affine q, 4M + 3S.
  CUZK_HD static constexpr xyzz dbl_affine(const affine_type& q) {
    if (q.is_infinity()) return identity();
    const F u = q.y.dbl();
    const F v = u.sqr();
    const F w = u * v;
    const F s = q.x * v;
    const F x2 = q.x.sqr();
    const F m = x2.dbl() + x2;
    xyzz r;
    r.x = m.sqr() - s.dbl();
    r.y = mul_sub(m, s - r.x, w, q.y);
    r.zz = v;
    r.zzz = w;
    return r;
  }

  /// add-2008-s, 12M + 2S. Precondition: neither operand is infinity and
  /// p != +-q (otherwise the result is garbage with ZZ = 0).
  CUZK_HD static constexpr xyzz add_unchecked(const xyzz& p, const xyzz& q) {
    const F u1 = p.x * q.zz;
    const F u2 = q.x * p.zz;
    const F s1 = p.y * q.zzz;
    const F s2 = q.y * p.zzz;
    return finish_add(p, q, u1, s1, u2 - u1, s2 - s1);
  }

  /// Complete addition (infinity, P == Q, P == -Q handled).
  CUZK_HD friend constexpr xyzz operator+(const xyzz& p, const xyzz& q) {
    if (p.is_infinity()) return q;
    if (q.is_infinity()) return p;
    const F u1 = p.x * q.zz;
    const F u2 = q.x * p.zz;
    const F s1 = p.y * q.zzz;
    const F s2 = q.y * p.zzz;
    const F pd = u2 - u1;
    const F rd = s2 - s1;
    if (pd.is_zero()) return rd.is_zero() ? p.dbl() : identity();
    return finish_add(p, q, u1, s1, pd, rd);
  }

  /// madd-2008-s, 8M + 2S. Precondition: neither operand is infinity and
  /// *this != +-q.
  CUZK_HD constexpr xyzz add_affine_unchecked(const affine_type& q) const {
    const F u2 = q.x * zz;
    const F s2 = q.y * zzz;
    return finish_madd(u2 - x, s2 - y);
  }

  /// Complete mixed addition: the bucket accumulate step.
  CUZK_HD constexpr xyzz add_affine(const affine_type& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    const F u2 = q.x * zz;
    const F s2 = q.y * zzz;
    const F pd = u2 - x;
    const F rd = s2 - y;
    if (pd.is_zero()) return rd.is_zero() ? dbl_affine(q) : identity();
    return finish_madd(pd, rd);
  }

  CUZK_HD friend constexpr xyzz operator-(const xyzz& p, const xyzz& q) { return p + (-q); }
  CUZK_HD constexpr xyzz& operator+=(const xyzz& q) { return *this = *this + q; }
  CUZK_HD constexpr xyzz& operator+=(const affine_type& q) { return *this = add_affine(q); }
  CUZK_HD constexpr xyzz& operator-=(const affine_type& q) { return *this = add_affine(-q); }

 private:
  // Shared tail of add-2008-s: |pd| = U2 - U1, |rd| = S2 - S1.
  CUZK_HD static constexpr xyzz finish_add(const xyzz& p, const xyzz& q, const F& u1, const F& s1, const F& pd,
                                           const F& rd) {
    const F pp = pd.sqr();
    const F ppp = pd * pp;
    const F qq = u1 * pp;
    xyzz r;
    r.x = rd.sqr() - ppp - qq.dbl();
    r.y = mul_sub(rd, qq - r.x, s1, ppp);
    r.zz = p.zz * q.zz * pp;
    r.zzz = p.zzz * q.zzz * ppp;
    return r;
  }
  // Shared tail of madd-2008-s: |pd| = U2 - X1, |rd| = S2 - Y1.
  CUZK_HD constexpr xyzz finish_madd(const F& pd, const F& rd) const {
    const F pp = pd.sqr();
    const F ppp = pd * pp;
    const F qq = x * pp;
    xyzz r;
    r.x = rd.sqr() - ppp - qq.dbl();
    r.y = mul_sub(rd, qq - r.x, y, ppp);
    r.zz = zz * pp;
    r.zzz = zzz * ppp;
    return r;
  }
};

using g1_xyzz = xyzz<ff::fp>;
using g2_xyzz = xyzz<ff::fp2>;

static_assert(sizeof(g1_xyzz) == 4 * 48 && sizeof(g2_xyzz) == 4 * 96);
static_assert(std::is_trivially_copyable_v<g1_xyzz> && std::is_trivially_copyable_v<g2_xyzz>);

}  // namespace cuzk::ec
