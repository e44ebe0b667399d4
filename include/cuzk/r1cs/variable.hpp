// SPDX-License-Identifier: Apache-2.0
#pragma once
// variable: a handle on one R1CS variable, an input (public) or aux (private)
// index, as bellperson's `Variable(Index::Input(i) | Index::Aux(i))`.
//
// Representation: one 64-bit word, bit 63 set for aux, the index in the low 63
// bits. Ordering by that word puts every input before every aux variable and
// keeps allocation order inside each kind, which is exactly the column order
// of the unified variable space (inputs first, then aux) used by r1cs_shape,
// the full assignment vector and the A/B/L query vectors of a .params file.
//
// Input 0 is the constant ONE; it is allocated by synthesize_groth16 (as
// bellperson's prover and generator do) before the circuit runs.
//
// Costs: trivially copyable, 8 bytes; every operation is a shift or a mask.

#include <compare>
#include <cstddef>
#include <cstdint>

namespace cuzk::r1cs {

class variable {
 public:
  static constexpr std::uint64_t aux_bit = std::uint64_t(1) << 63;
  static constexpr std::uint64_t max_index = aux_bit - 1;

  /// ONE (input 0).
  constexpr variable() = default;

  /// Public input number |i| (0 is ONE).
  static constexpr variable input(std::uint64_t i) noexcept { return variable(i); }
  /// Private (auxiliary) variable number |i|.
  static constexpr variable aux(std::uint64_t i) noexcept { return variable(i | aux_bit); }
  /// Rebuilds a variable from raw().
  static constexpr variable from_raw(std::uint64_t bits) noexcept { return variable(bits); }

  constexpr bool is_input() const noexcept { return (_bits & aux_bit) == 0; }
  constexpr bool is_aux() const noexcept { return (_bits & aux_bit) != 0; }
  /// Index within its kind (input index or aux index).
  constexpr std::uint64_t index() const noexcept { return _bits & max_index; }
  /// Sort key: inputs first, then aux, each in allocation order.
  constexpr std::uint64_t raw() const noexcept { return _bits; }

  /// Column in the unified space (inputs first, then aux) once the input count is final.
  constexpr std::uint64_t column(std::uint64_t num_inputs) const noexcept {
    return is_input() ? index() : num_inputs + index();
  }

  friend constexpr bool operator==(variable, variable) = default;
  friend constexpr auto operator<=>(variable, variable) = default;

 private:
  constexpr explicit variable(std::uint64_t bits) noexcept : _bits(bits) {}
  std::uint64_t _bits = 0;
};

static_assert(sizeof(variable) == 8);

/// The constant ONE, input 0 (bellperson's `CS::one()`).
inline constexpr variable one_variable = variable::input(0);

}  // namespace cuzk::r1cs
