// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): the lowest layer, including only the GPU wrappers.
#pragma once
#include <cuzk/gpu/runtime.hpp>
