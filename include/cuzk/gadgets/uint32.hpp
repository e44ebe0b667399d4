// SPDX-License-Identifier: Apache-2.0
#pragma once
// uint32: 32 booleans read as an unsigned integer, least significant bit
// first, after bellperson 0.27 `gadgets/uint32.rs` (UInt32), the SHA-256
// building block.
//
// Costs (constraints; "free" = no variable, no constraint):
//   constant, rotr, shr, from_bits*, into_bits*   free
//   alloc                                         32 ("allocated bit i/boolean ...")
//   xor_                                          one boolean::xor_ per bit ("xor of bit i"):
//                                                 32, fewer where a bit is constant
//   sha256_ch / sha256_maj                        one boolean::sha256_ch/maj per bit
//                                                 ("ch i"/"maj i"): 32 / 64 without constants
//   addmany(n operands)                           free when every bit is constant; else
//                                                 bitlen(n * (2^32 - 1)) result bits
//                                                 ("result bit i"), each 1 constraint, plus
//                                                 one multi_eq equality of that many bits
//
// Values: the integer value is tracked eagerly, as bellperson does (it is
// empty when any input bit's value is unknown).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/gadgets/multieq.hpp>

namespace cuzk::gadgets {

class uint32 {
 public:
  using bits_type = std::array<boolean, 32>;

  /// Constant 0.
  uint32() noexcept : _value(0u) {}

  /// A constant: 32 constant booleans.
  static uint32 constant(std::uint32_t value) noexcept {
    uint32 r;
    for (std::size_t i = 0; i < 32; ++i) r._bits[i] = boolean::constant(((value >> i) & 1) == 1);
    r._value = value;
    return r;
  }

  /// 32 new bits in namespaces "allocated bit i", least significant first.
  template <constraint_system CS>
  static uint32 alloc(CS& cs, std::optional<std::uint32_t> value) {
    uint32 r;
    for (std::size_t i = 0; i < 32; ++i) {
      std::optional<bool> b;
      if (value) b = ((*value >> i) & 1) == 1;
      namespace_guard ns(cs, [i] { return detail::indexed("allocated bit ", i); });
      r._bits[i] = allocated_bit::alloc(cs, b);
    }
    r._value = value;
    return r;
  }

  const bits_type& bits() const noexcept { return _bits; }
  std::optional<std::uint32_t> get_value() const noexcept { return _value; }

  /// Most significant bit first (bellperson's into_bits_be).
  bits_type into_bits_be() const noexcept {
    bits_type r;
    for (std::size_t i = 0; i < 32; ++i) r[i] = _bits[31 - i];
    return r;
  }
  /// From 32 bits, most significant first (bellperson's from_bits_be).
  static uint32 from_bits_be(std::span<const boolean> bits) {
    check_len(bits.size());
    uint32 r;
    std::optional<std::uint32_t> value = 0u;
    for (std::size_t i = 0; i < 32; ++i) {
      if (value) *value <<= 1;
      const std::optional<bool> b = bits[i].get_value();
      if (!b) value.reset();
      else if (*b && value) *value |= 1u;
      r._bits[31 - i] = bits[i];
    }
    r._value = value;
    return r;
  }

  /// Least significant bit first (bellperson's into_bits).
  bits_type into_bits() const noexcept { return _bits; }
  /// From 32 bits, least significant first (bellperson's from_bits).
  static uint32 from_bits(std::span<const boolean> bits) {
    check_len(bits.size());
    uint32 r;
    std::optional<std::uint32_t> value = 0u;
    for (std::size_t i = 32; i-- > 0;) {
      if (value) *value <<= 1;
      const std::optional<bool> b = bits[i].get_value();
      if (!b) value.reset();
      else if (*b && value) *value |= 1u;
      r._bits[i] = bits[i];
    }
    r._value = value;
    return r;
  }

  /// Rotation right by |by| bits (free).
  uint32 rotr(std::size_t by) const noexcept {
    by %= 32;
    uint32 r;
    for (std::size_t i = 0; i < 32; ++i) r._bits[i] = _bits[(i + by) % 32];
    if (_value) r._value = by == 0 ? *_value : (*_value >> by) | (*_value << (32 - by));
    else r._value.reset();
    return r;
  }

  /// Logical shift right by |by| % 32 bits, zero-filled (free).
  uint32 shr(std::size_t by) const noexcept {
    by %= 32;
    uint32 r;
    for (std::size_t i = 0; i < 32; ++i) r._bits[i] = i + by < 32 ? _bits[i + by] : boolean::constant(false);
    if (_value) r._value = *_value >> by;
    else r._value.reset();
    return r;
  }

  /// this XOR other, bit by bit in namespaces "xor of bit i".
  template <constraint_system CS>
  uint32 xor_(CS& cs, const uint32& other) const {
    uint32 r;
    for (std::size_t i = 0; i < 32; ++i) {
      namespace_guard ns(cs, [i] { return detail::indexed("xor of bit ", i); });
      r._bits[i] = boolean::xor_(cs, _bits[i], other._bits[i]);
    }
    if (_value && other._value) r._value = *_value ^ *other._value;
    else r._value.reset();
    return r;
  }

  /// (a AND b) XOR (a AND c) XOR (b AND c), bit by bit in namespaces "maj i".
  template <constraint_system CS>
  static uint32 sha256_maj(CS& cs, const uint32& a, const uint32& b, const uint32& c) {
    uint32 r;
    if (a._value && b._value && c._value)
      r._value = (*a._value & *b._value) ^ (*a._value & *c._value) ^ (*b._value & *c._value);
    else r._value.reset();
    for (std::size_t i = 0; i < 32; ++i) {
      namespace_guard ns(cs, [i] { return detail::indexed("maj ", i); });
      r._bits[i] = boolean::sha256_maj(cs, a._bits[i], b._bits[i], c._bits[i]);
    }
    return r;
  }

  /// (a AND b) XOR ((NOT a) AND c), bit by bit in namespaces "ch i".
  template <constraint_system CS>
  static uint32 sha256_ch(CS& cs, const uint32& a, const uint32& b, const uint32& c) {
    uint32 r;
    if (a._value && b._value && c._value) r._value = (*a._value & *b._value) ^ (~*a._value & *c._value);
    else r._value.reset();
    for (std::size_t i = 0; i < 32; ++i) {
      namespace_guard ns(cs, [i] { return detail::indexed("ch ", i); });
      r._bits[i] = boolean::sha256_ch(cs, a._bits[i], b._bits[i], c._bits[i]);
    }
    return r;
  }

  /// Sum of 2..10 operands mod 2^32 (bellperson's addmany). The result bits
  /// (with carries) are allocated in namespaces "result bit i" and their
  /// equality with the operand sum goes into |cs|'s pending multi_eq sum.
  template <constraint_system CS>
  static uint32 addmany(multi_eq<CS>& cs, std::span<const uint32> operands) {
    static_assert(fr::bits >= 64);
    if (operands.size() < 2 || operands.size() > 10)
      throw std::invalid_argument("gadgets: uint32::addmany takes 2 to 10 operands");

    std::uint64_t max_value = std::uint64_t(operands.size()) * 0xffffffffull;
    // the sum, known only when every operand's value is (a plain flag, not an
    // optional: GCC 12 reports a false maybe-uninitialized on the optional)
    bool known = true;
    std::uint64_t sum = 0;
    linear_combination lc;
    bool all_constants = true;
    for (const uint32& op : operands) {
      if (op._value) sum += *op._value;
      else known = false;
      fr coeff = fr::one();
      for (const boolean& bit : op._bits) {
        if constexpr (CS::needs_lcs) {
          lc += bit.lc(CS::one(), coeff);
          coeff = coeff.dbl();
        }
        all_constants = all_constants && bit.is_constant();
      }
    }
    std::optional<std::uint32_t> modular_value;
    if (known) modular_value = std::uint32_t(sum);

    // every bit constant (and the value known): a constant, no constraint
    if (all_constants && modular_value) return constant(*modular_value);

    uint32 r;
    linear_combination result_lc;
    fr coeff = fr::one();
    std::size_t i = 0;
    for (; max_value != 0; ++i, max_value >>= 1) {
      std::optional<bool> b;
      if (known) b = ((sum >> i) & 1) == 1;
      namespace_guard ns(cs, [i] { return detail::indexed("result bit ", i); });
      const allocated_bit bit = allocated_bit::alloc(cs, b);
      if constexpr (CS::needs_lcs) {
        result_lc.add(coeff, bit.get_variable());
        coeff = coeff.dbl();
      }
      if (i < 32) r._bits[i] = bit;  // carry bits are dropped
    }
    cs.enforce_equal(i, lc, result_lc);
    r._value = modular_value;
    return r;
  }

 private:
  static void check_len(std::size_t n) {
    if (n != 32) throw std::invalid_argument("gadgets: uint32 needs exactly 32 bits");
  }

  bits_type _bits{};
  std::optional<std::uint32_t> _value;
};

}  // namespace cuzk::gadgets
