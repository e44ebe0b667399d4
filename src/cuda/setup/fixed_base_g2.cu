// SPDX-License-Identifier: Apache-2.0
// G2 fixed-base multiplication for the GPU parameter setup (B_G2 query);
// contract in fixed_base.cuh, kernel in fixed_base_kernel.cuh. Its own
// translation unit: Fp2 point code is the slow part of an nvcc build, and
// the inversion is out of line (setup_points.cuh). 128 threads per block,
// 4 points per thread (one inversion per 4 points; a G2 point is twice a
// G1 one in local memory). ptxas -v, sm_90, nvcc 13.0: 255 registers,
// 120 bytes of spills; two blocks (8 warps) per SM.
#include "fixed_base.cuh"

#include "fixed_base_kernel.cuh"

namespace cuzk::groth16::setup_gpu {

void fixed_base_g2(const ec::g2_affine* d_table, const ff::fr* d_scalars, std::size_t n, ec::g2_affine* d_out,
                   CUstream_st* s) {
  launch_fixed_base<fp2_d, 128, 4, 1>(d_table, d_scalars, n, d_out, s);
}

}  // namespace cuzk::groth16::setup_gpu
