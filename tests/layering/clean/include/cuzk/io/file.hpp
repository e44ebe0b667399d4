// SPDX-License-Identifier: Apache-2.0
// Fixture (never compiled): io includes fields and groth16, both below it.
#pragma once
#include <cuzk/ff/field.hpp>
#include <cuzk/groth16/proof.hpp>
