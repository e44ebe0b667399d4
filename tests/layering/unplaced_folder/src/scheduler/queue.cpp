// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): a folder that is in no layer.
#include <cuzk/ff/field.hpp>
