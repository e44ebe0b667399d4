// SPDX-License-Identifier: Apache-2.0
#pragma once
// sink_witness_cs: a witness-only CS of fixed capacity that hands every
// value to a sink as it is allocated (Sink::put(index, value)), for the
// witnesses whose parts are filled side by side: the PoRep challenges
// written straight into their slices of the assignment (span_witness_cs,
// circuits/stacked_porep_witness.hpp) or coded into blocks of their own
// (groth16::coded_block_cs). No growth, no copies; enforce only counts.
// Throws std::logic_error when more inputs or aux are allocated than its
// capacity, before the sink sees the value.
// Cost per value: a compare against the capacity and the sink's put
// (inlined: the CS and its sink are templates).

#include <cstddef>
#include <functional>
#include <stdexcept>

#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::r1cs {

template <class Sink>
class sink_witness_cs {
 public:
  static constexpr bool has_values = true;
  static constexpr bool needs_lcs = false;
  static constexpr bool is_witness_generator = true;
  static constexpr bool is_extensible = false;

  /// At most |max_inputs| inputs into |inputs| and |max_aux| aux into |aux|.
  sink_witness_cs(Sink inputs, std::size_t max_inputs, Sink aux, std::size_t max_aux) noexcept
      : _inputs(inputs), _aux(aux), _max_inputs(max_inputs), _max_aux(max_aux) {}

  static constexpr variable one() noexcept { return one_variable; }

  template <annotation A, value_function F>
  variable alloc(A&&, F&& value) {
    if (_num_aux == _max_aux) throw std::logic_error("witness: more aux values than the part holds");
    _aux.put(_num_aux, fr(std::invoke(value)));
    return variable::aux(_num_aux++);
  }
  template <annotation A, value_function F>
  variable alloc_input(A&&, F&& value) {
    if (_num_inputs == _max_inputs) throw std::logic_error("witness: more inputs than the part holds");
    _inputs.put(_num_inputs, fr(std::invoke(value)));
    return variable::input(_num_inputs++);
  }
  template <annotation A, lc_function LA, lc_function LB, lc_function LC>
  void enforce(A&&, LA&&, LB&&, LC&&) noexcept {
    ++_num_constraints;
  }
  template <annotation A>
  void push_namespace(A&&) noexcept {}
  void pop_namespace() noexcept {}

  std::size_t num_inputs() const noexcept { return _num_inputs; }
  std::size_t num_aux() const noexcept { return _num_aux; }
  std::size_t num_constraints() const noexcept { return _num_constraints; }

 private:
  Sink _inputs, _aux;
  std::size_t _max_inputs, _max_aux;
  std::size_t _num_inputs = 0, _num_aux = 0, _num_constraints = 0;
};

}  // namespace cuzk::r1cs
