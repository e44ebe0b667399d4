// SPDX-License-Identifier: Apache-2.0
#pragma once
// mont_field<P>: a prime field element in Montgomery form.
//
// Byte layout (shared with the GPU, see docs/byte-layout.md): N little-endian
// 64-bit limbs of a*R mod p, R = 2^(64N), always fully reduced (< p). Read as
// 2N 32-bit limbs the same bytes are the GPU's representation, so host arrays
// go to the device with a plain memcpy.
//
// |P| supplies `n_limbs` and `modulus` (and, where square roots in a field
// with 2-adicity > 1 are needed, `quadratic_nonresidue`). Every other
// constant — R, R^2, -p^-1 mod 2^64, the exponents of sqrt/Legendre — is
// derived here at compile time, so each modulus is written exactly once.
//
// Costs (Zen 5, see bench/RESULTS.md): mul/sqr are the unit; inverse is a
// variable-time divstep inversion (detail/divstep_inverse.hpp; about 60 Fp
// multiplications' worth, 1.75 us), so still batch inversions where they
// matter. inverse_fermat() is the constant-time alternative (~bits squarings
// + bits/2 multiplications).

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>

#include <cuzk/ff/detail/bigint.hpp>
#include <cuzk/ff/detail/divstep_inverse.hpp>
#include <cuzk/ff/detail/host_arith.hpp>

namespace cuzk::ff {

template <class P>
class mont_field {
 public:
  static constexpr std::size_t n_limbs = P::n_limbs;
  static constexpr std::size_t n_bytes = 8 * n_limbs;
  using limbs = detail::limbs<n_limbs>;

  static constexpr limbs modulus = P::modulus;
  static constexpr std::uint64_t n0 = detail::neg_inv64(modulus[0]);
  static constexpr unsigned bits = detail::bit_length(modulus);
  static constexpr limbs r_mod_p = detail::pow2_mod<n_limbs>(64 * n_limbs, modulus);
  static constexpr limbs r2_mod_p = detail::pow2_mod<n_limbs>(128 * n_limbs, modulus);
  /// p - 1 = 2^two_adicity * odd
  static constexpr unsigned two_adicity = detail::trailing_zeros(detail::sub_small(modulus, 1));
  /// modulus and R^2 in the divstep inversion's limb form
  static constexpr detail::divstep_ctx<n_limbs> divstep_constants = detail::make_divstep_ctx(modulus, r2_mod_p);

  static_assert(modulus[0] & 1, "modulus must be odd");
  static_assert(modulus[n_limbs - 1] < (std::uint64_t(1) << 63) - 1, "no-carry CIOS needs a spare top bit");

  std::uint64_t l[n_limbs];  // Montgomery form, little-endian limbs

  mont_field() = default;  // trivial: big arrays are not zero-filled

  // ---- constants -------------------------------------------------------
  static constexpr mont_field zero() { return from_raw(limbs{}); }
  static constexpr mont_field one() { return from_raw(r_mod_p); }

  /// Wraps limbs already in Montgomery form.
  static constexpr mont_field from_raw(const limbs& m) {
    mont_field r;
    for (std::size_t i = 0; i < n_limbs; ++i) r.l[i] = m[i];
    return r;
  }
  constexpr limbs raw() const {
    limbs r{};
    for (std::size_t i = 0; i < n_limbs; ++i) r[i] = l[i];
    return r;
  }

  /// From a canonical integer; nullopt when it is not below p.
  static constexpr std::optional<mont_field> from_canonical(const limbs& c) {
    if (detail::geq(c, modulus)) return std::nullopt;
    mont_field a = from_raw(c), r;
    detail::mul_mont<n_limbs>(r.l, a.l, r2_mod_p.data(), modulus.data(), n0);
    return r;
  }
  /// From a canonical integer known to be < p (constants, tests).
  static constexpr mont_field from_canonical_unchecked(const limbs& c) {
    mont_field a = from_raw(c), r;
    detail::mul_mont<n_limbs>(r.l, a.l, r2_mod_p.data(), modulus.data(), n0);
    return r;
  }
  static constexpr mont_field from_uint(std::uint64_t v) {
    limbs c{};
    c[0] = v;  // v < 2^64 < p for every supported modulus
    return from_canonical_unchecked(c);
  }
  constexpr limbs to_canonical() const {
    limbs one_limbs{};
    one_limbs[0] = 1;
    mont_field r;
    detail::mul_mont<n_limbs>(r.l, l, one_limbs.data(), modulus.data(), n0);
    return r.raw();
  }

  // ---- bytes -----------------------------------------------------------
  /// Canonical little-endian bytes (Fr's Filecoin encoding).
  void to_bytes_le(std::uint8_t* out) const {
    const limbs c = to_canonical();
    for (std::size_t i = 0; i < n_bytes; ++i) out[i] = std::uint8_t(c[i / 8] >> (8 * (i % 8)));
  }
  /// Canonical big-endian bytes (Fp's ZCash encoding).
  void to_bytes_be(std::uint8_t* out) const {
    const limbs c = to_canonical();
    for (std::size_t i = 0; i < n_bytes; ++i) out[n_bytes - 1 - i] = std::uint8_t(c[i / 8] >> (8 * (i % 8)));
  }
  static limbs limbs_from_le(const std::uint8_t* in) {
    limbs c{};
    for (std::size_t i = 0; i < n_bytes; ++i) c[i / 8] |= std::uint64_t(in[i]) << (8 * (i % 8));
    return c;
  }
  static limbs limbs_from_be(const std::uint8_t* in) {
    limbs c{};
    for (std::size_t i = 0; i < n_bytes; ++i) c[i / 8] |= std::uint64_t(in[n_bytes - 1 - i]) << (8 * (i % 8));
    return c;
  }
  /// nullopt when the encoded integer is not below p (non-canonical).
  static std::optional<mont_field> from_bytes_le(const std::uint8_t* in) { return from_canonical(limbs_from_le(in)); }
  static std::optional<mont_field> from_bytes_be(const std::uint8_t* in) { return from_canonical(limbs_from_be(in)); }

  /// Uniform element from any 64-bit generator (rejection sampling on the
  /// canonical integer, so the distribution is exact and seed-reproducible).
  template <class Rng>
  static mont_field random(Rng& rng) {
    constexpr unsigned top_bits = bits - 64 * (n_limbs - 1);
    constexpr std::uint64_t top_mask = top_bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << top_bits) - 1;
    for (;;) {
      limbs c{};
      for (auto& x : c) x = std::uint64_t(rng());
      c[n_limbs - 1] &= top_mask;
      if (auto r = from_canonical(c)) return *r;
    }
  }

  // ---- predicates ------------------------------------------------------
  constexpr bool is_zero() const {
    std::uint64_t acc = 0;
    for (auto x : l) acc |= x;
    return acc == 0;
  }
  constexpr bool is_one() const { return *this == one(); }
  friend constexpr bool operator==(const mont_field& a, const mont_field& b) {
    std::uint64_t acc = 0;
    for (std::size_t i = 0; i < n_limbs; ++i) acc |= a.l[i] ^ b.l[i];
    return acc == 0;
  }
  /// True when the canonical value is > (p-1)/2 (ZCash's sign rule).
  constexpr bool lexicographically_largest() const { return !detail::geq(half_p_minus_1(), to_canonical()); }

  // ---- arithmetic ------------------------------------------------------
  // + and - are always inlined: their body is one short asm block for Fp
  // (host_arith.hpp), and GCC kept them as calls (~9% of a CPU MSM's
  // samples in the call, at about twice the cost of the block itself).
  [[gnu::always_inline]] friend constexpr mont_field operator+(const mont_field& a, const mont_field& b) {
    mont_field r;
    detail::add_mod<n_limbs>(r.l, a.l, b.l, modulus.data());
    return r;
  }
  [[gnu::always_inline]] friend constexpr mont_field operator-(const mont_field& a, const mont_field& b) {
    mont_field r;
    detail::sub_mod<n_limbs>(r.l, a.l, b.l, modulus.data());
    return r;
  }
  friend constexpr mont_field operator*(const mont_field& a, const mont_field& b) {
    mont_field r;
    detail::mul_mont<n_limbs>(r.l, a.l, b.l, modulus.data(), n0);
    return r;
  }
  constexpr mont_field operator-() const {
    mont_field r;
    detail::neg_mod<n_limbs>(r.l, l, modulus.data());
    return r;
  }
  constexpr mont_field& operator+=(const mont_field& b) { return *this = *this + b; }
  constexpr mont_field& operator-=(const mont_field& b) { return *this = *this - b; }
  constexpr mont_field& operator*=(const mont_field& b) { return *this = *this * b; }

  constexpr mont_field dbl() const { return *this + *this; }
  constexpr mont_field sqr() const {
    mont_field r;
    detail::sqr_mont<n_limbs>(r.l, l, modulus.data(), n0);
    return r;
  }
  /// Halving: a/2 mod p.
  constexpr mont_field half() const {
    // a even: a >> 1; a odd: (a + p) >> 1 (in Montgomery form this is still a/2).
    limbs a = raw();
    std::uint64_t carry = 0;
    if (a[0] & 1) carry = detail::add_in_place(a, modulus);
    a = detail::shr(a, 1);
    a[n_limbs - 1] |= carry << 63;
    return from_raw(a);
  }

  /// this^e for a little-endian exponent (square-and-multiply, left to right).
  template <std::size_t M>
  constexpr mont_field pow(const detail::limbs<M>& e) const {
    mont_field r = one();
    for (unsigned i = detail::bit_length(e); i-- > 0;) {
      r = r.sqr();
      if (detail::test_bit(e, i)) r = r * *this;
    }
    return r;
  }
  constexpr mont_field pow(std::uint64_t e) const { return pow(detail::limbs<1>{e}); }

  /// Multiplicative inverse; inverse of 0 is 0. VARIABLE TIME (its running
  /// time depends on the value): fine for this project's uses, which all
  /// invert public data (point normalisation, pairing, setup constants).
  /// The divstep loop inverts the raw representative aR; starting it from
  /// R^2 instead of 1 makes it return R^2 / (aR) = a^-1 R, the Montgomery
  /// form of the answer, with no correcting multiplication.
  constexpr mont_field inverse() const {
    if (is_zero()) return zero();
    return from_raw(detail::divstep_inverse(raw(), divstep_constants));
  }
  /// Constant-time inverse by Fermat (a^(p-2)); inverse of 0 is 0. For any
  /// use that inverts a secret; ~11x slower than inverse() for Fp, ~7x for Fr.
  constexpr mont_field inverse_fermat() const { return pow(detail::sub_small(modulus, 2)); }

  /// Legendre symbol: 0 for zero, 1 for a non-zero square, -1 otherwise.
  constexpr int legendre() const {
    if (is_zero()) return 0;
    return pow(half_p_minus_1()).is_one() ? 1 : -1;
  }

  /// A square root (either one), or nullopt when none exists.
  /// p = 3 mod 4: a^((p+1)/4). Otherwise Tonelli-Shanks with P's quadratic
  /// non-residue; cost ~ bits + two_adicity^2 / 2 multiplications.
  constexpr std::optional<mont_field> sqrt() const {
    if (is_zero()) return zero();
    if constexpr (two_adicity == 1) {
      const mont_field s = pow(detail::shr(detail::add_small(modulus, 1), 2));
      if (s.sqr() == *this) return s;
      return std::nullopt;
    } else {
      // p - 1 = 2^S * t, t odd
      constexpr limbs t = detail::shr(detail::sub_small(modulus, 1), two_adicity);
      constexpr limbs t_minus_1_half = detail::shr(detail::sub_small(t, 1), 1);
      mont_field z = from_uint(P::quadratic_nonresidue).pow(t);
      const mont_field w = pow(t_minus_1_half);  // a^((t-1)/2)
      mont_field x = *this * w;                  // a^((t+1)/2)
      mont_field b = x * w;                      // a^t
      unsigned m = two_adicity;
      while (!b.is_one()) {
        unsigned k = 0;
        mont_field b2k = b;
        while (!b2k.is_one()) {
          b2k = b2k.sqr();
          if (++k == m) return std::nullopt;  // not a square
        }
        mont_field c = z;
        for (unsigned i = 0; i + k + 1 < m; ++i) c = c.sqr();
        m = k;
        z = c.sqr();
        b = b * z;
        x = x * c;
      }
      return x;
    }
  }

 private:
  static constexpr limbs half_p_minus_1() { return detail::shr(detail::sub_small(modulus, 1), 1); }
};

}  // namespace cuzk::ff
