// SPDX-License-Identifier: Apache-2.0
#pragma once
// Lowercase hexadecimal text of bytes, in byte order (a 32-byte little-endian
// Fr repr prints least significant byte first, as Filecoin tools print
// commitments). Two characters per byte.

#include <cstdint>
#include <span>
#include <string>

namespace cuzk::io {

inline std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * bytes.size());
  for (std::uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

}  // namespace cuzk::io
