// SPDX-License-Identifier: Apache-2.0
#pragma once
// Packing bits into field elements, after bellperson 0.27
// `gadgets/multipack.rs` (pack_into_inputs, pack_bits, bytes_to_bits,
// bytes_to_bits_le, compute_multipacking), plus storage-proofs-core's
// `util::reverse_bit_numbering`.
//
// Packing is little-endian: bit j of a chunk has weight 2^j. Chunks are
// fr capacity (254) bits, so each packed value is < 2^254 < r.
//
// Costs:
//   pack_into_inputs(n bits)  ceil(n / 254) inputs "input i" and constraints
//                             "packing constraint i": (sum 2^j b_j) * ONE = input_i
//   pack_bits(n bits)         the first min(n, 254) bits: 1 aux ("input/num") +
//                             1 constraint "packing constraint"
// In the witness mode the packed LCs are not built (only their values).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/gadgets/num.hpp>

namespace cuzk::gadgets {

/// Fr::CAPACITY: bits that always fit below r (254).
inline constexpr std::size_t fr_capacity = fr::bits - 1;

namespace detail {
// The value and (when |with_lc|) LC of sum_j 2^j bits[j].
inline num pack_num(variable one, std::span<const boolean> bits, bool with_lc) {
  num n = num::zero();
  fr coeff = fr::one();
  for (const boolean& bit : bits) {
    n = std::move(n).add_bool_with_coeff(one, bit, coeff, with_lc);
    coeff = coeff.dbl();
  }
  return n;
}
}  // namespace detail

/// Exposes |bits| as public inputs, 254 bits per input, little-endian.
template <constraint_system CS>
void pack_into_inputs(CS& cs, std::span<const boolean> bits) {
  for (std::size_t i = 0, start = 0; start < bits.size(); ++i, start += fr_capacity) {
    const std::size_t len = std::min(fr_capacity, bits.size() - start);
    const num n = detail::pack_num(CS::one(), bits.subspan(start, len), CS::needs_lcs);
    const variable input = cs.alloc_input([i] { return detail::indexed("input ", i); },
                                          [&] { return detail::require_value(n.get_value()); });
    cs.enforce([i] { return detail::indexed("packing constraint ", i); },
               [&](linear_combination) { return n.lc(fr::one()); },
               [](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + input; });
  }
}

/// The first 254 bits of |bits| packed into one aux number (little-endian).
template <constraint_system CS>
allocated_num pack_bits(CS& cs, std::span<const boolean> bits) {
  const num n = detail::pack_num(CS::one(), bits.first(std::min(fr_capacity, bits.size())), CS::needs_lcs);
  std::optional<allocated_num> packed;
  {
    namespace_guard ns(cs, "input");
    packed = allocated_num::alloc(cs, [&] { return detail::require_value(n.get_value()); });
  }
  const variable v = packed->get_variable();
  cs.enforce(
      "packing constraint", [&](linear_combination) { return n.lc(fr::one()); },
      [](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + v; });
  return *packed;
}

/// Bits of |bytes|, most significant bit of each byte first (bellperson's bytes_to_bits).
inline std::vector<bool> bytes_to_bits(std::span<const std::uint8_t> bytes) {
  std::vector<bool> r;
  r.reserve(8 * bytes.size());
  for (std::uint8_t v : bytes)
    for (int i = 7; i >= 0; --i) r.push_back(((v >> i) & 1) == 1);
  return r;
}

/// Bits of |bytes|, least significant bit of each byte first (bytes_to_bits_le).
inline std::vector<bool> bytes_to_bits_le(std::span<const std::uint8_t> bytes) {
  std::vector<bool> r;
  r.reserve(8 * bytes.size());
  for (std::uint8_t v : bytes)
    for (int i = 0; i < 8; ++i) r.push_back(((v >> i) & 1) == 1);
  return r;
}

/// The public inputs pack_into_inputs exposes for |bits| (native).
inline std::vector<fr> compute_multipacking(const std::vector<bool>& bits) {
  std::vector<fr> r;
  for (std::size_t start = 0; start < bits.size(); start += fr_capacity) {
    const std::size_t end = std::min(bits.size(), start + fr_capacity);
    fr cur = fr::zero();
    fr coeff = fr::one();
    for (std::size_t j = start; j < end; ++j) {
      if (bits[j]) cur += coeff;
      coeff = coeff.dbl();
    }
    r.push_back(cur);
  }
  return r;
}

/// Pads |bits| with constant false to whole bytes and reverses the bit order
/// inside each byte (storage-proofs-core util::reverse_bit_numbering; turns
/// to_bits_le output into SHA-256's most-significant-first byte order).
inline std::vector<boolean> reverse_bit_numbering(std::vector<boolean> bits) {
  while (bits.size() % 8 != 0) bits.push_back(boolean::constant(false));
  for (std::size_t i = 0; i < bits.size(); i += 8)
    for (std::size_t j = 0; j < 4; ++j) std::swap(bits[i + j], bits[i + 7 - j]);
  return bits;
}

}  // namespace cuzk::gadgets
