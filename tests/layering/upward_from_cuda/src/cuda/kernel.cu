// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): the CUDA backend (groth16) reaching up into circuits.
#include <cuzk/circuits/stacked_porep.hpp>
