// SPDX-License-Identifier: Apache-2.0
#pragma once
// Host limb arithmetic on 64-bit limbs: the CPU fast path.
//
// Method: CIOS Montgomery multiplication with the "no final carry" variant
// (valid when the top limb of p is below 2^63 - 1, true for both BLS12-381
// moduli): every intermediate fits in N limbs plus one carry word, and the
// result is < 2p before one conditional subtraction. Products use
// `unsigned __int128`, which GCC/Clang lower to MUL/ADC.
//
// On x86-64 CPUs with BMI2+ADX, N = 4 and N = 6 dispatch at run time to the
// MULX/ADCX/ADOX inline-assembly kernels in x86_adx.hpp (and N = 6 addition
// and subtraction to add_mod_6_adx / sub_mod_6_adx below) (two interleaved
// carry chains; see that file for measured costs). The check is a load of one
// global bool, predicted perfectly after the first call. Setting the
// environment variable CUZK_NO_ADX=1 forces the portable 64-bit path.
//
// Invariants: inputs fully reduced (< p), outputs fully reduced. Outputs may
// alias inputs. Everything here is constexpr-evaluable except the asm.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include <cuzk/ff/detail/bigint.hpp>
#include <cuzk/ff/detail/x86_adx.hpp>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace cuzk::ff::detail {

#if defined(CUZK_HAVE_X86_ADX_ASM)
inline bool detect_adx() noexcept {
  const char* off = std::getenv("CUZK_NO_ADX");
  if (off && *off && *off != '0') return false;
  return cpu_has_bmi2_adx();
}
/// True when the MULX/ADCX/ADOX kernels are in use (decided once at start-up).
inline const bool use_adx = detect_adx();
#else
inline constexpr bool use_adx = false;
#endif

#if defined(__x86_64__)
// Add/subtract chains with ADC/SBB through _addcarry_u64/_subborrow_u64
// (baseline x86-64, no -m flags needed); GCC keeps the flag chain in
// registers; for N = 6 about 2x faster than the __int128 form below
// (4.5 vs 9.5 ns per Fp add on Zen 5), for N = 4 slower (9.5 vs 6.2 ns),
// so only Fp uses it. Valid because
// a + b < 2p < 2^(64N) (a spare top bit), so the sum never carries out.
// (Kept out of line: only CPUs without ADX take them, and inlined they
// would bloat every call site of add_mod/sub_mod below.)
template <std::size_t N>
[[gnu::noinline]] void add_mod_x86(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b,
                                   const std::uint64_t* p) noexcept {
  unsigned long long s[N], d[N];
  unsigned char c = 0;
  for (std::size_t i = 0; i < N; ++i) c = _addcarry_u64(c, a[i], b[i], &s[i]);
  unsigned char w = 0;
  for (std::size_t i = 0; i < N; ++i) w = _subborrow_u64(w, s[i], p[i], &d[i]);
  const std::uint64_t keep_sum = 0 - std::uint64_t(w);  // all ones when s < p
  for (std::size_t i = 0; i < N; ++i) r[i] = (s[i] & keep_sum) | (d[i] & ~keep_sum);
}

template <std::size_t N>
[[gnu::noinline]] void sub_mod_x86(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b,
                                   const std::uint64_t* p) noexcept {
  unsigned long long d[N];
  unsigned char w = 0;
  for (std::size_t i = 0; i < N; ++i) w = _subborrow_u64(w, a[i], b[i], &d[i]);
  const std::uint64_t mask = 0 - std::uint64_t(w);  // add p back when a < b
  unsigned char c = 0;
  unsigned long long out;
  for (std::size_t i = 0; i < N; ++i) {
    c = _addcarry_u64(c, d[i], p[i] & mask, &out);
    r[i] = out;
  }
}
#endif

#if defined(CUZK_HAVE_X86_ADX_ASM)
// Fp (N = 6) addition and subtraction as one asm block each, so that the
// six limbs stay in registers. GCC spills the _addcarry_u64 forms above to
// the stack, round-trips the carry through SETB, and vectorises their final
// select; a perf profile of the final exponentiation had about half of its
// samples outside the multiplication kernel, mostly in that code. Measured
// (2026-12-03, Zen 5 VM): Fp add 6.5 -> 3.0 ns, Fp2 add 12 -> 5 ns in a
// dependent chain; the final exponentiation ~1.9x faster. Both end the same way:
// CF holds the borrow of the last subtraction chain (add: s - p, sub: a - b),
// SBB m, m turns it into a mask and clears OF without touching CF, and an
// ADOX chain (OF only) adds back p_i selected by CMOVNC on the unchanged CF
// (MOV/CMOV/ADOX leave CF alone). Needs ADX (ADOX): callers check use_adx.
// Eleven registers: eight plus the pointers a, b, p (the "m" operands tell
// the compiler which memory the block reads). Preconditions as for
// add_mod/sub_mod: a, b < p < 2^383, so a + b never carries out of 6 limbs.
// clang-format off
#define CUZK_FP_ADD_BACK_P(i)     \
  "movq " #i "*8(%[p]), %[t]\n\t" \
  "cmovncq %[m], %[t]\n\t"        \
  "adoxq %[t], %[s" #i "]\n\t"
// r = a (CHAIN) then p added back where the last chain borrowed; CHAIN is
// the carry chain(s) that leave the borrow in CF.
#define CUZK_FP_MOD_OP_6(CHAIN)                                                                   \
  std::uint64_t s0, s1, s2, s3, s4, s5, m, t;                                                     \
  using arr = const std::uint64_t(*)[6];                                                          \
  __asm__("movq 0(%[a]), %[s0]\n\t"                                                               \
          "movq 8(%[a]), %[s1]\n\t"                                                               \
          "movq 16(%[a]), %[s2]\n\t"                                                              \
          "movq 24(%[a]), %[s3]\n\t"                                                              \
          "movq 32(%[a]), %[s4]\n\t"                                                              \
          "movq 40(%[a]), %[s5]\n\t" CHAIN                                                        \
          "sbbq %[m], %[m]\n\t" /* m = ~0 when the chain borrowed (add p back), else 0; OF = 0 */ \
          CUZK_FP_ADD_BACK_P(0) CUZK_FP_ADD_BACK_P(1) CUZK_FP_ADD_BACK_P(2)                       \
          CUZK_FP_ADD_BACK_P(3) CUZK_FP_ADD_BACK_P(4) CUZK_FP_ADD_BACK_P(5)                       \
          : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4),       \
            [s5] "=&r"(s5), [m] "=&r"(m), [t] "=&r"(t)                                            \
          : [a] "r"(a), [b] "r"(b), [p] "r"(p), "m"(*arr(a)), "m"(*arr(b)), "m"(*arr(p))          \
          : "cc");                                                                                \
  r[0] = s0;                                                                                      \
  r[1] = s1;                                                                                      \
  r[2] = s2;                                                                                      \
  r[3] = s3;                                                                                      \
  r[4] = s4;                                                                                      \
  r[5] = s5
#define CUZK_FP_CHAIN(op0, op, x)                                                             \
  op0 " 0(%[" x "]), %[s0]\n\t" op " 8(%[" x "]), %[s1]\n\t" op " 16(%[" x "]), %[s2]\n\t" op \
      " 24(%[" x "]), %[s3]\n\t" op " 32(%[" x "]), %[s4]\n\t" op " 40(%[" x "]), %[s5]\n\t"
// clang-format on
inline void add_mod_6_adx(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b,
                          const std::uint64_t* p) noexcept {
  // s = a + b, then s - p: CF = 1 when s < p (keep s)
  CUZK_FP_MOD_OP_6(CUZK_FP_CHAIN("addq", "adcq", "b") CUZK_FP_CHAIN("subq", "sbbq", "p"));
}
inline void sub_mod_6_adx(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b,
                          const std::uint64_t* p) noexcept {
  // a - b: CF = 1 when a < b (add p back)
  CUZK_FP_MOD_OP_6(CUZK_FP_CHAIN("subq", "sbbq", "b"));
}
#undef CUZK_FP_CHAIN
#undef CUZK_FP_MOD_OP_6
#undef CUZK_FP_ADD_BACK_P
#endif

/// r = a + b mod p. Always inlined: for Fp on ADX CPUs its body is one
/// asm block of ~30 instructions, and as a call (GCC declined to inline
/// the dispatch) add_mod and sub_mod took ~10% of a CPU MSM's samples.
template <std::size_t N>
[[gnu::always_inline]] constexpr void add_mod(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b,
                                              const std::uint64_t* p) noexcept {
#if defined(__x86_64__)
  // measured: 2x faster for N = 6, slower than the form below for N = 4
  if constexpr (N == 6)
    if (!std::is_constant_evaluated()) {
#if defined(CUZK_HAVE_X86_ADX_ASM)
      if (use_adx) return add_mod_6_adx(r, a, b, p);
#endif
      return add_mod_x86<N>(r, a, b, p);
    }
#endif
  std::uint64_t s[N], d[N];
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < N; ++i) {
    u128 t = u128(a[i]) + b[i] + carry;
    s[i] = std::uint64_t(t);
    carry = std::uint64_t(t >> 64);
  }
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < N; ++i) {
    u128 t = u128(s[i]) - p[i] - borrow;
    d[i] = std::uint64_t(t);
    borrow = std::uint64_t(t >> 64) & 1;
  }
  // keep the difference unless it borrowed past the carry word
  const bool keep_sum = borrow > carry;
  for (std::size_t i = 0; i < N; ++i) r[i] = keep_sum ? s[i] : d[i];
}

/// r = a - b mod p (always inlined, as add_mod).
template <std::size_t N>
[[gnu::always_inline]] constexpr void sub_mod(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b,
                                              const std::uint64_t* p) noexcept {
#if defined(__x86_64__)
  if constexpr (N == 6)
    if (!std::is_constant_evaluated()) {
#if defined(CUZK_HAVE_X86_ADX_ASM)
      if (use_adx) return sub_mod_6_adx(r, a, b, p);
#endif
      return sub_mod_x86<N>(r, a, b, p);
    }
#endif
  std::uint64_t d[N];
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < N; ++i) {
    u128 t = u128(a[i]) - b[i] - borrow;
    d[i] = std::uint64_t(t);
    borrow = std::uint64_t(t >> 64) & 1;
  }
  const std::uint64_t mask = 0 - borrow;  // add p back when a < b
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < N; ++i) {
    u128 t = u128(d[i]) + (p[i] & mask) + carry;
    r[i] = std::uint64_t(t);
    carry = std::uint64_t(t >> 64);
  }
}

/// r = -a mod p (0 stays 0)
template <std::size_t N>
constexpr void neg_mod(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* p) noexcept {
  std::uint64_t nz = 0;
  for (std::size_t i = 0; i < N; ++i) nz |= a[i];
  const std::uint64_t mask = nz ? ~std::uint64_t(0) : 0;
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < N; ++i) {
    u128 t = u128(p[i]) - a[i] - borrow;
    r[i] = std::uint64_t(t) & mask;
    borrow = std::uint64_t(t >> 64) & 1;
  }
}

/// Portable 64-bit CIOS without the final carry word (see file comment).
template <std::size_t N>
constexpr void mul_mont_generic(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b,
                                const std::uint64_t* p, std::uint64_t n0) noexcept {
  std::uint64_t t[N] = {};
  for (std::size_t i = 0; i < N; ++i) {
    u128 ab = u128(a[0]) * b[i] + t[0];
    std::uint64_t carry_ab = std::uint64_t(ab >> 64);
    t[0] = std::uint64_t(ab);
    const std::uint64_t m = t[0] * n0;
    u128 red = u128(m) * p[0] + t[0];
    std::uint64_t carry_red = std::uint64_t(red >> 64);
    for (std::size_t j = 1; j < N; ++j) {
      ab = u128(a[j]) * b[i] + t[j] + carry_ab;
      carry_ab = std::uint64_t(ab >> 64);
      red = u128(m) * p[j] + std::uint64_t(ab) + carry_red;
      carry_red = std::uint64_t(red >> 64);
      t[j - 1] = std::uint64_t(red);
    }
    t[N - 1] = carry_ab + carry_red;
  }
  std::uint64_t d[N];
  std::uint64_t borrow = 0;
  for (std::size_t j = 0; j < N; ++j) {
    u128 diff = u128(t[j]) - p[j] - borrow;
    d[j] = std::uint64_t(diff);
    borrow = std::uint64_t(diff >> 64) & 1;
  }
  for (std::size_t j = 0; j < N; ++j) r[j] = borrow ? t[j] : d[j];
}

/// r = a * b * R^-1 mod p; dispatches to the ADX kernels when available.
template <std::size_t N>
constexpr void mul_mont(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* p,
                        std::uint64_t n0) noexcept {
#if defined(CUZK_HAVE_X86_ADX_ASM)
  if (!std::is_constant_evaluated() && use_adx) {
    if constexpr (N == 6) return mul_mont_6_adx(r, a, b, p, n0);
    if constexpr (N == 4) return mul_mont_4_adx(r, a, b, p, n0);
  }
#endif
  mul_mont_generic<N>(r, a, b, p, n0);
}

/// r = a^2 * R^-1 mod p
template <std::size_t N>
constexpr void sqr_mont(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* p, std::uint64_t n0) noexcept {
#if defined(CUZK_HAVE_X86_ADX_ASM)
  if (!std::is_constant_evaluated() && use_adx) {
    if constexpr (N == 6) return sqr_mont_6_adx(r, a, p, n0);
    if constexpr (N == 4) return sqr_mont_4_adx(r, a, p, n0);
  }
#endif
  mul_mont_generic<N>(r, a, a, p, n0);
}

}  // namespace cuzk::ff::detail
