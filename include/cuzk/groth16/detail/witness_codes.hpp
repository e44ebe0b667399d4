// SPDX-License-Identifier: Apache-2.0
#pragma once
// The per-value and per-word rules of the coded witness form
// (coded_witness.hpp), written once for every place that codes or reads it:
// the host encoder and the block joiner (src/groth16/coded_witness.cpp), the
// block builder that codes values as synthesis produces them
// (coded_witness.hpp, coded_block::push) and the device expansion
// (coded_expand.cuh; other_bits is CUZK_HD for it).
//
// Costs: code_of is four limb compares without branches (written out, not
// as a loop: the compiler turned the loop into vector loads of a value just
// stored as words, a store-forwarding stall that made PoRep synthesis into
// coded blocks 2x slower); the word rules are a few word operations.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/host_device.hpp>

namespace cuzk::groth16::detail {

/// Bit 2k set where value k of a code word is coded "other" (binary 10).
CUZK_HD_ATTR constexpr std::uint64_t other_bits(std::uint64_t word) {
  return (word >> 1) & ~word & 0x5555555555555555ull;
}

/// The code of |x| without branches: 0 for zero, 1 for (Montgomery) one, 2
/// otherwise. |x| fully reduced: the words are compared.
[[gnu::always_inline]] inline std::uint64_t code_of(const ff::fr& x) {
  static_assert(ff::fr::n_limbs == 4);
  constexpr ff::fr one = ff::fr::one();
  const std::uint64_t* l = x.l;
  const std::uint64_t z = (l[0] | l[1]) | (l[2] | l[3]);
  const std::uint64_t o = ((l[0] ^ one.l[0]) | (l[1] ^ one.l[1])) | ((l[2] ^ one.l[2]) | (l[3] ^ one.l[3]));
  const std::uint64_t nz = z != 0, no = o != 0;
  return nz + (nz & no);
}

/// The codes of values [|v|, |v| + 32) of a code array of |words| words,
/// as one word with value |v| at bits 0-1; values past the array read as 0.
constexpr std::uint64_t code_bits(const std::uint64_t* codes, std::size_t words, std::size_t v) {
  const std::size_t w = v / 32;
  const unsigned shift = unsigned(2 * (v % 32));
  if (w >= words) return 0;
  std::uint64_t out = codes[w] >> shift;
  if (shift != 0 && w + 1 < words) out |= codes[w + 1] << (64 - shift);
  return out;
}

/// The code word of 32 codes held one per byte (each 0-2), code k from byte
/// k: per 8 bytes, three shift-or-mask steps gather the codes into 16 bits
/// (pairs, then fours, then eights). Bytes read little-endian (the tree's
/// one byte order).
inline std::uint64_t pack_codes(const std::uint8_t* bytes) {
  static_assert(std::endian::native == std::endian::little);
  std::uint64_t out = 0;
  for (unsigned q = 0; q < 4; ++q) {
    std::uint64_t x;
    std::memcpy(&x, bytes + 8 * q, 8);
    x = (x | (x >> 6)) & 0x000F000F000F000Full;   // pairs of codes in 4 bits
    x = (x | (x >> 12)) & 0x000000FF000000FFull;  // fours in 8 bits
    x = (x | (x >> 24)) & 0xFFFFull;              // eight in 16 bits
    out |= x << (16 * q);
  }
  return out;
}

/// The low |values| codes of a word set (|values| <= 32).
constexpr std::uint64_t low_codes(std::size_t values) {
  return values >= 32 ? ~std::uint64_t(0) : (std::uint64_t(1) << (2 * values)) - 1;
}

}  // namespace cuzk::groth16::detail
