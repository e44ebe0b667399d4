// SPDX-License-Identifier: Apache-2.0
#pragma once
// checking_cs: the debugging constraint system, after bellpepper-core's
// TestConstraintSystem (util_cs/test_cs.rs). It evaluates every value and
// annotation, keeps all variables with their values, records every
// constraint with its full namespace path ("a/b/c") and can say which
// constraint is the first one that fails.
//
// Naming rules (as TestConstraintSystem): a path is the open namespaces and
// the annotation joined by '/'; a name containing '/' and a path used twice
// (by a variable, a constraint or a namespace) are programming errors and
// throw std::logic_error. Constraints may only use allocated variables.
//
// Costs: a string and a hash-map entry per variable, constraint and
// namespace, and the LC terms of every constraint (40 bytes each, in one
// flat array): tests and debugging only, never the proving path.
// is_satisfied() evaluates every constraint once, on one thread.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::r1cs {

class checking_cs {
 public:
  static constexpr bool has_values = true;
  static constexpr bool needs_lcs = true;
  static constexpr bool is_witness_generator = false;
  static constexpr bool is_extensible = false;

  checking_cs() = default;

  static constexpr variable one() noexcept { return one_variable; }

  template <annotation A, value_function F>
  variable alloc(A&& ann, F&& value) {
    std::string path = make_path(annotation_string(ann));
    const fr v = fr(std::invoke(value));
    return add_variable(false, std::move(path), v);
  }
  template <annotation A, value_function F>
  variable alloc_input(A&& ann, F&& value) {
    std::string path = make_path(annotation_string(ann));
    const fr v = fr(std::invoke(value));
    return add_variable(true, std::move(path), v);
  }
  template <annotation A, lc_function LA, lc_function LB, lc_function LC>
  void enforce(A&& ann, LA&& a, LB&& b, LC&& c) {
    std::string path = make_path(annotation_string(ann));
    const linear_combination la = std::invoke(a, linear_combination{});
    const linear_combination lb = std::invoke(b, linear_combination{});
    const linear_combination lc = std::invoke(c, linear_combination{});
    add_constraint(std::move(path), la, lb, lc);
  }
  template <annotation A>
  void push_namespace(A&& ann) {
    open_namespace(annotation_string(ann));
  }
  void pop_namespace();

  std::size_t num_inputs() const noexcept { return _inputs.size(); }
  std::size_t num_aux() const noexcept { return _aux.size(); }
  std::size_t num_constraints() const noexcept { return _constraint_paths.size(); }

  // ---- checking ------------------------------------------------------------
  /// True when every constraint holds.
  bool is_satisfied() const { return !first_unsatisfied().has_value(); }
  /// Index of the first constraint with <a>*<b> != <c>.
  std::optional<std::size_t> first_unsatisfied() const;
  /// Full path of the first failing constraint (TestConstraintSystem::which_is_unsatisfied).
  std::optional<std::string> which_is_unsatisfied() const;

  // ---- values ----------------------------------------------------------------
  const fr& value(variable v) const;
  void set(variable v, const fr& value);
  /// Value of the variable at |path|; throws std::out_of_range if there is none.
  const fr& get(std::string_view path) const;
  void set(std::string_view path, const fr& value);
  /// Variable at |path|, if a variable has that path.
  std::optional<variable> find_variable(std::string_view path) const;
  std::span<const fr> inputs() const noexcept { return _inputs; }
  std::span<const fr> aux() const noexcept { return _aux; }

  // ---- recorded constraints ----------------------------------------------------
  struct constraint_view {
    std::span<const term> a, b, c;
    std::string_view path;
  };
  constraint_view constraint(std::size_t i) const;
  /// Open namespaces joined by '/' ("" at the root).
  std::string current_namespace() const;

 private:
  enum class object_kind : std::uint8_t { variable, constraint, name_space };
  struct named_object {
    object_kind kind;
    std::uint64_t id;  // variable::raw() or constraint index
  };

  std::string make_path(std::string_view name) const;
  void register_path(const std::string& path, named_object obj);
  variable add_variable(bool input, std::string path, const fr& v);
  void add_constraint(std::string path, const linear_combination& a, const linear_combination& b,
                      const linear_combination& c);
  void open_namespace(std::string name);
  fr evaluate(std::span<const term> lc) const;

  std::vector<std::string> _namespace;
  std::unordered_map<std::string, named_object> _names;
  std::vector<fr> _inputs;
  std::vector<fr> _aux;
  std::vector<term> _terms;                 // a, b, c of every constraint, in order
  std::vector<std::uint64_t> _lc_begin{0};  // 3 * num_constraints + 1 offsets into _terms
  std::vector<std::string> _constraint_paths;
};

static_assert(constraint_system<checking_cs>);

}  // namespace cuzk::r1cs
