// SPDX-License-Identifier: Apache-2.0
#pragma once
// The R1CS layer in one include: variables, linear combinations, the
// constraint-system concept, its four modes (checking, shape, witness,
// counting), the Groth16 synthesis frame and the A·w, B·w, C·w products.

#include <cuzk/r1cs/checking_cs.hpp>
#include <cuzk/r1cs/constraint_system.hpp>
#include <cuzk/r1cs/counting_cs.hpp>
#include <cuzk/r1cs/density.hpp>
#include <cuzk/r1cs/linear_combination.hpp>
#include <cuzk/r1cs/shape.hpp>
#include <cuzk/r1cs/shape_cs.hpp>
#include <cuzk/r1cs/synthesis_error.hpp>
#include <cuzk/r1cs/synthesize.hpp>
#include <cuzk/r1cs/variable.hpp>
#include <cuzk/r1cs/witness_cs.hpp>
