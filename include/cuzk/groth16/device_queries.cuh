// SPDX-License-Identifier: Apache-2.0
#pragma once
// The proving-key queries of one circuit held in one GPU's memory, in the
// layout and order of groth16::parameters (affine, Montgomery form, infinity
// as x = y = 0, density-compressed A / B_G1 / B_G2 exactly as keys.hpp says).
//
// Why: a 32 GiB PoRep key is ~45-75 GB; when the parameters are computed on
// the GPU (setup_gpu.hpp) they never need to exist on the host, and a
// gpu_prover built from them (prover_gpu.hpp) uses the buffers in place.
// Cost: 96 (|a| + |b_g1| + |l| + |h|) + 192 |b_g2| bytes of VRAM.
// CUDA-only header (device_buffer); host code holds it through
// std::shared_ptr<device_queries> and the declarations in setup_gpu.hpp.

#include <cstddef>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/gpu/device.cuh>

namespace cuzk::groth16 {

struct device_queries {
  int device = 0;
  gpu::device_buffer<ec::g1_affine> a, b_g1, l, h;
  gpu::device_buffer<ec::g2_affine> b_g2;

  std::size_t bytes() const { return a.bytes() + b_g1.bytes() + l.bytes() + h.bytes() + b_g2.bytes(); }
};

}  // namespace cuzk::groth16
