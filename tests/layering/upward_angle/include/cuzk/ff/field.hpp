// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): fields reaching up into io.
#pragma once
#include <cuzk/io/file.hpp>
