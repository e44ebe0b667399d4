// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fp arithmetic on eight independent elements at once with AVX-512 IFMA
// (VPMADD52LUQ / VPMADD52HUQ): the vector kernel of the CPU MSM's
// batch-affine additions (src/cpu/batch_affine_ifma.cpp).
//
// Why: one scalar Montgomery multiplication (mul_mont_6_adx) is a serial
// chain of ~300 instructions, ~25 ns on Zen 5, and a batch-affine addition
// is six of them. IFMA multiplies eight 52-bit pairs per instruction; eight
// Fp products in 52-bit limbs take 264 of them, measured at ~6.4 ns per
// element on the same core (two products in flight), 4x the scalar rate.
//
// Representation (fp8): limb j of lane k is bits [52j, 52j + 52) of lane k's
// element; vector j holds limb j of all eight lanes (structure of arrays).
// Eight 52-bit limbs span 416 bits. The VALUES are the same Montgomery
// residues as ff::fp's (x R mod p, R = 2^384), so conversion is only a
// change of bit layout (load8 / store8): no multiplication.
//
// Multiplication (mul): CIOS in radix 2^52 with carries left in the 64-bit
// accumulators (12 spare bits: each position takes at most 36 products of
// 52 bits before it leaves, < 2^58). Eight product rows a * b_i; after
// rows 0..6 a 52-bit reduction step (m = t0 n0 mod 2^52, t += m p, one limb
// dropped), after row 7 a 20-bit one (m < 2^20), so the division is by
// 2^(7 * 52 + 20) = 2^384 = R. The result (a b + M p) / R with M < 2^384 is
// below a b / R + p, so one conditional subtraction reduces it when
// a b < p R; inputs up to 2p (an unreduced sum) still give < 1.41 p.
// Addition and subtraction: limb-wise with a carry/borrow pass and one
// conditional correction by p (inputs < p, outputs < p).
//
// Use: every function here carries the target attribute, so the code is
// emitted only inside callers that carry it too (CUZK_IFMA_TARGET); a
// translation unit built without -mavx512f includes this safely. The
// caller checks cpu_has_avx512ifma() at run time before entering such code.
// Constants: p in 52-bit limbs and n0 = -p^-1 mod 2^52 (n0 mod 2^20 for the
// last step), derived from ff::fp at compile time.

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <cpuid.h>
#include <immintrin.h>

#include <cstdint>

#include <cuzk/ff/bls12_381.hpp>

#define CUZK_HAVE_X86_IFMA 1
#define CUZK_IFMA_TARGET gnu::target("avx512f,avx512ifma")
#define CUZK_IFMA_INLINE [[CUZK_IFMA_TARGET, gnu::always_inline]] inline

namespace cuzk::ff::detail::ifma {

/// True when the CPU executes AVX-512F and AVX-512 IFMA and the OS saves
/// the ZMM and mask registers (XCR0 bits 1, 2, 5, 6, 7).
inline bool cpu_has_avx512ifma() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || ((ecx >> 27) & 1U) == 0) return false;  // OSXSAVE
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  if (((ebx >> 16) & 1U) == 0 || ((ebx >> 21) & 1U) == 0) return false;  // AVX512F, AVX512IFMA
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 0xE6U) == 0xE6U;
}

inline constexpr std::uint64_t mask52 = (std::uint64_t(1) << 52) - 1;

/// Bits [52j, 52j + 52) of a 6-limb number.
constexpr std::uint64_t limb52(const limbs<6>& x, unsigned j) {
  const unsigned bit = 52 * j, w = bit / 64, s = bit % 64;
  std::uint64_t v = w < 6 ? x[w] >> s : 0;
  if (s > 12 && w + 1 < 6) v |= x[w + 1] << (64 - s);
  return v & mask52;
}

inline constexpr std::uint64_t p52[8] = {limb52(fp::modulus, 0), limb52(fp::modulus, 1), limb52(fp::modulus, 2),
                                         limb52(fp::modulus, 3), limb52(fp::modulus, 4), limb52(fp::modulus, 5),
                                         limb52(fp::modulus, 6), limb52(fp::modulus, 7)};
inline constexpr std::uint64_t n0_52 = fp::n0 & mask52;
inline constexpr std::uint64_t n0_20 = fp::n0 & ((std::uint64_t(1) << 20) - 1);
static_assert(p52[7] >> 17 == 0, "p < 2^381: the top limb holds 17 bits");

/// Eight Fp elements, structure of arrays (see the file comment).
struct fp8 {
  __m512i l[8];
};

CUZK_IFMA_INLINE __m512i splat(std::uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }
// Shifts and unpacks through their zero-masked forms: GCC 12's unmasked
// ones pass _mm512_undefined_epi32(), which -Wuninitialized reports once
// inlined; with an all-ones mask the same instruction is emitted.
CUZK_IFMA_INLINE __m512i shl(__m512i a, unsigned n) { return _mm512_maskz_slli_epi64(0xFF, a, n); }
CUZK_IFMA_INLINE __m512i shr(__m512i a, unsigned n) { return _mm512_maskz_srli_epi64(0xFF, a, n); }

/// Carries of every limb moved up, limbs < 2^52 (the top one keeps the rest).
CUZK_IFMA_INLINE void normalize(__m512i* t, int n) {
  const __m512i m = splat(mask52);
  for (int j = 0; j + 1 < n; ++j) {
    t[j + 1] = _mm512_add_epi64(t[j + 1], shr(t[j], 52));
    t[j] = _mm512_and_si512(t[j], m);
  }
}

/// r = t - p where t >= p, else t (t normalized, t < 2p).
CUZK_IFMA_INLINE void reduce_once(fp8& r, const __m512i* t) {
  const __m512i m = splat(mask52);
  __m512i d[8];
  __m512i borrow = _mm512_setzero_si512();
  for (int j = 0; j < 8; ++j) {
    const __m512i x = _mm512_sub_epi64(_mm512_sub_epi64(t[j], splat(p52[j])), borrow);
    borrow = shr(x, 63);
    d[j] = _mm512_and_si512(x, m);
  }
  const __mmask8 keep_t = _mm512_test_epi64_mask(borrow, borrow);
  for (int j = 0; j < 8; ++j) r.l[j] = _mm512_mask_blend_epi64(keep_t, d[j], t[j]);
}

/// a b R^-1 mod p, lane by lane; a, b < 2p (unreduced sums allowed, see above).
CUZK_IFMA_INLINE fp8 mul(const fp8& a, const fp8& b) {
  const __m512i zero = _mm512_setzero_si512();
  __m512i t[9];
  for (int j = 0; j < 9; ++j) t[j] = zero;
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    const __m512i bi = b.l[i];
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) t[j] = _mm512_madd52lo_epu64(t[j], a.l[j], bi);
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.l[j], bi);
    if (i == 7) break;
    const __m512i m = _mm512_madd52lo_epu64(zero, t[0], splat(n0_52));
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) t[j] = _mm512_madd52lo_epu64(t[j], splat(p52[j]), m);
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], splat(p52[j]), m);
    // t0 = 0 mod 2^52 now: its carry goes up, the limb is dropped
    t[1] = _mm512_add_epi64(t[1], shr(t[0], 52));
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) t[j] = t[j + 1];
    t[8] = zero;
  }
  // the last 20 bits: m < 2^20 makes t = 0 mod 2^20
  const __m512i m20 = _mm512_and_si512(_mm512_madd52lo_epu64(zero, t[0], splat(n0_20)), splat((1U << 20) - 1));
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) t[j] = _mm512_madd52lo_epu64(t[j], splat(p52[j]), m20);
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], splat(p52[j]), m20);
  normalize(t, 9);
  __m512i s[8];
  const __m512i m = splat(mask52);
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) s[j] = _mm512_and_si512(_mm512_or_si512(shr(t[j], 20), shl(t[j + 1], 32)), m);
  fp8 r;
  reduce_once(r, s);
  return r;
}

/// a + b mod p (a, b < p).
CUZK_IFMA_INLINE fp8 add(const fp8& a, const fp8& b) {
  __m512i t[8];
  for (int j = 0; j < 8; ++j) t[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  normalize(t, 8);
  fp8 r;
  reduce_once(r, t);
  return r;
}

/// a + b without reduction (< 2p: only as an operand of mul).
CUZK_IFMA_INLINE fp8 add_unreduced(const fp8& a, const fp8& b) {
  fp8 r;
  for (int j = 0; j < 8; ++j) r.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  normalize(r.l, 8);
  return r;
}

/// a - b mod p (a, b < p).
CUZK_IFMA_INLINE fp8 sub(const fp8& a, const fp8& b) {
  const __m512i m = splat(mask52);
  __m512i d[8];
  __m512i borrow = _mm512_setzero_si512();
  for (int j = 0; j < 8; ++j) {
    const __m512i x = _mm512_sub_epi64(_mm512_sub_epi64(a.l[j], b.l[j]), borrow);
    borrow = shr(x, 63);
    d[j] = _mm512_and_si512(x, m);
  }
  // where a < b: add p back (the carry out of the top limb wraps the borrow)
  const __mmask8 add_p = _mm512_test_epi64_mask(borrow, borrow);
  fp8 r;
  for (int j = 0; j < 8; ++j) r.l[j] = _mm512_mask_add_epi64(d[j], add_p, d[j], splat(p52[j]));
  normalize(r.l, 8);
  r.l[7] = _mm512_and_si512(r.l[7], m);
  return r;
}

/// -a mod p where |negate| (lane mask), a elsewhere (a < p).
CUZK_IFMA_INLINE fp8 conditional_negate(const fp8& a, __mmask8 negate) {
  fp8 p;
  for (int j = 0; j < 8; ++j) p.l[j] = splat(p52[j]);
  __m512i nz = a.l[0];
  for (int j = 1; j < 8; ++j) nz = _mm512_or_si512(nz, a.l[j]);
  // 0 stays 0 (p - 0 = p is not reduced)
  negate &= _mm512_test_epi64_mask(nz, nz);
  const fp8 n = sub(p, a);  // p - a < p for a != 0; no correction taken
  fp8 r;
  for (int j = 0; j < 8; ++j) r.l[j] = _mm512_mask_blend_epi64(negate, a.l[j], n.l[j]);
  return r;
}

/// 8x8 transpose of 64-bit words: out[j] lane k = in[k] lane j.
CUZK_IFMA_INLINE void transpose8(__m512i* out, const __m512i* in) {
  __m512i t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm512_maskz_unpacklo_epi64(0xFF, in[k], in[k + 1]);      // words 0, 2, 4, 6 of the pair
    t[k + 1] = _mm512_maskz_unpackhi_epi64(0xFF, in[k], in[k + 1]);  // words 1, 3, 5, 7
  }
  const __m512i lo2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i hi2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int h = 0; h < 8; h += 4)
    for (int e = 0; e < 2; ++e) {
      u[h + e] = _mm512_permutex2var_epi64(t[h + e], lo2, t[h + 2 + e]);      // words 0 | 4 (+e)
      u[h + 2 + e] = _mm512_permutex2var_epi64(t[h + e], hi2, t[h + 2 + e]);  // words 2 | 6 (+e)
    }
  const __m512i lo4 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
  const __m512i hi4 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
  // u[0]: word 0 (lanes 0-3) | word 4; u[1]: 1 | 5; u[2]: 2 | 6; u[3]: 3 | 7
  for (int w = 0; w < 4; ++w) {
    out[w] = _mm512_permutex2var_epi64(u[w], lo4, u[4 + w]);
    out[w + 4] = _mm512_permutex2var_epi64(u[w], hi4, u[4 + w]);
  }
}

/// Lanes k = 0..7 from the six 64-bit limbs at src[k] (an ff::fp's raw
/// limbs; any alignment).
CUZK_IFMA_INLINE fp8 load8(const std::uint64_t* const* src) {
  __m512i rows[8], w[8];
  for (int k = 0; k < 8; ++k) rows[k] = _mm512_maskz_loadu_epi64(0x3F, src[k]);
  transpose8(w, rows);
  const __m512i m = splat(mask52);
  fp8 r;
  r.l[0] = _mm512_and_si512(w[0], m);
  r.l[1] = _mm512_and_si512(_mm512_or_si512(shr(w[0], 52), shl(w[1], 12)), m);
  r.l[2] = _mm512_and_si512(_mm512_or_si512(shr(w[1], 40), shl(w[2], 24)), m);
  r.l[3] = _mm512_and_si512(_mm512_or_si512(shr(w[2], 28), shl(w[3], 36)), m);
  r.l[4] = _mm512_and_si512(_mm512_or_si512(shr(w[3], 16), shl(w[4], 48)), m);
  r.l[5] = _mm512_and_si512(shr(w[4], 4), m);
  r.l[6] = _mm512_and_si512(_mm512_or_si512(shr(w[4], 56), shl(w[5], 8)), m);
  r.l[7] = shr(w[5], 44);
  return r;
}

/// Lane k's element written as six 64-bit limbs at dst[k] (a reduced).
CUZK_IFMA_INLINE void store8(std::uint64_t* const* dst, const fp8& a) {
  __m512i w[8], rows[8];
  w[0] = _mm512_or_si512(a.l[0], shl(a.l[1], 52));
  w[1] = _mm512_or_si512(shr(a.l[1], 12), shl(a.l[2], 40));
  w[2] = _mm512_or_si512(shr(a.l[2], 24), shl(a.l[3], 28));
  w[3] = _mm512_or_si512(shr(a.l[3], 36), shl(a.l[4], 16));
  w[4] = _mm512_or_si512(_mm512_or_si512(shr(a.l[4], 48), shl(a.l[5], 4)), shl(a.l[6], 56));
  w[5] = _mm512_or_si512(shr(a.l[6], 8), shl(a.l[7], 44));
  w[6] = w[7] = _mm512_setzero_si512();
  transpose8(rows, w);
  for (int k = 0; k < 8; ++k) _mm512_mask_storeu_epi64(dst[k], 0x3F, rows[k]);
}

/// Eight Fp2 elements (c0 + c1 u, u^2 = -1): two fp8.
struct fp2x8 {
  fp8 c0, c1;
};

CUZK_IFMA_INLINE fp2x8 add(const fp2x8& a, const fp2x8& b) { return {add(a.c0, b.c0), add(a.c1, b.c1)}; }
CUZK_IFMA_INLINE fp2x8 sub(const fp2x8& a, const fp2x8& b) { return {sub(a.c0, b.c0), sub(a.c1, b.c1)}; }

/// Karatsuba, as ff::fp2: three Fp products, the sums unreduced (< 2p).
CUZK_IFMA_INLINE fp2x8 mul(const fp2x8& a, const fp2x8& b) {
  const fp8 t0 = mul(a.c0, b.c0), t1 = mul(a.c1, b.c1);
  const fp8 t2 = mul(add_unreduced(a.c0, a.c1), add_unreduced(b.c0, b.c1));
  return {sub(t0, t1), sub(sub(t2, t0), t1)};
}

/// (c0 + c1)(c0 - c1) + 2 c0 c1 u: two Fp products.
CUZK_IFMA_INLINE fp2x8 sqr(const fp2x8& a) {
  const fp8 t = mul(a.c0, a.c1);
  return {mul(add_unreduced(a.c0, a.c1), sub(a.c0, a.c1)), add(t, t)};
}

}  // namespace cuzk::ff::detail::ifma

#endif
