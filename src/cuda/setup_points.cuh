// SPDX-License-Identifier: Apache-2.0
#pragma once
// Device points for the GPU parameter setup's fixed-base kernels: the
// host's ec::affine / ec::xyzz over fp_d (G1) or fp2_d (G2) (the formulas
// are written once, ec/xyzz.hpp, for host and device), and the Fermat
// inversion the batched XYZZ -> affine conversion needs
// (ec/detail/batch_affine.hpp). Results are exact field values, so they
// equal the host's byte for byte whatever the projective path.
// Cost: inversion a^(p-2) = 380 squarings + ~190 multiplications in Fp
// (Fp2: one Fp inversion + 4 M + 2 S).
// Compiles only with nvcc.

#include <cstdint>
#include <type_traits>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/xyzz.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_fp2.cuh>

namespace cuzk::groth16::setup_gpu {

using gpu::fp2_d;
using gpu::fp_d;
using gpu::fr_d;

template <class Fd>
using affine_d = ec::affine<Fd>;
template <class Fd>
using xyzz_d = ec::xyzz<Fd>;

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
