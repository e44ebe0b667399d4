// SPDX-License-Identifier: Apache-2.0
#pragma once
// synthesize_groth16: bellperson's synthesis frame, shared by setup, proving
// and counting so that all of them see the same variables and constraints.
//
// What bellperson does (groth16/prover/native.rs synthesize_circuits_batch
// and groth16/generator.rs generate_parameters, identical in both):
//   1. alloc_input(ONE) — input 0;
//   2. circuit.synthesize(cs);
//   3. for i in 0..num_inputs: enforce(input_i * 0 = 0), i.e. A = input_i,
//      B and C empty, in input order, ONE included.
// Step 3 makes every input's A polynomial non-zero (the generator's comment:
// "Input constraints to ensure full density of IC query"), which is why the
// prover keeps no A density for inputs and the a vector of a .params file
// starts with all num_inputs points. The constraint count the Groth16 domain
// is sized from is therefore circuit constraints + num_inputs.
//
// Published circuit sizes (rust-fil-proofs `circuitinfo`, BenchCS) count
// steps 1-2 only; synthesize_circuit gives that count.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include <cuzk/r1cs/constraint_system.hpp>
#include <cuzk/r1cs/shape_cs.hpp>
#include <cuzk/r1cs/witness_cs.hpp>

namespace cuzk::r1cs {

/// Allocates ONE as input 0 (the CS must have no inputs yet).
template <constraint_system CS>
variable alloc_one(CS& cs) {
  if (cs.num_inputs() != 0) throw std::logic_error("r1cs: ONE must be the first input");
  return cs.alloc_input("ONE", [] { return fr::one(); });
}

/// Appends `input_i * 0 = 0` for every input allocated so far, in order.
template <constraint_system CS>
void enforce_input_constraints(CS& cs) {
  const std::size_t n = cs.num_inputs();
  for (std::size_t i = 0; i < n; ++i) {
    cs.enforce([i] { return "input constraint " + std::to_string(i); },
               [i](linear_combination lc) { return lc + variable::input(i); }, zero_lc, zero_lc);
  }
}

// clang-format off
/// ONE, then the circuit; no input constraints (the published circuit size).
template <constraint_system CS, class C>
  requires circuit_for<C, CS>
void synthesize_circuit(C&& circuit, CS& cs) {
  alloc_one(cs);
  circuit.synthesize(cs);
}

/// ONE, the circuit, then one `input_i * 0 = 0` per input: exactly what
/// bellperson's prover and parameter generator synthesize.
template <constraint_system CS, class C>
  requires circuit_for<C, CS>
void synthesize_groth16(C&& circuit, CS& cs) {
  synthesize_circuit(circuit, cs);
  enforce_input_constraints(cs);
}

/// The Groth16 shape of a circuit (values are never computed, so a blank
/// circuit will do).
template <class C>
  requires circuit_for<C, shape_cs>
r1cs_shape make_shape(C&& circuit) {
  shape_cs cs;
  synthesize_groth16(circuit, cs);
  return std::move(cs).finish();
}

/// The Groth16 witness of a circuit; |inputs_hint|/|aux_hint| pre-size the
/// assignment vectors (pass the shape's counts); |cs| may carry the storage
/// of an earlier witness to append into (witness_cs(inputs, aux)).
template <class C>
  requires circuit_for<C, witness_cs>
witness_cs make_witness(C&& circuit, std::size_t inputs_hint = 0, std::size_t aux_hint = 0, witness_cs cs = {}) {
  cs.reserve(inputs_hint, aux_hint);
  synthesize_groth16(circuit, cs);
  return cs;
}
// clang-format on

}  // namespace cuzk::r1cs
