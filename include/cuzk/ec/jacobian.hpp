// SPDX-License-Identifier: Apache-2.0
#pragma once
// jacobian<F>: (X, Y, Z) representing (X/Z^2, Y/Z^3) on y^2 = x^3 + b (a = 0).
// The point at infinity has Z = 0.
//
// Formulas (Explicit-Formulas Database, a = 0), cost in field mul (M) and
// squarings (S):
//   dbl   dbl-2009-l       2M + 5S
//   add   add-2007-bl     11M + 5S   (falls back to dbl when P == Q)
//   madd  madd-2007-bl     7M + 4S   (second operand affine, Z2 = 1)
// None of these is constant time with respect to the inputs (branches on
// infinity and on P == Q); they are for public data: SRS points, proofs.

#include <cuzk/ec/affine.hpp>

namespace cuzk::ec {

template <class F>
struct jacobian {
  using field = F;
  using affine_type = affine<F>;
  F x, y, z;

  static constexpr jacobian identity() { return {F::one(), F::one(), F::zero()}; }
  static constexpr jacobian generator() { return from_affine(affine_type::generator()); }
  static constexpr jacobian from_affine(const affine_type& p) {
    if (p.is_infinity()) return identity();
    return {p.x, p.y, F::one()};
  }

  constexpr bool is_infinity() const { return z.is_zero(); }

  affine_type to_affine() const {
    if (is_infinity()) return affine_type::identity();
    const F zi = z.inverse();
    const F zi2 = zi.sqr();
    return {x * zi2, y * zi2 * zi};
  }

  /// Y^2 = X^3 + b Z^6
  constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    const F z2 = z.sqr();
    const F z6 = z2.sqr() * z2;
    return y.sqr() == x.sqr() * x + curve_params<F>::b() * z6;
  }

  /// Projective equality: X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3.
  friend constexpr bool operator==(const jacobian& p, const jacobian& q) {
    if (p.is_infinity() || q.is_infinity()) return p.is_infinity() && q.is_infinity();
    const F z1z1 = p.z.sqr(), z2z2 = q.z.sqr();
    return p.x * z2z2 == q.x * z1z1 && p.y * z2z2 * q.z == q.y * z1z1 * p.z;
  }

  constexpr jacobian operator-() const { return {x, -y, z}; }

  constexpr jacobian dbl() const {
    if (is_infinity()) return *this;
    const F a = x.sqr();
    const F b = y.sqr();
    const F c = b.sqr();
    const F d = ((x + b).sqr() - a - c).dbl();
    const F e = a.dbl() + a;
    const F f = e.sqr();
    jacobian r;
    r.x = f - d.dbl();
    r.y = e * (d - r.x) - c.dbl().dbl().dbl();
    r.z = (y * z).dbl();
    return r;
  }

  friend constexpr jacobian operator+(const jacobian& p, const jacobian& q) {
    if (p.is_infinity()) return q;
    if (q.is_infinity()) return p;
    const F z1z1 = p.z.sqr();
    const F z2z2 = q.z.sqr();
    const F u1 = p.x * z2z2;
    const F u2 = q.x * z1z1;
    const F s1 = p.y * q.z * z2z2;
    const F s2 = q.y * p.z * z1z1;
    const F h = u2 - u1;
    const F rr = (s2 - s1).dbl();
    if (h.is_zero()) return rr.is_zero() ? p.dbl() : identity();
    const F i = h.dbl().sqr();
    const F j = h * i;
    const F v = u1 * i;
    jacobian r;
    r.x = rr.sqr() - j - v.dbl();
    r.y = rr * (v - r.x) - (s1 * j).dbl();
    r.z = ((p.z + q.z).sqr() - z1z1 - z2z2) * h;
    return r;
  }

  /// Mixed addition with an affine point.
  constexpr jacobian add_affine(const affine_type& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    const F z1z1 = z.sqr();
    const F u2 = q.x * z1z1;
    const F s2 = q.y * z * z1z1;
    const F h = u2 - x;
    const F rr = (s2 - y).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl() : identity();
    const F hh = h.sqr();
    const F i = hh.dbl().dbl();
    const F j = h * i;
    const F v = x * i;
    jacobian r;
    r.x = rr.sqr() - j - v.dbl();
    r.y = rr * (v - r.x) - (y * j).dbl();
    r.z = (z + h).sqr() - z1z1 - hh;
    return r;
  }

  friend constexpr jacobian operator-(const jacobian& p, const jacobian& q) { return p + (-q); }
  constexpr jacobian& operator+=(const jacobian& q) { return *this = *this + q; }
  constexpr jacobian& operator+=(const affine_type& q) { return *this = add_affine(q); }
};

}  // namespace cuzk::ec
