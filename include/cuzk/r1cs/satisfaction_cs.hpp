// SPDX-License-Identifier: Apache-2.0
#pragma once
// satisfaction_cs: a lean checking constraint system for circuits too large
// for checking_cs (tens of millions of constraints). It keeps the
// assignment, evaluates every constraint as it is enforced and remembers the
// first one that fails, with its full namespace path ("a/b/c", as
// checking_cs would name it); nothing else is stored.
//
// Differences from checking_cs: no name registry (duplicate paths are not
// detected), no recorded constraints, no per-variable names; namespace
// annotations are evaluated (the path must be known when a constraint
// fails), variable annotations never are. Not a witness generator: gadgets
// take their constraint-building paths (e.g. SHA-256 as gates, not the
// native fast path), so the check covers the real constraints.
//
// Costs: one LC evaluation per constraint plus a string per namespace push,
// and the assignment (32 bytes per variable). Measured on the shared 2-core
// dev host (Release, loaded): SnapDeals 2 KiB partition (1.7 M constraints)
// 1.8-4.8 s, 8 MiB partition (10 M) ~31 s, 32 GiB partition (81 M) ~370 s.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::r1cs {

class satisfaction_cs {
 public:
  static constexpr bool has_values = true;
  static constexpr bool needs_lcs = true;
  static constexpr bool is_witness_generator = false;
  static constexpr bool is_extensible = false;

  satisfaction_cs() = default;

  static constexpr variable one() noexcept { return one_variable; }

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
  template <annotation A, lc_function LA, lc_function LB, lc_function LC>
  void enforce(A&& ann, LA&& a, LB&& b, LC&& c) {
    const std::size_t index = _num_constraints++;
    if (_first_failure) return;
    const fr va = std::invoke(a, linear_combination{}).evaluate(_inputs, _aux);
    const fr vb = std::invoke(b, linear_combination{}).evaluate(_inputs, _aux);
    const fr vc = std::invoke(c, linear_combination{}).evaluate(_inputs, _aux);
    if (va * vb == vc) return;
    std::string path;
    for (const std::string& n : _namespace) path += n + "/";
    path += annotation_string(ann);
    _first_failure = std::pair{index, std::move(path)};
  }
  template <annotation A>
  void push_namespace(A&& ann) {
    _namespace.push_back(annotation_string(ann));
  }
  void pop_namespace() { _namespace.pop_back(); }

  std::size_t num_inputs() const noexcept { return _inputs.size(); }
  std::size_t num_aux() const noexcept { return _aux.size(); }
  std::size_t num_constraints() const noexcept { return _num_constraints; }

  /// True when every constraint enforced so far holds.
  bool is_satisfied() const noexcept { return !_first_failure; }
  /// Index of the first failing constraint.
  std::optional<std::size_t> first_unsatisfied() const {
    if (!_first_failure) return std::nullopt;
    return _first_failure->first;
  }
  /// Namespace path of the first failing constraint.
  std::optional<std::string> which_is_unsatisfied() const {
    if (!_first_failure) return std::nullopt;
    return _first_failure->second;
  }
  std::span<const fr> inputs() const noexcept { return _inputs; }
  std::span<const fr> aux() const noexcept { return _aux; }

 private:
  std::vector<std::string> _namespace;
  std::vector<fr> _inputs;
  std::vector<fr> _aux;
  std::size_t _num_constraints = 0;
  std::optional<std::pair<std::size_t, std::string>> _first_failure;
};

static_assert(constraint_system<satisfaction_cs>);

}  // namespace cuzk::r1cs
