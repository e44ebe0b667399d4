// SPDX-License-Identifier: Apache-2.0
#pragma once
// The deterministic random source of the synthetic vanilla-proof
// generators (porep_generator, empty_sector_update_generator): ChaCha20
// keyed by SHA-256(tag || seed as 8 LE bytes), so one (tag, seed) always
// gives the same sector and different generators never share a stream.
// Cost: one ChaCha20 block per 64 bytes drawn.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include <cuzk/circuits/porep_hashes.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/gadgets/native_sha256.hpp>

namespace cuzk::circuits::detail {

class generator_random {
 public:
  generator_random(std::string_view tag, std::uint64_t seed) : _s(make(tag, seed)) {}

  std::array<std::uint8_t, 32> bytes() {
    std::array<std::uint8_t, 32> b;
    _s.keystream(b);
    return b;
  }
  /// A field element below 2^254 < r (always canonical).
  ff::fr element() {
    std::array<std::uint8_t, 32> b = bytes();
    b[31] &= 0x3f;
    return *ff::fr::from_bytes_le(b.data());
  }
  std::uint64_t u64() { return _s.next_u64(); }

 private:
  static chacha_stream make(std::string_view tag, std::uint64_t seed) {
    std::array<std::uint8_t, 8> s;
    for (int i = 0; i < 8; ++i) s[std::size_t(i)] = std::uint8_t(seed >> (8 * i));
    const auto key = gadgets::native::sha256(
        {std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(tag.data()), tag.size()),
         std::span<const std::uint8_t>(s)});
    return chacha_stream::ietf(key, {}, 20);
  }
  chacha_stream _s;
};

}  // namespace cuzk::circuits::detail
