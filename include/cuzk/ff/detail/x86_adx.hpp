// SPDX-License-Identifier: Apache-2.0
#pragma once

/*
 * Montgomery multiplication and squaring for the two BLS12-381 moduli on
 * x86-64 with BMI2 (MULX) and ADX (ADCX/ADOX), written as GCC extended inline
 * assembly.
 *
 *   mul_mont_6_adx / sqr_mont_6_adx   Fp, N = 6 limbs
 *   mul_mont_4_adx / sqr_mont_4_adx   Fr, N = 4 limbs
 *
 * All compute r = a * b * R^-1 mod p with R = 2^(64 N), limbs little-endian.
 *
 * Contract
 *   - n0 = -p^-1 mod 2^64, p odd.
 *   - p has spare top bits: p < 2^(64 N - 1) for mul_mont_{4,6}_adx and
 *     sqr_mont_4_adx; p < 2^382 for sqr_mont_6_adx.  BLS12-381 has
 *     p < 2^381 (Fp, 3 spare bits) and r < 2^255 (Fr, 1 spare bit).
 *   - Inputs fully reduced (< p); outputs fully reduced (< p).
 *   - r may alias a and/or b: every input limb is read inside one asm
 *     statement, and r is only written afterwards from its register outputs.
 *   - The instructions are emitted as text, so any translation unit can hold
 *     this code without -mbmi2/-madx; the caller must check the CPU at run
 *     time (cpu_has_bmi2_adx() below, or __builtin_cpu_supports("bmi2") and
 *     "adx" on GCC; clang 14 does not know the "adx" feature name).
 *
 * Multiplication: CIOS, one 64-bit digit of b per step
 *     for i in 0..N-1:  t += a * b[i];  m = t[0] * n0;  t = (t + m * p) / 2^64
 *   Each row (a * b[i] or m * p) is MULX against RDX (= b[i] or m), which sets
 *   no flags, plus two independent carry chains: ADCX (CF only) adds the low
 *   halves into position j and ADOX (OF only) adds the high halves into
 *   position j + 1, so a row costs one pass instead of two (one chain per
 *   row would need a second pass for the high halves).  A zeroing xor starts
 *   a row with CF = OF = 0.  Because of the spare bits, t < 2p between steps,
 *   so t lives in N registers plus one transient top word, no carry word
 *   beyond it is ever needed (the spare-bit "no final carry" observation also
 *   used by gnark-crypto), and a single conditional subtraction (SUB/SBB into
 *   scratch registers, CMOVNC back) ends the computation.  The accumulator
 *   registers rotate by one name per step instead of moving data.
 *
 *   The serial path of a step is t0 -> IMUL n0 (3 cycles) -> MULX hi(m p0)
 *   (4) -> add into t1 (1) [-> add lo(a0 b[i+1]) into the new t0 (1)].
 *   Everything else is arranged to stay off it:
 *     * t0 + lo(m p0) is 0 mod 2^64 by the choice of m, so only its carry,
 *       c0 = (t0 != 0), is needed; it is formed by ADCX of t0 with an
 *       all-ones word as soon as t0 is known, and lo(m p0) is discarded.
 *       lo(m p1) enters t1 before hi(m p0), which arrives one cycle later.
 *     * Fr only: lo(a0 b[i+1]) is added into t1 before the reduction of
 *       step i (its high word plus that carry waits in a register for the
 *       next row), which removes the bracketed cycle.  Fp has no register to
 *       spare for the parked word, and there the gain measured as noise.
 *   Lengthening this chain by one cycle per step costs roughly N cycles per
 *   call; shortening it gained less, because the per-step port pressure is
 *   close behind (see the cost notes below).
 *
 * Squaring, Fp (N = 6): symmetric CIOS
 *   a^2 = sum_i 2^(64 i) a_i (a_i 2^(64 i) + 2 sum_(j>i) a_j 2^(64 j)), so row i
 *   adds a_i * [a_i, a_(i+1) << 1, d_(i+2), ..., d_5] at positions i..N, where
 *   d = 2a; the shifted words and d are formed once into a stack buffer.  The
 *   first word of the doubled tail is a_(i+1) << 1 rather than d_(i+1): the
 *   bit that d_(i+1) receives from a_i is not part of 2 sum_(j>i) a_j.  The top
 *   word d_6 is 0 since a < p < 2^382.  This takes 21 product MULX instead
 *   of 36, and row i never touches positions 0 and 1 (i >= 2), so it stays off
 *   the m chain.  The partial sums are bounded by 2a + p < 3p < 2^384.
 *
 * Squaring, Fr (N = 4): product, then reduction (SOS)
 *   The 8-word square is built from the 6 cross products (doubled by an ADCX
 *   chain) and the 4 squares (added by an ADOX chain): 10 MULX instead of 16.
 *   Only the low half is Montgomery-reduced, u = (t mod R + m p) / R <= p,
 *   then u + t / R < 2p is conditionally reduced.  (The symmetric CIOS form
 *   would need 3r < 2^256, which Fr does not satisfy.)
 *
 * Registers (asm operands x0, x1, ... are the physical accumulator
 * registers; the comments use t0, t1, ... for word positions of the step)
 *   mul_mont_6_adx: 7 rotating accumulator words, lo/hi (MULX outputs), RDX
 *   and the a, b, p pointers, n0 from memory.  mul_mont_4_adx: 5 words, lo,
 *   hi, the parked word c, RDX, a/b/p and an all-ones register.
 *   sqr_mont_6_adx: 7 words, lo/hi, RDX, the a/p pointers and the scratch
 *   pointer.  sqr_mont_4_adx: 8 words of the square, lo/hi, RDX, a/p.  No
 *   kernel asks for more than 13 registers, never RBP or RSP: they build with
 *   frame pointers, at -O0, and with -O0 -fsanitize=address (which takes one
 *   more register), on GCC and clang.  All clobber "cc" (CF and OF carry data
 *   between instructions) and "memory" (they read through the pointers).
 *
 * Measured cost (AMD Zen 5 VM, 2 vCPUs, ~3.3-3.5 GHz; GCC 12 -O2; non-inlined
 * calls; best of 8 runs while a parallel build shared the host, about +-5%
 * run to run).  Latency: x = f(x, y) chained.  Throughput: 8 independent
 * chains interleaved.  Cycles from a dependent-ADD calibration in each run.
 *
 *                          latency          throughput       plain C++ CIOS
 *                                                            (__int128, -O2)
 *     mul_mont_6_adx (Fp)  25.6 ns  87 cy   23.7 ns  82 cy   59.3 / 58.1 ns
 *     sqr_mont_6_adx (Fp)  24.3 ns  82 cy   21.4 ns  74 cy   58.2 / 58.0 ns
 *     mul_mont_4_adx (Fr)  14.0 ns  46 cy   11.8 ns  39 cy   30.5 / 29.8 ns
 *     sqr_mont_4_adx (Fr)  14.3 ns  47 cy   10.8 ns  36 cy   32.0 / 31.1 ns
 *
 *   For comparison, squaring through mul_mont_N_adx(r, a, a) measured
 *   25.7 / 24.2 ns (Fp) and 14.1 / 12.0 ns (Fr).
 *
 *   One Fp step issues 12 MULX (2 ALU uops each on this core: measured 1.5
 *   MULX per cycle alone, 3-cycle low / 4-cycle high latency) and about 28
 *   other ALU uops.  At the ~5 ALU uops per cycle this core sustains, that
 *   is ~10 cycles per step, about the serial chain's length, so both would
 *   have to shrink for a faster single multiplication.  Independent calls
 *   barely overlap (one Fp call is ~300 instructions): throughput ~ latency.
 */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <cpuid.h>

#include <cstdint>

#define CUZK_HAVE_X86_ADX_ASM 1

namespace cuzk::ff::detail {

// True when the CPU executes MULX (BMI2) and ADCX/ADOX (ADX): CPUID leaf 7,
// sub-leaf 0, EBX bits 8 and 19.  Works on both GCC and clang.
inline bool cpu_has_bmi2_adx() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return ((ebx >> 8) & 1U) != 0 && ((ebx >> 19) & 1U) != 0;
}

// Fp multiplication: CIOS, 6 steps of one product row and one reduction row.
inline void mul_mont_6_adx(std::uint64_t r[6], const std::uint64_t a[6], const std::uint64_t b[6],
                           const std::uint64_t p[6], std::uint64_t n0) noexcept {
  std::uint64_t x0, x1, x2, x3, x4, x5, x6, lo, hi, rdx;
  const std::uint64_t* ap = a;
  const std::uint64_t* bp = b;
  __asm__(
      // step 0: t += a * b[0]
      "movq 0(%[bp]), %%rdx\n\t"
      "mulxq 0(%[ap]), %[x0], %[x1]\n\t"
      "mulxq 8(%[ap]), %[lo], %[x2]\n\t"
      "addq %[lo], %[x1]\n\t"
      "mulxq 16(%[ap]), %[lo], %[x3]\n\t"
      "adcq %[lo], %[x2]\n\t"
      "mulxq 24(%[ap]), %[lo], %[x4]\n\t"
      "adcq %[lo], %[x3]\n\t"
      "mulxq 32(%[ap]), %[lo], %[x5]\n\t"
      "adcq %[lo], %[x4]\n\t"
      "mulxq 40(%[ap]), %[lo], %[x6]\n\t"
      "adcq %[lo], %[x5]\n\t"
      "adcq $0, %[x6]\n\t"
      // step 0: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x0], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x0], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x0]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[x0], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "adcq $0, %[x6]\n\t"
      // step 1: t += a * b[1]
      "movq 8(%[bp]), %%rdx\n\t"
      "xorl %k[x0], %k[x0]\n\t"
      "mulxq 0(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 8(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 16(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 24(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 32(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 40(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "adcq $0, %[x0]\n\t"
      // step 1: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x1], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x1], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x1]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[x1], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "adcq $0, %[x0]\n\t"
      // step 2: t += a * b[2]
      "movq 16(%[bp]), %%rdx\n\t"
      "xorl %k[x1], %k[x1]\n\t"
      "mulxq 0(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 8(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 16(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 24(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 32(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 40(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "adcq $0, %[x1]\n\t"
      // step 2: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x2], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x2], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x2]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[x2], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "adcq $0, %[x1]\n\t"
      // step 3: t += a * b[3]
      "movq 24(%[bp]), %%rdx\n\t"
      "xorl %k[x2], %k[x2]\n\t"
      "mulxq 0(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 8(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 16(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 24(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 32(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 40(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "adcq $0, %[x2]\n\t"
      // step 3: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x3], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x3], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x3]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[x3], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "adcq $0, %[x2]\n\t"
      // step 4: t += a * b[4]
      "movq 32(%[bp]), %%rdx\n\t"
      "xorl %k[x3], %k[x3]\n\t"
      "mulxq 0(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 8(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 16(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 24(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 32(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 40(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "adcq $0, %[x3]\n\t"
      // step 4: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x4], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x4], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x4]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[x4], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "adcq $0, %[x3]\n\t"
      // step 5: t += a * b[5]
      "movq 40(%[bp]), %%rdx\n\t"
      "xorl %k[x4], %k[x4]\n\t"
      "mulxq 0(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 8(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 16(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 24(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 32(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 40(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "adcq $0, %[x4]\n\t"
      // step 5: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x5], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x5], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x5]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[x5], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "adcq $0, %[x4]\n\t"
      // final conditional subtraction: t >= p ? t - p : t
      "movq %[x6], %[lo]\n\t"
      "subq 0(%[pp]), %[lo]\n\t"
      "movq %[x0], %[hi]\n\t"
      "sbbq 8(%[pp]), %[hi]\n\t"
      "movq %[x1], %%rdx\n\t"
      "sbbq 16(%[pp]), %%rdx\n\t"
      "movq %[x2], %[x5]\n\t"
      "sbbq 24(%[pp]), %[x5]\n\t"
      "movq %[x3], %[ap]\n\t"
      "sbbq 32(%[pp]), %[ap]\n\t"
      "movq %[x4], %[bp]\n\t"
      "sbbq 40(%[pp]), %[bp]\n\t"
      "cmovncq %[lo], %[x6]\n\t"
      "cmovncq %[hi], %[x0]\n\t"
      "cmovncq %%rdx, %[x1]\n\t"
      "cmovncq %[x5], %[x2]\n\t"
      "cmovncq %[ap], %[x3]\n\t"
      "cmovncq %[bp], %[x4]\n\t"
      : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [x4] "=&r"(x4), [x5] "=&r"(x5), [x6] "=&r"(x6),
        [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx), [ap] "+&r"(ap), [bp] "+&r"(bp)
      : [pp] "r"(p), [n0] "m"(n0)
      : "cc", "memory");
  r[0] = x6;
  r[1] = x0;
  r[2] = x1;
  r[3] = x2;
  r[4] = x3;
  r[5] = x4;
}

// Fp squaring: symmetric CIOS, 21 product MULX instead of 36. Requires p < 2^382.
inline void sqr_mont_6_adx(std::uint64_t r[6], const std::uint64_t a[6], const std::uint64_t p[6],
                           std::uint64_t n0) noexcept {
  std::uint64_t x0, x1, x2, x3, x4, x5, x6, lo, hi, rdx;
  std::uint64_t s[9];  // a[1..5] << 1, then words 2..5 of 2*a
  const std::uint64_t* ap = a;
  std::uint64_t* sp = s;
  __asm__(
      // s = a[j] << 1 (j = 1..5) and d = 2*a words 2..5 (d6 = 0 as a < p < 2^382)
      "movq 0(%[ap]), %[x0]\n\t"
      "addq %[x0], %[x0]\n\t"
      "movq 8(%[ap]), %[x1]\n\t"
      "leaq (%[x1],%[x1]), %[lo]\n\t"
      "movq %[lo], 0(%[sp])\n\t"
      "adcq %[x1], %[x1]\n\t"
      "movq 16(%[ap]), %[x2]\n\t"
      "leaq (%[x2],%[x2]), %[lo]\n\t"
      "movq %[lo], 8(%[sp])\n\t"
      "adcq %[x2], %[x2]\n\t"
      "movq %[x2], 40(%[sp])\n\t"
      "movq 24(%[ap]), %[x3]\n\t"
      "leaq (%[x3],%[x3]), %[lo]\n\t"
      "movq %[lo], 16(%[sp])\n\t"
      "adcq %[x3], %[x3]\n\t"
      "movq %[x3], 48(%[sp])\n\t"
      "movq 32(%[ap]), %[x4]\n\t"
      "leaq (%[x4],%[x4]), %[lo]\n\t"
      "movq %[lo], 24(%[sp])\n\t"
      "adcq %[x4], %[x4]\n\t"
      "movq %[x4], 56(%[sp])\n\t"
      "movq 40(%[ap]), %[x5]\n\t"
      "leaq (%[x5],%[x5]), %[lo]\n\t"
      "movq %[lo], 32(%[sp])\n\t"
      "adcq %[x5], %[x5]\n\t"
      "movq %[x5], 64(%[sp])\n\t"
      // step 0: t += a[0] * (a[0] + 2 * sum(j>0) a[j] 2^(64(j-0))), positions 0..6
      "movq 0(%[ap]), %%rdx\n\t"
      "mulxq %%rdx, %[x0], %[x1]\n\t"
      "mulxq 0(%[sp]), %[lo], %[x2]\n\t"
      "addq %[lo], %[x1]\n\t"
      "mulxq 40(%[sp]), %[lo], %[x3]\n\t"
      "adcq %[lo], %[x2]\n\t"
      "mulxq 48(%[sp]), %[lo], %[x4]\n\t"
      "adcq %[lo], %[x3]\n\t"
      "mulxq 56(%[sp]), %[lo], %[x5]\n\t"
      "adcq %[lo], %[x4]\n\t"
      "mulxq 64(%[sp]), %[lo], %[x6]\n\t"
      "adcq %[lo], %[x5]\n\t"
      "adcq $0, %[x6]\n\t"
      // step 0: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x0], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x0], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x0]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[x0], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "adcq $0, %[x6]\n\t"
      // step 1: t += a[1] * (a[1] + 2 * sum(j>1) a[j] 2^(64(j-1))), positions 1..6
      "movq 8(%[ap]), %%rdx\n\t"
      "xorl %k[x0], %k[x0]\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 8(%[sp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 48(%[sp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 56(%[sp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 64(%[sp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "adcq $0, %[x0]\n\t"
      // step 1: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x1], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x1], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x1]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[x1], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "adcq $0, %[x0]\n\t"
      // step 2: t += a[2] * (a[2] + 2 * sum(j>2) a[j] 2^(64(j-2))), positions 2..6
      "movq 16(%[ap]), %%rdx\n\t"
      "xorl %k[x1], %k[x1]\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 16(%[sp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 56(%[sp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 64(%[sp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "adcq $0, %[x1]\n\t"
      // step 2: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x2], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x2], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x2]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[x2], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "adcq $0, %[x1]\n\t"
      // step 3: t += a[3] * (a[3] + 2 * sum(j>3) a[j] 2^(64(j-3))), positions 3..6
      "movq 24(%[ap]), %%rdx\n\t"
      "xorl %k[x2], %k[x2]\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 24(%[sp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 64(%[sp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "adcq $0, %[x2]\n\t"
      // step 3: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x3], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x3], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x3]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[x3], %[x4]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "adcq $0, %[x2]\n\t"
      // step 4: t += a[4] * (a[4] + 2 * sum(j>4) a[j] 2^(64(j-4))), positions 4..6
      "movq 32(%[ap]), %%rdx\n\t"
      "xorl %k[x3], %k[x3]\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 32(%[sp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "adcq $0, %[x3]\n\t"
      // step 4: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x4], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x4], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x4]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x5]\n\t"
      "adoxq %[x4], %[x5]\n\t"
      "adoxq %[hi], %[x6]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "adcq $0, %[x3]\n\t"
      // step 5: t += a[5] * (a[5] + 2 * sum(j>5) a[j] 2^(64(j-5))), positions 5..6
      "movq 40(%[ap]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[x4]\n\t"
      "addq %[lo], %[x3]\n\t"
      "adcq $0, %[x4]\n\t"
      // step 5: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x5], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x5], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x5]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x6]\n\t"
      "adoxq %[x5], %[x6]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 32(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 40(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "adcq $0, %[x4]\n\t"
      // final conditional subtraction: t >= p ? t - p : t
      "movq %[x6], %[lo]\n\t"
      "subq 0(%[pp]), %[lo]\n\t"
      "movq %[x0], %[hi]\n\t"
      "sbbq 8(%[pp]), %[hi]\n\t"
      "movq %[x1], %%rdx\n\t"
      "sbbq 16(%[pp]), %%rdx\n\t"
      "movq %[x2], %[x5]\n\t"
      "sbbq 24(%[pp]), %[x5]\n\t"
      "movq %[x3], %[ap]\n\t"
      "sbbq 32(%[pp]), %[ap]\n\t"
      "movq %[x4], %[sp]\n\t"
      "sbbq 40(%[pp]), %[sp]\n\t"
      "cmovncq %[lo], %[x6]\n\t"
      "cmovncq %[hi], %[x0]\n\t"
      "cmovncq %%rdx, %[x1]\n\t"
      "cmovncq %[x5], %[x2]\n\t"
      "cmovncq %[ap], %[x3]\n\t"
      "cmovncq %[sp], %[x4]\n\t"
      : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [x4] "=&r"(x4), [x5] "=&r"(x5), [x6] "=&r"(x6),
        [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx), [ap] "+&r"(ap), [sp] "+&r"(sp)
      : [pp] "r"(p), [n0] "m"(n0)
      : "cc", "memory");
  r[0] = x6;
  r[1] = x0;
  r[2] = x1;
  r[3] = x2;
  r[4] = x3;
  r[5] = x4;
}

// Fr multiplication: CIOS, 4 steps of one product row and one reduction row.
inline void mul_mont_4_adx(std::uint64_t r[4], const std::uint64_t a[4], const std::uint64_t b[4],
                           const std::uint64_t p[4], std::uint64_t n0) noexcept {
  std::uint64_t x0, x1, x2, x3, x4, lo, hi, c, rdx;
  const std::uint64_t* ap = a;
  const std::uint64_t* bp = b;
  __asm__(
      // step 0: t += a * b[0]
      "movq 0(%[bp]), %%rdx\n\t"
      "mulxq 0(%[ap]), %[x0], %[x1]\n\t"
      "mulxq 8(%[ap]), %[lo], %[x2]\n\t"
      "addq %[lo], %[x1]\n\t"
      "mulxq 16(%[ap]), %[lo], %[x3]\n\t"
      "adcq %[lo], %[x2]\n\t"
      "mulxq 24(%[ap]), %[lo], %[x4]\n\t"
      "adcq %[lo], %[x3]\n\t"
      "adcq $0, %[x4]\n\t"
      // fold lo(a[0]*b[1]) into t1 now, so the next m does not wait for it
      "movq 8(%[bp]), %%rdx\n\t"
      "mulxq 0(%[ap]), %[lo], %[c]\n\t"
      "addq %[lo], %[x1]\n\t"
      "adcq $0, %[c]\n\t"
      // step 0: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x0], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[m1], %[x0]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x0]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[x0], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "adcq $0, %[x4]\n\t"
      // step 1: t += a * b[1]
      "movq 8(%[bp]), %%rdx\n\t"
      "xorl %k[x0], %k[x0]\n\t"
      // lo(a[0]*b[1]) is already in t0; its high word (+ carry) waits in c
      "adoxq %[c], %[x2]\n\t"
      "mulxq 8(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 16(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 24(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "adcq $0, %[x0]\n\t"
      // fold lo(a[0]*b[2]) into t1 now, so the next m does not wait for it
      "movq 16(%[bp]), %%rdx\n\t"
      "mulxq 0(%[ap]), %[lo], %[c]\n\t"
      "addq %[lo], %[x2]\n\t"
      "adcq $0, %[c]\n\t"
      // step 1: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x1], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[m1], %[x1]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x1]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[x1], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "adcq $0, %[x0]\n\t"
      // step 2: t += a * b[2]
      "movq 16(%[bp]), %%rdx\n\t"
      "xorl %k[x1], %k[x1]\n\t"
      // lo(a[0]*b[2]) is already in t0; its high word (+ carry) waits in c
      "adoxq %[c], %[x3]\n\t"
      "mulxq 8(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 16(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 24(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "adcq $0, %[x1]\n\t"
      // fold lo(a[0]*b[3]) into t1 now, so the next m does not wait for it
      "movq 24(%[bp]), %%rdx\n\t"
      "mulxq 0(%[ap]), %[lo], %[c]\n\t"
      "addq %[lo], %[x3]\n\t"
      "adcq $0, %[c]\n\t"
      // step 2: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x2], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[m1], %[x2]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x2]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[x2], %[x3]\n\t"
      "adoxq %[hi], %[x4]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "adcq $0, %[x1]\n\t"
      // step 3: t += a * b[3]
      "movq 24(%[bp]), %%rdx\n\t"
      "xorl %k[x2], %k[x2]\n\t"
      // lo(a[0]*b[3]) is already in t0; its high word (+ carry) waits in c
      "adoxq %[c], %[x4]\n\t"
      "mulxq 8(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 16(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 24(%[ap]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "adcq $0, %[x2]\n\t"
      // step 3: m = t0 * n0; t = (t + m * p) / 2^64
      "movq %[x3], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[m1], %[x3]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x3]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x4]\n\t"
      "adoxq %[x3], %[x4]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "adcq $0, %[x2]\n\t"
      // final conditional subtraction: t >= p ? t - p : t
      "movq %[x4], %[lo]\n\t"
      "subq 0(%[pp]), %[lo]\n\t"
      "movq %[x0], %[hi]\n\t"
      "sbbq 8(%[pp]), %[hi]\n\t"
      "movq %[x1], %%rdx\n\t"
      "sbbq 16(%[pp]), %%rdx\n\t"
      "movq %[x2], %[x3]\n\t"
      "sbbq 24(%[pp]), %[x3]\n\t"
      "cmovncq %[lo], %[x4]\n\t"
      "cmovncq %[hi], %[x0]\n\t"
      "cmovncq %%rdx, %[x1]\n\t"
      "cmovncq %[x3], %[x2]\n\t"
      : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [x4] "=&r"(x4), [lo] "=&r"(lo), [hi] "=&r"(hi),
        [c] "=&r"(c), "=&d"(rdx), [ap] "+&r"(ap), [bp] "+&r"(bp)
      : [pp] "r"(p), [n0] "rm"(n0), [m1] "r"(~std::uint64_t{0})
      : "cc", "memory");
  r[0] = x4;
  r[1] = x0;
  r[2] = x1;
  r[3] = x2;
}

// Fr squaring: 8-word square (10 MULX), reduce the low half, add the high half.
inline void sqr_mont_4_adx(std::uint64_t r[4], const std::uint64_t a[4], const std::uint64_t p[4],
                           std::uint64_t n0) noexcept {
  std::uint64_t x0, x1, x2, x3, x4, x5, x6, x7, lo, hi, rdx;
  const std::uint64_t* ap = a;
  __asm__(
      // off-diagonal products a_i*a_j (i<j) into t1..t6
      "movq 0(%[ap]), %%rdx\n\t"
      "mulxq 8(%[ap]), %[x1], %[x2]\n\t"
      "mulxq 16(%[ap]), %[lo], %[x3]\n\t"
      "addq %[lo], %[x2]\n\t"
      "mulxq 24(%[ap]), %[lo], %[x4]\n\t"
      "adcq %[lo], %[x3]\n\t"
      "adcq $0, %[x4]\n\t"
      "movq 8(%[ap]), %%rdx\n\t"
      "mulxq 16(%[ap]), %[lo], %[hi]\n\t"
      "mulxq 24(%[ap]), %[x0], %[x5]\n\t"
      "addq %[hi], %[x0]\n\t"
      "adcq $0, %[x5]\n\t"
      "addq %[lo], %[x3]\n\t"
      "adcq %[x0], %[x4]\n\t"
      "movq 16(%[ap]), %%rdx\n\t"
      "mulxq 24(%[ap]), %[lo], %[x6]\n\t"
      "adcq %[lo], %[x5]\n\t"
      "adcq $0, %[x6]\n\t"
      // t = 2*t (CF chain) + sum a_i^2 * 2^(128 i) (OF chain)
      "movq 0(%[ap]), %%rdx\n\t"
      "xorl %k[x7], %k[x7]\n\t"
      "mulxq %%rdx, %[x0], %[hi]\n\t"
      "adcxq %[x1], %[x1]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "movq 8(%[ap]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcxq %[x2], %[x2]\n\t"
      "adoxq %[lo], %[x2]\n\t"
      "adcxq %[x3], %[x3]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "movq 16(%[ap]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcxq %[x4], %[x4]\n\t"
      "adoxq %[lo], %[x4]\n\t"
      "adcxq %[x5], %[x5]\n\t"
      "adoxq %[hi], %[x5]\n\t"
      "movq 24(%[ap]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcxq %[x6], %[x6]\n\t"
      "adoxq %[lo], %[x6]\n\t"
      "adcxq %[x7], %[x7]\n\t"
      "adoxq %[hi], %[x7]\n\t"
      // u = (t mod 2^256 + m*p) / 2^256, word by word (u <= p)
      "xorl %k[ap], %k[ap]\n\t"
      "movq %[x0], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x0], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x0]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[x0], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[ap]\n\t"
      "adcq $0, %[ap]\n\t"
      "xorl %k[x0], %k[x0]\n\t"
      "movq %[x1], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x1], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x1]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x2]\n\t"
      "adoxq %[x1], %[x2]\n\t"
      "adoxq %[hi], %[x3]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[hi], %[ap]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[ap]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "adcq $0, %[x0]\n\t"
      "xorl %k[x1], %k[x1]\n\t"
      "movq %[x2], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x2], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x2]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x3]\n\t"
      "adoxq %[x2], %[x3]\n\t"
      "adoxq %[hi], %[ap]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[ap]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "adcq $0, %[x1]\n\t"
      "xorl %k[x2], %k[x2]\n\t"
      "movq %[x3], %%rdx\n\t"
      "imulq %[n0], %%rdx\n\t"
      // t0 + lo(m p0) = 0 mod 2^64: keep only its carry, CF = (t0 != 0)
      "movq $-1, %[hi]\n\t"
      "xorl %k[lo], %k[lo]\n\t"
      "adcxq %[x3], %[hi]\n\t"
      "mulxq 0(%[pp]), %[lo], %[x3]\n\t"
      "mulxq 8(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[ap]\n\t"
      "adoxq %[x3], %[ap]\n\t"
      "adoxq %[hi], %[x0]\n\t"
      "mulxq 16(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x0]\n\t"
      "adoxq %[hi], %[x1]\n\t"
      "mulxq 24(%[pp]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[x1]\n\t"
      "adoxq %[hi], %[x2]\n\t"
      "adcq $0, %[x2]\n\t"
      // u += t / 2^256 (< 2p)
      "addq %[ap], %[x4]\n\t"
      "adcq %[x0], %[x5]\n\t"
      "adcq %[x1], %[x6]\n\t"
      "adcq %[x2], %[x7]\n\t"
      // final conditional subtraction: t >= p ? t - p : t
      "movq %[x4], %[lo]\n\t"
      "subq 0(%[pp]), %[lo]\n\t"
      "movq %[x5], %[hi]\n\t"
      "sbbq 8(%[pp]), %[hi]\n\t"
      "movq %[x6], %%rdx\n\t"
      "sbbq 16(%[pp]), %%rdx\n\t"
      "movq %[x7], %[x3]\n\t"
      "sbbq 24(%[pp]), %[x3]\n\t"
      "cmovncq %[lo], %[x4]\n\t"
      "cmovncq %[hi], %[x5]\n\t"
      "cmovncq %%rdx, %[x6]\n\t"
      "cmovncq %[x3], %[x7]\n\t"
      : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [x4] "=&r"(x4), [x5] "=&r"(x5), [x6] "=&r"(x6),
        [x7] "=&r"(x7), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx), [ap] "+&r"(ap)
      : [pp] "r"(p), [n0] "rm"(n0)
      : "cc", "memory");
  r[0] = x4;
  r[1] = x5;
  r[2] = x6;
  r[3] = x7;
}

}  // namespace cuzk::ff::detail

#endif  // x86-64 && (GCC || Clang)
