// SPDX-License-Identifier: Apache-2.0
#pragma once
// uint64: 64 booleans read as an unsigned integer, least significant bit
// first, after storage-proofs-core `gadgets/uint64.rs` (UInt64; bellpepper
// has no UInt64). StackedDRG PoRep uses it for the challenge
// (`UInt64::alloc` + `pack_into_input`, params.rs) and for the node index
// in the label preimage (`UInt64::constant` + `to_bits_be`, create_label.rs).
//
// Costs: constant, to/from bits are free; alloc is 64 aux + 64 constraints
// ("allocated bit i/boolean ..."); pack_into_input is one input + one
// constraint ("input 0", "packing constraint 0"; 64 bits fit in one chunk).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>

#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/gadgets/multipack.hpp>

namespace cuzk::gadgets {

class uint64 {
 public:
  using bits_type = std::array<boolean, 64>;

  /// Constant 0.
  uint64() noexcept : _value(0ull) {}

  /// A constant: 64 constant booleans.
  static uint64 constant(std::uint64_t value) noexcept {
    uint64 r;
    for (std::size_t i = 0; i < 64; ++i) r._bits[i] = boolean::constant(((value >> i) & 1) == 1);
    r._value = value;
    return r;
  }

  /// 64 new bits in namespaces "allocated bit i", least significant first.
  template <constraint_system CS>
  static uint64 alloc(CS& cs, std::optional<std::uint64_t> value) {
    uint64 r;
    for (std::size_t i = 0; i < 64; ++i) {
      std::optional<bool> b;
      if (value) b = ((*value >> i) & 1) == 1;
      namespace_guard ns(cs, [i] { return detail::indexed("allocated bit ", i); });
      r._bits[i] = allocated_bit::alloc(cs, b);
    }
    r._value = value;
    return r;
  }

  std::optional<std::uint64_t> get_value() const noexcept { return _value; }
  const bits_type& bits() const noexcept { return _bits; }

  /// The 64 bits as public inputs (multipack::pack_into_inputs).
  template <constraint_system CS>
  void pack_into_input(CS& cs) const {
    pack_into_inputs(cs, std::span<const boolean>(_bits));
  }

  /// Most significant bit first.
  bits_type to_bits_be() const noexcept {
    bits_type r;
    for (std::size_t i = 0; i < 64; ++i) r[i] = _bits[63 - i];
    return r;
  }
  /// From 64 bits, most significant first.
  static uint64 from_bits_be(std::span<const boolean> bits) {
    check_len(bits.size());
    uint64 r;
    std::optional<std::uint64_t> value = 0ull;
    for (std::size_t i = 0; i < 64; ++i) {
      if (value) *value <<= 1;
      const std::optional<bool> b = bits[i].get_value();
      if (!b) value.reset();
      else if (*b && value) *value |= 1u;
      r._bits[63 - i] = bits[i];
    }
    r._value = value;
    return r;
  }

  /// Least significant bit first.
  bits_type to_bits_le() const noexcept { return _bits; }
  /// From 64 bits, least significant first.
  static uint64 from_bits(std::span<const boolean> bits) {
    check_len(bits.size());
    uint64 r;
    std::optional<std::uint64_t> value = 0ull;
    for (std::size_t i = 64; i-- > 0;) {
      if (value) *value <<= 1;
      const std::optional<bool> b = bits[i].get_value();
      if (!b) value.reset();
      else if (*b && value) *value |= 1u;
      r._bits[i] = bits[i];
    }
    r._value = value;
    return r;
  }

 private:
  static void check_len(std::size_t n) {
    if (n != 64) throw std::invalid_argument("gadgets: uint64 needs exactly 64 bits");
  }

  bits_type _bits{};
  std::optional<std::uint64_t> _value;
};

}  // namespace cuzk::gadgets
