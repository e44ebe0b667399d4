// SPDX-License-Identifier: Apache-2.0
#pragma once
// Device points for the GPU parameter setup's fixed-base kernels: the
// host's ec::affine / ec::xyzz over fp_d (G1) or fp2_d (G2) (the formulas
// are written once, ec/xyzz.hpp, for host and device), and the inversion
// the batched XYZZ -> affine conversion needs (ec/detail/batch_affine.hpp).
// Results are exact field values, so they equal the host's byte for byte
// whatever the projective path.
// Cost: one inversion ~25 Fp multiplications (ff/detail/cuda_inverse.cuh;
// Fp2: one Fp inversion + 4 M + 2 S).
// Compiles only with nvcc.

#include <cstdint>
#include <type_traits>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/xyzz.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_fp2.cuh>
#include <cuzk/ff/detail/cuda_inverse.cuh>

namespace cuzk::groth16::setup_gpu {

using gpu::fp2_d;
using gpu::fp_d;
using gpu::fr_d;

template <class Fd>
using affine_d = ec::affine<Fd>;
template <class Fd>
using xyzz_d = ec::xyzz<Fd>;

// ---- inversion ------------------------------------------------------------------

/// 1/a (0 for a = 0): gpu::inverse (batched divsteps, ~25 M) in Fp;
/// Fp2: 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2) since u^2 = -1.
template <class Fd>
__device__ __forceinline__ Fd invert(const Fd& a) {
  if constexpr (std::is_same_v<Fd, fp2_d>) {
    const fp_d t = gpu::inverse(a.c0.sqr() + a.c1.sqr());
    return fp2_d(a.c0 * t, -(a.c1 * t));
  } else {
    return gpu::inverse(a);
  }
}

}  // namespace cuzk::groth16::setup_gpu
