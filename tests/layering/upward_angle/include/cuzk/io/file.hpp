// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): a correct include beside the wrong one.
#pragma once
#include <cuzk/ff/field.hpp>
