// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): a quoted include of its own folder and one down.
#include "cursor.hpp"
#include "../../include/cuzk/ff/field.hpp"
#include <cuzk/io/file.hpp>
