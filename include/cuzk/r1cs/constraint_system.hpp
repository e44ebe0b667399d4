// SPDX-License-Identifier: Apache-2.0
#pragma once
// The constraint-system concept: what a circuit may call while it is being
// synthesized, after bellpepper-core's `ConstraintSystem` trait.
//
// A circuit is written once as a template over CS, in bellperson's exact order
// of allocations and constraints (that order is the parameter layout):
//
//   struct my_circuit {
//     std::optional<fr> x;  // empty in blank (shape/setup) circuits
//     template <cuzk::r1cs::constraint_system CS>
//     void synthesize(CS& cs) const {
//       using namespace cuzk::r1cs;
//       namespace_guard ns(cs, [] { return "square"; });
//       variable vx = cs.alloc([] { return "x"; }, [&] { return require(x); });
//       variable vy = cs.alloc_input([] { return "y"; }, [&] { return require(x).sqr(); });
//       cs.enforce([] { return "x*x=y"; },
//                  [&](linear_combination lc) { return lc + vx; },
//                  [&](linear_combination lc) { return lc + vx; },
//                  [&](linear_combination lc) { return lc + vy; });
//     }
//   };
//
// Every CS type provides
//   variable alloc(annotation, value_fn)          new aux variable
//   variable alloc_input(annotation, value_fn)    new input variable
//   void enforce(annotation, a_fn, b_fn, c_fn)    one constraint <a>*<b> = <c>
//   void push_namespace(annotation); void pop_namespace();
//   static variable one();                        input 0
//   num_inputs(), num_aux(), num_constraints()
//   static constexpr bool has_values, needs_lcs, is_witness_generator, is_extensible
// where
//   annotation: a callable returning std::string / string_view / const char*,
//     or a string literal; only checking_cs ever evaluates it, so building a
//     name (std::format etc.) inside the callable costs nothing in hot modes;
//   value_fn: a callable returning fr; it throws synthesis_error when the
//     value is missing. Called only when CS::has_values (checking, witness);
//   a_fn/b_fn/c_fn: callables linear_combination -> linear_combination, given
//     the empty LC (bellperson's `|lc| lc + x`). Called only when
//     CS::needs_lcs (checking, shape).
//
// Mode table:               has_values  needs_lcs  names evaluated
//   checking_cs              yes         yes        yes
//   shape_cs                 no          yes        no
//   witness_cs               yes         no         no
//   counting_cs              no          no         no
// Gadgets use `if constexpr (CS::has_values)` to skip native computation of
// values in the shape/counting modes, and `if constexpr (CS::needs_lcs)` to
// skip building LCs that are only passed to enforce.
//
// Namespaces: bellperson's `cs.namespace(|| "x")` becomes a namespace_guard
// (RAII: push in the constructor, pop in the destructor, also on exceptions)
// and the gadget keeps using the same `cs`; or with_namespace(cs, name, fn).

#include <concepts>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <cuzk/r1cs/linear_combination.hpp>
#include <cuzk/r1cs/synthesis_error.hpp>
#include <cuzk/r1cs/variable.hpp>

namespace cuzk::r1cs {

/// A name: a string-like value, or a callable returning one (evaluated lazily).
template <class A>
concept annotation = std::convertible_to<A, std::string_view> ||
    (std::invocable<A&>&& std::constructible_from<std::string, std::invoke_result_t<A&>>);

/// A callable producing a variable's value.
template <class F>
concept value_function = std::invocable<F&> && std::convertible_to<std::invoke_result_t<F&>, fr>;

/// A callable building one side of a constraint from the empty LC.
template <class F>
concept lc_function = std::invocable<F&, linear_combination> &&
    std::convertible_to<std::invoke_result_t<F&, linear_combination>, linear_combination>;

/// Evaluates an annotation to a string (checking_cs only).
template <annotation A>
std::string annotation_string(A&& ann) {
  if constexpr (std::convertible_to<A, std::string_view>) {
    return std::string(std::string_view(ann));
  } else {
    return std::string(std::invoke(ann));
  }
}

/// The LC function for an empty side: bellperson's `|lc| lc`.
inline constexpr auto zero_lc = [](linear_combination lc) { return lc; };

namespace detail {
// Archetypes: the least a circuit may pass; used only inside the concept.
struct annotation_archetype {
  std::string operator()() const;
};
struct value_archetype {
  fr operator()() const;
};
struct lc_archetype {
  linear_combination operator()(linear_combination) const;
};
template <bool>
struct constant_bool {};
}  // namespace detail

// clang-format off
/// What a circuit may call while it is synthesized.
template <class CS>
concept constraint_system =
    requires(CS& cs, const CS& ccs, detail::annotation_archetype ann, detail::value_archetype val,
             detail::lc_archetype lc) {
      { cs.alloc(ann, val) } -> std::same_as<variable>;
      { cs.alloc_input(ann, val) } -> std::same_as<variable>;
      { cs.alloc("name", val) } -> std::same_as<variable>;
      cs.enforce(ann, lc, lc, lc);
      cs.push_namespace(ann);
      cs.pop_namespace();
      { CS::one() } -> std::same_as<variable>;
      { ccs.num_inputs() } -> std::convertible_to<std::size_t>;
      { ccs.num_aux() } -> std::convertible_to<std::size_t>;
      { ccs.num_constraints() } -> std::convertible_to<std::size_t>;
      // compile-time mode flags, usable in `if constexpr`
      typename detail::constant_bool<CS::has_values>;
      typename detail::constant_bool<CS::needs_lcs>;
      typename detail::constant_bool<CS::is_witness_generator>;
      typename detail::constant_bool<CS::is_extensible>;
    };

/// A CS that can be built empty, filled by a sub-synthesis on another thread
/// and appended to a parent (bellperson's `is_extensible`/`extend`). The child
/// allocates its own temporary ONE as input 0; extend() maps it onto the
/// parent's ONE and appends the child's other inputs, aux and constraints.
template <class CS>
concept extensible_constraint_system =
    constraint_system<CS> && CS::is_extensible && std::default_initializable<CS> &&
    requires(CS& cs, const CS& other) { cs.extend(other); };

/// A circuit: `c.synthesize(cs)` for this CS type (C may be const-qualified;
/// a const synthesize lets one circuit object feed several modes).
template <class C, class CS>
concept circuit_for = constraint_system<CS> &&
                      requires(std::remove_reference_t<C>& c, CS& cs) { c.synthesize(cs); };
// clang-format on

/// RAII namespace: pushes in the constructor, pops in the destructor.
template <constraint_system CS>
class [[nodiscard]] namespace_guard {
 public:
  template <annotation A>
  namespace_guard(CS& cs, A&& name) : _cs(cs) {
    cs.push_namespace(std::forward<A>(name));
  }
  ~namespace_guard() { _cs.pop_namespace(); }
  namespace_guard(const namespace_guard&) = delete;
  namespace_guard& operator=(const namespace_guard&) = delete;

  CS& cs() const noexcept { return _cs; }

 private:
  CS& _cs;
};
template <class CS, class A>
namespace_guard(CS&, A&&) -> namespace_guard<CS>;

/// Runs fn() inside namespace |name| and returns its result.
template <constraint_system CS, annotation A, std::invocable F>
decltype(auto) with_namespace(CS& cs, A&& name, F&& fn) {
  namespace_guard<CS> guard(cs, std::forward<A>(name));
  return std::invoke(std::forward<F>(fn));
}

}  // namespace cuzk::r1cs
