// SPDX-License-Identifier: Apache-2.0
#pragma once
// Hexadecimal text of bytes, in byte order (a 32-byte little-endian Fr repr
// prints least significant byte first, as Filecoin tools print commitments),
// two characters per byte: the one hex codec of the project. Written in
// lowercase; read in either case, with nothing else in the text (callers
// strip a "0x" they accept). A problem is returned, not thrown, with the
// character position and the reason, as io/base64.hpp does, so each caller
// frames it in its own error type. Cost: one pass.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

struct hex_error {
  /// Index in the text of the character at fault (the text's length when
  /// the number of digits is odd).
  std::size_t position;
  /// "odd number of hex digits" or "not hex".
  std::string reason;
};

/// The value of hex digit |c| (either case), or -1.
constexpr int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Decodes |text| into |out| (its old contents are replaced). On error |out|
/// holds nothing useful.
inline std::optional<hex_error> decode_hex(std::string_view text, std::vector<std::uint8_t>& out) {
  out.clear();
  if (text.size() % 2) return hex_error{text.size(), "odd number of hex digits"};
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = hex_digit_value(text[i]), lo = hex_digit_value(text[i + 1]);
    if (hi < 0 || lo < 0) return hex_error{hi < 0 ? i : i + 1, "not hex"};
    out.push_back(std::uint8_t(hi * 16 + lo));
  }
  return std::nullopt;
}

}  // namespace cuzk::io
