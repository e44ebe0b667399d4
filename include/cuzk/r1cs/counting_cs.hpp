// SPDX-License-Identifier: Apache-2.0
#pragma once
// counting_cs: counts constraints, inputs and aux variables and stores
// nothing, after bellpepper's BenchCS. Value functions, LC functions and
// annotations are never called; every operation is one increment.
//
// Note: BenchCS starts with one input (ONE) already counted; counting_cs
// starts at zero and gets ONE from synthesize_groth16 / alloc_one, like every
// other CS here, so the counts of all modes agree.

#include <cstddef>
#include <stdexcept>

#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::r1cs {

class counting_cs {
 public:
  static constexpr bool has_values = false;
  static constexpr bool needs_lcs = false;
  static constexpr bool is_witness_generator = false;
  static constexpr bool is_extensible = true;

  counting_cs() = default;

  static constexpr variable one() noexcept { return one_variable; }

  template <annotation A, value_function F>
  variable alloc(A&&, F&&) noexcept {
    return variable::aux(_num_aux++);
  }
  template <annotation A, value_function F>
  variable alloc_input(A&&, F&&) noexcept {
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

  /// Adds a separately counted child (its input 0 is its temporary ONE).
  void extend(const counting_cs& child) {
    if (child._num_inputs == 0) throw std::logic_error("r1cs: extend needs a child whose input 0 is its temporary ONE");
    _num_inputs += child._num_inputs - 1;
    _num_aux += child._num_aux;
    _num_constraints += child._num_constraints;
  }

 private:
  std::size_t _num_inputs = 0;
  std::size_t _num_aux = 0;
  std::size_t _num_constraints = 0;
};

static_assert(constraint_system<counting_cs>);
static_assert(extensible_constraint_system<counting_cs>);

}  // namespace cuzk::r1cs
