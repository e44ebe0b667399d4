// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fixed-base scalar multiplication kernels of the GPU parameter setup, host
// declarations: out[i] = scalars[i] * G for i < n, where |d_table| is the
// device copy of ec::fixed_base_table<F>(G).table() (32 windows x 255 affine
// points, entry w * 255 + d - 1 = d * 2^(8w) * G). One thread per point:
// canonical scalar (one Montgomery multiplication by 1), <= 32 complete
// mixed additions in XYZZ, then affine with one Fermat inversion shared by
// the K points of a thread (8 for G1, 4 for G2).
// G1 and G2 live in separate translation units (fixed_base_g1.cu,
// fixed_base_g2.cu) so nvcc compiles them in parallel; the G2 one is
// the slow one to compile. Asynchronous on |s|; errors as cuzk::cuda_error.

#include <cstddef>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ff/bls12_381.hpp>

struct CUstream_st;

namespace cuzk::groth16::setup_gpu {

void fixed_base_g1(const ec::g1_affine* d_table, const ff::fr* d_scalars, std::size_t n, ec::g1_affine* d_out,
                   CUstream_st* s);
void fixed_base_g2(const ec::g2_affine* d_table, const ff::fr* d_scalars, std::size_t n, ec::g2_affine* d_out,
                   CUstream_st* s);

}  // namespace cuzk::groth16::setup_gpu
