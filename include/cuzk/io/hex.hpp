// SPDX-License-Identifier: Apache-2.0
#pragma once
// Lowercase hexadecimal text of bytes, in byte order (a 32-byte little-endian
// Fr repr prints least significant byte first, as Filecoin tools print
// commitments). Two characters per byte.

#include <cstdint>
#include <span>
#include <string>

namespace cuzk::io {

/// Appends the two characters of |b|.
inline void append_hex(std::string& s, std::uint8_t b) {
  static constexpr char digits[] = "0123456789abcdef";
  s += digits[b >> 4];
  s += digits[b & 15];
}

inline std::string to_hex(std::span<const std::uint8_t> bytes) {
  std::string s;
  s.reserve(2 * bytes.size());
  for (std::uint8_t b : bytes) append_hex(s, b);
  return s;
}

/// The bytes from last to first: a little-endian number written most
/// significant digit first, as a number is read.
inline std::string to_hex_reversed(std::span<const std::uint8_t> bytes) {
  std::string s;
  s.reserve(2 * bytes.size());
  for (std::size_t i = bytes.size(); i-- > 0;) append_hex(s, bytes[i]);
  return s;
}

}  // namespace cuzk::io
