// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): src/cuda/setup counts as groth16; it includes
// that layer, and a lower one by a relative path.
#include <cuzk/groth16/prover_gpu.hpp>
#include "../msm/kernels.cu"
