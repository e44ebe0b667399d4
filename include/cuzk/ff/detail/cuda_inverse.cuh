// SPDX-License-Identifier: Apache-2.0
#pragma once
// Device inversion in the fields of cuda_arith.cuh: gpu::inverse (variable
// time, batched divsteps) and gpu::inverse_fermat (a^(p-2), the reference
// of the tests and the baseline of `cuzk-gpu-bench prim`). Montgomery form in
// and out: a R -> a^-1 R; 0 -> 0.
//
// Why variable time: the batch-affine MSM inverts sums of public points, so
// the running time may depend on the value (as for the host's
// mont_field::inverse). Within a warp the running time is that of the
// slowest lane (below).
//
// Method: Bernstein-Yang divsteps ("Fast constant-time gcd computation and
// modular inversion", 2019) in the half-delta form (delta starts at 1/2),
// batched 30 at a time: the method of the host's divstep_inverse.hpp cut
// to 32-bit words. The state is (f, g) = (p, a) and d, e with d a = f R^2,
// e a = g R^2 (mod p), (d, e) = (0, R^2 mod p) at first; at the end g = 0,
// f = +-1 and d = +-R^2 / a = +-a^-1 R for the Montgomery input aR.
//  - A batch runs 30 divsteps on the low 32 bits of f and g (divsteps30):
//    they depend only on those bits, and yield a 2x2 matrix T of integers,
//    |u| + |v| <= 2^30, |q| + |r| <= 2^30, with T (f, g) = 2^30 (f', g').
//    The 30 steps are unrolled and branch-free (selects on predicates), so
//    a warp never diverges inside a batch.
//  - T is applied to the full f, g (exact division by 2^30, a one-limb
//    shift) and to d, e (a multiple of p added to make the division exact,
//    as in Montgomery reduction; d, e stay in (-2p, p)).
//  - Numbers are kept in 30-bit limbs ("s30": limbs 0 .. L-2 in [0, 2^30),
//    the top one signed; Fp: L = 13, Fr: L = 9), so that a matrix entry
//    times a limb plus the running sum fits 64 bits: every term is one
//    32x32 -> 64-bit multiply-add with carry (mac_wide: one IMAD.WIDE);
//    no 64-bit multiplication is emulated.
// Why not the optimized binary GCD (Pornin, eprint 2020/972): it needs 30%
// fewer iterations on random Fp inputs (539 against 769 divsteps), but each
// iteration works on 64-bit approximations of both ends of a and b (two
// words each here, ~25 instructions against a divstep's 13), and every
// batch must first find and extract the top bits across the limbs.
//
// Cost, sm_90 SASS (cuobjdump of a kernel calling inverse<fp_params>):
// one batch is 699 instructions: 30 divsteps x 13 (390), the f, g update
// 2 x 13 limbs x 5 (2 IMAD.WIDE, a mask, a two-word shift: 130), the d, e
// update 2 x 13 x 6 plus the multiples of p (~166), the loop test.
// Random Fp inputs take 769 +- 5 divsteps (simulated), so 25.6 batches,
// and 26.2 for the slowest of a warp's 32 lanes, which the warp waits
// for (+2.5%); with ~250 instructions of set-up and final reduction, an
// inversion is ~18.6k instructions, 24.4 Fp multiplications of 760. The
// H200 measures 24.7 (`cuzk-gpu-bench prim`: fp_inv against fp_mul); the
// Fermat baseline is 421. Fr: 609 per batch, 515 divsteps (17.9
// batches a lane, 18 for a warp; measured 28.3 Fr multiplications).
// Registers: f, g, d, e are 4 L words (Fp: 52); a test kernel calling
// inverse<fp_params> takes 92 registers, no spills (Fr: 64). Inlined by
// default: a __noinline__ wrapper measured the same (24.5), so a kernel
// short of registers may wrap it in one of its own.
// Possible further gain (not done): f and g shrink by ~15 bits a batch, so
// their update could run on the live limbs only (~8%), at the price of
// a warp-uniform length.
//
// The limb code (namespace ff::detail::cuda, CUZK_HD) compiles for the
// host too, the two PTX statements having portable twins, so
// tests/gpu/inverse_gpu_test.cu checks it on the host against
// mont_field::inverse even where no device exists.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/bigint.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/host_device.hpp>

namespace cuzk::ff::detail::cuda {

inline constexpr std::uint32_t s30_mask = (1u << 30) - 1;

/// Limbs of the s30 form for values of magnitude up to 2p (p of |bits| bits).
template <class P>
inline constexpr int s30_len = int((mont_field<P>::bits + 1 + 29) / 30);

/// Per-modulus constants of the inversion, derived from the host parameters.
template <int L>
struct inv30_ctx {
  std::int32_t p[L];      // the modulus, s30
  std::int32_t r2[L];     // R^2 mod p, s30: the result is R^2 / (a R) = a^-1 R
  std::uint32_t p_inv30;  // p^-1 mod 2^30
};

/// Non-negative 64-bit-limb value |a| as s30 (bit by bit: compile time only).
template <int L, std::size_t N>
constexpr void s30_from_limbs(std::int32_t (&out)[L], const limbs<N>& a) {
  for (int i = 0; i < L; ++i) {
    std::uint32_t x = 0;
    for (unsigned b = 0; b < 30; ++b) {
      const unsigned pos = 30u * unsigned(i) + b;
      if (pos < 64 * N && ((a[pos / 64] >> (pos % 64)) & 1)) x |= 1u << b;
    }
    out[i] = std::int32_t(x);
  }
}

template <class P>
constexpr inv30_ctx<s30_len<P>> make_inv30_ctx() {
  inv30_ctx<s30_len<P>> c{};
  s30_from_limbs(c.p, P::modulus);
  s30_from_limbs(c.r2, mont_field<P>::r2_mod_p);
  // mont_field's n0 is -p^-1 mod 2^64
  c.p_inv30 = std::uint32_t(0 - mont_field<P>::n0) & s30_mask;
  return c;
}

template <class P>
inline constexpr inv30_ctx<s30_len<P>> inv30_consts = make_inv30_ctx<P>();
/// Device copy (one per translation unit, as d_modulus).
template <class P>
__device__ __constant__ const inv30_ctx<s30_len<P>> d_inv30 = inv30_consts<P>;

static_assert(((std::uint32_t(inv30_consts<fp_params>.p[0]) * inv30_consts<fp_params>.p_inv30) & s30_mask) == 1);
static_assert(((std::uint32_t(inv30_consts<fr_params>.p[0]) * inv30_consts<fr_params>.p_inv30) & s30_mask) == 1);
// the signed top limb holds 31 bits: values up to 2p with a bit to spare
static_assert(30 * (s30_len<fp_params> - 1) + 30 >= int(mont_field<fp_params>::bits) + 2);
static_assert(30 * (s30_len<fr_params> - 1) + 30 >= int(mont_field<fr_params>::bits) + 2);
static_assert(s30_len<fp_params> == 13 && s30_len<fr_params> == 9);

/// (hi:lo) += a b, a signed 32x32 -> 64-bit product into a 64-bit sum: on
/// the device one multiply-add pair with carry (lo, then hi), which ptxas
/// fuses into one IMAD.WIDE. (Plain int64 C++ costs more: the compiler
/// widens the loop-carried limbs to 64 bits and multiplies 64x64, and an
/// accumulating mad.wide.s32 is split into products and adds: 7 to 10
/// instructions per limb and row instead of 5 to 6.)
CUZK_HD void mac_wide(std::uint32_t& lo, std::int32_t& hi, std::int32_t a, std::int32_t b) {
#if defined(__CUDA_ARCH__)
  asm("mad.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.s32 %1, %2, %3, %1;" : "+r"(lo), "+r"(hi) : "r"(a), "r"(b));
#else
  const std::uint64_t s = ((std::uint64_t(std::uint32_t(hi)) << 32) | lo) + std::uint64_t(std::int64_t(a) * b);
  lo = std::uint32_t(s);
  hi = std::int32_t(std::uint32_t(s >> 32));
#endif
}

/// (hi:lo) >>= 30, arithmetic.
CUZK_HD void shr30(std::uint32_t& lo, std::int32_t& hi) {
  lo = (lo >> 30) | (std::uint32_t(hi) << 2);
  hi >>= 30;
}

/// The transition matrix of one batch, scaled by 2^30.
struct divstep_mat30 {
  std::int32_t u, v, q, r;
};

/// 30 half-delta divsteps on the low words of f (odd) and g; returns the new
/// zeta = -(delta + 1/2). A step: when delta > 0 and g is odd,
/// (delta, f, g) <- (1 - delta, g, (g - f) / 2), else
/// (1 + delta, f, (g + (g mod 2) f) / 2).
/// Form, chosen for the instruction count: after i steps the rows
/// F = (2^i f_i, u, v) and G = (2^i g_i, q, r) satisfy (u, v) . (f, g) =
/// 2^i f_i, (q, r) . (f, g) = 2^i g_i, so nothing is halved: a step is
/// G += c F and F <- 2 (swap ? G : F), and g_i's parity is bit i of G's
/// first entry. F is stored divided by pw = 2^k, k the steps since the last
/// swap (the doubling is then one shift of pw, not three), and G += c pw F.
/// zeta is carried as z = zeta + i, which only a swap changes.
/// Per step (SASS): the bit test (LOP3 to a predicate), the swap predicate,
/// c pw (select, negate), z, pw (shift, select), three selects of F and
/// three multiply-adds into G: 13 instructions.
CUZK_HD std::int32_t divsteps30(std::int32_t zeta, std::uint32_t f, std::uint32_t g, divstep_mat30& t) {
  // F = (f, u, v) stored divided by pw = 2^k, G = (g, q, r) exact (g = 2^i g_i)
  std::uint32_t u = 1, v = 0, q = 0, r = 1, pw = 1;
  std::int32_t z = zeta;  // zeta + i at step i
  CUZK_HD_UNROLL
  for (int i = 0; i < 30; ++i) {
    std::uint32_t gb;  // the bit test: written in C++ it becomes shift, mask, compare
#if defined(__CUDA_ARCH__)
    asm("and.b32 %0, %1, %2;" : "=r"(gb) : "r"(g), "r"(1u << i));
#else
    gb = g & (1u << i);
#endif
    const bool odd = gb != 0;
    const bool sw = odd && z < i;
    std::uint32_t mult = odd ? pw : 0u;
    if (sw) mult = 0u - mult;
    if (sw) z = 2 * i - 1 - z;
    pw = sw ? 2u : pw << 1;
    const std::uint32_t f0 = f, u0 = u, v0 = v;
    f = sw ? g : f;
    u = sw ? q : u;
    v = sw ? r : v;
    g += mult * f0;
    q += mult * u0;
    r += mult * v0;
  }
  // pw = 2^k with k <= 30: the f row is pw (u, v)
  t = {std::int32_t(u * pw), std::int32_t(v * pw), std::int32_t(q), std::int32_t(r)};
  return z - 30;
}

/// (x, y) <- T (x, y) / 2^30 (the rows of T: (u, v) gives x, (q, r) y).
/// Exact for f, g (ModP false): the low 30 bits of T (f, g) are zero by
/// construction of T, and |u f_i + v g_i| < 2^60 for the lower limbs, so
/// the running sums fit an int64.
/// Mod p for d, e in (-2p, p) (ModP true, |c| the modulus); the result stays
/// in (-2p, p). Adding p times the entries of T where d or e is negative
/// keeps the sum above -2p 2^30; the further multiple of p chosen from the
/// low limb (with p^-1 mod 2^30) clears the low 30 bits. The multiples
/// mx, my lie in (-2^31, 2^30], the terms below 2^62.
template <int L, bool ModP>
CUZK_HD_ATTR void s30_apply(std::int32_t (&x)[L], std::int32_t (&y)[L], const divstep_mat30& t, const inv30_ctx<L>& c) {
  std::int32_t mx = 0, my = 0;
  if constexpr (ModP) {
    const std::int32_t sx = x[L - 1] >> 31, sy = y[L - 1] >> 31;
    mx = (t.u & sx) + (t.v & sy);
    my = (t.q & sx) + (t.r & sy);
  }
  std::uint32_t xl = 0, yl = 0;
  std::int32_t xh = 0, yh = 0;
  mac_wide(xl, xh, t.u, x[0]);
  mac_wide(xl, xh, t.v, y[0]);
  mac_wide(yl, yh, t.q, x[0]);
  mac_wide(yl, yh, t.r, y[0]);
  if constexpr (ModP) {
    // T (x, y) + p (mx, my) = 0 mod 2^30
    mx -= std::int32_t((c.p_inv30 * xl + std::uint32_t(mx)) & s30_mask);
    my -= std::int32_t((c.p_inv30 * yl + std::uint32_t(my)) & s30_mask);
    mac_wide(xl, xh, c.p[0], mx);
    mac_wide(yl, yh, c.p[0], my);
  }
  shr30(xl, xh);
  shr30(yl, yh);
  CUZK_HD_UNROLL
  for (int i = 1; i < L; ++i) {
    mac_wide(xl, xh, t.u, x[i]);
    mac_wide(xl, xh, t.v, y[i]);
    if constexpr (ModP) mac_wide(xl, xh, c.p[i], mx);
    mac_wide(yl, yh, t.q, x[i]);
    mac_wide(yl, yh, t.r, y[i]);
    if constexpr (ModP) mac_wide(yl, yh, c.p[i], my);
    x[i - 1] = std::int32_t(xl & s30_mask);
    y[i - 1] = std::int32_t(yl & s30_mask);
    shr30(xl, xh);
    shr30(yl, yh);
  }
  x[L - 1] = std::int32_t(xl);
  y[L - 1] = std::int32_t(yl);
}

/// v <- s v + k p for s, k in {-1, 0, 1}, renormalised. Each limb sum lies
/// in [-2^31, 2^31): a carry in [-2, 1] plus two terms below 2^30.
template <int L>
CUZK_HD_ATTR void s30_mul_add(std::int32_t (&v)[L], std::int32_t s, const std::int32_t (&p)[L], std::int32_t k) {
  std::int32_t carry = 0;
  CUZK_HD_UNROLL
  for (int i = 0; i < L - 1; ++i) {
    const std::int32_t x = carry + s * v[i] + k * p[i];
    v[i] = std::int32_t(std::uint32_t(x) & s30_mask);
    carry = x >> 30;
  }
  v[L - 1] = carry + s * v[L - 1] + k * p[L - 1];
}

template <int L>
CUZK_HD_ATTR bool s30_is_zero(const std::int32_t (&v)[L]) {
  std::int32_t acc = 0;
  CUZK_HD_UNROLL
  for (int i = 0; i < L; ++i) acc |= v[i];
  return acc == 0;
}

/// W little-endian 32-bit words (a value below 2^(30 L - 1)) -> s30.
template <int L, int W>
CUZK_HD_ATTR void s30_from_words(std::int32_t (&out)[L], const std::uint32_t (&a)[W]) {
  CUZK_HD_UNROLL
  for (int i = 0; i < L; ++i) {
    const int pos = 30 * i, w = pos / 32, s = pos % 32;
    std::uint32_t x = w < W ? a[w] >> s : 0u;
    if (s > 2 && w + 1 < W) x |= a[w + 1] << (32 - s);
    out[i] = std::int32_t(x & s30_mask);
  }
}

/// Normalised, non-negative s30 below 2^(32 W) -> W words.
template <int W, int L>
CUZK_HD_ATTR void s30_to_words(std::uint32_t (&out)[W], const std::int32_t (&v)[L]) {
  CUZK_HD_UNROLL
  for (int j = 0; j < W; ++j) {
    const int pos = 32 * j, k = pos / 30, s = pos % 30;
    std::uint32_t x = std::uint32_t(v[k]) >> s;
    if (k + 1 < L) x |= std::uint32_t(v[k + 1]) << (30 - s);
    if (s > 28 && k + 2 < L) x |= std::uint32_t(v[k + 2]) << (60 - s);
    out[j] = x;
  }
}

/// r = R^2 / a mod p for a < p given as W words: the Montgomery inverse
/// (a R -> a^-1 R); 0 for a = 0 (g starts at 0, no batch runs, d = 0).
/// Variable time: the number of batches depends on a.
template <int W, int L>
CUZK_HD_ATTR void inverse_words(std::uint32_t (&r)[W], const std::uint32_t (&a)[W], const inv30_ctx<L>& c) {
  std::int32_t f[L], g[L], d[L], e[L];
  CUZK_HD_UNROLL
  for (int i = 0; i < L; ++i) {
    f[i] = c.p[i];
    d[i] = 0;
    e[i] = c.r2[i];
  }
  s30_from_words<L, W>(g, a);
  std::int32_t zeta = -1;  // delta = 1/2
  while (!s30_is_zero(g)) {
    divstep_mat30 t;
    zeta = divsteps30(zeta, std::uint32_t(f[0]) | (std::uint32_t(f[1]) << 30),
                      std::uint32_t(g[0]) | (std::uint32_t(g[1]) << 30), t);
    s30_apply<L, true>(d, e, t, c);
    s30_apply<L, false>(f, g, t, c);
  }
  // f = +-1 (f = p, d = 0 when a = 0): r = sign(f) d mod p. sign(f) d lies
  // in (-2p, 2p); adding p where it is negative brings it into (-p, 2p),
  // then one of v + p, v, v - p is in [0, p).
  const std::int32_t s = (f[L - 1] >> 31) | 1;
  s30_mul_add<L>(d, s, c.p, ((d[L - 1] ^ s) >> 31) & 1);  // (d < 0) != (s < 0)
  std::int32_t up[L], down[L];
  CUZK_HD_UNROLL
  for (int i = 0; i < L; ++i) up[i] = down[i] = d[i];
  s30_mul_add<L>(up, 1, c.p, 1);
  s30_mul_add<L>(down, 1, c.p, -1);
  const bool neg = d[L - 1] < 0, ge = down[L - 1] >= 0;
  CUZK_HD_UNROLL
  for (int i = 0; i < L; ++i) d[i] = neg ? up[i] : (ge ? down[i] : d[i]);
  s30_to_words<W, L>(r, d);
}

// ---- Fermat: a^(p-2) by a sliding window -------------------------------------

/// The exponent p - 2 as a left-to-right sliding-window schedule with odd
/// powers a, a^3, .., a^15 (window 4): step k squares |sq| times and
/// multiplies by a^(2 idx + 1); |tail| squarings end it. Fp: 79 windows,
/// 378 squarings (one for a^2) and 85 multiplications (7 for the table);
/// Fr: 54 windows, 253 and 60.
template <std::size_t Cap>
struct pow_schedule {
  struct step {
    std::uint16_t sq, idx;
  };
  step steps[Cap];
  int n, tail;
};

template <std::size_t Cap, std::size_t N>
constexpr pow_schedule<Cap> make_pow_schedule(const limbs<N>& e) {
  pow_schedule<Cap> s{};
  int i = int(bit_length(e)) - 1, pending = 0;
  while (i >= 0) {
    if (!test_bit(e, unsigned(i))) {
      ++pending;
      --i;
      continue;
    }
    int j = i - 3 < 0 ? 0 : i - 3;  // the window [i .. j], ending on a one
    while (!test_bit(e, unsigned(j))) ++j;
    unsigned val = 0;
    for (int b = i; b >= j; --b) val = 2 * val + unsigned(test_bit(e, unsigned(b)));
    const int sq = s.n == 0 ? 0 : pending + (i - j + 1);
    s.steps[s.n] = {std::uint16_t(sq), std::uint16_t(val / 2)};
    ++s.n;
    pending = 0;
    i = j - 1;
  }
  s.tail = pending;
  return s;
}

template <class P>
inline constexpr auto fermat_schedule = make_pow_schedule<mont_field<P>::bits>(sub_small(P::modulus, 2));
template <class P>
__device__ __constant__ const auto d_fermat_schedule = fermat_schedule<P>;

}  // namespace cuzk::ff::detail::cuda

namespace cuzk::gpu {

/// a^-1 (Montgomery form in and out), 0 -> 0. Variable time (public data).
/// Inlined: a kernel that only inverts takes 92 registers for Fp, 64 for Fr.
/// Each lane runs its own batch loop; no warp-wide operation, so any subset
/// of a warp may call it (the warp waits for its slowest caller).
template <class P>
__device__ __forceinline__ mont_d<P> inverse(const mont_d<P>& a) {
  namespace cu = ff::detail::cuda;
  mont_d<P> r;
  cu::inverse_words<mont_d<P>::n_words, cu::s30_len<P>>(r.l, a.l, cu::d_inv30<P>);
  return r;
}

/// a^(p-2) = a^-1 (0 -> 0), constant time in a: the reference. The table of
/// odd powers is indexed by the (uniform) schedule, so it lives in local
/// memory; this is a baseline, not a fast path.
template <class P>
__device__ __noinline__ mont_d<P> inverse_fermat(const mont_d<P>& a) {
  const auto& s = ff::detail::cuda::d_fermat_schedule<P>;
  mont_d<P> tab[8];
  tab[0] = a;
  const mont_d<P> a2 = a.sqr();
#pragma unroll 1
  for (int k = 1; k < 8; ++k) tab[k] = tab[k - 1] * a2;
  mont_d<P> r = tab[s.steps[0].idx];
#pragma unroll 1
  for (int k = 1; k < s.n; ++k) {
#pragma unroll 1
    for (int j = 0; j < s.steps[k].sq; ++j) r = r.sqr();
    r = r * tab[s.steps[k].idx];
  }
#pragma unroll 1
  for (int j = 0; j < s.tail; ++j) r = r.sqr();
  return r;
}

}  // namespace cuzk::gpu
