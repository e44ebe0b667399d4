// SPDX-License-Identifier: Apache-2.0
#pragma once
// synthesis_error: what a circuit, gadget or value function throws when it
// cannot go on, with bellperson's SynthesisError kinds that can arise during
// synthesis.
//
// A value function (the second argument of alloc/alloc_input) signals a
// missing or invalid assignment by throwing this; in the shape and counting
// modes value functions are never called, so blank circuits synthesize fine.

#include <optional>
#include <stdexcept>
#include <string>

#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::r1cs {

/// Kinds, after bellpepper-core's SynthesisError (constraint_system.rs).
enum class synthesis_errc {
  assignment_missing,      ///< a value was needed but the circuit has none (blank circuit)
  division_by_zero,        ///< a gadget divided by zero while computing a value
  unsatisfiable,           ///< the inputs cannot satisfy the circuit
  unconstrained_variable,  ///< an aux variable appears in no constraint (setup refuses it)
  invalid_input,           ///< anything else wrong with the circuit's data
};

class synthesis_error : public std::runtime_error {
 public:
  explicit synthesis_error(synthesis_errc code) : synthesis_error(code, default_message(code)) {}
  synthesis_error(synthesis_errc code, const std::string& what) : std::runtime_error(what), _code(code) {}

  synthesis_errc code() const noexcept { return _code; }

  static const char* default_message(synthesis_errc code) noexcept {
    switch (code) {
      case synthesis_errc::assignment_missing: return "an assignment for a variable could not be computed";
      case synthesis_errc::division_by_zero: return "division by zero";
      case synthesis_errc::unsatisfiable: return "unsatisfiable constraint system";
      case synthesis_errc::unconstrained_variable: return "auxiliary variable was unconstrained";
      case synthesis_errc::invalid_input: return "invalid circuit input";
    }
    return "synthesis error";
  }

 private:
  synthesis_errc _code;
};

/// The value in |v|, or throws assignment_missing (bellperson's
/// `value.ok_or(SynthesisError::AssignmentMissing)`).
inline const ff::fr& require(const std::optional<ff::fr>& v) {
  if (!v) throw synthesis_error(synthesis_errc::assignment_missing);
  return *v;
}

}  // namespace cuzk::r1cs
