// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fp2 = Fp[u] / (u^2 + 1), element c0 + c1*u.
//
// Layout: c0 then c1, each an fp (96 bytes). Note the ZCash serialization of
// G2 writes c1 before c0; that reordering lives in the encoder, not here.
// Multiplication is Karatsuba (3 Fp muls); squaring uses
// (c0+c1)(c0-c1) + 2*c0*c1*u (2 Fp muls).

#include <optional>

#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::ff {

struct fp2 {
  fp c0, c1;

  static constexpr fp2 zero() { return {fp::zero(), fp::zero()}; }
  static constexpr fp2 one() { return {fp::one(), fp::zero()}; }

  template <class Rng>
  static fp2 random(Rng& rng) {
    fp a = fp::random(rng);
    return {a, fp::random(rng)};
  }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend constexpr bool operator==(const fp2& a, const fp2& b) = default;

  friend constexpr fp2 operator+(const fp2& a, const fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr fp2 operator-(const fp2& a, const fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr fp2 operator-() const { return {-c0, -c1}; }
  friend constexpr fp2 operator*(const fp2& a, const fp2& b) {
    const fp t0 = a.c0 * b.c0;
    const fp t1 = a.c1 * b.c1;
    const fp t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {t0 - t1, t2 - t0 - t1};
  }
  /// Multiplication by an Fp scalar.
  friend constexpr fp2 operator*(const fp2& a, const fp& s) { return {a.c0 * s, a.c1 * s}; }
  constexpr fp2& operator+=(const fp2& b) { return *this = *this + b; }
  constexpr fp2& operator-=(const fp2& b) { return *this = *this - b; }
  constexpr fp2& operator*=(const fp2& b) { return *this = *this * b; }

  constexpr fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  constexpr fp2 sqr() const {
    const fp a = (c0 + c1) * (c0 - c1);
    const fp b = (c0 * c1).dbl();
    return {a, b};
  }
  /// Conjugation, which is also the p-power Frobenius map.
  constexpr fp2 conjugate() const { return {c0, -c1}; }
  constexpr fp2 frobenius_map(unsigned power) const { return (power & 1) ? conjugate() : *this; }
  /// Multiplication by the sextic non-residue xi = u + 1 used by Fp6.
  constexpr fp2 mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }
  /// Norm c0^2 + c1^2, an element of Fp.
  constexpr fp norm() const { return c0.sqr() + c1.sqr(); }
  constexpr fp2 inverse() const {
    const fp t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }

  template <std::size_t M>
  constexpr fp2 pow(const detail::limbs<M>& e) const {
    fp2 r = one();
    for (unsigned i = detail::bit_length(e); i-- > 0;) {
      r = r.sqr();
      if (detail::test_bit(e, i)) r = r * *this;
    }
    return r;
  }

  /// ZCash sign rule for Fp2: compare c1 first, c0 when c1 is zero.
  constexpr bool lexicographically_largest() const {
    return c1.lexicographically_largest() || (c1.is_zero() && c0.lexicographically_largest());
  }

  /// Square root for p = 3 mod 4 (Adj and Rodriguez-Henriquez 2012, Alg. 9);
  /// nullopt when a is not a square. Cost: two Fp2 exponentiations.
  std::optional<fp2> sqrt() const {
    if (is_zero()) return zero();
    constexpr auto p = fp::modulus;
    constexpr auto p_minus_3_div_4 = detail::shr(detail::sub_small(p, 3), 2);
    constexpr auto p_minus_1_div_2 = detail::shr(detail::sub_small(p, 1), 1);
    const fp2 a1 = pow(p_minus_3_div_4);
    const fp2 alpha = a1.sqr() * *this;  // a^((p-1)/2)
    const fp2 a0 = alpha.conjugate() * alpha;
    const fp2 minus_one = -one();
    if (a0 == minus_one) return std::nullopt;
    const fp2 x0 = a1 * *this;
    fp2 x;
    if (alpha == minus_one) {
      x = fp2{-x0.c1, x0.c0};  // multiply by u
    } else {
      x = (alpha + one()).pow(p_minus_1_div_2) * x0;
    }
    if (x.sqr() != *this) return std::nullopt;
    return x;
  }
};

static_assert(sizeof(fp2) == 96);

}  // namespace cuzk::ff
