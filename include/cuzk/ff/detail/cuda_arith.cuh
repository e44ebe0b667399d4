// SPDX-License-Identifier: Apache-2.0
#pragma once
// Device limb arithmetic on 32-bit limbs (PTX carry chains) and the device
// field types cuzk::gpu::fr_d / fp_d.
//
// Layout: mont_d<P> is 2N little-endian uint32_t limbs (N = P::n_limbs 64-bit
// limbs on the host), the same bytes as ff::mont_field<P>: word 2i is the low
// half of host limb i (docs/byte-layout.md). The static_asserts below pin
// sizeof/alignof to the host type, so host arrays memcpy to the device as is.
// Values are in Montgomery form with the same R = 2^(64N) = 2^(32 * 2N) as on
// the host, so the host and device results of every operation are identical
// bit for bit.
//
// Constants are never retyped: the modulus, R mod p and n0 are derived with
// constexpr from ff::fp_params / fr_params and mont_field<P>::n0 (the 32-bit
// n0 = -p^-1 mod 2^32 is the low word of the 64-bit one) and placed in
// __constant__ memory, which the multiply-add instructions read as operands.
//
// Method (mul): CIOS Montgomery multiplication, one outer iteration per word
// b_i of the multiplier. Each iteration is four carry chains over the N'
// words (N' = 2N): lo(a*b_i) into t[0..N'), hi(a*b_i) into t[1..N'],
// lo(m*p) into t[0..N'), hi(m*p) into t[1..N'], with m = t[0] * n0, then a
// one-word shift (register renaming once unrolled). Every chain is a run of
// mad{c}.{lo,hi}.cc instructions; they are separate `asm volatile`
// statements, which keeps them in order, and the carry flag is consumed by
// the next statement of the same chain only.
// What the speed rests on: every product's lo and hi halves go to one
// aligned word pair of one chain, which ptxas turns into a single wide
// multiply-add with carry in and out (IMAD.WIDE.U32.X); a chain of all-lo
// or all-hi halves costs about twice the instructions. Three things keep
// that form (each read off the sm_90 SASS): the even/odd split of the
// running sum (cios), the squaring's off-diagonal products split the same
// way (sqr_mont), and n0 read from a non-const __constant__ (d_n0), since
// a folded n0 = 2^32 - 1 (Fr) lets ptxas rewrite m = x0 n0 as a negation
// and break every product of m p back into separate halves.
// Invariants: inputs fully reduced (< p); t < 2p at the start of every outer
// iteration (p < 2^(32N' - 1) for both BLS12-381 moduli, so the running sum
// t + a*b_i + m*p < 2^(32(N'+1)) fits N'+1 words and no chain carries out);
// one conditional subtraction at the end makes the result fully reduced.
// add/sub/neg keep full reduction (a + b < 2p < 2^(32N')).
// Cost, N' words: mul 2N'^2 wide multiply-adds plus N' for the m's, and
// N' + 1 for the final subtraction; sqr (sqr_mont) N'(N'-1)/2 + N' wide
// ones for the square and N'^2 + N' for the reduction; add/sub ~3N'
// integer ops. a b - c d takes one reduction (mul_sub_mont: the CIOS loop
// with two products per step). No branches on the data (the final choices
// are selects); NTT/MSM inputs are public in a prover anyway.
//
// Compiles only with nvcc (.cuh). Everything is __host__ __device__: the
// host pass runs the same limb routines over a C++ emulation of the PTX
// carry instructions (below), which is how tests/device_host/ checks this
// code on machines without a GPU; device code is unchanged by it.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/host_device.hpp>

namespace cuzk::ff::detail::cuda {

// ---- PTX carry-chain primitives --------------------------------------------
// Each wraps one instruction; *_cc variants set the carry flag, madc/addc/subc
// variants consume it. Keep every chain's statements adjacent.
//
// The host pass of nvcc gets the same primitives in C++, with the carry flag
// in a thread_local (for sub/subc it is the borrow, as in PTX), so every limb
// routine below and mont_d run on the CPU exactly as the device runs them:
// tests/device_host/ checks the device arithmetic against ff::mont_field
// without a GPU. The device pass never sees the emulation (no cost there);
// on the host it is a test and reference path only, never a fast one.

#if !defined(__CUDA_ARCH__)
namespace host_emulation {
inline thread_local std::uint32_t carry_flag = 0;
/// lo(a b) or hi(a b) + c + (with_carry ? CF : 0), CF set when |set|.
inline std::uint32_t mad(std::uint32_t a, std::uint32_t b, std::uint32_t c, bool hi, bool with_carry, bool set) {
  const std::uint64_t ab = std::uint64_t(a) * b;
  const std::uint64_t s =
      std::uint64_t(hi ? std::uint32_t(ab >> 32) : std::uint32_t(ab)) + c + (with_carry ? carry_flag : 0u);
  if (set) carry_flag = std::uint32_t(s >> 32);
  return std::uint32_t(s);
}
/// a + b (+ CF), CF set when |set|.
inline std::uint32_t add(std::uint32_t a, std::uint32_t b, bool with_carry, bool set) {
  const std::uint64_t s = std::uint64_t(a) + b + (with_carry ? carry_flag : 0u);
  if (set) carry_flag = std::uint32_t(s >> 32);
  return std::uint32_t(s);
}
/// a - b (- borrow), the borrow set when |set|.
inline std::uint32_t sub(std::uint32_t a, std::uint32_t b, bool with_borrow, bool set) {
  const std::uint64_t d = std::uint64_t(a) - b - (with_borrow ? carry_flag : 0u);
  if (set) carry_flag = std::uint32_t(d >> 32) & 1u;
  return std::uint32_t(d);
}
}  // namespace host_emulation
#define CUZK_PTX_OR_HOST(ptx, host) host
#else
#define CUZK_PTX_OR_HOST(ptx, host) ptx
#endif

#define CUZK_CARRY_OP(name, ptx_op, host_call)                                                                   \
  __host__ __device__ __forceinline__ std::uint32_t name(std::uint32_t a, std::uint32_t b, std::uint32_t c) {    \
    std::uint32_t r;                                                                                             \
    CUZK_PTX_OR_HOST(asm volatile(ptx_op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)), r = host_call); \
    return r;                                                                                                    \
  }
#define CUZK_CARRY_OP2(name, ptx_op, host_call)                                                      \
  __host__ __device__ __forceinline__ std::uint32_t name(std::uint32_t a, std::uint32_t b) {         \
    std::uint32_t r;                                                                                 \
    CUZK_PTX_OR_HOST(asm volatile(ptx_op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)), r = host_call); \
    return r;                                                                                        \
  }
// clang-format off
CUZK_CARRY_OP(mad_lo_cc, "mad.lo.cc.u32", host_emulation::mad(a, b, c, false, false, true))
CUZK_CARRY_OP(madc_lo_cc, "madc.lo.cc.u32", host_emulation::mad(a, b, c, false, true, true))
CUZK_CARRY_OP(mad_hi_cc, "mad.hi.cc.u32", host_emulation::mad(a, b, c, true, false, true))
CUZK_CARRY_OP(madc_hi_cc, "madc.hi.cc.u32", host_emulation::mad(a, b, c, true, true, true))
CUZK_CARRY_OP(madc_hi, "madc.hi.u32", host_emulation::mad(a, b, c, true, true, false))
CUZK_CARRY_OP2(add_cc, "add.cc.u32", host_emulation::add(a, b, false, true))
CUZK_CARRY_OP2(addc_cc, "addc.cc.u32", host_emulation::add(a, b, true, true))
CUZK_CARRY_OP2(addc, "addc.u32", host_emulation::add(a, b, true, false))
CUZK_CARRY_OP2(sub_cc, "sub.cc.u32", host_emulation::sub(a, b, false, true))
CUZK_CARRY_OP2(subc_cc, "subc.cc.u32", host_emulation::sub(a, b, true, true))
CUZK_CARRY_OP2(subc, "subc.u32", host_emulation::sub(a, b, true, false))
// clang-format on
#undef CUZK_CARRY_OP
#undef CUZK_CARRY_OP2

/// hi(a b), the 32 high bits of the product.
__host__ __device__ __forceinline__ std::uint32_t mul_hi(std::uint32_t a, std::uint32_t b) {
  return CUZK_PTX_OR_HOST(__umulhi(a, b), std::uint32_t((std::uint64_t(a) * b) >> 32));
}

// ---- constants derived from the host parameters -----------------------------

template <std::size_t W>
struct words {
  std::uint32_t v[W];
};

/// The 64-bit host limbs |a| read as 2N 32-bit words (low half first).
template <std::size_t N>
constexpr words<2 * N> split32(const limbs<N>& a) {
  words<2 * N> r{};
  for (std::size_t i = 0; i < 2 * N; ++i) r.v[i] = std::uint32_t(a[i / 2] >> (32 * (i % 2)));
  return r;
}

template <class P>
inline constexpr words<2 * P::n_limbs> modulus32 = split32<P::n_limbs>(P::modulus);
template <class P>
inline constexpr words<2 * P::n_limbs> one32 = split32<P::n_limbs>(mont_field<P>::r_mod_p);
/// -p^-1 mod 2^32: the low word of mont_field's -p^-1 mod 2^64.
template <class P>
inline constexpr std::uint32_t n0_32 = std::uint32_t(mont_field<P>::n0);

static_assert(std::uint32_t(modulus32<fr_params>.v[0] * n0_32<fr_params>) == 0xffffffffu,
              "n0 must satisfy p * n0 = -1 mod 2^32");
static_assert(std::uint32_t(modulus32<fp_params>.v[0] * n0_32<fp_params>) == 0xffffffffu,
              "n0 must satisfy p * n0 = -1 mod 2^32");
static_assert(modulus32<fr_params>.v[7] < 0x80000000u && modulus32<fp_params>.v[11] < 0x80000000u,
              "the carry bounds of mul_mont need a spare top bit");

/// p < 2^(32W - 2): the running sum of mul_sub_mont (two products per
/// step, below ~3p) then fits its W + 1 words. Fp (p < 2^381) has it; Fr
/// (r > 2^254) does not, and takes a * b - c * d.
template <class P>
inline constexpr bool two_spare_top_bits = modulus32<P>.v[2 * P::n_limbs - 1] < (1u << 30);
static_assert(two_spare_top_bits<fp_params> && !two_spare_top_bits<fr_params>);
/// p < 2^(32W - 3): a sum of four products (cios with Extra = 3) fits.
/// Fp's (p < 2^381) has it: Fp2's a b - c d takes one reduction per
/// coordinate (cuda_fp2.cuh).
template <class P>
inline constexpr bool three_spare_top_bits = modulus32<P>.v[2 * P::n_limbs - 1] < (1u << 29);
static_assert(three_spare_top_bits<fp_params>);

/// Device copies (one per translation unit; -rdc is off).
template <class P>
__device__ __constant__ const words<2 * P::n_limbs> d_modulus = modulus32<P>;
template <class P>
__device__ __constant__ const words<2 * P::n_limbs> d_one = one32<P>;
/// n0 on the device, deliberately not const: ptxas then reads it as an
/// operand instead of folding its value. Folded, Fr's n0 = 2^32 - 1 turns
/// m = x0 n0 into a negation and ptxas then splits every product m p_j of
/// the Montgomery step into separate lo and hi multiply-adds with extra
/// adds (SASS, sm_90: 1148 instructions for four Fr multiplications against
/// 764 with n0 opaque, the same multiply-add slots); nothing writes it.
template <class P>
__device__ __constant__ std::uint32_t d_n0 = n0_32<P>;

/// The modulus and R mod p as words where the code runs: the __constant__
/// copies on the device, the constexpr arrays on the host (the emulation).
template <class P>
__host__ __device__ __forceinline__ const std::uint32_t* modulus_words() {
  return CUZK_PTX_OR_HOST(d_modulus<P>.v, modulus32<P>.v);
}
template <class P>
__host__ __device__ __forceinline__ const std::uint32_t* one_words() {
  return CUZK_PTX_OR_HOST(d_one<P>.v, one32<P>.v);
}
/// n0 where the code runs: d_n0 on the device (opaque to ptxas), the
/// constexpr on the host.
template <class P>
__host__ __device__ __forceinline__ std::uint32_t n0_word() {
  return CUZK_PTX_OR_HOST(d_n0<P>, n0_32<P>);
}

// ---- limb routines ------------------------------------------------------------

/// x += a * b over the even words of a (products at word pairs (j, j+1) of
/// x, j even), the chain's carry out into y's top word (T = x + 2^32 y).
template <int W>
__host__ __device__ __forceinline__ void mac_even(std::uint32_t* x, std::uint32_t* y, const std::uint32_t* a,
                                                  std::uint32_t b) {
  x[0] = mad_lo_cc(a[0], b, x[0]);
  x[1] = madc_hi_cc(a[0], b, x[1]);
  CUZK_HD_UNROLL
  for (int j = 2; j < W; j += 2) {
    x[j] = madc_lo_cc(a[j], b, x[j]);
    x[j + 1] = madc_hi_cc(a[j], b, x[j + 1]);
  }
  y[W - 1] = addc(y[W - 1], 0);
}

/// y += a * b over the odd words of a (at word pairs (j-1, j) of y); no
/// carry out (the callers' bounds). CarryIn: the first product also takes
/// the carry flag a preceding add left at y's lowest weight.
template <int W, bool CarryIn>
__host__ __device__ __forceinline__ void mac_odd(std::uint32_t* y, const std::uint32_t* a, std::uint32_t b) {
  if constexpr (CarryIn) y[0] = madc_lo_cc(a[1], b, y[0]);
  else y[0] = mad_lo_cc(a[1], b, y[0]);
  y[1] = madc_hi_cc(a[1], b, y[1]);
  CUZK_HD_UNROLL
  for (int j = 3; j < W - 1; j += 2) {
    y[j - 1] = madc_lo_cc(a[j], b, y[j - 1]);
    y[j] = madc_hi_cc(a[j], b, y[j]);
  }
  y[W - 2] = madc_lo_cc(a[W - 1], b, y[W - 2]);
  y[W - 1] = madc_hi(a[W - 1], b, y[W - 1]);
}

/// One Montgomery step on T = x + 2^32 y: T += m p, so that x[0] becomes 0.
template <int W>
__host__ __device__ __forceinline__ void redc_step(std::uint32_t* x, std::uint32_t* y, const std::uint32_t* p,
                                                   std::uint32_t n0) {
  const std::uint32_t m = x[0] * n0;
  mac_even<W>(x, y, p, m);
  mac_odd<W, false>(y, p, m);
}

/// r = t - p when t >= p, else t (t < 2p < 2^(32W)).
template <int W>
__host__ __device__ __forceinline__ void reduce_once(std::uint32_t* r, const std::uint32_t* t, const std::uint32_t* p) {
  std::uint32_t d[W];
  d[0] = sub_cc(t[0], p[0]);
  CUZK_HD_UNROLL
  for (int j = 1; j < W; ++j) d[j] = subc_cc(t[j], p[j]);
  const std::uint32_t borrow = subc(0, 0);  // 0 or 0xffffffff
  CUZK_HD_UNROLL
  for (int j = 0; j < W; ++j) r[j] = borrow ? t[j] : d[j];
}

/// r = u + v[1 ..] (v[0] is 0 after the last Montgomery step): the value
/// T / 2^32 of the even/odd split T = u + 2^32 v, as W words.
template <int W>
__host__ __device__ __forceinline__ void add_shifted(std::uint32_t* r, const std::uint32_t* u, const std::uint32_t* v) {
  r[0] = add_cc(u[0], v[1]);
  CUZK_HD_UNROLL
  for (int j = 1; j < W - 1; ++j) r[j] = addc_cc(u[j], v[j + 1]);
  r[W - 1] = addc(u[W - 1], 0);
}

/// The CIOS loop of mul_mont (below) over a sum of products:
/// r = (a b + sum_q c[q] e[q]) / R mod p, r = a b / R mod p when Extra = 0
/// (c, e unused). Each step adds a b_i and every c[q] e[q]_i into T and
/// takes one Montgomery step, so Extra + 1 products cost one reduction.
/// A subtracted product x y enters as x (p - y) (p - y is p when y = 0,
/// still a valid operand).
/// Bounds (operands < p, at most p for the p - y ones): with K = Extra + 1
/// products the running sum stays below (K + 1) p (1 + 2^-31), so
/// T + sum a b_i + m p < (K + 1) p (2^32 + 2) < 2^(32(W+1)) when
/// (K + 1) p < 2^(32W) (mul_mont: p < 2^(32W - 1); K = 2: two spare top
/// bits; K = 4: three): no chain carries out of y's top word. The result
/// is (sum + M p) / R < (K p / R + 1) p < 2p, one conditional subtraction.
template <int W, int Extra>
__host__ __device__ __forceinline__ void cios(std::uint32_t* r, const std::uint32_t* a, const std::uint32_t* b,
                                              const std::uint32_t* const* c, const std::uint32_t* const* e,
                                              const std::uint32_t* p, std::uint32_t n0) {
  static_assert(W % 2 == 0 && W >= 4 && Extra >= 0 && Extra <= 3);
  std::uint32_t u[W], v[W];
  // step 0: x = a_even b_0, y = a_odd b_0 (independent products, no
  // carries), each a 64-bit product: ptxas makes it one wide multiply where
  // separate lo and hi multiplications stayed two instructions
  CUZK_HD_UNROLL
  for (int j = 0; j < W; j += 2) {
    const std::uint64_t even = std::uint64_t(a[j]) * b[0], odd = std::uint64_t(a[j + 1]) * b[0];
    u[j] = std::uint32_t(even);
    u[j + 1] = std::uint32_t(even >> 32);
    v[j] = std::uint32_t(odd);
    v[j + 1] = std::uint32_t(odd >> 32);
  }
  CUZK_HD_UNROLL
  for (int q = 0; q < Extra; ++q) {
    mac_even<W>(u, v, c[q], e[q][0]);
    mac_odd<W, false>(v, c[q], e[q][0]);
  }
  redc_step<W>(u, v, p, n0);
  CUZK_HD_UNROLL
  for (int i = 1; i < W; ++i) {
    std::uint32_t* x = (i % 2) ? v : u;  // the previous y
    std::uint32_t* y = (i % 2) ? u : v;  // the previous x, rebuilt shifted
    const std::uint32_t bi = b[i];
    x[0] = add_cc(x[0], y[1]);
    CUZK_HD_UNROLL
    for (int k = 1; k < W - 1; k += 2) {
      y[k - 1] = madc_lo_cc(a[k], bi, y[k + 1]);
      y[k] = madc_hi_cc(a[k], bi, y[k + 2]);
    }
    y[W - 2] = madc_lo_cc(a[W - 1], bi, 0);
    y[W - 1] = madc_hi(a[W - 1], bi, 0);
    mac_even<W>(x, y, a, bi);
    CUZK_HD_UNROLL
    for (int q = 0; q < Extra; ++q) {
      mac_even<W>(x, y, c[q], e[q][i]);
      mac_odd<W, false>(y, c[q], e[q][i]);
    }
    redc_step<W>(x, y, p, n0);
  }
  // T / 2^32 = y + x[1 ..] (x[0] = 0); W even, so the last step's x is v
  std::uint32_t t[W];
  add_shifted<W>(t, u, v);
  reduce_once<W>(r, t, p);  // t < 2p
}

/// r = a * b / R mod p. r may alias a or b.
/// CIOS with the running sum split in two word arrays, T = x + 2^32 y: the
/// products of the even words of a (and of p) go to x as (lo, hi) pairs at
/// words (j, j+1), those of the odd words to y at (j-1, j), so every carry
/// chain pairs the lo and hi halves of one product (ptxas fuses such a pair
/// into one wide multiply-add with carry in and out; chains of all-lo or
/// all-hi halves cost an extra add per product). After each step x[0] = 0
/// and T / 2^32 = y + x[1] + 2^32 (x[2] ..): y becomes the next x (x[1]
/// added into its low word, the carry flowing into the next chain at the
/// same weight) and x shifted down two words becomes the next y, the shift
/// done by the multiply chain that refills it. The two arrays swap roles
/// every step (register renaming once unrolled).
/// Invariants: a, b < p < 2^(32W - 1); T < 2p after every step, so
/// T + a b_i + m p < 2^(32(W+1)): y's top word never carries out.
template <int W>
__host__ __device__ __forceinline__ void mul_mont(std::uint32_t* r, const std::uint32_t* a, const std::uint32_t* b,
                                                  const std::uint32_t* p, std::uint32_t n0) {
  cios<W, 0>(r, a, b, nullptr, nullptr, p, n0);
}

/// r = t / R mod p for a 2W-word t < p R (so that hi(t) = t / R < p):
/// W Montgomery steps over the low half (the CIOS loop of mul_mont without
/// the b products: a (W+1)-word window shifted one word per step), then the
/// high half added and p subtracted once.
/// Bounds: the reduced low half (t_lo + M p) / R is < p + 1 and hi(t) < p,
/// so the sum is < 2p and one conditional subtraction leaves it below p.
/// sqr_mont feeds it a^2 (< p^2).
/// Cost: 2W^2 + 2W multiply-adds (Fp: 312), ~3W adds and selects.
template <int W>
__host__ __device__ __forceinline__ void redc_wide(std::uint32_t* r, const std::uint32_t* t, const std::uint32_t* p,
                                                   std::uint32_t n0) {
  // mul_mont's even/odd form: x = t_lo, y = 0 at first; after each step
  // x[0] = 0 and the arrays swap roles, x[1] going into the next x's low
  // word (its carry consumed at the same weight by the next step's y chain,
  // which runs first for that) and the old x, shifted down two words,
  // becoming the next y
  std::uint32_t u[W], v[W];
  CUZK_HD_UNROLL
  for (int j = 0; j < W; ++j) u[j] = t[j], v[j] = 0;
  redc_step<W>(u, v, p, n0);
  CUZK_HD_UNROLL
  for (int i = 1; i < W; ++i) {
    std::uint32_t* x = (i % 2) ? v : u;
    std::uint32_t* y = (i % 2) ? u : v;
    const std::uint32_t low = y[1];
    CUZK_HD_UNROLL
    for (int k = 0; k < W - 2; ++k) y[k] = y[k + 2];
    y[W - 2] = 0;
    y[W - 1] = 0;
    x[0] = add_cc(x[0], low);
    const std::uint32_t m = x[0] * n0;
    mac_odd<W, true>(y, p, m);  // takes the carry of x[0] + low
    mac_even<W>(x, y, p, m);
  }
  // (W even: the last step's x is v) reduced low half = u + v[1 ..]; + the
  // high half; then subtract p once when the sum is >= p
  std::uint32_t q[W];
  add_shifted<W>(q, u, v);
  q[0] = add_cc(q[0], t[W]);
  CUZK_HD_UNROLL
  for (int j = 1; j < W; ++j) q[j] = addc_cc(q[j], t[W + j]);
  reduce_once<W>(r, q, p);
}

/// r = a - b over N words; the callers guarantee a >= b.
template <int N>
__host__ __device__ __forceinline__ void sub_plain(std::uint32_t* r, const std::uint32_t* a, const std::uint32_t* b) {
  r[0] = sub_cc(a[0], b[0]);
  CUZK_HD_UNROLL
  for (int j = 1; j < N - 1; ++j) r[j] = subc_cc(a[j], b[j]);
  r[N - 1] = subc(a[N - 1], b[N - 1]);
}

/// Row i of a^2's off-diagonal part, the products a_i a_j for j = j0, j0 + 2,
/// ... < W, added to acc at words (i + j - shift, i + j - shift + 1): one
/// carry chain of (lo, hi) pairs of one product each (ptxas makes every pair
/// one wide multiply-add), its carry out added into the word above.
template <int W>
__host__ __device__ __forceinline__ void sqr_row(std::uint32_t* acc, const std::uint32_t* a, int i, int j0, int shift) {
  if (j0 >= W) return;
  int k = i + j0 - shift;
  acc[k] = mad_lo_cc(a[i], a[j0], acc[k]);
  acc[k + 1] = madc_hi_cc(a[i], a[j0], acc[k + 1]);
  CUZK_HD_UNROLL
  for (int j = j0 + 2; j < W; j += 2) {
    k = i + j - shift;
    acc[k] = madc_lo_cc(a[i], a[j], acc[k]);
    acc[k + 1] = madc_hi_cc(a[i], a[j], acc[k + 1]);
  }
  acc[k + 2] = addc(acc[k + 2], 0);
}

/// r = a^2 / R mod p: the product a^2 first, then redc_wide.
/// Product: the off-diagonal terms a_i a_j (i < j) once, split by the parity
/// of their word position i + j: e (even positions, at (i + j, i + j + 1))
/// and o (odd ones, one word down: at (i + j - 1, i + j)), so that every
/// product lands on an aligned word pair and each row is two chains
/// (sqr_row). Then t = 2 (e + 2^32 o), and the diagonal a_i^2 at (2i, 2i + 1)
/// in one chain over all 2W words.
/// Bounds: each row's chain into e (into o) reaches one word higher than
/// the previous row's and carries into the word above its top; that word
/// is either untouched or holds only the previous row's carry, so it stays
/// <= 2 and no carry is lost. a < p, so a^2 < p^2 < p R, and the
/// off-diagonal sum is < a^2 / 2: neither the merge nor the doubling
/// carries out.
/// Cost: W(W-1)/2 wide multiply-adds and 2W carry adds for the off-diagonal
/// part, 2W + 2W adds to merge and double, W wide multiply-adds for the
/// diagonal; the reduction 2W^2 + 2W multiply-adds (Fp: 66 + 12 + 312).
template <int W>
__host__ __device__ __forceinline__ void sqr_mont(std::uint32_t* r, const std::uint32_t* a, const std::uint32_t* p,
                                                  std::uint32_t n0) {
  std::uint32_t e[2 * W - 1], o[2 * W - 1], t[2 * W];
  CUZK_HD_UNROLL
  for (int k = 0; k < 2 * W - 1; ++k) e[k] = 0, o[k] = 0;
  CUZK_HD_UNROLL
  for (int i = 0; i < W - 1; ++i) {
    sqr_row<W>(o, a, i, i + 1, 1);  // odd positions i + j
    sqr_row<W>(e, a, i, i + 2, 0);  // even positions
  }
  // m = e + 2^32 o (e[0], e[1] are 0), then t = 2 m: two chains
  std::uint32_t m[2 * W];  // m[0] = 0 is never read: t[0] is set directly
  m[1] = o[0];
  m[2] = add_cc(e[2], o[1]);
  CUZK_HD_UNROLL
  for (int k = 3; k < 2 * W - 1; ++k) m[k] = addc_cc(e[k], o[k - 1]);
  m[2 * W - 1] = addc(o[2 * W - 2], 0);
  t[0] = 0;
  t[1] = add_cc(m[1], m[1]);
  CUZK_HD_UNROLL
  for (int k = 2; k < 2 * W - 1; ++k) t[k] = addc_cc(m[k], m[k]);
  t[2 * W - 1] = addc(m[2 * W - 1], m[2 * W - 1]);
  // diagonal: t += a_i^2 2^(64 i)
  t[0] = mad_lo_cc(a[0], a[0], t[0]);
  t[1] = madc_hi_cc(a[0], a[0], t[1]);
  CUZK_HD_UNROLL
  for (int i = 1; i < W - 1; ++i) {
    t[2 * i] = madc_lo_cc(a[i], a[i], t[2 * i]);
    t[2 * i + 1] = madc_hi_cc(a[i], a[i], t[2 * i + 1]);
  }
  t[2 * W - 2] = madc_lo_cc(a[W - 1], a[W - 1], t[2 * W - 2]);
  t[2 * W - 1] = madc_hi(a[W - 1], a[W - 1], t[2 * W - 1]);
  redc_wide<W>(r, t, p, n0);
}

/// r = a b - c d mod p (p with two_spare_top_bits) with one reduction
/// instead of two: the CIOS loop (cios) with a second product, a b + c (p - d), each step adding a b_i and
/// c (p - d)_i (p - d is p when d = 0, still a valid operand) before its
/// one Montgomery step. The running sum stays below 3p (1 + 2^-31) (a, c < p,
/// p - d <= p), so T + a b_i + c e_i + m p < 3p (2^32 + 1) < 2^(32(W+1)): as in
/// mul_mont no chain carries out of y's top word; the result is
/// (a b + c e + M p) / R < 2p^2 / R + p < 2p, one conditional subtraction.
/// (Measured on the H200, 2026-12-02: G1 mixed addition 2.18 -> 2.41 G/s.)
/// Cost: 6W^2 multiply-adds (Fp: 864) against 8W^2 for two mul_mont, in
/// mul_mont's registers plus the two extra operands (the XYZZ formulas' Y
/// coordinate, R (Q - X3) - Y1 PPP, is this shape).
template <int W>
__host__ __device__ __forceinline__ void mul_sub_mont(std::uint32_t* r, const std::uint32_t* a, const std::uint32_t* b,
                                                      const std::uint32_t* c, const std::uint32_t* d,
                                                      const std::uint32_t* p, std::uint32_t n0) {
  std::uint32_t e[W];  // p - d
  sub_plain<W>(e, p, d);
  const std::uint32_t* cs[1] = {c};
  const std::uint32_t* es[1] = {e};
  cios<W, 1>(r, a, b, cs, es, p, n0);
}

/// r = a + b mod p.
template <int W>
__host__ __device__ __forceinline__ void add_mod(std::uint32_t* r, const std::uint32_t* a, const std::uint32_t* b,
                                                 const std::uint32_t* p) {
  std::uint32_t s[W], d[W];
  s[0] = add_cc(a[0], b[0]);
  CUZK_HD_UNROLL
  for (int j = 1; j < W; ++j) s[j] = addc_cc(a[j], b[j]);
  // a + b < 2p < 2^(32W): no carry out
  d[0] = sub_cc(s[0], p[0]);
  CUZK_HD_UNROLL
  for (int j = 1; j < W; ++j) d[j] = subc_cc(s[j], p[j]);
  const std::uint32_t borrow = subc(0, 0);
  CUZK_HD_UNROLL
  for (int j = 0; j < W; ++j) r[j] = borrow ? s[j] : d[j];
}

/// r = a - b mod p.
template <int W>
__host__ __device__ __forceinline__ void sub_mod(std::uint32_t* r, const std::uint32_t* a, const std::uint32_t* b,
                                                 const std::uint32_t* p) {
  std::uint32_t d[W];
  d[0] = sub_cc(a[0], b[0]);
  CUZK_HD_UNROLL
  for (int j = 1; j < W; ++j) d[j] = subc_cc(a[j], b[j]);
  const std::uint32_t mask = subc(0, 0);  // all ones when a < b
  r[0] = add_cc(d[0], p[0] & mask);
  CUZK_HD_UNROLL
  for (int j = 1; j < W - 1; ++j) r[j] = addc_cc(d[j], p[j] & mask);
  r[W - 1] = addc(d[W - 1], p[W - 1] & mask);
}

/// r = -a mod p (0 stays 0).
template <int W>
__host__ __device__ __forceinline__ void neg_mod(std::uint32_t* r, const std::uint32_t* a, const std::uint32_t* p) {
  std::uint32_t nz = 0;
  CUZK_HD_UNROLL
  for (int j = 0; j < W; ++j) nz |= a[j];
  const std::uint32_t mask = nz ? 0xffffffffu : 0u;
  r[0] = sub_cc(p[0] & mask, a[0]);
  CUZK_HD_UNROLL
  for (int j = 1; j < W - 1; ++j) r[j] = subc_cc(p[j] & mask, a[j]);
  r[W - 1] = subc(p[W - 1] & mask, a[W - 1]);
}

}  // namespace cuzk::ff::detail::cuda

namespace cuzk::gpu {

/// A prime-field element on the device, byte-identical to ff::mont_field<P>.
template <class P>
struct alignas(8) mont_d {
  using host_type = ff::mont_field<P>;
  static constexpr int n_words = int(2 * P::n_limbs);

  std::uint32_t l[n_words];  // Montgomery form, little-endian 32-bit words

  mont_d() = default;

  __host__ __device__ __forceinline__ static mont_d zero() {
    mont_d r;
    CUZK_HD_UNROLL
    for (int j = 0; j < n_words; ++j) r.l[j] = 0;
    return r;
  }
  __host__ __device__ __forceinline__ static mont_d one() {
    mont_d r;
    CUZK_HD_UNROLL
    for (int j = 0; j < n_words; ++j) r.l[j] = ff::detail::cuda::one_words<P>()[j];
    return r;
  }

  __host__ __device__ __forceinline__ bool is_zero() const {
    std::uint32_t acc = 0;
    CUZK_HD_UNROLL
    for (int j = 0; j < n_words; ++j) acc |= l[j];
    return acc == 0;
  }
  __host__ __device__ __forceinline__ friend bool operator==(const mont_d& a, const mont_d& b) {
    std::uint32_t acc = 0;
    CUZK_HD_UNROLL
    for (int j = 0; j < n_words; ++j) acc |= a.l[j] ^ b.l[j];
    return acc == 0;
  }
  __host__ __device__ __forceinline__ friend bool operator!=(const mont_d& a, const mont_d& b) { return !(a == b); }

  __host__ __device__ __forceinline__ friend mont_d operator+(const mont_d& a, const mont_d& b) {
    mont_d r;
    ff::detail::cuda::add_mod<n_words>(r.l, a.l, b.l, ff::detail::cuda::modulus_words<P>());
    return r;
  }
  __host__ __device__ __forceinline__ friend mont_d operator-(const mont_d& a, const mont_d& b) {
    mont_d r;
    ff::detail::cuda::sub_mod<n_words>(r.l, a.l, b.l, ff::detail::cuda::modulus_words<P>());
    return r;
  }
  __host__ __device__ __forceinline__ friend mont_d operator*(const mont_d& a, const mont_d& b) {
    namespace fc = ff::detail::cuda;
    mont_d r;
    fc::mul_mont<n_words>(r.l, a.l, b.l, fc::modulus_words<P>(), fc::n0_word<P>());
    return r;
  }
  __host__ __device__ __forceinline__ mont_d operator-() const {
    mont_d r;
    ff::detail::cuda::neg_mod<n_words>(r.l, l, ff::detail::cuda::modulus_words<P>());
    return r;
  }
  __host__ __device__ __forceinline__ mont_d& operator+=(const mont_d& b) { return *this = *this + b; }
  __host__ __device__ __forceinline__ mont_d& operator-=(const mont_d& b) { return *this = *this - b; }
  __host__ __device__ __forceinline__ mont_d& operator*=(const mont_d& b) { return *this = *this * b; }

  __host__ __device__ __forceinline__ mont_d sqr() const {
    mont_d r;
    ff::detail::cuda::sqr_mont<n_words>(r.l, l, ff::detail::cuda::modulus_words<P>(), ff::detail::cuda::n0_word<P>());
    return r;
  }
  __host__ __device__ __forceinline__ mont_d dbl() const { return *this + *this; }
  /// Conditional negation: -a when |flag|, a otherwise.
  __host__ __device__ __forceinline__ mont_d cneg(bool flag) const { return flag ? -*this : *this; }
};

/// a b - c d with one Montgomery reduction (mul_sub_mont) where the modulus
/// leaves room (Fp). The XYZZ formulas call mul_sub unqualified: this
/// overload for fp_d, ec::mul_sub (a * b - c * d) for the host fields, Fr
/// and Fp2.
// clang-format off
template <class P>
  requires ff::detail::cuda::two_spare_top_bits<P>
__host__ __device__ __forceinline__ mont_d<P> mul_sub(const mont_d<P>& a, const mont_d<P>& b,
                                                      const mont_d<P>& c, const mont_d<P>& d) {
  namespace fc = ff::detail::cuda;
  mont_d<P> r;
  fc::mul_sub_mont<mont_d<P>::n_words>(r.l, a.l, b.l, c.l, d.l, fc::modulus_words<P>(), fc::n0_word<P>());
  return r;
}
// clang-format on

using fr_d = mont_d<ff::fr_params>;
using fp_d = mont_d<ff::fp_params>;

static_assert(sizeof(fr_d) == sizeof(ff::fr) && alignof(fr_d) == alignof(ff::fr));
static_assert(sizeof(fp_d) == sizeof(ff::fp) && alignof(fp_d) == alignof(ff::fp));
static_assert(std::is_trivially_copyable_v<fr_d> && std::is_trivially_copyable_v<fp_d>);
static_assert(std::is_standard_layout_v<fr_d> && std::is_standard_layout_v<fp_d>);

}  // namespace cuzk::gpu
