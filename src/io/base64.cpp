// SPDX-License-Identifier: Apache-2.0
// The base64 codec (include/cuzk/io/base64.hpp). Whole groups of four
// alphabet characters take a fast path of four table look-ups; padding, line
// breaks and errors leave it for a character-at-a-time loop (a 52 MB C1
// wrapper is nearly all fast path).
#include <cuzk/io/base64.hpp>

#include <array>

#include <cuzk/io/hex.hpp>

namespace cuzk::io {
namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Table values below 0: not data. All are negative so that one OR of four
// look-ups tells whether a group is plain data.
constexpr std::int8_t not_base64 = -1;
constexpr std::int8_t padding = -2;
constexpr std::int8_t line_break = -3;  // lenient only

struct value_table {
  std::array<std::int8_t, 256> v{};
  constexpr explicit value_table(base64_mode mode) {
    for (auto& x : v) x = not_base64;
    for (int i = 0; i < 64; ++i) v[std::size_t(static_cast<unsigned char>(alphabet[i]))] = std::int8_t(i);
    v[std::size_t('=')] = padding;
    if (mode == base64_mode::lenient) {
      v[std::size_t('-')] = 62;
      v[std::size_t('_')] = 63;
      v[std::size_t('\n')] = line_break;
      v[std::size_t('\r')] = line_break;
    }
  }
};
constexpr value_table strict_values(base64_mode::strict);
constexpr value_table lenient_values(base64_mode::lenient);

/// The character in double quotes, as \xNN unless printable ASCII.
std::string quoted(unsigned char c) {
  std::string s = "\"";
  if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
    s += char(c);
  } else {
    s += "\\x";
    append_hex(s, c);
  }
  return s + '"';
}

/// Most bytes |text| can decode to (each character carries 6 bits).
std::size_t capacity(std::size_t text_size) { return text_size / 4 * 3 + 2; }

/// Decodes into |o| (capacity(text.size()) bytes); |written| is the length.
std::optional<base64_error> decode_into(std::string_view text, base64_mode mode, std::uint8_t* o,
                                        std::size_t& written) {
  const bool strict = mode == base64_mode::strict;
  const std::size_t n = text.size();
  written = 0;
  if (strict && n % 4 != 0) return base64_error{n, "length " + std::to_string(n) + " is not a multiple of 4"};
  const std::array<std::int8_t, 256>& values = strict ? strict_values.v : lenient_values.v;
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  std::uint8_t* const start = o;
  std::uint32_t acc = 0;     // the bits of the group read so far
  int k = 0;                 // characters of that group
  std::size_t group_at = 0;  // position of its first character
  std::size_t i = 0;
  while (i < n) {
    if (k == 0) {
      while (i + 4 <= n) {
        const int a = values[in[i]], b = values[in[i + 1]], c = values[in[i + 2]], d = values[in[i + 3]];
        if ((a | b | c | d) < 0) break;
        const std::uint32_t w =
            std::uint32_t(a) << 18 | std::uint32_t(b) << 12 | std::uint32_t(c) << 6 | std::uint32_t(d);
        o[0] = std::uint8_t(w >> 16);
        o[1] = std::uint8_t(w >> 8);
        o[2] = std::uint8_t(w);
        o += 3;
        i += 4;
      }
      if (i == n) break;
    }
    const unsigned char ch = in[i];
    const int v = values[ch];
    if (v >= 0) {
      if (k == 0) group_at = i;
      acc = acc << 6 | std::uint32_t(v);
      if (++k == 4) {
        o[0] = std::uint8_t(acc >> 16);
        o[1] = std::uint8_t(acc >> 8);
        o[2] = std::uint8_t(acc);
        o += 3;
        acc = 0;
        k = 0;
      }
      ++i;
      continue;
    }
    if (v == line_break) {
      ++i;
      continue;
    }
    if (v == not_base64) return base64_error{i, "character " + quoted(ch) + " is not in the alphabet"};
    // '=': the data ends here. Strict: the length is a multiple of 4, so
    // this is "xx==" or "xxx=" exactly when only '=' follows and at most one.
    if (strict) {
      if (i + 2 < n || (i + 2 == n && in[i + 1] != '=')) return base64_error{i, "misplaced '='"};
    } else {
      for (std::size_t j = i + 1; j < n; ++j) {
        const int w = values[in[j]];
        if (w == not_base64) return base64_error{j, "character " + quoted(in[j]) + " is not in the alphabet"};
        if (w >= 0) return base64_error{i, "misplaced '='"};
      }
    }
    break;
  }
  // The last group: 2 characters hold 1 byte and 4 unused bits, 3 hold 2
  // bytes and 2 unused bits. Strict mode cannot end on 1 (the length and
  // padding rules leave 0, 2 or 3).
  if (k == 1) return base64_error{group_at, "the last group has one character, too few for a byte (cut short?)"};
  if (k >= 2) {
    const int unused = k == 2 ? 4 : 2;
    if (strict && (acc & ((1u << unused) - 1)) != 0) return base64_error{group_at, "non-zero bits after the last byte"};
    acc >>= unused;
    if (k == 3) *o++ = std::uint8_t(acc >> 8);
    *o++ = std::uint8_t(acc);
  }
  written = std::size_t(o - start);
  return std::nullopt;
}

}  // namespace

std::string base64_error::message() const {
  return "invalid base64 at character " + std::to_string(position) + ": " + reason;
}

std::optional<base64_error> decode_base64(std::string_view text, base64_mode mode, std::vector<std::uint8_t>& out) {
  out.resize(capacity(text.size()));
  std::size_t written = 0;
  auto e = decode_into(text, mode, out.data(), written);
  out.resize(written);
  return e;
}

std::optional<base64_error> decode_base64(std::string_view text, base64_mode mode, std::string& out) {
  out.resize(capacity(text.size()));
  std::size_t written = 0;
  auto e = decode_into(text, mode, reinterpret_cast<std::uint8_t*>(out.data()), written);
  out.resize(written);
  return e;
}

std::string to_base64(std::span<const std::uint8_t> bytes) {
  std::string s;
  s.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t w = std::uint32_t(bytes[i]) << 16 | std::uint32_t(bytes[i + 1]) << 8 | bytes[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6) s += alphabet[(w >> shift) & 63];
  }
  if (i < bytes.size()) {
    // 1 byte -> 2 characters and "=="; 2 bytes -> 3 characters and "=".
    const bool two = i + 1 < bytes.size();
    const std::uint32_t w = std::uint32_t(bytes[i]) << 16 | (two ? std::uint32_t(bytes[i + 1]) << 8 : 0);
    s += alphabet[w >> 18];
    s += alphabet[(w >> 12) & 63];
    s += two ? alphabet[(w >> 6) & 63] : '=';
    s += '=';
  }
  return s;
}

}  // namespace cuzk::io
