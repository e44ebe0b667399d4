// SPDX-License-Identifier: Apache-2.0
#pragma once
// Montgomery multiplication of Fp on the FP64 pipe: the limb products are
// exact double-precision fused multiply-adds instead of 32-bit integer
// multiply-adds. Same inputs, same R = 2^384, same fully reduced output as
// mul_mont (cuda_arith.cuh), bit for bit, so any multiplication of a
// formula can take either path.
//
// Why: a G1 MSM's bucket loop is bound by the multiply-add pipe (87% busy
// in the 2^27 level 0, Nsight Compute on the H100, 2026-12-06), which runs
// a 32x32 -> 64-bit product (IMAD.WIDE) at half rate: 576 slots of it per
// Fp multiplication, 27.3 G/s on the H200, ~94% of its ceiling. The
// data-centre cards (H100, H200, A100) also run 64 FP64 operations per SM
// per clock. An earlier probe with Fr (bench/RESULTS.md, 2026-12-06 third
// session: six 43-bit digits, ~427 FP64 operations per multiplication)
// ran at 0.65x the integer Fr multiplication alone, and the two pipes in
// one thread did not add up (4 + 4 chains 47.8 G/s against 59.2 for the
// integer ones alone), as if both drew on one budget of ~64 lanes per SM
// per clock. Under that model what counts is operations per
// multiplication, and this Fp form takes 402 FP64 operations and ~63
// multiply-add slots (SASS, sm_90) against 576: at most ~1.24x the
// integer Fp multiplication alone, ~1.1x mixed half and half; if the pipes
// do add up, ~1.4x alone (issue-bound) and more mixed. Its integer work
// (64-bit column sums, ~420 instructions) runs on the ALU pipe, which the
// multiply-add loop leaves mostly idle. `cuzk-gpu-bench prim` measures it
// (fp_mul_dpf, fp_mul_mix; g1_madd_mix, g1_madd_dpf, through the field
// types of cuda_fp_variants.cuh); nothing uses it by default. Consumer cards run FP64 at 1/64 rate: never there.
//
// Method (W = 12 words, L = 8 limbs of 48 bits, 8 x 48 = 12 x 32 = 384):
//  - limbs: each 48-bit limb of a and b becomes an exact double by placing
//    it in the mantissa of 2^52 (bit pattern 0x4330... | v) and subtracting
//    2^52 (one add);
//  - a product x = a_i b_j < 2^96 splits exactly into hi + lo with three
//    round-to-nearest operations: h = fma(a_i, b_j, C), C = 2^100 (over
//    [2^100, 2^101) the spacing of doubles is 2^48, so h = C + 2^48 k,
//    k = round(x / 2^48) <= 2^48); s = (C + 1.5 2^52) - h = 1.5 2^52 -
//    2^48 k, exact; l = fma(a_i, b_j, s) = (x - 2^48 k) + 1.5 2^52, exact,
//    in [2^52, 2^53] since |x - 2^48 k| <= 2^47. Read as 64-bit integers,
//    bits(h) - bits(C) = k and bits(l) - bits(1.5 2^52) = x - 2^48 k (the
//    step from one binade to the next is 2^52 in the bit pattern too, so
//    k = 2^48 and the top of [2^52, 2^53] stay exact);
//  - columns: the bit patterns are summed into 2L + 1 64-bit column sums
//    (k into column i + j + 1, the signed low part into i + j), wrapping
//    mod 2^64; each column starts at minus the biases of every term it will
//    receive, a constant, so no per-term correction is spent. The true
//    column values stay below 2^53 in magnitude (at most 2L terms of each
//    kind plus a carry);
//  - reduction, limb by limb: with column i complete but for the low part
//    of m_i p_0, t = s_i mod 2^48 (two's complement keeps the residue),
//    m_i = t n0 mod 2^48 (n0 = -p^-1 mod 2^48, an integer multiply), the
//    products m_i p_j added like a_i b_j; column i is then 0 mod 2^48 and
//    its arithmetic shift by 48 carries into column i + 1;
//  - the result (a b + m p) / 2^384 < 2p is columns L..2L, normalised to
//    48-bit limbs, repacked into 12 words, and p subtracted once if needed.
// Invariants: a, b < p (fully reduced, as everywhere in cuda_arith.cuh);
// every FP64 operation is round-to-nearest (__fma_rn / __dadd_rn on the
// device, std::fma and + on the host, whose results are identical: IEEE
// 754 fixes them), so the host pass is an exact model of the device and
// tests/device_host/ checks it against ff::fp without a GPU.
// Cost per multiplication: 2 L^2 = 128 products of 3 FP64 operations (384)
// plus 2L + L = 24 for limbs; ~2 64-bit adds per product on the integer
// ALU; L 48-bit integer multiplies for the m's; ~60 integer operations of
// packing and the final subtraction. Registers: 16 doubles of operands and
// 17 column sums (66 32-bit registers) beside the temporaries.

#include <bit>
#include <cmath>
#include <cstdint>

#include <cuzk/ff/detail/cuda_arith.cuh>

namespace cuzk::ff::detail::cuda::dpf {

inline constexpr int limb_bits = 48;
inline constexpr std::uint64_t limb_mask = (std::uint64_t(1) << limb_bits) - 1;

/// 2^e as a double, for the constants below (constexpr on both passes).
constexpr double pow2(int e) {
  double r = 1;
  for (int i = 0; i < e; ++i) r *= 2;
  return r;
}
inline constexpr double split_c = pow2(100);                           // h = fma(a, b, split_c)
inline constexpr double low_bias = 1.5 * pow2(52);                     // l lands in [2^52, 2^53]
inline constexpr double split_c2 = pow2(100) + 1.5 * pow2(52);         // s = split_c2 - h
inline constexpr double mantissa_base = pow2(52);                      // limb v <-> bits 0x4330... | v
inline constexpr std::uint64_t split_c_bits = 0x4630000000000000ull;   // bits(2^100)
inline constexpr std::uint64_t low_bias_bits = 0x4338000000000000ull;  // bits(1.5 2^52)
inline constexpr std::uint64_t mantissa_base_bits = 0x4330000000000000ull;
static_assert(std::bit_cast<std::uint64_t>(split_c) == split_c_bits);
static_assert(std::bit_cast<std::uint64_t>(low_bias) == low_bias_bits);
static_assert(std::bit_cast<std::uint64_t>(mantissa_base) == mantissa_base_bits);
static_assert(split_c2 - split_c == low_bias, "C + 1.5 2^52 is a double");

// ---- one operation each, round to nearest on both passes ----------------------

__host__ __device__ __forceinline__ double fma_rn(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
__host__ __device__ __forceinline__ double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
__host__ __device__ __forceinline__ std::uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return std::uint64_t(__double_as_longlong(x));
#else
  return std::bit_cast<std::uint64_t>(x);
#endif
}
__host__ __device__ __forceinline__ double double_of(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double((long long)x);
#else
  return std::bit_cast<double>(x);
#endif
}

/// A 48-bit integer as an exact double: v in the mantissa of 2^52, minus 2^52.
__host__ __device__ __forceinline__ double limb_to_double(std::uint64_t v) {
  return add_rn(double_of(mantissa_base_bits | v), -mantissa_base);
}

/// lo += bits(l), hi += bits(h) for x = a b split as described above; the
/// biases are accounted for where the columns start.
__host__ __device__ __forceinline__ void mac_split(std::uint64_t& lo, std::uint64_t& hi, double a, double b) {
  const double h = fma_rn(a, b, split_c);
  const double l = fma_rn(a, b, add_rn(split_c2, -h));
  lo += bits_of(l);
  hi += bits_of(h);
}

// ---- parameters of one modulus ------------------------------------------------

template <class P>
struct params {
  static constexpr int words = int(2 * P::n_limbs);
  static constexpr int limbs = words * 32 / limb_bits;
  static_assert(words * 32 == limbs * limb_bits, "R = 2^(32 W) must be a whole number of 48-bit limbs");
  static constexpr std::uint64_t n0 = mont_field<P>::n0 & limb_mask;  // -p^-1 mod 2^48
  /// 48-bit limb i of a little-endian 32-bit word array.
  __host__ __device__ static constexpr std::uint64_t limb(const std::uint32_t* w, int i) {
    const int bit = i * limb_bits, k = bit / 32, sh = bit % 32;  // sh is 0 or 16
    return (std::uint64_t(w[k]) >> sh | std::uint64_t(w[k + 1]) << (32 - sh)) & limb_mask;
  }
  struct limb_table {
    double v[limbs];
  };
  static constexpr limb_table p_limbs = [] {
    limb_table t{};
    for (int i = 0; i < limbs; ++i) t.v[i] = double(limb(modulus32<P>.v, i));
    return t;
  }();
  /// Terms of each kind a column receives: low parts of products (i + j = c)
  /// and high parts (i + j + 1 = c), for a b and m p together.
  __host__ __device__ static constexpr int lows(int c) {
    return c > 2 * limbs - 2 ? 0 : 2 * (c < limbs ? c + 1 : 2 * limbs - 1 - c);
  }
  __host__ __device__ static constexpr int highs(int c) { return c == 0 ? 0 : lows(c - 1); }
  /// Where column c starts: minus the biases of its terms, except (c < L)
  /// the low part of m_c p_0, whose bias is taken off when it is added (the
  /// column must be exact before that term, to give m_c).
  __host__ __device__ static constexpr std::uint64_t start(int c) {
    const int l = lows(c) - (c < limbs ? 1 : 0);
    return std::uint64_t(0) - std::uint64_t(l) * low_bias_bits - std::uint64_t(highs(c)) * split_c_bits;
  }
};

template <class P>
__device__ __constant__ const typename params<P>::limb_table d_p_limbs = params<P>::p_limbs;

/// r = a b / 2^384 mod p, fully reduced; r may alias a or b.
template <class P>
__host__ __device__ __forceinline__ void mul_mont(std::uint32_t* r, const std::uint32_t* a, const std::uint32_t* b) {
  using prm = params<P>;
  constexpr int W = prm::words, L = prm::limbs;
  const double* p = CUZK_PTX_OR_HOST(d_p_limbs<P>.v, prm::p_limbs.v);
  double x[L], y[L];
  CUZK_HD_UNROLL
  for (int i = 0; i < L; ++i) {
    x[i] = limb_to_double(prm::limb(a, i));
    y[i] = limb_to_double(prm::limb(b, i));
  }
  std::uint64_t s[2 * L + 1];
  CUZK_HD_UNROLL
  for (int c = 0; c <= 2 * L; ++c) s[c] = prm::start(c);
  CUZK_HD_UNROLL
  for (int i = 0; i < L; ++i) {
    CUZK_HD_UNROLL
    for (int j = 0; j < L; ++j) mac_split(s[i + j], s[i + j + 1], x[i], y[j]);
  }
  CUZK_HD_UNROLL
  for (int i = 0; i < L; ++i) {
    const std::uint64_t m = (s[i] & limb_mask) * prm::n0 & limb_mask;
    const double md = limb_to_double(m);
    std::uint64_t lo0 = 0;  // the low part of m p_0, bias included
    mac_split(lo0, s[i + 1], md, p[0]);
    s[i] += lo0 - low_bias_bits;  // now 0 mod 2^48
    CUZK_HD_UNROLL
    for (int j = 1; j < L; ++j) mac_split(s[i + j], s[i + j + 1], md, p[j]);
    s[i + 1] += std::uint64_t(std::int64_t(s[i]) >> limb_bits);
  }
  // columns L..2L: normalise to 48-bit limbs (the value is < 2p < 2^382)
  std::uint64_t v[L];
  CUZK_HD_UNROLL
  for (int i = 0; i < L; ++i) {
    v[i] = s[L + i] & limb_mask;
    s[L + i + 1] += std::uint64_t(std::int64_t(s[L + i]) >> limb_bits);
  }
  std::uint32_t t[W];
  CUZK_HD_UNROLL
  for (int i = 0; i < L; i += 2) {  // two limbs, three words
    const int k = i / 2 * 3;
    t[k] = std::uint32_t(v[i]);
    t[k + 1] = std::uint32_t(v[i] >> 32) | std::uint32_t(v[i + 1]) << 16;
    t[k + 2] = std::uint32_t(v[i + 1] >> 16);
  }
  const std::uint32_t* pw = modulus_words<P>();
  std::uint32_t d[W];
  d[0] = sub_cc(t[0], pw[0]);
  CUZK_HD_UNROLL
  for (int j = 1; j < W; ++j) d[j] = subc_cc(t[j], pw[j]);
  const std::uint32_t borrow = subc(0, 0);  // t < p
  CUZK_HD_UNROLL
  for (int j = 0; j < W; ++j) r[j] = borrow ? t[j] : d[j];
}

}  // namespace cuzk::ff::detail::cuda::dpf

namespace cuzk::gpu {

/// a b on the FP64 pipe (ff/detail/cuda_dpf.cuh): equal to a * b bit for bit.
template <class P>
__host__ __device__ __forceinline__ mont_d<P> mul_dpf(const mont_d<P>& a, const mont_d<P>& b) {
  mont_d<P> r;
  ff::detail::cuda::dpf::mul_mont<P>(r.l, a.l, b.l);
  return r;
}

}  // namespace cuzk::gpu
