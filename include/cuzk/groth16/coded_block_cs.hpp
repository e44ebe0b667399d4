// SPDX-License-Identifier: Apache-2.0
#pragma once
// coded_block_cs: a witness-only constraint system that codes every value
// into coded blocks (coded_witness.hpp) as it is allocated, so a witness
// can be synthesized into the coded form without the 32-byte-per-value
// assignment ever existing; and make_coded_witness, a whole circuit through
// it. Used for the PoRep partition, one pair of blocks per challenge
// (circuits/stacked_porep_coded.hpp), and for the SnapDeals partition in one
// pass (circuits/empty_sector_update_compound.hpp).
//
// Costs: per value one code (four limb compares) and a byte store, a
// 32-byte copy for the other values; the join of make_coded_witness reads
// the blocks once; peak memory the blocks plus the joined form, about twice
// the coded size.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/r1cs/constraint_system.hpp>
#include <cuzk/r1cs/synthesize.hpp>

namespace cuzk::groth16 {

/// A witness-only CS that codes its values into caller-owned blocks (one for
/// inputs, one for aux) as they are allocated; at most |max_inputs| inputs
/// and |max_aux| aux, else std::logic_error (as span_witness_cs). The
/// caller finishes the blocks (coded_block::finish) when the part is done.
class coded_block_cs {
 public:
  static constexpr bool has_values = true;
  static constexpr bool needs_lcs = false;
  static constexpr bool is_witness_generator = true;
  static constexpr bool is_extensible = false;

  coded_block_cs(coded_block& inputs, std::size_t max_inputs, coded_block& aux, std::size_t max_aux) noexcept
      : _inputs(inputs), _aux(aux), _max_inputs(max_inputs), _max_aux(max_aux) {}

  static constexpr r1cs::variable one() noexcept { return r1cs::one_variable; }

  template <r1cs::annotation A, r1cs::value_function F>
  r1cs::variable alloc(A&&, F&& value) {
    if (_num_aux == _max_aux) throw std::logic_error("coded witness: aux block overflow");
    _aux.push(ff::fr(std::invoke(value)));
    return r1cs::variable::aux(_num_aux++);
  }
  template <r1cs::annotation A, r1cs::value_function F>
  r1cs::variable alloc_input(A&&, F&& value) {
    if (_num_inputs == _max_inputs) throw std::logic_error("coded witness: input block overflow");
    _inputs.push(ff::fr(std::invoke(value)));
    return r1cs::variable::input(_num_inputs++);
  }
  template <r1cs::annotation A, r1cs::lc_function LA, r1cs::lc_function LB, r1cs::lc_function LC>
  void enforce(A&&, LA&&, LB&&, LC&&) noexcept {
    ++_num_constraints;
  }
  template <r1cs::annotation A>
  void push_namespace(A&&) noexcept {}
  void pop_namespace() noexcept {}

  std::size_t num_inputs() const noexcept { return _num_inputs; }
  std::size_t num_aux() const noexcept { return _num_aux; }
  std::size_t num_constraints() const noexcept { return _num_constraints; }

 private:
  coded_block& _inputs;
  coded_block& _aux;
  std::size_t _max_inputs, _max_aux;
  std::size_t _num_inputs = 0, _num_aux = 0, _num_constraints = 0;
};
static_assert(r1cs::constraint_system<coded_block_cs>);

// clang-format off
/// The coded Groth16 witness of |circuit| (ONE, the circuit, the input
/// constraints: what r1cs::make_witness computes), which must have exactly
/// |num_inputs| inputs and |num_aux| aux (a shape's counts; else
/// std::logic_error); nullopt when more than |max_others| of its values are
/// other than 0 and 1. One thread.
template <class C>
  requires r1cs::circuit_for<C, coded_block_cs>
std::optional<coded_witness> make_coded_witness(C&& circuit, std::size_t num_inputs, std::size_t num_aux,
                                                std::size_t max_others) {
  coded_block inputs, aux;
  inputs.reserve(num_inputs, num_inputs);
  aux.reserve(num_aux, std::min(num_aux, max_others));
  coded_block_cs cs(inputs, num_inputs, aux, num_aux);
  r1cs::synthesize_groth16(circuit, cs);
  if (cs.num_inputs() != num_inputs || cs.num_aux() != num_aux)
    throw std::logic_error("coded witness: " + std::to_string(cs.num_inputs()) + " inputs and " +
                           std::to_string(cs.num_aux()) + " aux, the shape has " + std::to_string(num_inputs) +
                           " and " + std::to_string(num_aux));
  inputs.finish();
  aux.finish();
  const coded_block* blocks[] = {&inputs, &aux};
  return join_coded_blocks(blocks, max_others);
}
// clang-format on

}  // namespace cuzk::groth16
