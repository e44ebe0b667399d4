// SPDX-License-Identifier: Apache-2.0
#pragma once
// Variable-time modular inversion by batched divsteps (Bernstein-Yang,
// "Fast constant-time gcd computation and modular inversion", 2019, with the
// variable-time batching that skips runs of zero bits at once).
//
// Why variable time: every inversion in this project works on public data
// (affine normalisation of public points, the pairing, setup constants), so
// the running time may depend on the input. Callers that handle secrets use
// mont_field::inverse_fermat(), which is constant time.
//
// Method. The state is (f, g) = (p, a), d, e with f = d*a and g = e*a mod p
// (d, e start at 0 and `scale`). A divstep halves g or replaces (f, g) by
// (g, (g - f)/2) depending on the sign of eta = -delta and the parity of g;
// after finitely many, g = 0 and f = +-gcd = +-1, so d*a = +-1. Steps are
// batched 62 at a time: the 62 steps depend only on the low 62 bits of f and
// g, so they run on single words and produce a 2x2 matrix T with entries of
// magnitude <= 2^62 such that T (f, g) = 2^62 (f', g'). That matrix is then
// applied once to the full-width f, g (exactly divisible by 2^62) and to d, e
// (made divisible by adding a multiple of p, so the division is mod p).
//
// Representation: M signed 62-bit limbs ("s62"): value = sum v[i] 2^(62 i),
// v[0..M-2] in [0, 2^62), v[M-1] signed. 62-bit limbs leave two spare bits
// per word, so products of a matrix entry and a limb fit in 128 bits with
// room for the carries. f and g stay in (-p, p], d and e in (-2p, p).
//
// Cost (Zen 5, see bench/RESULTS.md): on random inputs 13.0 batches for Fp
// (M = 7) and 9.0 for Fr (M = 5), ~130 ns each: a short branchy loop over
// one word plus the two 2xM updates. f and g shrink as they go, so their
// update runs on 3.8 (Fp) / 2.8 (Fr) limbs on average; d and e stay full.
//
// Everything is constexpr (no intrinsics, no asm), so constant evaluation
// takes the same path as run time.

#include <bit>
#include <cstddef>
#include <cstdint>

#include <cuzk/ff/detail/bigint.hpp>

namespace cuzk::ff::detail {

// __extension__: __int128 is a GCC/Clang extension, the one -Wpedantic build allows.
__extension__ using i128 = __int128;

inline constexpr std::uint64_t s62_mask = (std::uint64_t(1) << 62) - 1;

/// Number of 62-bit limbs for values up to 2^(64N) in magnitude, plus sign.
constexpr std::size_t s62_len(std::size_t n) { return (64 * n + 1 + 61) / 62; }

/// Unsigned 64-bit limbs -> s62 (non-negative input).
template <std::size_t N, std::size_t M = s62_len(N)>
constexpr void to_s62(std::int64_t (&out)[M], const limbs<N>& a) {
  for (std::size_t i = 0; i < M; ++i) {
    const std::size_t pos = 62 * i, w = pos / 64, s = pos % 64;
    std::uint64_t x = w < N ? a[w] >> s : 0;
    if (s > 2 && w + 1 < N) x |= a[w + 1] << (64 - s);
    out[i] = std::int64_t(x & s62_mask);
  }
}

/// s62 -> unsigned 64-bit limbs; the value must be normalised and in [0, 2^(64N)).
template <std::size_t N, std::size_t M = s62_len(N)>
constexpr limbs<N> from_s62(const std::int64_t (&v)[M]) {
  limbs<N> out{};
  for (std::size_t i = 0; i < M; ++i) {
    const std::size_t pos = 62 * i, w = pos / 64, s = pos % 64;
    const std::uint64_t x = std::uint64_t(v[i]);
    if (w < N) out[w] |= x << s;
    if (s > 2 && w + 1 < N) out[w + 1] |= x >> (64 - s);
  }
  return out;
}

/// Per-modulus constants, derived once at compile time (see mont_field).
template <std::size_t N>
struct divstep_ctx {
  static constexpr std::size_t M = s62_len(N);
  std::int64_t p[M];      // the modulus in s62
  std::int64_t scale[M];  // the result is scale / a mod p
  std::uint64_t p_inv62;  // p^-1 mod 2^62
};

/// |scale| < p is the factor the inverse comes out multiplied by: R^2 mod p
/// for a Montgomery-form input aR, since R^2 / (aR) = a^-1 R.
template <std::size_t N>
constexpr divstep_ctx<N> make_divstep_ctx(const limbs<N>& p, const limbs<N>& scale) {
  divstep_ctx<N> c{};
  to_s62<N>(c.p, p);
  to_s62<N>(c.scale, scale);
  c.p_inv62 = (0 - neg_inv64(p[0])) & s62_mask;
  return c;
}

/// The 2x2 transition matrix of one batch, scaled by 2^62.
struct divstep_matrix {
  std::int64_t u, v, q, r;
};

/// 62 divsteps on the low words of f (odd) and g; returns the new eta.
/// Runs of zeros in g are consumed in one shift. When g is odd, a multiple
/// w of f is added to clear up to 4 low bits of g (6 right after a swap),
/// never more than eta + 1 bits, because every step in
/// the run must see eta >= 0 to be the "g += f" kind. Matrix arithmetic is
/// unsigned (wrapping, so no signed overflow in constant evaluation); the
/// entries end within 2^62 in magnitude, so the casts are exact.
constexpr std::int64_t divsteps62_var(std::int64_t eta, std::uint64_t f, std::uint64_t g, divstep_matrix& t) {
  std::uint64_t u = 1, v = 0, q = 0, r = 1;
  int left = 62;
  for (;;) {
    const int z = std::countr_zero(g | (~std::uint64_t(0) << left));
    g >>= z;
    u <<= z;
    v <<= z;
    eta -= z;
    left -= z;
    if (left == 0) break;
    // g is odd here (and f always is).
    std::uint64_t w;
    if (eta < 0) {
      // (f, g) <- (g, -f): the swapping divstep; its halving is the next shift.
      eta = -eta;
      const std::uint64_t f0 = f, u0 = u, v0 = v;
      f = g;
      g = 0 - f0;
      u = q;
      v = r;
      q = 0 - u0;
      r = 0 - v0;
      const int limit = int(eta) + 1 > left ? left : int(eta) + 1;
      const std::uint64_t m = (~std::uint64_t(0) >> (64 - limit)) & 63;
      // -g / f mod 64: f (2 - f^2) is f^-1 mod 64 for odd f (one Newton step from
      // f = f^-1 mod 8), so -g f (2 - f^2) = g f (f^2 - 2)
      w = (f * g * (f * f - 2)) & m;
    } else {
      const int limit = int(eta) + 1 > left ? left : int(eta) + 1;
      const std::uint64_t m = (~std::uint64_t(0) >> (64 - limit)) & 15;
      // f^-1 mod 16 for odd f: f itself mod 8, plus 8 when f = 3 or 5 mod 8
      const std::uint64_t finv = f + (((f + 1) & 4) << 1);
      w = (0 - finv * g) & m;
    }
    g += f * w;
    q += u * w;
    r += v * w;
  }
  t = {std::int64_t(u), std::int64_t(v), std::int64_t(q), std::int64_t(r)};
  return eta;
}

/// (f, g) <- T (f, g) / 2^62 on the low |len| limbs (exact division).
template <std::size_t M>
constexpr void update_fg(std::int64_t (&f)[M], std::int64_t (&g)[M], std::size_t len, const divstep_matrix& t) {
  i128 cf = i128(t.u) * f[0] + i128(t.v) * g[0];
  i128 cg = i128(t.q) * f[0] + i128(t.r) * g[0];
  cf >>= 62;  // the low 62 bits are zero by construction of T
  cg >>= 62;
  for (std::size_t i = 1; i < len; ++i) {
    cf += i128(t.u) * f[i] + i128(t.v) * g[i];
    cg += i128(t.q) * f[i] + i128(t.r) * g[i];
    f[i - 1] = std::int64_t(std::uint64_t(cf) & s62_mask);
    g[i - 1] = std::int64_t(std::uint64_t(cg) & s62_mask);
    cf >>= 62;
    cg >>= 62;
  }
  f[len - 1] = std::int64_t(cf);
  g[len - 1] = std::int64_t(cg);
}

/// (d, e) <- T (d, e) / 2^62 mod p, for d, e in (-2p, p); stays in (-2p, p).
/// Adding p * (entries of T where d or e is negative) keeps the result above
/// -2p; the further multiple of p chosen below makes the low 62 bits vanish.
template <std::size_t N, std::size_t M>
constexpr void update_de(std::int64_t (&d)[M], std::int64_t (&e)[M], const divstep_matrix& t, const divstep_ctx<N>& c) {
  const std::int64_t sd = d[M - 1] >> 63, se = e[M - 1] >> 63;
  std::int64_t md = (t.u & sd) + (t.v & se);
  std::int64_t me = (t.q & sd) + (t.r & se);
  i128 cd = i128(t.u) * d[0] + i128(t.v) * e[0];
  i128 ce = i128(t.q) * d[0] + i128(t.r) * e[0];
  // cd + p * md = 0 mod 2^62
  md -= std::int64_t((c.p_inv62 * std::uint64_t(cd) + std::uint64_t(md)) & s62_mask);
  me -= std::int64_t((c.p_inv62 * std::uint64_t(ce) + std::uint64_t(me)) & s62_mask);
  cd += i128(c.p[0]) * md;
  ce += i128(c.p[0]) * me;
  cd >>= 62;
  ce >>= 62;
  for (std::size_t i = 1; i < M; ++i) {
    cd += i128(t.u) * d[i] + i128(t.v) * e[i] + i128(c.p[i]) * md;
    ce += i128(t.q) * d[i] + i128(t.r) * e[i] + i128(c.p[i]) * me;
    d[i - 1] = std::int64_t(std::uint64_t(cd) & s62_mask);
    e[i - 1] = std::int64_t(std::uint64_t(ce) & s62_mask);
    cd >>= 62;
    ce >>= 62;
  }
  d[M - 1] = std::int64_t(cd);
  e[M - 1] = std::int64_t(ce);
}

/// v <- s * v + k * p (s, k in {-1, 0, 1}), renormalised.
template <std::size_t M>
constexpr void s62_mul_add(std::int64_t (&v)[M], std::int64_t s, const std::int64_t (&p)[M], std::int64_t k) {
  i128 c = 0;
  for (std::size_t i = 0; i + 1 < M; ++i) {
    c += i128(s) * v[i] + i128(k) * p[i];
    v[i] = std::int64_t(std::uint64_t(c) & s62_mask);
    c >>= 62;
  }
  v[M - 1] = std::int64_t(c + i128(s) * v[M - 1] + i128(k) * p[M - 1]);
}

/// v >= p for normalised, non-negative v.
template <std::size_t M>
constexpr bool s62_geq(const std::int64_t (&v)[M], const std::int64_t (&p)[M]) {
  for (std::size_t i = M; i-- > 0;)
    if (v[i] != p[i]) return v[i] > p[i];
  return true;
}

/// scale / a mod p, fully reduced, for 0 < a < p. Variable time.
template <std::size_t N>
constexpr limbs<N> divstep_inverse(const limbs<N>& a, const divstep_ctx<N>& c) {
  constexpr std::size_t M = divstep_ctx<N>::M;
  std::int64_t f[M], g[M], d[M] = {}, e[M];
  for (std::size_t i = 0; i < M; ++i) {
    f[i] = c.p[i];
    e[i] = c.scale[i];
  }
  to_s62<N>(g, a);
  std::int64_t eta = -1;
  std::size_t len = M;
  for (;;) {
    divstep_matrix t{};
    eta = divsteps62_var(eta, std::uint64_t(f[0]), std::uint64_t(g[0]), t);
    update_de(d, e, t, c);
    update_fg(f, g, len, t);
    std::uint64_t any = 0;
    for (std::size_t i = 0; i < len; ++i) any |= std::uint64_t(g[i]);
    if (any == 0) break;
    // Drop the top limb of f and g when both are mere sign extensions
    // (0 or -1): fold it into the limb below, which becomes the signed top.
    const std::int64_t fn = f[len - 1], gn = g[len - 1];
    if (len > 1 && (fn == 0 || fn == -1) && (gn == 0 || gn == -1)) {
      f[len - 2] = std::int64_t(std::uint64_t(f[len - 2]) | (std::uint64_t(fn) << 62));
      g[len - 2] = std::int64_t(std::uint64_t(g[len - 2]) | (std::uint64_t(gn) << 62));
      --len;
    }
  }
  // g = 0, f = +-1: d * a = f * scale. Take the sign of f, then reduce
  // d from (-2p, 2p) to [0, p).
  const std::int64_t f_sign = f[len - 1] < 0 ? -1 : 1;
  s62_mul_add(d, f_sign, c.p, 0);
  while (d[M - 1] < 0) s62_mul_add(d, 1, c.p, 1);
  while (s62_geq(d, c.p)) s62_mul_add(d, 1, c.p, -1);
  return from_s62<N>(d);
}

}  // namespace cuzk::ff::detail
