// SPDX-License-Identifier: Apache-2.0
#pragma once
// witness_cs: computes the input and aux assignments and nothing else, after
// bellpepper's WitnessCS (util_cs/witness_cs.rs). This is the per-proof hot
// path: the constraints come from a cached r1cs_shape, so enforce() neither
// calls its LC functions nor builds anything, annotations are never
// evaluated and namespaces are no-ops.
//
// Costs: alloc = one call of the value function + one push_back of 32 bytes
// (amortized; call reserve() with the counts of the shape to avoid the
// ~27 doublings of a 1.3e8-element vector); enforce = one increment.
// Measured on the H200 host: a chain of 2^24 alloc+enforce steps whose value
// functions do one mul+add (34 ns alone) runs at ~50 ns per step, first
// touch of the reserved pages included.
// Invariants: inputs()[0] is ONE once synthesize_groth16/alloc_one ran.
// Reuse: constructed from the vectors of an earlier witness, it appends into
// their capacity (no allocation, no first-touch page faults; the engine's
// witness pool hands such vectors to the proof kinds).

#include <cstddef>
#include <functional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::r1cs {

class witness_cs {
 public:
  static constexpr bool has_values = true;
  static constexpr bool needs_lcs = false;
  static constexpr bool is_witness_generator = true;
  static constexpr bool is_extensible = true;

  witness_cs() = default;
  /// Reuses the storage of |inputs| and |aux| (an earlier witness of the
  /// same circuit): they are cleared, their capacity is kept, so the values
  /// are appended into memory that is already allocated and touched. Every
  /// slot the CS ends up with was written by alloc / alloc_input (a reused
  /// vector never shows an old value). Cost: O(1) (fr is trivially
  /// destructible).
  witness_cs(std::vector<fr> inputs, std::vector<fr> aux) : _inputs(std::move(inputs)), _aux(std::move(aux)) {
    _inputs.clear();
    _aux.clear();
  }

  static constexpr variable one() noexcept { return one_variable; }

  /// Capacity for |inputs| inputs (including ONE) and |aux| aux variables.
  void reserve(std::size_t inputs, std::size_t aux) {
    _inputs.reserve(inputs);
    _aux.reserve(aux);
  }

  template <annotation A, value_function F>
  variable alloc(A&&, F&& value) {
    _aux.push_back(fr(std::invoke(value)));
    return variable::aux(_aux.size() - 1);
  }
  template <annotation A, value_function F>
  variable alloc_input(A&&, F&& value) {
    _inputs.push_back(fr(std::invoke(value)));
    return variable::input(_inputs.size() - 1);
  }
  /// Counts the constraint; the LC functions are never called.
  template <annotation A, lc_function LA, lc_function LB, lc_function LC>
  void enforce(A&&, LA&&, LB&&, LC&&) noexcept {
    ++_num_constraints;
  }
  template <annotation A>
  void push_namespace(A&&) noexcept {}
  void pop_namespace() noexcept {}

  std::size_t num_inputs() const noexcept { return _inputs.size(); }
  std::size_t num_aux() const noexcept { return _aux.size(); }
  std::size_t num_constraints() const noexcept { return _num_constraints; }

  std::span<const fr> inputs() const noexcept { return _inputs; }
  std::span<const fr> aux() const noexcept { return _aux; }
  /// Value of |v| (tests; no bounds check beyond std::vector's).
  const fr& value(variable v) const { return v.is_input() ? _inputs[v.index()] : _aux[v.index()]; }

  /// Moves the assignments out (the CS is left empty).
  std::vector<fr> take_inputs() && { return std::move(_inputs); }
  std::vector<fr> take_aux() && { return std::move(_aux); }
  std::pair<std::vector<fr>, std::vector<fr>> take() && {
    _num_constraints = 0;
    return {std::move(_inputs), std::move(_aux)};
  }

  /// Appends a child synthesized separately; its input 0 (its temporary ONE)
  /// is dropped, as bellpepper's WitnessCS::extend does.
  void extend(const witness_cs& child) {
    if (child._inputs.empty()) throw std::logic_error("r1cs: extend needs a child whose input 0 is its temporary ONE");
    _inputs.insert(_inputs.end(), child._inputs.begin() + 1, child._inputs.end());
    _aux.insert(_aux.end(), child._aux.begin(), child._aux.end());
    _num_constraints += child._num_constraints;
  }

 private:
  std::vector<fr> _inputs;
  std::vector<fr> _aux;
  std::size_t _num_constraints = 0;
};

static_assert(constraint_system<witness_cs>);
static_assert(extensible_constraint_system<witness_cs>);

}  // namespace cuzk::r1cs
