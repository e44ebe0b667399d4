// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): src/cuda counts as groth16.
#include <cuzk/groth16/proof.hpp>
#include <cuzk/msm/msm.hpp>
