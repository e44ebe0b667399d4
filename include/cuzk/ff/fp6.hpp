// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fp6 = Fp2[v] / (v^3 - xi), xi = u + 1; element c0 + c1*v + c2*v^2.
//
// Layout: c0, c1, c2, each an fp2 (288 bytes in all), the same order as
// zkcrypto/bls12_381 and blst, so Montgomery limbs compare one to one.
//
// Method and cost in Fp2 multiplications (M2) and squarings (S2):
//   mul        Karatsuba over three coefficients          6 M2
//   sqr        Chung-Hasan CH-SQR2 (SAC 2006)             2 M2 + 3 S2
//   mul_by_01  by b0 + b1*v (Miller-loop lines)           5 M2
//   mul_by_1   by b1*v                                    3 M2
//   inverse    adjugate / norm to Fp2 (one Fp inversion)  9 M2 + 3 S2 + inv
//   frobenius_map(k)  c_i^(p^k) times xi^(i(p^k-1)/3)     2 M2 (k odd: + conj)
// Multiplication by xi (mul_by_nonresidue on fp2) is two Fp additions.
//
// Frobenius coefficients are not typed in: detail::xi_frobenius_powers() holds
// gamma_k = xi^((p^k - 1)/6) for k = 0..11, computed on first use (a
// function-local static; the maker is constexpr) from
// gamma_1 = xi^((p-1)/6) (one Fp2 exponentiation) and the recurrence
// gamma_k = gamma_{k-1}^p * gamma_1. Fp6 uses gamma_k^2 = xi^((p^k-1)/3) and
// gamma_k^4 = xi^(2(p^k-1)/3); Fp12 uses gamma_k itself. tower_test checks a
// few entries against the constants published by zkcrypto/bls12_381.
//
// Invariants: as for fp2, inputs and outputs fully reduced, outputs may alias
// inputs, everything but frobenius_map is constexpr. The inverse of zero is
// zero. No timing guarantee beyond fp2's: the callers (proof verification)
// work on public data.

#include <array>
#include <cstdint>

#include <cuzk/ff/fp2.hpp>

namespace cuzk::ff {

namespace detail {

static_assert(div_small(sub_small(fp::modulus, 1), 6).r == 0, "p = 1 mod 6 for BLS12-381");

/// gamma_k = xi^((p^k - 1) / 6), k = 0..11 (xi = u + 1).
constexpr std::array<fp2, 12> make_xi_frobenius_powers() {
  constexpr auto p_minus_1_div_6 = div_small(sub_small(fp::modulus, 1), 6).q;
  const fp2 xi{fp::one(), fp::one()};
  std::array<fp2, 12> g{};
  g[0] = fp2::one();
  g[1] = xi.pow(p_minus_1_div_6);
  for (std::size_t k = 2; k < 12; ++k) g[k] = g[k - 1].conjugate() * g[1];
  return g;
}

/// The table above, computed on first use. (Evaluating it as a namespace-scope
/// constexpr costs GCC about 1.3 s in every translation unit that includes
/// this header, so the constexpr maker is kept for device tables and
/// static_asserts, and the host takes a function-local static.)
inline const std::array<fp2, 12>& xi_frobenius_powers() {
  static const std::array<fp2, 12> table = make_xi_frobenius_powers();
  return table;
}

struct fp6_frobenius_coeffs {
  std::array<fp2, 6> c1;  // xi^((p^k - 1)/3)
  std::array<fp2, 6> c2;  // xi^(2(p^k - 1)/3)
};

constexpr fp6_frobenius_coeffs make_fp6_frobenius_coeffs(const std::array<fp2, 12>& gamma) {
  fp6_frobenius_coeffs t{};
  for (std::size_t k = 0; k < 6; ++k) {
    t.c1[k] = gamma[k].sqr();
    t.c2[k] = t.c1[k].sqr();
  }
  return t;
}

inline const fp6_frobenius_coeffs& fp6_frobenius() {
  static const fp6_frobenius_coeffs table = make_fp6_frobenius_coeffs(xi_frobenius_powers());
  return table;
}

}  // namespace detail

struct fp6 {
  fp2 c0, c1, c2;

  static constexpr fp6 zero() { return {fp2::zero(), fp2::zero(), fp2::zero()}; }
  static constexpr fp6 one() { return {fp2::one(), fp2::zero(), fp2::zero()}; }

  template <class Rng>
  static fp6 random(Rng& rng) {
    fp6 r;
    r.c0 = fp2::random(rng);
    r.c1 = fp2::random(rng);
    r.c2 = fp2::random(rng);
    return r;
  }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
  friend constexpr bool operator==(const fp6& a, const fp6& b) = default;

  friend constexpr fp6 operator+(const fp6& a, const fp6& b) { return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2}; }
  friend constexpr fp6 operator-(const fp6& a, const fp6& b) { return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2}; }
  constexpr fp6 operator-() const { return {-c0, -c1, -c2}; }
  constexpr fp6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }

  friend constexpr fp6 operator*(const fp6& a, const fp6& b) {
    const fp2 t0 = a.c0 * b.c0;
    const fp2 t1 = a.c1 * b.c1;
    const fp2 t2 = a.c2 * b.c2;
    fp6 r;
    r.c0 = ((a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2).mul_by_nonresidue() + t0;
    r.c1 = (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1 + t2.mul_by_nonresidue();
    r.c2 = (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2 + t1;
    return r;
  }
  /// Multiplication by an Fp2 scalar (3 M2).
  friend constexpr fp6 operator*(const fp6& a, const fp2& s) { return {a.c0 * s, a.c1 * s, a.c2 * s}; }
  constexpr fp6& operator+=(const fp6& b) { return *this = *this + b; }
  constexpr fp6& operator-=(const fp6& b) { return *this = *this - b; }
  constexpr fp6& operator*=(const fp6& b) { return *this = *this * b; }

  /// CH-SQR2: s0 = c0^2, s1 = 2 c0 c1, s2 = (c0 - c1 + c2)^2, s3 = 2 c1 c2,
  /// s4 = c2^2; result (s0 + xi s3, s1 + xi s4, s1 + s2 + s3 - s0 - s4).
  constexpr fp6 sqr() const {
    const fp2 s0 = c0.sqr();
    const fp2 s1 = (c0 * c1).dbl();
    const fp2 s2 = (c0 - c1 + c2).sqr();
    const fp2 s3 = (c1 * c2).dbl();
    const fp2 s4 = c2.sqr();
    fp6 r;
    r.c0 = s3.mul_by_nonresidue() + s0;
    r.c1 = s4.mul_by_nonresidue() + s1;
    r.c2 = s1 + s2 + s3 - s0 - s4;
    return r;
  }

  /// Multiplication by v: (c0, c1, c2) -> (xi c2, c0, c1).
  constexpr fp6 mul_by_nonresidue() const { return {c2.mul_by_nonresidue(), c0, c1}; }

  /// this * (b0 + b1 v), 5 M2.
  constexpr fp6 mul_by_01(const fp2& b0, const fp2& b1) const {
    const fp2 t0 = c0 * b0;
    const fp2 t1 = c1 * b1;
    fp6 r;
    r.c0 = (c2 * b1).mul_by_nonresidue() + t0;
    r.c1 = (c0 + c1) * (b0 + b1) - t0 - t1;
    r.c2 = c2 * b0 + t1;
    return r;
  }

  /// this * (b1 v), 3 M2.
  constexpr fp6 mul_by_1(const fp2& b1) const { return {(c2 * b1).mul_by_nonresidue(), c0 * b1, c1 * b1}; }

  /// Inverse through the adjugate: with A = c0^2 - xi c1 c2, B = xi c2^2 - c0 c1,
  /// C = c1^2 - c0 c2 and N = c0 A + xi (c2 B + c1 C) in Fp2,
  /// 1/this = (A, B, C) / N. The inverse of zero is zero.
  constexpr fp6 inverse() const {
    const fp2 a = c0.sqr() - (c1 * c2).mul_by_nonresidue();
    const fp2 b = c2.sqr().mul_by_nonresidue() - c0 * c1;
    const fp2 c = c1.sqr() - c0 * c2;
    const fp2 n = (c2 * b + c1 * c).mul_by_nonresidue() + c0 * a;
    const fp2 ni = n.inverse();
    return {a * ni, b * ni, c * ni};
  }

  /// this^(p^k). v^(p^k) = xi^((p^k-1)/3) v, so the coefficients are
  /// conjugated k times and scaled by the precomputed powers of xi.
  fp6 frobenius_map(unsigned k) const {
    k %= 6;
    const auto& t = detail::fp6_frobenius();
    return {c0.frobenius_map(k), c1.frobenius_map(k) * t.c1[k], c2.frobenius_map(k) * t.c2[k]};
  }

  template <std::size_t M>
  constexpr fp6 pow(const detail::limbs<M>& e) const {
    fp6 r = one();
    for (unsigned i = detail::bit_length(e); i-- > 0;) {
      r = r.sqr();
      if (detail::test_bit(e, i)) r = r * *this;
    }
    return r;
  }
};

static_assert(sizeof(fp6) == 288 && alignof(fp6) == 8);

}  // namespace cuzk::ff
