// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private to src/io/porep_c1_json_read.cpp: the JSON pull cursor under the
// C1 reader. It tokenizes strictly (RFC 8259 strings and escapes, serde_json's
// unsigned integers: no sign, fraction, exponent or leading zero, overflow
// checked), keeps the JSON path of what it reads for error messages, reads
// objects against a fixed key list (unknown, duplicate and missing keys are
// errors) and arrays against an exact length, so no allocation ever follows
// a length taken from the input. Every error is an io::format_error of kind
// "c1 json". Cost: a few compares per character; a 32-byte array of decimal
// numbers is read by a dedicated loop into a stack buffer.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/hex.hpp>

namespace cuzk::io::c1_json {

inline constexpr const char* kind_name = "c1 json";
inline constexpr int max_skip_depth = 64;  // only for skipping a deferred vanilla_proofs

/// Printable, bounded rendering of a key or string value for messages.
inline std::string quoted(std::string_view s) {
  std::string out = "\"";
  const std::size_t n = std::min<std::size_t>(s.size(), 80);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += char(c);
    } else {
      out += "\\x";
      append_hex(out, c);
    }
  }
  if (s.size() > n) out += "...";
  return out + "\"";
}

class cursor {
 public:
  cursor(std::string_view text, std::string_view label, std::string path, bool inner)
      : _begin(text.data()),
        _p(text.data()),
        _end(text.data() + text.size()),
        _label(label),
        _path(std::move(path)),
        _inner(inner) {}

  // ---- JSON path ----
  std::size_t mark() const noexcept { return _path.size(); }
  void reset(std::size_t m) { _path.resize(m); }
  void push_key(std::string_view k) {
    if (!_path.empty()) _path += '.';
    _path += k;
  }
  void push_index(std::size_t i) {
    _path += '[';
    _path += std::to_string(i);
    _path += ']';
  }

  [[noreturn]] void fail(const std::string& detail) const { fail_at(_p, detail); }
  [[noreturn]] void fail_at(const char* at, const std::string& detail) const {
    const std::uint64_t off = std::uint64_t(at - _begin);
    if (_inner)
      throw format_error(kind_name, std::string(_label), _path, format_error::no_offset,
                         detail + " (byte " + std::to_string(off) + " of the base64-decoded Phase1Out)");
    throw format_error(kind_name, std::string(_label), _path, off, detail);
  }

  // ---- tokens ----
  void ws() noexcept {
    while (_p != _end && (*_p == ' ' || *_p == '\n' || *_p == '\r' || *_p == '\t')) ++_p;
  }
  char peek() noexcept {
    ws();
    return _p == _end ? '\0' : *_p;
  }
  const char* pos() const noexcept { return _p; }
  void seek(const char* p) noexcept { _p = p; }
  bool at_end() noexcept { return peek() == '\0' && _p == _end; }

  /// What the next token is, for "expected X, found Y" messages.
  std::string found() {
    if (_p == _end) return "the end of the input";
    switch (*_p) {
      case '{': return "an object";
      case '[': return "an array";
      case '"': return "a string";
      case 't':
      case 'f': return "a boolean";
      case 'n': return "null";
      case '-': return "a negative number";
      default:
        if (*_p >= '0' && *_p <= '9') return "a number";
        return "the character " + quoted(std::string_view(_p, 1));
    }
  }

  void expect(char c, const char* what) {
    if (peek() != c) fail(std::string("expected ") + what + ", found " + found());
    ++_p;
  }

  /// A JSON string; a view into the text, or into a scratch buffer when it
  /// has escapes (valid until the next string is read).
  std::string_view string(const char* what) {
    if (peek() != '"') fail(std::string("expected ") + what + ", found " + found());
    const char* start = ++_p;
    while (_p != _end && *_p != '"' && *_p != '\\' && static_cast<unsigned char>(*_p) >= 0x20) ++_p;
    if (_p != _end && *_p == '"') return std::string_view(start, std::size_t(_p++ - start));
    _scratch.assign(start, std::size_t(_p - start));
    while (true) {
      if (_p == _end) fail("unterminated string (found the end of the input)");
      const unsigned char c = static_cast<unsigned char>(*_p);
      if (c == '"') {
        ++_p;
        return _scratch;
      }
      if (c < 0x20) fail("control character in a string");
      if (c != '\\') {
        _scratch += char(c);
        ++_p;
        continue;
      }
      if (++_p == _end) fail("unterminated string (found the end of the input)");
      switch (*_p++) {
        case '"': _scratch += '"'; break;
        case '\\': _scratch += '\\'; break;
        case '/': _scratch += '/'; break;
        case 'b': _scratch += '\b'; break;
        case 'f': _scratch += '\f'; break;
        case 'n': _scratch += '\n'; break;
        case 'r': _scratch += '\r'; break;
        case 't': _scratch += '\t'; break;
        case 'u': append_utf8(unicode_escape()); break;
        default: --_p; fail("invalid escape in a string");
      }
    }
  }

  /// A non-negative integer without fraction or exponent (serde_json's u64).
  std::uint64_t u64(const char* what) {
    const char c = peek();
    if (c < '0' || c > '9') fail(std::string("expected ") + what + " (an unsigned integer), found " + found());
    const char* start = _p;
    std::uint64_t v = 0;
    if (*_p == '0') {
      ++_p;
      if (_p != _end && *_p >= '0' && *_p <= '9') fail_at(start, "number with a leading zero");
    } else {
      while (_p != _end && *_p >= '0' && *_p <= '9') {
        const std::uint64_t d = std::uint64_t(*_p - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
          fail_at(start, std::string(what) + " does not fit in 64 bits");
        v = v * 10 + d;
        ++_p;
      }
    }
    if (_p != _end && (*_p == '.' || *_p == 'e' || *_p == 'E'))
      fail_at(start, std::string("expected ") + what + " (an unsigned integer), found a fractional number");
    return v;
  }

  std::uint32_t u32(const char* what) {
    const char* start = (ws(), _p);
    const std::uint64_t v = u64(what);
    if (v > std::numeric_limits<std::uint32_t>::max())
      fail_at(start, std::string(what) + " " + std::to_string(v) + " does not fit in 32 bits");
    return std::uint32_t(v);
  }

  void null(const char* what) {
    if (peek() != 'n' || std::size_t(_end - _p) < 4 || std::memcmp(_p, "null", 4) != 0)
      fail(std::string("expected ") + what + " (null), found " + found());
    _p += 4;
  }

  /// [32 numbers 0..255].
  void bytes32(std::uint8_t* out) {
    expect('[', "an array of 32 bytes");
    for (std::size_t i = 0; i < 32; ++i) {
      ws();
      if (i != 0) {
        if (_p != _end && *_p == ']') fail("expected 32 bytes, found " + std::to_string(i));
        if (_p == _end || *_p != ',') fail("expected ',' or ']' in a byte array, found " + found());
        ++_p;
        ws();
      } else if (_p != _end && *_p == ']') {
        fail("expected 32 bytes, found 0");
      }
      // fast path: 1..3 digits then a delimiter
      const char* start = _p;
      std::uint32_t v = 0;
      int digits = 0;
      while (_p != _end && *_p >= '0' && *_p <= '9' && digits < 4) {
        v = v * 10 + std::uint32_t(*_p - '0');
        ++_p;
        ++digits;
      }
      const bool clean = digits > 0 && digits < 4 && !(digits > 1 && *start == '0') &&
                         (_p == _end || (*_p != '.' && *_p != 'e' && *_p != 'E'));
      if (!clean || v > 255) {
        _p = start;
        push_index(i);
        const std::uint64_t big = u64("a byte");  // fails with the precise reason, or:
        fail_at(start, "byte value " + std::to_string(big) + " is out of range 0..255");
      }
      out[i] = std::uint8_t(v);
    }
    ws();
    if (_p != _end && *_p == ',') fail("expected 32 bytes, found more");
    expect(']', "']' closing a 32-byte array");
  }

  /// A 32-byte domain that must be a canonical Fr (little-endian repr).
  ff::fr domain() {
    const char* start = (ws(), _p);
    std::uint8_t b[32];
    bytes32(b);
    const std::optional<ff::fr> v = ff::fr::from_bytes_le(b);
    if (!v) fail_at(start, "not a canonical field element (value >= r)");
    return *v;
  }

  // ---- structure ----

  /// Reads an object whose keys must be among |fields| (each once, all
  /// present); |on_field(i)| reads the value of fields[i].
  template <std::size_t N, class F>
  void object(const std::array<std::string_view, N>& fields, F&& on_field) {
    static_assert(N <= 32);
    expect('{', "an object");
    std::uint32_t seen = 0;
    if (peek() == '}') {
      ++_p;
    } else {
      while (true) {
        const char* key_at = (ws(), _p);
        const std::string_view key = string("a key");
        std::size_t i = 0;
        while (i < N && fields[i] != key) ++i;
        if (i == N) fail_at(key_at, "unknown field " + quoted(key) + expected_fields(fields));
        if (seen & (1u << i)) fail_at(key_at, "duplicate field " + quoted(key));
        seen |= 1u << i;
        expect(':', "':' after a key");
        const std::size_t m = mark();
        push_key(fields[i]);
        on_field(i);
        reset(m);
        const char c = peek();
        if (c == ',') {
          ++_p;
          continue;
        }
        if (c == '}') {
          ++_p;
          break;
        }
        fail("expected ',' or '}' in an object, found " + found());
      }
    }
    for (std::size_t i = 0; i < N; ++i)
      if (!(seen & (1u << i))) fail("missing field " + quoted(fields[i]));
  }

  /// Reads an array of exactly |n| elements; |on_element(i)| reads element i.
  template <class F>
  void array(std::size_t n, const char* what, F&& on_element) {
    expect('[', "an array");
    std::size_t count = 0;
    if (peek() == ']') {
      ++_p;
    } else {
      while (true) {
        if (count == n) fail("expected " + std::to_string(n) + " " + what + ", found more");
        const std::size_t m = mark();
        push_index(count);
        on_element(count);
        reset(m);
        ++count;
        const char c = peek();
        if (c == ',') {
          ++_p;
          continue;
        }
        if (c == ']') {
          ++_p;
          break;
        }
        fail("expected ',' or ']' in an array, found " + found());
      }
    }
    if (count != n) fail("expected " + std::to_string(n) + " " + what + ", found " + std::to_string(count));
  }

  /// Skips one syntactically valid JSON value (iteratively, depth-capped).
  void skip_value() {
    std::uint64_t objects = 0;  // bit d-1: the container at depth d is an object
    int depth = 0;
    while (true) {
      const char c = peek();
      bool value_done = true;
      if (c == '{' || c == '[') {
        if (depth == max_skip_depth) fail("nesting deeper than " + std::to_string(max_skip_depth));
        ++_p;
        ++depth;
        const std::uint64_t bit = std::uint64_t(1) << (depth - 1);
        objects = c == '{' ? (objects | bit) : (objects & ~bit);
        if (peek() == (c == '{' ? '}' : ']')) {
          ++_p;
          --depth;
        } else {
          if (c == '{') member_key();
          value_done = false;
        }
      } else if (c == '"') {
        string("a value");
      } else if (c == 'n') {
        null("a value");
      } else if (c == 't' || c == 'f') {
        const std::string_view word = c == 't' ? "true" : "false";
        if (std::size_t(_end - _p) < word.size() || std::string_view(_p, word.size()) != word) fail("invalid literal");
        _p += word.size();
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        skip_number();
      } else {
        fail("expected a JSON value, found " + found());
      }
      while (value_done && depth > 0) {
        const bool object = (objects >> (depth - 1)) & 1;
        const char d = peek();
        if (d == ',') {
          ++_p;
          if (object) member_key();
          value_done = false;
        } else if (d == (object ? '}' : ']')) {
          ++_p;
          --depth;
        } else {
          fail(std::string("expected ',' or '") + (object ? '}' : ']') + "', found " + found());
        }
      }
      if (depth == 0) return;
    }
  }

 private:
  void member_key() {
    string("a key");
    expect(':', "':' after a key");
  }

  void skip_number() {
    const char* start = _p;
    if (_p != _end && *_p == '-') ++_p;
    if (_p == _end || *_p < '0' || *_p > '9') fail_at(start, "invalid number");
    if (*_p == '0') {
      ++_p;
    } else {
      while (_p != _end && *_p >= '0' && *_p <= '9') ++_p;
    }
    if (_p != _end && *_p == '.') {
      ++_p;
      if (_p == _end || *_p < '0' || *_p > '9') fail_at(start, "invalid number");
      while (_p != _end && *_p >= '0' && *_p <= '9') ++_p;
    }
    if (_p != _end && (*_p == 'e' || *_p == 'E')) {
      ++_p;
      if (_p != _end && (*_p == '+' || *_p == '-')) ++_p;
      if (_p == _end || *_p < '0' || *_p > '9') fail_at(start, "invalid number");
      while (_p != _end && *_p >= '0' && *_p <= '9') ++_p;
    }
  }

  std::uint32_t hex4() {
    if (_end - _p < 4) fail("truncated \\u escape");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *_p++;
      v <<= 4;
      if (c >= '0' && c <= '9') v |= std::uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') v |= std::uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= std::uint32_t(c - 'A' + 10);
      else fail("invalid \\u escape");
    }
    return v;
  }

  std::uint32_t unicode_escape() {
    const std::uint32_t hi = hex4();
    if (hi >= 0xdc00 && hi < 0xe000) fail("unpaired surrogate in a \\u escape");
    if (hi < 0xd800 || hi >= 0xdc00) return hi;
    if (_end - _p < 2 || _p[0] != '\\' || _p[1] != 'u') fail("unpaired surrogate in a \\u escape");
    _p += 2;
    const std::uint32_t lo = hex4();
    if (lo < 0xdc00 || lo >= 0xe000) fail("unpaired surrogate in a \\u escape");
    return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
  }

  void append_utf8(std::uint32_t cp) {
    if (cp < 0x80) {
      _scratch += char(cp);
    } else if (cp < 0x800) {
      _scratch += char(0xc0 | (cp >> 6));
      _scratch += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      _scratch += char(0xe0 | (cp >> 12));
      _scratch += char(0x80 | ((cp >> 6) & 0x3f));
      _scratch += char(0x80 | (cp & 0x3f));
    } else {
      _scratch += char(0xf0 | (cp >> 18));
      _scratch += char(0x80 | ((cp >> 12) & 0x3f));
      _scratch += char(0x80 | ((cp >> 6) & 0x3f));
      _scratch += char(0x80 | (cp & 0x3f));
    }
  }

  template <std::size_t N>
  static std::string expected_fields(const std::array<std::string_view, N>& fields) {
    std::string s = " (expected ";
    for (std::size_t i = 0; i < N; ++i) {
      if (i) s += i + 1 == N ? " or " : ", ";
      s += quoted(fields[i]);
    }
    return s + ")";
  }

  const char* _begin;
  const char* _p;
  const char* _end;
  std::string_view _label;
  std::string _path;
  bool _inner;
  std::string _scratch;
};

}  // namespace cuzk::io::c1_json
