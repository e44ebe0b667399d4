// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fp2 over a lane pair: cuzk::gpu::fp2_pair_d. Lanes 2k and 2k + 1 of a
// warp hold one Fp2 value between them, c0 on the even lane and c1 on the
// odd one; each lane computes its own coordinate of every result and takes
// the other coordinate of the operands from its partner by warp shuffles.
// A G2 XYZZ point is then 48 registers per lane instead of 96, so the
// complete addition of ec/xyzz.hpp fits a thread's registers inlined, where
// the one-lane fp2_d form spills (the G2 window sums, msm_kernels.cuh).
//
// Formulas (the one-lane fp2_d's, cuda_fp2.cuh, split by coordinate; every
// coordinate fully reduced, so the results are fp2_d's bit for bit):
//   mul      even: a0 b0 + a1 (p - b1), odd: a0 b1 + a1 b0; one Montgomery
//            reduction of two products per lane, 24 shuffles (a and b's
//            other halves)
//   sqr      even: (a0 + a1)(a0 - a1), odd: 2 a0 a1; one multiplication
//            per lane, 12 shuffles
//   mul_sub  a b - c d, four products and one reduction per lane, 48
//            shuffles
//   + - dbl  per coordinate, no shuffle
//   is_zero, ==: this lane's answer and its partner's, one shuffle
// Invariants: the two lanes of a pair always execute the same operations
// (every branch on a value is taken on a pair-wide answer: is_zero and ==
// combine both halves), so the shuffles' two-lane masks are always met;
// pairs of one warp may diverge. Lane parity is threadIdx.x's (blocks of
// an even width, x-dimension only).
// Cost: a multiplication costs each lane about half of fp2_d's (two
// products with one reduction against four with two), plus the shuffles.

#include <cuzk/ff/detail/cuda_arith.cuh>

namespace cuzk::gpu {

struct fp2_pair_d {
  fp_d v;  // c0 on an even lane, c1 on an odd one

  __device__ __forceinline__ static bool odd_lane() { return threadIdx.x & 1u; }
  /// The two lanes of this lane's pair.
  __device__ __forceinline__ static unsigned pair_mask() { return 3u << (threadIdx.x & 30u); }
  /// The partner lane's coordinate of |x|.
  __device__ __forceinline__ static fp_d other(const fp_d& x) {
    fp_d r;
    const unsigned m = pair_mask();
#pragma unroll
    for (int j = 0; j < fp_d::n_words; ++j) r.l[j] = __shfl_xor_sync(m, x.l[j], 1);
    return r;
  }
  /// Both lanes' |b| true. Both lanes always shuffle (no short circuit
  /// before it: a lane that skipped would leave its partner's shuffle unmet).
  __device__ __forceinline__ static bool both(bool b) {
    const int partner = __shfl_xor_sync(pair_mask(), int(b), 1);
    return b && partner;
  }
  /// |odd| ? o : e, word by word (selects, no branch).
  __device__ __forceinline__ static void pick(std::uint32_t* r, bool odd, const std::uint32_t* e,
                                              const std::uint32_t* o) {
#pragma unroll
    for (int j = 0; j < fp_d::n_words; ++j) r[j] = odd ? o[j] : e[j];
  }

  __device__ __forceinline__ static fp2_pair_d zero() { return {fp_d::zero()}; }
  __device__ __forceinline__ static fp2_pair_d one() { return {odd_lane() ? fp_d::zero() : fp_d::one()}; }

  __device__ __forceinline__ bool is_zero() const { return both(v.is_zero()); }
  __device__ __forceinline__ friend bool operator==(const fp2_pair_d& a, const fp2_pair_d& b) {
    return both(a.v == b.v);
  }

  __device__ __forceinline__ friend fp2_pair_d operator+(const fp2_pair_d& a, const fp2_pair_d& b) {
    return {a.v + b.v};
  }
  __device__ __forceinline__ friend fp2_pair_d operator-(const fp2_pair_d& a, const fp2_pair_d& b) {
    return {a.v - b.v};
  }
  __device__ __forceinline__ fp2_pair_d operator-() const { return {-v}; }
  __device__ __forceinline__ fp2_pair_d dbl() const { return {v.dbl()}; }

  __device__ __forceinline__ friend fp2_pair_d operator*(const fp2_pair_d& a, const fp2_pair_d& b) {
    namespace fc = ff::detail::cuda;
    constexpr int W = fp_d::n_words;
    const std::uint32_t* p = fc::d_modulus<ff::fp_params>.v;
    const bool odd = odd_lane();
    const fp_d ao = other(a.v), bo = other(b.v);
    // even: a0 b0 + a1 (p - b1) = a_me b_me + a_o (p - b_o);
    // odd: a0 b1 + a1 b0 = a_o b_me + a_me b_o
    std::uint32_t x[W], u[W], nbo[W], vv[W];
    fc::sub_plain<W>(nbo, p, bo.l);
    pick(x, odd, a.v.l, ao.l);
    pick(u, odd, ao.l, a.v.l);
    pick(vv, odd, nbo, bo.l);
    const std::uint32_t* c[1] = {u};
    const std::uint32_t* e[1] = {vv};
    fp2_pair_d r;
    fc::cios<W, 1>(r.v.l, x, b.v.l, c, e, p, fc::n0_32<ff::fp_params>);
    return r;
  }
  __device__ __forceinline__ fp2_pair_d& operator+=(const fp2_pair_d& b) { return *this = *this + b; }
  __device__ __forceinline__ fp2_pair_d& operator-=(const fp2_pair_d& b) { return *this = *this - b; }
  __device__ __forceinline__ fp2_pair_d& operator*=(const fp2_pair_d& b) { return *this = *this * b; }

  /// even: (a0 + a1)(a0 - a1); odd: (a1 + a1) a0.
  __device__ __forceinline__ fp2_pair_d sqr() const {
    const bool odd = odd_lane();
    const fp_d o = other(v);
    const fp_d s = odd ? v + v : v + o;
    const fp_d d = odd ? o : v - o;
    return {s * d};
  }
};

/// a b - c d, one reduction per lane (fp2_d's mul_sub split by coordinate):
///   even: a0 b0 + a1 (p - b1) + c0 (p - d0) + c1 d1
///   odd:  a0 b1 + a1 b0 + c0 (p - d1) + c1 (p - d0)
/// With x_me this lane's coordinate of x and x_o its partner's:
///   even: a_me b_me + a_o (p - b_o) + c_me (p - d_me) + c_o d_o
///   odd:  a_o b_me + a_me b_o + c_o (p - d_me) + c_me (p - d_o)
__device__ __forceinline__ fp2_pair_d mul_sub(const fp2_pair_d& a, const fp2_pair_d& b, const fp2_pair_d& c,
                                              const fp2_pair_d& d) {
  namespace fc = ff::detail::cuda;
  static_assert(fc::three_spare_top_bits<ff::fp_params>);
  constexpr int W = fp_d::n_words;
  const std::uint32_t* p = fc::d_modulus<ff::fp_params>.v;
  const bool odd = fp2_pair_d::odd_lane();
  const fp_d ao = fp2_pair_d::other(a.v), bo = fp2_pair_d::other(b.v);
  const fp_d co = fp2_pair_d::other(c.v), dd = fp2_pair_d::other(d.v);
  std::uint32_t nbo[W], ndm[W], ndo[W];
  fc::sub_plain<W>(nbo, p, bo.l);
  fc::sub_plain<W>(ndm, p, d.v.l);
  fc::sub_plain<W>(ndo, p, dd.l);
  // product 1: x1 b_me; 2: u2 v2; 3: u3 (p - d_me); 4: u4 v4
  std::uint32_t x1[W], u2[W], v2[W], u3[W], u4[W], v4[W];
  fp2_pair_d::pick(x1, odd, a.v.l, ao.l);  // even a_me b_me, odd a_o b_me
  fp2_pair_d::pick(u2, odd, ao.l, a.v.l);  // even a_o (p - b_o), odd a_me b_o
  fp2_pair_d::pick(v2, odd, nbo, bo.l);
  fp2_pair_d::pick(u3, odd, c.v.l, co.l);  // even c_me (p - d_me), odd c_o (p - d_me)
  fp2_pair_d::pick(u4, odd, co.l, c.v.l);  // even c_o d_o, odd c_me (p - d_o)
  fp2_pair_d::pick(v4, odd, dd.l, ndo);
  const std::uint32_t* xs[3] = {u2, u3, u4};
  const std::uint32_t* es[3] = {v2, ndm, v4};
  fp2_pair_d r;
  fc::cios<W, 3>(r.v.l, x1, b.v.l, xs, es, p, fc::n0_32<ff::fp_params>);
  return r;
}

}  // namespace cuzk::gpu
