// SPDX-License-Identifier: Apache-2.0
#pragma once
// linear_combination: a sparse sum of (coefficient, variable) terms over Fr,
// bellperson's `LinearCombination<Scalar>`.
//
// Method: terms are appended as written, in a small vector that holds up to
// `inline_terms` terms without touching the heap (most LCs in Filecoin
// gadgets have 1-3 terms). Unlike bellpepper-core's LC, which keeps its terms
// sorted and merges repeated variables on insertion, this one does not merge:
// appending is O(1), and every consumer is linear, so the value of the LC is
// the same. Where the *structure* matters (the shape matrices and the density
// masks) shape_cs normalizes each row: sort by column, add up repeated
// variables, drop zero coefficients. That normalized form is what bellpepper's
// merged LC gives, and it makes the density rule "variable has a non-zero
// merged coefficient", which is what bellperson's prover and generator
// compute (see shape_cs.hpp).
//
// Writing bellperson code in C++:
//   |lc| lc + x                 ->  [&](linear_combination lc) { return lc + x; }
//   |lc| lc + (coeff, x)        ->  ... lc + coeff * x
//   |lc| lc - (coeff, x)        ->  ... lc - coeff * x
//   |lc| lc + &other            ->  ... lc + other
//   |lc| lc + (coeff, &other)   ->  ... lc + coeff * other   (or lc.add_scaled(coeff, other))
//   |lc| lc                     ->  zero_lc (constraint_system.hpp)
//
// Costs: + and - of one term are an append (40 bytes); + of an LC appends its
// terms; evaluation is one multiplication per term whose coefficient is not 1.

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/r1cs/detail/small_vector.hpp>
#include <cuzk/r1cs/variable.hpp>

namespace cuzk::r1cs {

using fr = cuzk::ff::fr;

/// One term `coeff * var` of a linear combination.
struct term {
  variable var;
  fr coeff;

  friend constexpr term operator-(const term& t) { return {t.var, -t.coeff}; }
  friend constexpr bool operator==(const term&, const term&) = default;
};
static_assert(sizeof(term) == 40 && std::is_trivially_copyable_v<term>);

/// coeff * var as a term: `lc + coeff * x` is bellperson's `lc + (coeff, x)`.
constexpr term operator*(const fr& coeff, variable v) { return {v, coeff}; }
constexpr term operator*(variable v, const fr& coeff) { return {v, coeff}; }

class linear_combination {
 public:
  /// Terms kept inline before the first heap allocation.
  static constexpr std::size_t inline_terms = 4;
  using storage = detail::small_vector<term, inline_terms>;

  /// The empty (zero) LC.
  linear_combination() = default;
  /// 1 * v (bellperson's `LinearCombination::from_variable`).
  linear_combination(variable v) { _terms.push_back({v, fr::one()}); }  // NOLINT: implicit by design
  /// coeff * v (bellperson's `LinearCombination::from_coeff`).
  linear_combination(const term& t) { _terms.push_back(t); }  // NOLINT: implicit by design

  static linear_combination zero() { return {}; }

  std::span<const term> terms() const noexcept { return {_terms.data(), _terms.size()}; }
  std::size_t size() const noexcept { return _terms.size(); }
  bool empty() const noexcept { return _terms.empty(); }
  void reserve(std::size_t n) { _terms.reserve(n); }
  void clear() noexcept { _terms.clear(); }

  // ---- in-place building -------------------------------------------------
  linear_combination& add(const fr& coeff, variable v) {
    _terms.push_back({v, coeff});
    return *this;
  }
  linear_combination& operator+=(variable v) { return add(fr::one(), v); }
  linear_combination& operator-=(variable v) { return add(-fr::one(), v); }
  linear_combination& operator+=(const term& t) { return add(t.coeff, t.var); }
  linear_combination& operator-=(const term& t) { return add(-t.coeff, t.var); }
  linear_combination& operator+=(const linear_combination& o) {
    _terms.append(o._terms.data(), o._terms.size());
    return *this;
  }
  linear_combination& operator-=(const linear_combination& o) {
    _terms.reserve(_terms.size() + o._terms.size());
    for (const term& t : o.terms()) _terms.push_back(-t);
    return *this;
  }
  /// this += coeff * other (bellperson's `lc + (coeff, &other)`).
  linear_combination& add_scaled(const fr& coeff, const linear_combination& o) {
    _terms.reserve(_terms.size() + o._terms.size());
    for (const term& t : o.terms()) _terms.push_back({t.var, t.coeff * coeff});
    return *this;
  }
  /// this *= s (every coefficient).
  linear_combination& operator*=(const fr& s) {
    for (term& t : _terms) t.coeff *= s;
    return *this;
  }

  // ---- value-returning forms (the `|lc| lc + x` style) -------------------
  friend linear_combination operator+(linear_combination lc, variable v) { return std::move(lc += v); }
  friend linear_combination operator-(linear_combination lc, variable v) { return std::move(lc -= v); }
  friend linear_combination operator+(linear_combination lc, const term& t) { return std::move(lc += t); }
  friend linear_combination operator-(linear_combination lc, const term& t) { return std::move(lc -= t); }
  friend linear_combination operator+(linear_combination lc, const linear_combination& o) { return std::move(lc += o); }
  friend linear_combination operator-(linear_combination lc, const linear_combination& o) { return std::move(lc -= o); }
  friend linear_combination operator*(linear_combination lc, const fr& s) { return std::move(lc *= s); }
  friend linear_combination operator*(const fr& s, linear_combination lc) { return std::move(lc *= s); }

  /// Value under an assignment (inputs and aux indexed by variable::index()).
  fr evaluate(std::span<const fr> inputs, std::span<const fr> aux) const {
    fr acc = fr::zero();
    for (const term& t : terms()) {
      const fr& x = t.var.is_input() ? inputs[t.var.index()] : aux[t.var.index()];
      acc += t.coeff.is_one() ? x : x * t.coeff;
    }
    return acc;
  }

 private:
  storage _terms;
};

}  // namespace cuzk::r1cs
