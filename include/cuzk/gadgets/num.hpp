// SPDX-License-Identifier: Apache-2.0
#pragma once
// Field elements in the circuit: allocated_num (one variable with its value)
// and num (a linear combination with its value), after bellpepper-core 0.2
// `gadgets/num.rs` (AllocatedNum, Num) as bellperson 0.27 re-exports it.
//
// Order and cost of each operation (bellpepper's annotations in quotes):
//   alloc / alloc_input            1 aux "num" / 1 input "input num", no constraint
//   inputize                       1 input "input variable", 1 constraint input * 1 = self
//   to_bits_le                     255 bits ("bit i/boolean", LE) + "unpacking constraint":
//                                  255 aux, 256 constraints; no range check (a value and
//                                  value + r have the same 255 low bits only if < 2^255 - r,
//                                  so the packing can be satisfied by one of two encodings)
//   to_bits_le_strict              255 bits, MSB first ("bit 0" is bit 254), with one
//                                  k-ary AND per run of ones of r - 1 ("run ending at i/and j")
//                                  and conditional allocation after each run, so that the
//                                  bits encode a value <= r - 1; + "unpacking constraint"
//   mul / square                   1 aux + 1 constraint
//   assert_nonzero                 1 aux "ephemeral inverse" + 1 constraint
//   conditionally_reverse          2 aux + 2 constraints
//
// rust-fil-proofs (storage-proofs-core, -porep, filecoin-hashers) only calls
// to_bits_le, never the strict variant (checked: every `to_bits_le(` call in
// the repository; `to_bits_le_strict` and `alloc_num_as_bits` are unused).
//
// Values: as in bellpepper, allocated_num's value is set inside the value
// function, so in the shape and counting modes it stays empty.

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::gadgets {

/// A field element held by one variable (bellpepper's AllocatedNum).
class allocated_num {
 public:
  allocated_num(variable var, std::optional<fr> value) noexcept : _value(value), _var(var) {}

  variable get_variable() const noexcept { return _var; }
  const std::optional<fr>& get_value() const noexcept { return _value; }

  /// New aux variable "num" with value_fn() (called only when CS::has_values;
  /// it throws synthesis_error when the value is missing).
  template <constraint_system CS, r1cs::value_function F>
  static allocated_num alloc(CS& cs, F&& value_fn) {
    std::optional<fr> value;
    const variable v = cs.alloc("num", [&] {
      const fr x = fr(value_fn());
      value = x;
      return x;
    });
    return {v, value};
  }

  /// New input variable "input num".
  template <constraint_system CS, r1cs::value_function F>
  static allocated_num alloc_input(CS& cs, F&& value_fn) {
    std::optional<fr> value;
    const variable v = cs.alloc_input("input num", [&] {
      const fr x = fr(value_fn());
      value = x;
      return x;
    });
    return {v, value};
  }

  /// alloc_input when |is_input|, else alloc.
  template <constraint_system CS, r1cs::value_function F>
  static allocated_num alloc_maybe_input(CS& cs, bool is_input, F&& value_fn) {
    return is_input ? alloc_input(cs, std::forward<F>(value_fn)) : alloc(cs, std::forward<F>(value_fn));
  }

  /// Exposes this number as a new public input: input * 1 = self.
  template <constraint_system CS>
  void inputize(CS& cs) const {
    const variable input = cs.alloc_input("input variable", [&] { return detail::require_value(_value); });
    cs.enforce(
        "enforce input is correct", [&](linear_combination lc) { return lc + input; },
        [&](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + _var; });
  }

  /// 255 little-endian bits of the value, packed back by one constraint
  /// (bellpepper's to_bits_le; no check that the encoding is < r).
  template <constraint_system CS>
  std::vector<boolean> to_bits_le(CS& cs) const {
    std::vector<allocated_bit> bits = field_into_allocated_bits_le(cs, _value);
    enforce_unpacking(cs, bits.begin(), bits.end());
    return {bits.begin(), bits.end()};
  }

  /// 255 little-endian bits constrained to encode a value <= r - 1
  /// (bellpepper's to_bits_le_strict).
  template <constraint_system CS>
  std::vector<boolean> to_bits_le_strict(CS& cs) const {
    constexpr fr::limbs r_minus_1 = (-fr::one()).to_canonical();
    std::optional<fr::limbs> a;
    if (_value) a = _value->to_canonical();
    const auto bit_of = [](const fr::limbs& l, std::size_t i) { return ((l[i / 64] >> (i % 64)) & 1) == 1; };

    std::vector<allocated_bit> result;  // most significant first
    result.reserve(fr::bits);
    std::optional<allocated_bit> last_run;
    std::vector<allocated_bit> current_run;
    bool found_one = false;
    std::size_t i = 0;
    for (std::size_t k = 64 * fr::n_limbs; k-- > 0;) {
      const bool b = bit_of(r_minus_1, k);
      std::optional<bool> a_bit;
      if (a) a_bit = bit_of(*a, k);
      found_one |= b;
      if (!found_one) continue;  // leading zeros of r - 1 (a canonical value has them too)
      if (b) {
        // part of a run of ones of r - 1: a plain bit
        namespace_guard ns(cs, [i] { return detail::indexed("bit ", i); });
        allocated_bit bit = allocated_bit::alloc(cs, a_bit);
        current_run.push_back(bit);
        result.push_back(bit);
      } else {
        if (!current_run.empty()) {
          // a run of ones ended: AND it (and the previous run's AND) together
          if (last_run) current_run.push_back(*last_run);
          namespace_guard ns(cs, [i] { return detail::indexed("run ending at ", i); });
          last_run = kary_and(cs, current_run);
          current_run.clear();
        }
        // if every bit so far equals r - 1's, this one must be 0
        namespace_guard ns(cs, [i] { return detail::indexed("bit ", i); });
        result.push_back(allocated_bit::alloc_conditionally(cs, a_bit, *last_run));
      }
      ++i;
    }
    // r is prime, so r - 1 ends on a run of zeros and current_run is empty here
    enforce_unpacking(cs, result.rbegin(), result.rend());
    return {result.rbegin(), result.rend()};
  }

  /// self * other (1 aux "product num", 1 constraint).
  template <constraint_system CS>
  allocated_num mul(CS& cs, const allocated_num& other) const {
    std::optional<fr> value;
    const variable v = cs.alloc("product num", [&] {
      const fr x = detail::require_value(_value) * detail::require_value(other._value);
      value = x;
      return x;
    });
    cs.enforce(
        "multiplication constraint", [&](linear_combination lc) { return lc + _var; },
        [&](linear_combination lc) { return lc + other._var; }, [&](linear_combination lc) { return lc + v; });
    return {v, value};
  }

  /// self^2 (1 aux "squared num", 1 constraint).
  template <constraint_system CS>
  allocated_num square(CS& cs) const {
    std::optional<fr> value;
    const variable v = cs.alloc("squared num", [&] {
      const fr x = detail::require_value(_value).sqr();
      value = x;
      return x;
    });
    cs.enforce(
        "squaring constraint", [&](linear_combination lc) { return lc + _var; },
        [&](linear_combination lc) { return lc + _var; }, [&](linear_combination lc) { return lc + v; });
    return {v, value};
  }

  /// Requires self != 0: self * inv = 1 (throws division_by_zero when it is 0).
  template <constraint_system CS>
  void assert_nonzero(CS& cs) const {
    const variable inv = cs.alloc("ephemeral inverse", [&] {
      const fr& x = detail::require_value(_value);
      if (x.is_zero()) throw synthesis_error(synthesis_errc::division_by_zero);
      return x.inverse();
    });
    cs.enforce(
        "nonzero assertion constraint", [&](linear_combination lc) { return lc + _var; },
        [&](linear_combination lc) { return lc + inv; }, [&](linear_combination lc) { return lc + CS::one(); });
  }

  /// (b, a) when |condition|, else (a, b).
  template <constraint_system CS>
  static std::pair<allocated_num, allocated_num> conditionally_reverse(CS& cs, const allocated_num& a,
                                                                       const allocated_num& b,
                                                                       const boolean& condition) {
    const auto pick = [&](bool swapped) {
      return detail::require_value(detail::require_value(condition.get_value()) != swapped ? b._value : a._value);
    };
    std::optional<allocated_num> c;
    {
      namespace_guard ns(cs, "conditional reversal result 1");
      c = alloc(cs, [&] { return pick(false); });
    }
    cs.enforce(
        "first conditional reversal", [&](linear_combination lc) { return lc + a._var - b._var; },
        [&](linear_combination) { return condition.lc(CS::one(), fr::one()); },
        [&](linear_combination lc) { return lc + a._var - c->_var; });
    std::optional<allocated_num> d;
    {
      namespace_guard ns(cs, "conditional reversal result 2");
      d = alloc(cs, [&] { return pick(true); });
    }
    cs.enforce(
        "second conditional reversal", [&](linear_combination lc) { return lc + b._var - a._var; },
        [&](linear_combination) { return condition.lc(CS::one(), fr::one()); },
        [&](linear_combination lc) { return lc + b._var - d->_var; });
    return {*c, *d};
  }

 private:
  // "unpacking constraint": 0 * 0 = sum 2^j bit_j - self, bits least significant first.
  template <constraint_system CS, class It>
  void enforce_unpacking(CS& cs, It first, It last) const {
    cs.enforce("unpacking constraint", r1cs::zero_lc, r1cs::zero_lc, [&](linear_combination) {
      linear_combination lc;
      lc.reserve(fr::bits + 1);
      fr coeff = fr::one();
      for (It it = first; it != last; ++it) {
        lc.add(coeff, it->get_variable());
        coeff = coeff.dbl();
      }
      return lc - _var;
    });
  }

  // AND of every bit of |v| in order, namespaces "and j" (bellpepper's kary_and).
  template <constraint_system CS>
  static allocated_bit kary_and(CS& cs, const std::vector<allocated_bit>& v) {
    allocated_bit cur = v.at(0);
    for (std::size_t j = 1; j < v.size(); ++j) {
      namespace_guard ns(cs, [j] { return detail::indexed("and ", j); });
      cur = allocated_bit::and_(cs, cur, v[j]);
    }
    return cur;
  }

  std::optional<fr> _value;
  variable _var;
};

/// A linear combination with its value (bellpepper's Num); building it
/// allocates nothing.
class num {
 public:
  /// The number 0 (value known, empty LC).
  static num zero() { return num(fr::zero(), linear_combination{}); }

  /// The allocated number as an LC (bellpepper's `From<AllocatedNum>`).
  num(const allocated_num& n)  // NOLINT: implicit by design
      : _value(n.get_value()), _lc(n.get_variable()) {}
  num(std::optional<fr> value, linear_combination lc) : _value(value), _lc(std::move(lc)) {}

  const std::optional<fr>& get_value() const noexcept { return _value; }
  /// The LC as built (empty when built with with_lc = false).
  const linear_combination& get_lc() const noexcept { return _lc; }

  /// coeff * this as an LC.
  linear_combination lc(const fr& coeff) const {
    linear_combination r;
    r.add_scaled(coeff, _lc);
    return r;
  }

  /// this + coeff * bit. |with_lc| = false skips the LC (witness mode: only
  /// the value is needed; pass CS::needs_lcs).
  num add_bool_with_coeff(variable one, const boolean& bit, const fr& coeff, bool with_lc = true) && {
    if (_value) {
      if (auto b = bit.get_value()) {
        if (*b) *_value += coeff;
      } else {
        _value.reset();
      }
    }
    if (with_lc) _lc += bit.lc(one, coeff);
    return std::move(*this);
  }

  /// this + other. The value is known only when both are (bellpepper-core
  /// 0.4's fix #88; 0.2 kept the known side's value, a wrong sum).
  num add(const num& other) && {
    if (_value && other._value) *_value += *other._value;
    else _value.reset();
    _lc += other._lc;
    return std::move(*this);
  }

  /// scalar * this.
  num scale(const fr& scalar) && {
    _lc *= scalar;
    if (_value) *_value *= scalar;
    return std::move(*this);
  }

 private:
  std::optional<fr> _value;
  linear_combination _lc;
};

}  // namespace cuzk::gadgets
