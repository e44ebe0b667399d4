// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): src/cuda/msm is the msm layer and includes it
// and the layers below.
#include <cuzk/ff/field.hpp>
#include <cuzk/msm/msm_gpu.hpp>
