// SPDX-License-Identifier: Apache-2.0
#pragma once
// Constexpr multi-precision helpers over little-endian 64-bit limbs.
//
// Used to derive every field constant (Montgomery R, R^2, -p^-1, exponents
// such as (p-1)/2) from the modulus at compile time, so that each modulus is
// written exactly once. Not on any hot path.

#include <array>
#include <cstddef>
#include <cstdint>

namespace cuzk::ff::detail {

// __extension__: unsigned __int128 is a GCC/Clang extension, the one -Wpedantic build allows.
__extension__ using u128 = unsigned __int128;

template <std::size_t N>
using limbs = std::array<std::uint64_t, N>;

template <std::size_t N>
constexpr bool is_zero(const limbs<N>& a) {
  for (auto x : a)
    if (x) return false;
  return true;
}

/// a >= b
template <std::size_t N>
constexpr bool geq(const limbs<N>& a, const limbs<N>& b) {
  for (std::size_t i = N; i-- > 0;) {
    if (a[i] != b[i]) return a[i] > b[i];
  }
  return true;
}

/// a += b, returns carry out
template <std::size_t N>
constexpr std::uint64_t add_in_place(limbs<N>& a, const limbs<N>& b) {
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < N; ++i) {
    u128 t = u128(a[i]) + b[i] + carry;
    a[i] = std::uint64_t(t);
    carry = std::uint64_t(t >> 64);
  }
  return carry;
}

/// a -= b, returns borrow out
template <std::size_t N>
constexpr std::uint64_t sub_in_place(limbs<N>& a, const limbs<N>& b) {
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < N; ++i) {
    u128 t = u128(a[i]) - b[i] - borrow;
    a[i] = std::uint64_t(t);
    borrow = std::uint64_t(t >> 64) & 1;
  }
  return borrow;
}

template <std::size_t N>
constexpr limbs<N> sub_small(limbs<N> a, std::uint64_t s) {
  limbs<N> b{};
  b[0] = s;
  sub_in_place(a, b);
  return a;
}

template <std::size_t N>
constexpr limbs<N> add_small(limbs<N> a, std::uint64_t s) {
  limbs<N> b{};
  b[0] = s;
  add_in_place(a, b);
  return a;
}

template <std::size_t N>
constexpr limbs<N> shr(limbs<N> a, unsigned k) {
  while (k >= 64) {
    for (std::size_t i = 0; i + 1 < N; ++i) a[i] = a[i + 1];
    a[N - 1] = 0;
    k -= 64;
  }
  if (k == 0) return a;
  for (std::size_t i = 0; i < N; ++i) {
    a[i] = (a[i] >> k) | (i + 1 < N ? a[i + 1] << (64 - k) : 0);
  }
  return a;
}

template <std::size_t N>
constexpr unsigned bit_length(const limbs<N>& a) {
  for (std::size_t i = N; i-- > 0;) {
    if (a[i]) {
      unsigned b = 0;
      for (std::uint64_t x = a[i]; x; x >>= 1) ++b;
      return unsigned(i * 64) + b;
    }
  }
  return 0;
}

template <std::size_t N>
constexpr bool test_bit(const limbs<N>& a, unsigned i) {
  return (a[i / 64] >> (i % 64)) & 1;
}

/// Number of trailing zero bits (the 2-adicity of p-1 when applied to p-1).
template <std::size_t N>
constexpr unsigned trailing_zeros(const limbs<N>& a) {
  unsigned n = 0;
  while (n < 64 * N && !test_bit(a, n)) ++n;
  return n;
}

/// (2 * a) mod m, for a < m and m < 2^(64N-1).
template <std::size_t N>
constexpr limbs<N> double_mod(limbs<N> a, const limbs<N>& m) {
  add_in_place(a, a);
  if (geq(a, m)) sub_in_place(a, m);
  return a;
}

/// -m^-1 mod 2^64 by Newton iteration (m odd).
constexpr std::uint64_t neg_inv64(std::uint64_t m0) {
  std::uint64_t x = 1;
  for (int i = 0; i < 7; ++i) x *= 2 - m0 * x;
  return ~x + 1;
}

/// 2^k mod m, by repeated doubling from 1.
template <std::size_t N>
constexpr limbs<N> pow2_mod(unsigned k, const limbs<N>& m) {
  limbs<N> a{};
  a[0] = 1;
  for (unsigned i = 0; i < k; ++i) a = double_mod(a, m);
  return a;
}

/// Quotient and remainder of a by a 64-bit divisor d (schoolbook, top limb
/// first); used to derive exponents such as (p-1)/6 and the GLV split.
template <std::size_t N>
struct div_small_result {
  limbs<N> q;
  std::uint64_t r;
};
template <std::size_t N>
constexpr div_small_result<N> div_small(const limbs<N>& a, std::uint64_t d) {
  div_small_result<N> out{};
  u128 rem = 0;
  for (std::size_t i = N; i-- > 0;) {
    const u128 cur = (rem << 64) | a[i];
    out.q[i] = std::uint64_t(cur / d);
    rem = cur % d;
  }
  out.r = std::uint64_t(rem);
  return out;
}
/// Parses a big-endian hex literal ("0x..." or bare digits) into limbs, at
/// compile time. Used for curve constants so they read like the published
/// values; too many digits or a non-hex character fails constant evaluation.
template <std::size_t N>
consteval limbs<N> limbs_from_hex(const char* hex) {
  std::size_t len = 0;
  while (hex[len]) ++len;
  std::size_t start = (len >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) ? 2 : 0;
  limbs<N> r{};
  unsigned bit = 0;
  for (std::size_t i = len; i-- > start;) {
    const char ch = hex[i];
    std::uint64_t v = ch >= '0' && ch <= '9'   ? std::uint64_t(ch - '0')
                      : ch >= 'a' && ch <= 'f' ? std::uint64_t(ch - 'a' + 10)
                      : ch >= 'A' && ch <= 'F' ? std::uint64_t(ch - 'A' + 10)
                                               : throw "limbs_from_hex: bad digit";
    if (bit >= 64 * N) {
      if (v) throw "limbs_from_hex: value too large";
    } else {
      r[bit / 64] |= v << (bit % 64);
    }
    bit += 4;
  }
  return r;
}

}  // namespace cuzk::ff::detail
