// SPDX-License-Identifier: Apache-2.0
// G1 fixed-base multiplication for the GPU parameter setup (H, L, A, B_G1
// queries); contract in fixed_base.cuh, kernel in fixed_base_kernel.cuh.
// 256 threads per block, 8 points per thread (one inversion per 8 points),
// at most 128 registers so two blocks (16 warps) share an SM: ptxas -v,
// sm_90, nvcc 13.0: 128 registers, no spills (162 unbounded, 8 warps/SM).
#include "fixed_base.cuh"

#include "fixed_base_kernel.cuh"

namespace cuzk::groth16::setup_gpu {

void fixed_base_g1(const ec::g1_affine* d_table, const ff::fr* d_scalars, std::size_t n, ec::g1_affine* d_out,
                   CUstream_st* s) {
  launch_fixed_base<fp_d, 256, 8, 2>(d_table, d_scalars, n, d_out, s);
}

}  // namespace cuzk::groth16::setup_gpu
