// SPDX-License-Identifier: Apache-2.0
#pragma once
// multi_eq: packs many small equalities lhs_k = rhs_k (each known to fit in
// num_bits_k bits) into one constraint
//   (sum_k 2^{s_k} lhs_k) * ONE = sum_k 2^{s_k} rhs_k,   s_k = bits used before k,
// after bellperson 0.27 `gadgets/multieq.rs` (MultiEq). uint32::addmany is
// its only user; SHA-256 saves most of its addition constraints this way.
//
// Flush order (it decides where the constraint "multieq i" lands in the
// constraint order, i.e. the parameter layout):
//   - enforce_equal flushes the pending sum *before* adding an equality that
//     would make bits_used + num_bits reach fr capacity (254);
//   - the last partial sum is flushed when the multi_eq ends: bellperson does
//     it in Drop, i.e. after everything else the owning function did
//     (sha256_compression_function: after h0..h7). Call finish() at that
//     point; the destructor flushes too if finish() was not called and no
//     exception is unwinding (so it is noexcept(false), like Rust's Drop can
//     panic).
// The constraint is enforced through the wrapped CS in whatever namespace is
// open at that moment, named "multieq <ops>".
//
// multi_eq is itself a constraint system (it forwards alloc, enforce and
// namespaces to the wrapped one), so gadgets run unchanged on it; in the
// witness and counting modes no linear combination is built, only
// bits_used is tracked, so the constraint count is the same in every mode.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::gadgets {

template <r1cs::constraint_system CS>
class multi_eq {
 public:
  using fr = r1cs::fr;
  using linear_combination = r1cs::linear_combination;
  using variable = r1cs::variable;

  static constexpr bool has_values = CS::has_values;
  static constexpr bool needs_lcs = CS::needs_lcs;
  static constexpr bool is_witness_generator = CS::is_witness_generator;
  static constexpr bool is_extensible = false;

  /// Fr::CAPACITY: bits that always fit below r.
  static constexpr std::size_t capacity = fr::bits - 1;

  explicit multi_eq(CS& cs) : _cs(cs), _uncaught(std::uncaught_exceptions()) {}
  multi_eq(const multi_eq&) = delete;
  multi_eq& operator=(const multi_eq&) = delete;
  ~multi_eq() noexcept(false) {
    if (_bits_used > 0 && std::uncaught_exceptions() == _uncaught) accumulate();
  }

  /// The wrapped constraint system.
  CS& inner() noexcept { return _cs; }

  /// Adds lhs = rhs (both < 2^num_bits) to the pending sum, flushing first
  /// when it would not fit.
  void enforce_equal(std::size_t num_bits, const linear_combination& lhs, const linear_combination& rhs) {
    if (capacity <= _bits_used + num_bits) accumulate();
    if (capacity <= _bits_used + num_bits)
      throw std::logic_error("gadgets: multi_eq equality wider than the field capacity");
    if constexpr (needs_lcs) {
      const fr coeff = fr::from_uint(2).pow(std::uint64_t(_bits_used));
      _lhs.add_scaled(coeff, lhs);
      _rhs.add_scaled(coeff, rhs);
    }
    _bits_used += num_bits;
  }

  /// Flushes the pending sum (bellperson's Drop); idempotent.
  void finish() {
    if (_bits_used > 0) accumulate();
  }

  std::size_t bits_used() const noexcept { return _bits_used; }
  std::size_t ops() const noexcept { return _ops; }

  // ---- constraint_system: forwarded to the wrapped CS --------------------
  static constexpr variable one() noexcept { return CS::one(); }

  template <r1cs::annotation A, r1cs::value_function F>
  variable alloc(A&& ann, F&& value) {
    return _cs.alloc(std::forward<A>(ann), std::forward<F>(value));
  }
  template <r1cs::annotation A, r1cs::value_function F>
  variable alloc_input(A&& ann, F&& value) {
    return _cs.alloc_input(std::forward<A>(ann), std::forward<F>(value));
  }
  template <r1cs::annotation A, r1cs::lc_function LA, r1cs::lc_function LB, r1cs::lc_function LC>
  void enforce(A&& ann, LA&& a, LB&& b, LC&& c) {
    _cs.enforce(std::forward<A>(ann), std::forward<LA>(a), std::forward<LB>(b), std::forward<LC>(c));
  }
  template <r1cs::annotation A>
  void push_namespace(A&& ann) {
    _cs.push_namespace(std::forward<A>(ann));
  }
  void pop_namespace() { _cs.pop_namespace(); }

  std::size_t num_inputs() const { return _cs.num_inputs(); }
  std::size_t num_aux() const { return _cs.num_aux(); }
  std::size_t num_constraints() const { return _cs.num_constraints(); }

 private:
  void accumulate() {
    const std::size_t ops = _ops;
    _cs.enforce(
        [ops] { return "multieq " + std::to_string(ops); }, [this](linear_combination) { return std::move(_lhs); },
        [](linear_combination lc) { return lc + CS::one(); }, [this](linear_combination) { return std::move(_rhs); });
    _lhs.clear();
    _rhs.clear();
    _bits_used = 0;
    ++_ops;
  }

  CS& _cs;
  int _uncaught;
  std::size_t _ops = 0;
  std::size_t _bits_used = 0;
  linear_combination _lhs;
  linear_combination _rhs;
};

}  // namespace cuzk::gadgets
