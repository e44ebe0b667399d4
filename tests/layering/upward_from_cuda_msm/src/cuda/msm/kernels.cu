// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): src/cuda/msm is the msm layer; reaching up into
// the prover is refused.
#include <cuzk/msm/msm_gpu.hpp>
#include <cuzk/groth16/prover_gpu.hpp>
