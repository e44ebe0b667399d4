// SPDX-License-Identifier: Apache-2.0
#pragma once
// Portable reference Montgomery arithmetic over a generic limb type.
//
// This is the test oracle, not the fast path: textbook CIOS (Coarsely
// Integrated Operand Scanning, Koc et al. 1996) with a full two-word carry and
// no assumption about spare bits in the modulus. It runs on 32-bit limbs
// (uint32_t, the GPU's view of the same bytes) or 64-bit limbs. Because
// R = 2^(32 * 2N) = 2^(64 * N), the 32-bit and 64-bit views give identical
// Montgomery results, which lets tests check the 64-bit fast paths against a
// completely different code path.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cuzk::ff::detail {

template <class Limb>
struct wide_of;
template <>
struct wide_of<std::uint32_t> {
  using type = std::uint64_t;
};
template <>
struct wide_of<std::uint64_t> {
  __extension__ using type = unsigned __int128;  // a GCC/Clang extension (-Wpedantic)
};

/// r = a * b * 2^(-bits(Limb) * M) mod p for a, b < p. r may alias a or b.
/// |n0| = -p^-1 mod 2^bits(Limb).
template <class Limb, std::size_t M>
constexpr void portable_mul_mont(Limb* r, const Limb* a, const Limb* b, const Limb* p, Limb n0) {
  using W = typename wide_of<Limb>::type;
  constexpr unsigned w = sizeof(Limb) * 8;
  Limb t[M + 2] = {};
  for (std::size_t i = 0; i < M; ++i) {
    W c = 0;
    for (std::size_t j = 0; j < M; ++j) {
      c = W(t[j]) + W(a[j]) * b[i] + (c >> w);
      t[j] = Limb(c);
    }
    W s = W(t[M]) + (c >> w);
    t[M] = Limb(s);
    t[M + 1] = Limb(s >> w);

    Limb m = Limb(t[0] * n0);
    c = W(t[0]) + W(m) * p[0];
    for (std::size_t j = 1; j < M; ++j) {
      c = W(t[j]) + W(m) * p[j] + (c >> w);
      t[j - 1] = Limb(c);
    }
    s = W(t[M]) + (c >> w);
    t[M - 1] = Limb(s);
    t[M] = Limb(t[M + 1] + Limb(s >> w));
  }
  // t < 2p: subtract p once if t >= p.
  Limb d[M];
  Limb borrow = 0;
  for (std::size_t j = 0; j < M; ++j) {
    W diff = W(t[j]) - p[j] - borrow;
    d[j] = Limb(diff);
    borrow = Limb(diff >> w) & 1;
  }
  bool use_diff = t[M] != 0 || borrow == 0;
  for (std::size_t j = 0; j < M; ++j) r[j] = use_diff ? d[j] : t[j];
}

/// 64-bit-limb entry point that runs the reference on the 32-bit view.
template <std::size_t N>
inline void portable_mul_mont_32(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b,
                                 const std::uint64_t* p, std::uint64_t n0) {
  std::uint32_t a32[2 * N], b32[2 * N], p32[2 * N], r32[2 * N];
  for (std::size_t i = 0; i < N; ++i) {
    a32[2 * i] = std::uint32_t(a[i]);
    a32[2 * i + 1] = std::uint32_t(a[i] >> 32);
    b32[2 * i] = std::uint32_t(b[i]);
    b32[2 * i + 1] = std::uint32_t(b[i] >> 32);
    p32[2 * i] = std::uint32_t(p[i]);
    p32[2 * i + 1] = std::uint32_t(p[i] >> 32);
  }
  portable_mul_mont<std::uint32_t, 2 * N>(r32, a32, b32, p32, std::uint32_t(n0));
  for (std::size_t i = 0; i < N; ++i) r[i] = r32[2 * i] | (std::uint64_t(r32[2 * i + 1]) << 32);
}

}  // namespace cuzk::ff::detail
