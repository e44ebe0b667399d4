// SPDX-License-Identifier: Apache-2.0
#pragma once
// Seeded Groth16 test parameters computed on a GPU (same toxic waste, same
// points as groth16::generate_parameters in setup.hpp, byte for byte), left
// in the GPU's memory for a gpu_prover. Host-includable (no CUDA headers).
// NOT a trusted setup: whoever knows the seed can forge proofs.

#include <cstddef>
#include <memory>

#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::groth16 {

struct device_queries;  // cuzk/groth16/device_queries.cuh

/// A verifying key on the host and the proving queries on one device.
struct gpu_parameters {
  verifying_key vk;
  std::shared_ptr<device_queries> queries;
};

struct gpu_setup_config {
  int device = 0;
};

/// Parameters for |shape| (input constraints included, as for setup.hpp),
/// computed on cfg.device. Throws std::invalid_argument for an unconstrained
/// aux variable (as generate_parameters does) and cuzk::gpu::cuda_error on
/// any CUDA failure, including too little device memory.
gpu_parameters generate_parameters_gpu(const r1cs::r1cs_shape& shape, const toxic_waste& t,
                                       const gpu_setup_config& cfg = {});

/// Host copy of |p| (tests; writing a .params file).
parameters download_parameters(const gpu_parameters& p);

/// Device bytes held by |p|'s queries.
std::size_t device_bytes(const gpu_parameters& p);

}  // namespace cuzk::groth16
