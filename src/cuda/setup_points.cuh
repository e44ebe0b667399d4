// SPDX-License-Identifier: Apache-2.0
#pragma once
// Device point arithmetic for the GPU parameter setup's fixed-base kernels:
// affine and XYZZ points over fp_d (G1) or fp2_d (G2), the complete mixed
// addition, the affine doubling it falls back to and the Fermat inversion
// (the batched XYZZ -> affine conversion is ec/detail/batch_affine.hpp).
//
// Why a separate copy: msm.cu keeps its formulas in an anonymous namespace
// and must not change while the prover is being reworked; these are the
// same EFD formulas as ec/xyzz.hpp (madd-2008-s 8M + 2S, mdbl-2008-s-1
// 4M + 3S), written once more for the setup, which needs only the mixed
// addition and the conversion. Results are exact field values, so they
// equal the host's byte for byte whatever the projective path.
// Cost: inversion a^(p-2) = 380 squarings + ~190 multiplications in Fp
// (Fp2: one Fp inversion + 4 M + 2 S).
// Compiles only with nvcc.

#include <cstdint>
#include <type_traits>

#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_fp2.cuh>

namespace cuzk::groth16::setup_gpu {

using gpu::fp2_d;
using gpu::fp_d;
using gpu::fr_d;

template <class Fd>
struct affine_d {
  Fd x, y;
};
template <class Fd>
struct xyzz_d {
  Fd x, y, zz, zzz;
};

template <class Fd>
__device__ __forceinline__ bool is_infinity(const affine_d<Fd>& q) {
  return q.x.is_zero() && q.y.is_zero();
}
template <class Fd>
__device__ __forceinline__ bool is_infinity(const xyzz_d<Fd>& p) {
  return p.zz.is_zero();
}
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> xyzz_infinity() {
  return {Fd::one(), Fd::one(), Fd::zero(), Fd::zero()};
}

/// 2 q for affine q (not infinity), mdbl-2008-s-1.
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> dbl_affine(const affine_d<Fd>& q) {
  const Fd u = q.y.dbl();
  const Fd v = u.sqr();
  const Fd w = u * v;
  const Fd s = q.x * v;
  const Fd x2 = q.x.sqr();
  const Fd m = x2.dbl() + x2;
  xyzz_d<Fd> r;
  r.x = m.sqr() - s.dbl();
  r.y = m * (s - r.x) - w * q.y;
  r.zz = v;
  r.zzz = w;
  return r;
}

/// p + q, complete (either infinity, p == q, p == -q), madd-2008-s.
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> add_affine(const xyzz_d<Fd>& p, const affine_d<Fd>& q) {
  if (is_infinity(q)) return p;
  if (is_infinity(p)) return {q.x, q.y, Fd::one(), Fd::one()};
  const Fd pd = q.x * p.zz - p.x;
  const Fd rd = q.y * p.zzz - p.y;
  if (pd.is_zero()) return rd.is_zero() ? dbl_affine(q) : xyzz_infinity<Fd>();
  const Fd pp = pd.sqr();
  const Fd ppp = pd * pp;
  const Fd qq = p.x * pp;
  xyzz_d<Fd> r;
  r.x = rd.sqr() - ppp - qq.dbl();
  r.y = rd * (qq - r.x) - p.y * ppp;
  r.zz = p.zz * pp;
  r.zzz = p.zzz * ppp;
  return r;
}

// ---- inversion ------------------------------------------------------------------

/// p - 2 as 32-bit words (p's low word is odd and > 2: no borrow).
constexpr ff::detail::cuda::words<12> fp_minus_2() {
  auto w = ff::detail::cuda::modulus32<ff::fp_params>;
  w.v[0] -= 2;
  return w;
}
__device__ __constant__ const ff::detail::cuda::words<12> d_fp_minus_2 = fp_minus_2();

/// a^(p-2) = 1/a (0 for a = 0); left-to-right square and multiply.
/// Fp2: 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2) since u^2 = -1.
/// Out of line: one copy per kernel, the 570 multiplications stay in a loop.
template <class Fd>
__device__ __noinline__ Fd inverse(Fd a) {
  if constexpr (std::is_same_v<Fd, fp2_d>) {
    const fp_d t = inverse<fp_d>(a.c0.sqr() + a.c1.sqr());
    return fp2_d(a.c0 * t, -(a.c1 * t));
  } else {
    fp_d r = fp_d::one();
    for (int bit = 380; bit >= 0; --bit) {
      r = r.sqr();
      if ((d_fp_minus_2.v[bit / 32] >> (bit % 32)) & 1u) r = r * a;
    }
    return r;
  }
}

}  // namespace cuzk::groth16::setup_gpu
