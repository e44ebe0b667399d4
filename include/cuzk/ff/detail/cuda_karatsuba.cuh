// SPDX-License-Identifier: Apache-2.0
#pragma once
// Montgomery multiplication with a one-level Karatsuba product: a b as
// three half-size products, then the reduction of the double-width result
// (redc_wide, cuda_arith.cuh). Same inputs, R and fully reduced results as
// mul_mont, bit for bit, so a formula may take either.
//
// Why: a G1 MSM's bucket loop is bound by the multiply-add pipe, and
// mul_mont's CIOS loop spends 2 W^2 wide multiply-adds (Fp: 288, each two
// of the pipe's slots) on a b and m p alike. Karatsuba forms a b from
// 3 (W/2)^2 = 108 products instead of 144 and pays in additions, which run
// on the integer ALU the loop leaves mostly idle; the reduction stays
// W^2 + W (redc_wide). Whether the ~8% fewer slots (528 against 576 for
// Fp; SASS, sm_90: 505 slots and 504 instructions per multiplication
// against 576 and 378) make it faster is what `cuzk-gpu-bench prim`
// measures (fp_mul_kara, g1_madd_kara); nothing uses it by default. For Fr
// (W = 8) it saves nothing (996 slots per four against 992).
//
// Method, H = W/2 words per half, a = a1 2^(32H) + a0, b likewise:
//   z0 = a0 b0, z2 = a1 b1, z1 = (a0 + a1)(b0 + b1) with the halves' sums
//   carried into one extra bit each (sa = a0 + a1 = ca 2^(32H) + sa', so
//   z1 = sa' sb' + (ca sb' + cb sa') 2^(32H) + ca cb 2^(64H));
//   a b = z0 + (z1 - z0 - z2) 2^(32H) + z2 2^(64H), the middle term
//   a0 b1 + a1 b0 < 2^(64H + 1) in 2H + 1 words.
// Each half product (mul_half) is schoolbook over the even/odd split of
// the word positions i + j (mul_row, as sqr_mont's rows), so every product's lo and hi
// halves form one aligned pair of one carry chain (one IMAD.WIDE).
// Invariants: a, b < p < 2^(32W - 1), so a b < p R (redc_wide's bound).
// Cost, Fp: 108 wide multiply-adds for a b, 156 (W^2 + W) for the
// reduction, ~100 adds, subtractions and selects.

#include <cstdint>

#include <cuzk/ff/detail/cuda_arith.cuh>

namespace cuzk::ff::detail::cuda {

/// t = a b over H words each (2H words out). Products at even positions
/// i + j into e at (i + j, i + j + 1), at odd ones into o one word down,
/// then t = e + 2^32 o. A row's chain ends one word above the previous
/// row's and carries into the word above its top, which holds at most the
/// previous row's carry: no carry is lost, and a b < 2^(64H) keeps the
/// merge inside 2H words.
template <int H>
__host__ __device__ __forceinline__ void mul_half(std::uint32_t* t, const std::uint32_t* a, const std::uint32_t* b) {
  std::uint32_t e[2 * H + 1], o[2 * H + 1];
  CUZK_HD_UNROLL
  for (int k = 0; k <= 2 * H; ++k) e[k] = 0, o[k] = 0;
  CUZK_HD_UNROLL
  for (int i = 0; i < H; ++i) {
    mul_row<H>(e, a, b[i], i, i % 2, 0);      // i + j even
    mul_row<H>(o, a, b[i], i, 1 - i % 2, 1);  // i + j odd, one word down
  }
  t[0] = e[0];
  t[1] = add_cc(e[1], o[0]);
  CUZK_HD_UNROLL
  for (int k = 2; k < 2 * H - 1; ++k) t[k] = addc_cc(e[k], o[k - 1]);
  t[2 * H - 1] = addc(e[2 * H - 1], o[2 * H - 2]);
}

/// t = a b over W words each (2W words out), one Karatsuba level.
template <int W>
__host__ __device__ __forceinline__ void mul_karatsuba(std::uint32_t* t, const std::uint32_t* a,
                                                       const std::uint32_t* b) {
  static_assert(W % 4 == 0, "halves of an even number of words");
  constexpr int H = W / 2;
  std::uint32_t z1[2 * H + 1], sa[H], sb[H];
  mul_half<H>(t, a, b);                  // z0 in t[0, 2H)
  mul_half<H>(t + 2 * H, a + H, b + H);  // z2 in t[2H, 4H)
  sa[0] = add_cc(a[0], a[H]);
  CUZK_HD_UNROLL
  for (int j = 1; j < H; ++j) sa[j] = addc_cc(a[j], a[H + j]);
  const std::uint32_t ca = addc(0, 0);
  sb[0] = add_cc(b[0], b[H]);
  CUZK_HD_UNROLL
  for (int j = 1; j < H; ++j) sb[j] = addc_cc(b[j], b[H + j]);
  const std::uint32_t cb = addc(0, 0);
  mul_half<H>(z1, sa, sb);
  // z1 += (ca sb + cb sa) 2^(32H) + ca cb 2^(64H): masked words, two chains
  const std::uint32_t ma = 0u - ca, mb = 0u - cb;
  z1[H] = add_cc(z1[H], sb[0] & ma);
  CUZK_HD_UNROLL
  for (int j = 1; j < H; ++j) z1[H + j] = addc_cc(z1[H + j], sb[j] & ma);
  z1[2 * H] = addc(ca & cb, 0);
  z1[H] = add_cc(z1[H], sa[0] & mb);
  CUZK_HD_UNROLL
  for (int j = 1; j < H; ++j) z1[H + j] = addc_cc(z1[H + j], sa[j] & mb);
  z1[2 * H] = addc(z1[2 * H], 0);
  // z1 -= z0 + z2 (the middle term, >= 0)
  z1[0] = sub_cc(z1[0], t[0]);
  CUZK_HD_UNROLL
  for (int k = 1; k < 2 * H; ++k) z1[k] = subc_cc(z1[k], t[k]);
  z1[2 * H] = subc(z1[2 * H], 0);
  z1[0] = sub_cc(z1[0], t[2 * H]);
  CUZK_HD_UNROLL
  for (int k = 1; k < 2 * H; ++k) z1[k] = subc_cc(z1[k], t[2 * H + k]);
  z1[2 * H] = subc(z1[2 * H], 0);
  // t += middle 2^(32H): words H .. 3H, the carry up to the top
  t[H] = add_cc(t[H], z1[0]);
  CUZK_HD_UNROLL
  for (int k = 1; k <= 2 * H; ++k) t[H + k] = addc_cc(t[H + k], z1[k]);
  CUZK_HD_UNROLL
  for (int k = 3 * H + 1; k < 2 * W - 1; ++k) t[k] = addc_cc(t[k], 0);
  t[2 * W - 1] = addc(t[2 * W - 1], 0);
}

/// r = a b / R mod p by a Karatsuba product and redc_wide; r may alias a
/// or b. a, b < p.
template <int W>
__host__ __device__ __forceinline__ void mul_mont_karatsuba(std::uint32_t* r, const std::uint32_t* a,
                                                            const std::uint32_t* b, const std::uint32_t* p,
                                                            std::uint32_t n0) {
  std::uint32_t t[2 * W];
  mul_karatsuba<W>(t, a, b);
  redc_wide<W>(r, t, p, n0);
}

/// r = a b - c d mod p (p with two_spare_top_bits) as a b + c (p - d):
/// two Karatsuba products summed, one redc_wide. a b + c (p - d) < 2 p^2
/// < p R. Cost, Fp: 216 + 156 wide multiply-adds against mul_sub_mont's
/// 432.
template <int W>
__host__ __device__ __forceinline__ void mul_sub_mont_karatsuba(std::uint32_t* r, const std::uint32_t* a,
                                                                const std::uint32_t* b, const std::uint32_t* c,
                                                                const std::uint32_t* d, const std::uint32_t* p,
                                                                std::uint32_t n0) {
  std::uint32_t e[W], t[2 * W], u[2 * W];
  sub_plain<W>(e, p, d);
  mul_karatsuba<W>(t, a, b);
  mul_karatsuba<W>(u, c, e);
  t[0] = add_cc(t[0], u[0]);
  CUZK_HD_UNROLL
  for (int k = 1; k < 2 * W - 1; ++k) t[k] = addc_cc(t[k], u[k]);
  t[2 * W - 1] = addc(t[2 * W - 1], u[2 * W - 1]);
  redc_wide<W>(r, t, p, n0);
}

}  // namespace cuzk::ff::detail::cuda

namespace cuzk::gpu {

/// a b through mul_mont_karatsuba: equal to a * b bit for bit.
template <class P>
__host__ __device__ __forceinline__ mont_d<P> mul_karatsuba(const mont_d<P>& a, const mont_d<P>& b) {
  namespace fc = ff::detail::cuda;
  mont_d<P> r;
  fc::mul_mont_karatsuba<mont_d<P>::n_words>(r.l, a.l, b.l, fc::modulus_words<P>(), fc::n0_word<P>());
  return r;
}

/// a b - c d through mul_sub_mont_karatsuba (Fp): equal to mul_sub.
template <class P>
requires ff::detail::cuda::two_spare_top_bits<P> __host__ __device__ __forceinline__ mont_d<P> mul_sub_karatsuba(
    const mont_d<P>& a, const mont_d<P>& b, const mont_d<P>& c, const mont_d<P>& d) {
  namespace fc = ff::detail::cuda;
  mont_d<P> r;
  fc::mul_sub_mont_karatsuba<mont_d<P>::n_words>(r.l, a.l, b.l, c.l, d.l, fc::modulus_words<P>(), fc::n0_word<P>());
  return r;
}

}  // namespace cuzk::gpu
