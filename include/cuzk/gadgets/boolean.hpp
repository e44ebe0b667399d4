// SPDX-License-Identifier: Apache-2.0
#pragma once
// Bits in the circuit: allocated_bit (a variable constrained to 0 or 1) and
// boolean (an allocated bit, its negation, or a constant), after
// bellpepper-core 0.2 `gadgets/boolean.rs` (the version bellperson 0.27 and
// rust-fil-proofs use).
//
// Every function allocates and constrains in bellpepper's exact order, with
// bellpepper's annotations, because that order is the parameter layout:
//
//   allocated_bit::alloc               1 aux "boolean", 1 constraint "boolean constraint"
//                                      (1 - a) * a = 0
//   allocated_bit::alloc_conditionally 1 aux, 1 constraint (1 - f - a) * a = 0
//   allocated_bit::xor_                1 aux "xor result", 1 constraint (a + a) * b = a + b - c
//   allocated_bit::and_                1 aux "and result", a * b = c
//   allocated_bit::and_not             1 aux "and not result", a * (1 - b) = c
//   allocated_bit::nor                 1 aux "nor result", (1 - a) * (1 - b) = c
//   boolean::xor_/and_/or_             0 or 1 of the above (constants fold, negations are free)
//   boolean::enforce_equal             0 or 1 constraint 0 * 0 = lc
//   boolean::sha256_ch                 0..1 aux + 0..1 constraint (2 with no constant operand: 1)
//   boolean::sha256_maj                without constants 2 aux + 2 constraints, else as and_
//
// Values: like bellpepper, a value that bellpepper computes inside an
// allocation closure (the result of xor/and/...) is computed here inside the
// value function, so it exists only when CS::has_values; values bellpepper
// computes eagerly (sha256_ch/maj, constants) are computed eagerly. A
// missing value makes the value function throw synthesis_error
// (assignment_missing), as bellpepper returns AssignmentMissing.
//
// Names are C++ keywords in bellpepper (xor, and, not, or): here xor_, and_,
// not_, or_.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::gadgets {

using r1cs::constraint_system;
using r1cs::fr;
using r1cs::linear_combination;
using r1cs::namespace_guard;
using r1cs::synthesis_errc;
using r1cs::synthesis_error;
using r1cs::variable;

namespace detail {

/// The value in |v|, or throws assignment_missing.
template <class T>
const T& require_value(const std::optional<T>& v) {
  if (!v) throw synthesis_error(synthesis_errc::assignment_missing);
  return *v;
}

inline fr fr_from_bool(bool b) { return b ? fr::one() : fr::zero(); }

/// "<prefix><i>", built only where an annotation is evaluated.
inline std::string indexed(const char* prefix, std::size_t i) { return prefix + std::to_string(i); }

}  // namespace detail

/// A variable constrained to be 0 or 1, with its value when known.
class allocated_bit {
 public:
  allocated_bit(variable var, std::optional<bool> value) noexcept : _var(var), _value(value) {}

  variable get_variable() const noexcept { return _var; }
  std::optional<bool> get_value() const noexcept { return _value; }

  /// New bit with (1 - a) * a = 0.
  template <constraint_system CS>
  static allocated_bit alloc(CS& cs, std::optional<bool> value) {
    const variable v = cs.alloc("boolean", [&] { return detail::fr_from_bool(detail::require_value(value)); });
    cs.enforce(
        "boolean constraint", [&](linear_combination lc) { return lc + CS::one() - v; },
        [&](linear_combination lc) { return lc + v; }, r1cs::zero_lc);
    return {v, value};
  }

  /// New bit that must be 0 when |must_be_false| is 1: (1 - f - a) * a = 0.
  template <constraint_system CS>
  static allocated_bit alloc_conditionally(CS& cs, std::optional<bool> value, const allocated_bit& must_be_false) {
    const variable v = cs.alloc("boolean", [&] { return detail::fr_from_bool(detail::require_value(value)); });
    const variable f = must_be_false._var;
    cs.enforce(
        "boolean constraint", [&](linear_combination lc) { return lc + CS::one() - f - v; },
        [&](linear_combination lc) { return lc + v; }, r1cs::zero_lc);
    return {v, value};
  }

  /// a XOR b: (a + a) * b = a + b - c.
  template <constraint_system CS>
  static allocated_bit xor_(CS& cs, const allocated_bit& a, const allocated_bit& b) {
    std::optional<bool> result;
    const variable c = cs.alloc("xor result", [&] {
      const bool r = detail::require_value(a._value) ^ detail::require_value(b._value);
      result = r;
      return detail::fr_from_bool(r);
    });
    cs.enforce(
        "xor constraint", [&](linear_combination lc) { return lc + a._var + a._var; },
        [&](linear_combination lc) { return lc + b._var; },
        [&](linear_combination lc) { return lc + a._var + b._var - c; });
    return {c, result};
  }

  /// a AND b: a * b = c.
  template <constraint_system CS>
  static allocated_bit and_(CS& cs, const allocated_bit& a, const allocated_bit& b) {
    std::optional<bool> result;
    const variable c = cs.alloc("and result", [&] {
      const bool r = detail::require_value(a._value) && detail::require_value(b._value);
      result = r;
      return detail::fr_from_bool(r);
    });
    cs.enforce(
        "and constraint", [&](linear_combination lc) { return lc + a._var; },
        [&](linear_combination lc) { return lc + b._var; }, [&](linear_combination lc) { return lc + c; });
    return {c, result};
  }

  /// a AND (NOT b): a * (1 - b) = c.
  template <constraint_system CS>
  static allocated_bit and_not(CS& cs, const allocated_bit& a, const allocated_bit& b) {
    std::optional<bool> result;
    const variable c = cs.alloc("and not result", [&] {
      const bool av = detail::require_value(a._value);
      const bool bv = detail::require_value(b._value);
      result = av && !bv;
      return detail::fr_from_bool(av && !bv);
    });
    cs.enforce(
        "and not constraint", [&](linear_combination lc) { return lc + a._var; },
        [&](linear_combination lc) { return lc + CS::one() - b._var; }, [&](linear_combination lc) { return lc + c; });
    return {c, result};
  }

  /// (NOT a) AND (NOT b): (1 - a) * (1 - b) = c.
  template <constraint_system CS>
  static allocated_bit nor(CS& cs, const allocated_bit& a, const allocated_bit& b) {
    std::optional<bool> result;
    const variable c = cs.alloc("nor result", [&] {
      const bool av = detail::require_value(a._value);
      const bool bv = detail::require_value(b._value);
      result = !av && !bv;
      return detail::fr_from_bool(!av && !bv);
    });
    cs.enforce(
        "nor constraint", [&](linear_combination lc) { return lc + CS::one() - a._var; },
        [&](linear_combination lc) { return lc + CS::one() - b._var; }, [&](linear_combination lc) { return lc + c; });
    return {c, result};
  }

 private:
  variable _var;
  std::optional<bool> _value;
};

/// An allocated bit (bellpepper's Boolean::Is), its negation (Boolean::Not)
/// or a constant (Boolean::Constant). 16 bytes; copying is free.
class boolean {
 public:
  enum class kind : std::uint8_t { is, negated, constant };

  /// Constant false (so that arrays of booleans can be default-built).
  boolean() noexcept = default;
  /// Boolean::Is(bit) (bellpepper's `From<AllocatedBit>`).
  boolean(const allocated_bit& bit) noexcept  // NOLINT: implicit by design
      : _var(bit.get_variable()), _value(bit.get_value()), _kind(kind::is) {}

  static boolean constant(bool b) noexcept {
    boolean r;
    r._value = b;
    return r;
  }

  kind get_kind() const noexcept { return _kind; }
  bool is_constant() const noexcept { return _kind == kind::constant; }
  bool is_allocated() const noexcept { return _kind == kind::is; }
  bool is_negated() const noexcept { return _kind == kind::negated; }

  /// The underlying bit of an Is or Not boolean.
  allocated_bit bit() const {
    if (is_constant()) throw std::logic_error("gadgets: boolean::bit() on a constant");
    return {_var, _value};
  }

  std::optional<bool> get_value() const noexcept {
    if (_kind == kind::negated && _value) return !*_value;
    return _value;
  }

  /// coeff * this as an LC over |one| (bellpepper's Boolean::lc).
  linear_combination lc(variable one, const fr& coeff) const {
    linear_combination r;
    switch (_kind) {
      case kind::constant:
        if (*_value) r.add(coeff, one);
        break;
      case kind::is: r.add(coeff, _var); break;
      case kind::negated:
        r.add(coeff, one);
        r.add(-coeff, _var);
        break;
    }
    return r;
  }

  /// NOT this; never allocates.
  boolean not_() const noexcept {
    boolean r = *this;
    if (_kind == kind::constant) r._value = !*_value;
    else r._kind = _kind == kind::is ? kind::negated : kind::is;
    return r;
  }

  /// Requires a == b: nothing for two constants (throws unsatisfiable when
  /// they differ), else one constraint 0 * 0 = <1 - a | a | a - b>.
  template <constraint_system CS>
  static void enforce_equal(CS& cs, const boolean& a, const boolean& b) {
    if (a.is_constant() && b.is_constant()) {
      if (*a._value != *b._value) throw synthesis_error(synthesis_errc::unsatisfiable);
      return;
    }
    const auto is_const = [](const boolean& x, bool v) { return x.is_constant() && *x._value == v; };
    if (is_const(a, true) || is_const(b, true)) {
      const boolean& x = is_const(a, true) ? b : a;
      cs.enforce("enforce equal to one", r1cs::zero_lc, r1cs::zero_lc,
                 [&](linear_combination lc) { return lc + CS::one() - x.lc(CS::one(), fr::one()); });
    } else if (is_const(a, false) || is_const(b, false)) {
      const boolean& x = is_const(a, false) ? b : a;
      cs.enforce("enforce equal to zero", r1cs::zero_lc, r1cs::zero_lc,
                 [&](linear_combination) { return x.lc(CS::one(), fr::one()); });
    } else {
      cs.enforce("enforce equal", r1cs::zero_lc, r1cs::zero_lc,
                 [&](linear_combination) { return a.lc(CS::one(), fr::one()) - b.lc(CS::one(), fr::one()); });
    }
  }

  /// a XOR b; one allocated_bit::xor_ unless an operand is constant.
  template <constraint_system CS>
  static boolean xor_(CS& cs, const boolean& a, const boolean& b) {
    if (a.is_const(false)) return b;
    if (b.is_const(false)) return a;
    if (a.is_const(true)) return b.not_();
    if (b.is_const(true)) return a.not_();
    if (a._kind != b._kind) {
      // a XOR (NOT b) = NOT (a XOR b); bellpepper passes the Is operand first
      const boolean& is = a.is_allocated() ? a : b;
      const boolean& neg = a.is_allocated() ? b : a;
      return boolean(allocated_bit::xor_(cs, is.bit(), neg.bit())).not_();
    }
    // a XOR b = (NOT a) XOR (NOT b)
    return boolean(allocated_bit::xor_(cs, a.bit(), b.bit()));
  }

  /// a AND b; one and_/and_not/nor unless an operand is constant.
  template <constraint_system CS>
  static boolean and_(CS& cs, const boolean& a, const boolean& b) {
    if (a.is_const(false) || b.is_const(false)) return constant(false);
    if (a.is_const(true)) return b;
    if (b.is_const(true)) return a;
    if (a.is_allocated() && b.is_negated()) return boolean(allocated_bit::and_not(cs, a.bit(), b.bit()));
    if (a.is_negated() && b.is_allocated()) return boolean(allocated_bit::and_not(cs, b.bit(), a.bit()));
    if (a.is_negated() && b.is_negated()) return boolean(allocated_bit::nor(cs, a.bit(), b.bit()));
    return boolean(allocated_bit::and_(cs, a.bit(), b.bit()));
  }

  /// a OR b = NOT((NOT a) AND (NOT b)) in namespace "not and (not a) (not b)"
  /// (bellpepper-core >= 0.3 only; bellperson 0.27 circuits never use it).
  template <constraint_system CS>
  static boolean or_(CS& cs, const boolean& a, const boolean& b) {
    namespace_guard ns(cs, "not and (not a) (not b)");
    return and_(cs, a.not_(), b.not_()).not_();
  }

  /// (a AND b) XOR ((NOT a) AND c), with bellpepper's constant folding.
  template <constraint_system CS>
  static boolean sha256_ch(CS& cs, const boolean& a, const boolean& b, const boolean& c) {
    std::optional<bool> ch_value;
    if (auto av = a.get_value(), bv = b.get_value(), cv = c.get_value(); av && bv && cv)
      ch_value = (*av && *bv) != (!*av && *cv);

    if (a.is_constant() && b.is_constant() && c.is_constant()) return constant(*ch_value);
    if (a.is_const(false)) return c;                                   // c
    if (b.is_const(false)) return and_(cs, a.not_(), c);               // (not a) and c
    if (c.is_const(false)) return and_(cs, a, b);                      // a and b
    if (c.is_const(true)) return and_(cs, a, b.not_()).not_();         // not (a and (not b))
    if (b.is_const(true)) return and_(cs, a.not_(), c.not_()).not_();  // not ((not a) and (not c))
    // a constant true, or no constant at all: allocate ch

    const variable ch = cs.alloc("ch", [&] { return detail::fr_from_bool(detail::require_value(ch_value)); });
    // a (b - c) = ch - c
    cs.enforce(
        "ch computation", [&](linear_combination) { return b.lc(CS::one(), fr::one()) - c.lc(CS::one(), fr::one()); },
        [&](linear_combination) { return a.lc(CS::one(), fr::one()); },
        [&](linear_combination lc) { return lc + ch - c.lc(CS::one(), fr::one()); });
    return boolean(allocated_bit(ch, ch_value));
  }

  /// (a AND b) XOR (a AND c) XOR (b AND c), with bellpepper's constant folding.
  template <constraint_system CS>
  static boolean sha256_maj(CS& cs, const boolean& a, const boolean& b, const boolean& c) {
    std::optional<bool> maj_value;
    if (auto av = a.get_value(), bv = b.get_value(), cv = c.get_value(); av && bv && cv)
      maj_value = ((*av && *bv) != (*av && *cv)) != (*bv && *cv);

    if (a.is_constant() && b.is_constant() && c.is_constant()) return constant(*maj_value);
    if (a.is_const(false)) return and_(cs, b, c);
    if (b.is_const(false)) return and_(cs, a, c);
    if (c.is_const(false)) return and_(cs, a, b);
    if (c.is_const(true)) return and_(cs, a.not_(), b.not_()).not_();
    if (b.is_const(true)) return and_(cs, a.not_(), c.not_()).not_();
    if (a.is_const(true)) return and_(cs, b.not_(), c.not_()).not_();

    const variable maj = cs.alloc("maj", [&] { return detail::fr_from_bool(detail::require_value(maj_value)); });
    // (b) * (c) = (bc);  (2bc - b - c) * (a) = bc - maj
    boolean bc;
    {
      namespace_guard ns(cs, "b and c");
      bc = and_(cs, b, c);
    }
    cs.enforce(
        "maj computation",
        [&](linear_combination) {
          return bc.lc(CS::one(), fr::one()) + bc.lc(CS::one(), fr::one()) - b.lc(CS::one(), fr::one()) -
                 c.lc(CS::one(), fr::one());
        },
        [&](linear_combination) { return a.lc(CS::one(), fr::one()); },
        [&](linear_combination) { return bc.lc(CS::one(), fr::one()) - maj; });
    return boolean(allocated_bit(maj, maj_value));
  }

 private:
  bool is_const(bool v) const noexcept { return _kind == kind::constant && *_value == v; }

  variable _var{};
  std::optional<bool> _value = false;  // the bit's value (Is/Not) or the constant
  kind _kind = kind::constant;
};

/// 64 bits of |value|, least significant first, each allocated in namespace
/// "bit i" (bellpepper's u64_into_boolean_vec_le): 64 constraints.
template <constraint_system CS>
std::vector<boolean> u64_into_boolean_vec_le(CS& cs, std::optional<std::uint64_t> value) {
  std::vector<boolean> bits;
  bits.reserve(64);
  for (std::size_t i = 0; i < 64; ++i) {
    std::optional<bool> b;
    if (value) b = ((*value >> i) & 1) == 1;
    namespace_guard ns(cs, [i] { return detail::indexed("bit ", i); });
    bits.emplace_back(allocated_bit::alloc(cs, b));
  }
  return bits;
}

/// The fr::bits (255) low bits of |value|, least significant first, each
/// allocated in namespace "bit i" (bellpepper's field_into_allocated_bits_le):
/// 255 aux and 255 constraints, no range check.
template <constraint_system CS>
std::vector<allocated_bit> field_into_allocated_bits_le(CS& cs, const std::optional<fr>& value) {
  constexpr std::size_t n = fr::bits;
  std::optional<fr::limbs> limbs;
  if (value) limbs = value->to_canonical();
  std::vector<allocated_bit> bits;
  bits.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::optional<bool> b;
    if (limbs) b = (((*limbs)[i / 64] >> (i % 64)) & 1) == 1;
    namespace_guard ns(cs, [i] { return detail::indexed("bit ", i); });
    bits.push_back(allocated_bit::alloc(cs, b));
  }
  return bits;
}

/// field_into_allocated_bits_le as booleans (bellpepper's field_into_boolean_vec_le).
template <constraint_system CS>
std::vector<boolean> field_into_boolean_vec_le(CS& cs, const std::optional<fr>& value) {
  std::vector<allocated_bit> bits = field_into_allocated_bits_le(cs, value);
  return {bits.begin(), bits.end()};
}

}  // namespace cuzk::gadgets
