// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fp12 = Fp6[w] / (w^2 - v); element c0 + c1*w. GT, the pairing target group,
// is the subgroup of order r of Fp12^*.
//
// Layout: c0 then c1, each an fp6 (576 bytes), the order of zkcrypto/bls12_381
// and blst. Over Fp2 the basis is, in memory order,
//   c0.c0 = 1, c0.c1 = w^2, c0.c2 = w^4, c1.c0 = w, c1.c1 = w^3, c1.c2 = w^5
// (w^6 = xi = u + 1), which names the sparse products: mul_by_014 multiplies
// by an element with only the 1, w^2 and w^3 coefficients set.
//
// Method and cost in Fp2 multiplications (M2) and squarings (S2):
//   mul              Karatsuba over Fp6                       18 M2
//   sqr              complex squaring, (a+b)(a+vb) - ab - vab  12 M2
//   mul_by_014       by a Miller-loop line of the M-type twist 13 M2
//   inverse          (c0 - c1 w) / (c0^2 - v c1^2)             one Fp6 inverse + 12 M2
//   conjugate        c0 - c1 w = this^(p^6)                    free
//   frobenius_map(k) this^(p^k)                                ~5 M2
//   cyclotomic_sqr   Granger-Scott (PKC 2010), only valid in the cyclotomic
//                    subgroup G_{Phi_12(p)} (f^(p^4 - p^2 + 1) = 1)   9 S2
//   cyclotomic_pow_x_abs  f^|x|, |x| = 0xd201000000010000:
//                    63 cyclotomic_sqr + 5 mul
//
// Cyclotomic squaring: view Fp12 as Fp4[w]/(w^3 - s), Fp4 = Fp2[s]/(s^2 - xi),
// s = w^3, so f = A + B w + C w^2 with A = (c0.c0, c1.c1), B = (c1.c0, c0.c2),
// C = (c0.c1, c1.c2). For f in the cyclotomic subgroup (f^(p^6) = 1/f) Granger
// and Scott show f^2 = (3A^2 - 2 conj A) + (3 s C^2 + 2 conj B) w
// + (3 B^2 - 2 conj C) w^2, conj being the p^6-power on Fp4 (s -> -s). Each
// Fp4 square costs 3 S2.
//
// Invariants: as for fp2/fp6 (fully reduced, aliasing allowed). cyclotomic_*
// give garbage (not an error) outside the cyclotomic subgroup; the final
// exponentiation only calls them after its easy part.

#include <cstdint>

#include <cuzk/ff/fp6.hpp>

namespace cuzk::ff {

struct fp12 {
  fp6 c0, c1;

  /// |x| of the BLS12-381 seed x = -0xd201000000010000 (the ec layer's
  /// ec::bls_x_abs; pairing.cpp asserts that the two agree).
  static constexpr std::uint64_t x_abs = 0xd201000000010000;

  static constexpr fp12 zero() { return {fp6::zero(), fp6::zero()}; }
  static constexpr fp12 one() { return {fp6::one(), fp6::zero()}; }

  template <class Rng>
  static fp12 random(Rng& rng) {
    fp12 r;
    r.c0 = fp6::random(rng);
    r.c1 = fp6::random(rng);
    return r;
  }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  /// True for the identity of GT.
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend constexpr bool operator==(const fp12& a, const fp12& b) = default;

  friend constexpr fp12 operator+(const fp12& a, const fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr fp12 operator-(const fp12& a, const fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr fp12 operator-() const { return {-c0, -c1}; }
  constexpr fp12 dbl() const { return {c0.dbl(), c1.dbl()}; }

  friend constexpr fp12 operator*(const fp12& a, const fp12& b) {
    const fp6 t0 = a.c0 * b.c0;
    const fp6 t1 = a.c1 * b.c1;
    fp12 r;
    r.c1 = (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1;
    r.c0 = t1.mul_by_nonresidue() + t0;
    return r;
  }
  constexpr fp12& operator+=(const fp12& b) { return *this = *this + b; }
  constexpr fp12& operator-=(const fp12& b) { return *this = *this - b; }
  constexpr fp12& operator*=(const fp12& b) { return *this = *this * b; }

  constexpr fp12 sqr() const {
    const fp6 ab = c0 * c1;
    fp12 r;
    r.c0 = (c0 + c1) * (c0 + c1.mul_by_nonresidue()) - ab - ab.mul_by_nonresidue();
    r.c1 = ab.dbl();
    return r;
  }

  /// this * (d0 + d1 w^2 + d4 w^3), i.e. by ((d0, d1, 0), (0, d4, 0)).
  constexpr fp12 mul_by_014(const fp2& d0, const fp2& d1, const fp2& d4) const {
    const fp6 t0 = c0.mul_by_01(d0, d1);
    const fp6 t1 = c1.mul_by_1(d4);
    fp12 r;
    r.c1 = (c0 + c1).mul_by_01(d0, d1 + d4) - t0 - t1;
    r.c0 = t1.mul_by_nonresidue() + t0;
    return r;
  }

  /// this^(p^6): w -> -w.
  constexpr fp12 conjugate() const { return {c0, -c1}; }

  /// The inverse of zero is zero. In the cyclotomic subgroup prefer conjugate().
  constexpr fp12 inverse() const {
    const fp6 t = (c0.sqr() - c1.sqr().mul_by_nonresidue()).inverse();
    return {c0 * t, -(c1 * t)};
  }

  /// this^(p^k): w^(p^k) = xi^((p^k - 1)/6) w.
  fp12 frobenius_map(unsigned k) const {
    k %= 12;
    return {c0.frobenius_map(k), c1.frobenius_map(k) * detail::xi_frobenius_powers()[k]};
  }

  /// Squaring in the cyclotomic subgroup (see the file comment), 9 S2.
  constexpr fp12 cyclotomic_sqr() const {
    // (a + b s)^2 = (a^2 + xi b^2) + 2ab s, returned as {real, s-part}
    struct fp4 {
      fp2 x, y;
    };
    constexpr auto fp4_sqr = [](const fp2& a, const fp2& b) {
      const fp2 t0 = a.sqr();
      const fp2 t1 = b.sqr();
      return fp4{t1.mul_by_nonresidue() + t0, (a + b).sqr() - t0 - t1};
    };
    const fp4 a2 = fp4_sqr(c0.c0, c1.c1);  // A^2
    const fp4 b2 = fp4_sqr(c1.c0, c0.c2);  // B^2
    const fp4 c2 = fp4_sqr(c0.c1, c1.c2);  // C^2
    fp12 r;
    // 3 A^2 - 2 conj(A)
    r.c0.c0 = (a2.x - c0.c0).dbl() + a2.x;
    r.c1.c1 = (a2.y + c1.c1).dbl() + a2.y;
    // 3 s C^2 + 2 conj(B); s C^2 = xi y + x s
    const fp2 xi_cy = c2.y.mul_by_nonresidue();
    r.c1.c0 = (xi_cy + c1.c0).dbl() + xi_cy;
    r.c0.c2 = (c2.x - c0.c2).dbl() + c2.x;
    // 3 B^2 - 2 conj(C)
    r.c0.c1 = (b2.x - c0.c1).dbl() + b2.x;
    r.c1.c2 = (b2.y + c1.c2).dbl() + b2.y;
    return r;
  }

  /// this^|x| for |x| = 0xd201000000010000, the BLS12-381 seed (x < 0).
  /// Cyclotomic subgroup only.
  constexpr fp12 cyclotomic_pow_x_abs() const {
    static_assert((x_abs >> 63) == 1, "the loop starts below the top bit");
    fp12 r = *this;  // top bit (63)
    for (int i = 62; i >= 0; --i) {
      r = r.cyclotomic_sqr();
      if ((x_abs >> i) & 1) r *= *this;
    }
    return r;
  }
  /// this^x = conj(this^|x|) since x < 0 and conj is the inverse there.
  constexpr fp12 cyclotomic_pow_x() const { return cyclotomic_pow_x_abs().conjugate(); }

  /// Generic square-and-multiply, valid for any element.
  template <std::size_t M>
  constexpr fp12 pow(const detail::limbs<M>& e) const {
    fp12 r = one();
    for (unsigned i = detail::bit_length(e); i-- > 0;) {
      r = r.sqr();
      if (detail::test_bit(e, i)) r = r * *this;
    }
    return r;
  }
};

static_assert(sizeof(fp12) == 576 && alignof(fp12) == 8);

}  // namespace cuzk::ff
