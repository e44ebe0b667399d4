// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): gadgets reaching up into the engine by a relative path.
#include "../engine/engine_impl.hpp"
