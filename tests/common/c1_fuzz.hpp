// SPDX-License-Identifier: Apache-2.0
#pragma once
// Mutation fuzzer for io::parse_c1_json, shared by the quick test
// (tests/unit/porep_c1_fuzz_test.cpp) and the long one (tests/unit_long/).
//
// From a valid C1 text it indexes every JSON value (span, kind, whether it
// is an object member or an array element), then derives each input by one
// or more mutations: bit flips, byte sets, truncation, deletion, token
// insertion, member removal/duplication, element removal/duplication, type
// swaps, huge or malformed numbers, deep nesting, value transplants, key
// damage; some inputs are wrapped in the lotus-bench {"Phase1Out": base64}
// form. The oracle: parse either succeeds (and then write/parse is a fixed
// point) or throws io::format_error of kind "c1 json"; any other exception
// is a failure (crashes and memory errors are caught under the asan preset).
// Cost: one parse of ~100 KB per input (~0.2 ms for a 2 KiB C1).

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <cuzk/io/porep_c1.hpp>

namespace cuzk::test {

class c1_fuzzer {
 public:
  /// |sector_size| goes into the wrapper form.
  c1_fuzzer(std::string base, std::uint64_t sector_size) : _base(std::move(base)), _sector_size(sector_size) {
    std::size_t p = 0;
    index_value(p, npos, false);
  }

  struct stats {
    std::size_t accepted = 0, rejected = 0;
  };

  /// Runs |n| mutated inputs; returns how many were accepted / rejected.
  stats run(std::mt19937_64& rng, std::size_t n, std::uint64_t seed) {
    stats st;
    for (std::size_t it = 0; it < n; ++it) {
      int kind = 0;
      std::string text = mutate(rng, kind);
      if (rng() % 8 == 0) {
        text = wrap(text);
        if (rng() % 2 == 0) text = raw_mutation(rng, text);
      }
      try {
        const io::c1_output c1 = io::parse_c1_json(text, "fuzz");
        const std::string again = io::write_c1_json(c1);
        const io::c1_output back = io::parse_c1_json(again);
        if (!(back == c1) || io::write_c1_json(back) != again) {
          ADD_FAILURE() << "accepted input does not round-trip (seed " << seed << ", iteration " << it << ", mutation "
                        << kind << ")";
          return st;
        }
        ++st.accepted;
      } catch (const io::format_error& e) {
        if (e.kind() != "c1 json") {
          ADD_FAILURE() << "wrong error kind " << e.kind() << ": " << e.what();
          return st;
        }
        ++st.rejected;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "unexpected exception (seed " << seed << ", iteration " << it << ", mutation " << kind
                      << "): " << e.what();
        return st;
      }
    }
    return st;
  }

 private:
  static constexpr std::size_t npos = std::string::npos;
  struct span {
    std::size_t begin, end, key;  // key: offset of the member's key quote, or npos
    char kind;                    // o a n s l
    bool in_array;
  };

  // ---- indexing the valid base text (recursive; its depth is the schema's) ----
  void ws(std::size_t& p) const {
    while (p < _base.size() && (_base[p] == ' ' || _base[p] == '\n' || _base[p] == '\r' || _base[p] == '\t')) ++p;
  }
  void index_value(std::size_t& p, std::size_t key, bool in_array) {
    ws(p);
    const std::size_t b = p;
    char kind;
    const char c = _base[p];
    if (c == '{' || c == '[') {
      kind = c == '{' ? 'o' : 'a';
      ++p;
      ws(p);
      const char close = c == '{' ? '}' : ']';
      while (_base[p] != close) {
        std::size_t k = npos;
        if (c == '{') {
          k = p;
          p = _base.find('"', p + 1) + 1;
          ws(p);
          ++p;  // ':'
        }
        index_value(p, k, c == '[');
        ws(p);
        if (_base[p] == ',') ++p;
        ws(p);
      }
      ++p;
    } else if (c == '"') {
      kind = 's';
      p = _base.find('"', p + 1) + 1;
    } else if (c == 'n' || c == 't' || c == 'f') {
      kind = 'l';
      while (p < _base.size() && _base[p] >= 'a' && _base[p] <= 'z') ++p;
    } else {
      kind = 'n';
      while (p < _base.size() && std::string_view("-+.eE0123456789").find(_base[p]) != npos) ++p;
    }
    _spans.push_back({b, p, key, kind, in_array});
    if (kind == 'n') _numbers.push_back(_spans.size() - 1);
    else _others.push_back(_spans.size() - 1);
    if (key != npos) _members.push_back(_spans.size() - 1);
    if (in_array) _elements.push_back(_spans.size() - 1);
  }

  template <class V>
  static const auto& pick(std::mt19937_64& rng, const V& v) {
    return v[std::size_t(rng() % v.size())];
  }

  // Removes [b, e) and one neighbouring comma, keeping the rest well formed.
  static std::string remove_with_comma(const std::string& s, std::size_t b, std::size_t e) {
    std::size_t after = e;
    while (after < s.size() && s[after] == ' ') ++after;
    if (after < s.size() && s[after] == ',') return s.substr(0, b) + s.substr(after + 1);
    std::size_t before = b;
    while (before > 0 && s[before - 1] == ' ') --before;
    if (before > 0 && s[before - 1] == ',') return s.substr(0, before - 1) + s.substr(e);
    return s.substr(0, b) + s.substr(e);
  }

  std::string raw_mutation(std::mt19937_64& rng, std::string s) const {
    // clang-format off
    static const std::vector<std::string> tokens = {
        "{", "}", "[", "]", ",", ":", "\"", "null", "true", "-1", "0", "256", "1e5", "1.0",
        "18446744073709551616", "99999999999999999999999999", "\"x\"", "\\u0000", " ", "\"index\":0,",
        "{\"Single\":{}}", "\xff", "\\\"", "\"_h\":null,"};
    // clang-format on
    static const std::string interesting = "{}[],:\"0123456789-.eE \\nu\x01";
    if (s.empty()) return tokens[rng() % tokens.size()];
    const std::size_t pos = std::size_t(rng() % s.size());
    switch (rng() % 5) {
      case 0: s[pos] = char(s[pos] ^ char(1 << (rng() % 8))); break;
      case 1: s[pos] = rng() % 2 ? interesting[rng() % interesting.size()] : char(rng()); break;
      case 2: s.resize(pos); break;
      case 3: s.erase(pos, 1 + std::size_t(rng() % 64)); break;
      default: s.insert(pos, tokens[rng() % tokens.size()]); break;
    }
    return s;
  }

  std::string mutate(std::mt19937_64& rng, int& kind) const {
    kind = int(rng() % 12);
    const std::string& s = _base;
    switch (kind) {
      case 0: return raw_mutation(rng, s);
      case 1: {  // several raw mutations
        std::string t = s;
        for (std::uint64_t i = 0, n = 2 + rng() % 6; i < n; ++i) t = raw_mutation(rng, t);
        return t;
      }
      case 2: {  // remove a member
        const span& v = _spans[pick(rng, _members)];
        return remove_with_comma(s, v.key, v.end);
      }
      case 3: {  // duplicate a member (serde: duplicate field)
        const span& v = _spans[pick(rng, _members)];
        return s.substr(0, v.end) + "," + s.substr(v.key, v.end - v.key) + s.substr(v.end);
      }
      case 4: {  // remove an array element
        const span& v = _spans[pick(rng, _elements)];
        return remove_with_comma(s, v.begin, v.end);
      }
      case 5: {  // duplicate an array element
        const span& v = _spans[pick(rng, _elements)];
        return s.substr(0, v.end) + "," + s.substr(v.begin, v.end - v.begin) + s.substr(v.end);
      }
      case 6: {  // swap the type of a value
        static const std::vector<std::string> lits = {
            "\"s\"", "0", "null", "[]", "{}", "true", "[0]", "-5", "1.5", "\"StackedDrg2KiBV1\"", "{\"Sub\":{}}"};
        const span& v = _spans[rng() % 4 ? pick(rng, _others) : pick(rng, _numbers)];
        return s.substr(0, v.begin) + lits[rng() % lits.size()] + s.substr(v.end);
      }
      case 7: {  // huge or malformed numbers
        // clang-format off
        static const std::vector<std::string> nums = {
            "256", "255", "4294967296", "4294967295", "18446744073709551615", "18446744073709551616",
            "1e400", "-0", "00", "0.0", "1E2", "-", "0x10", "+1", "123456789012345678901234567890"};
        // clang-format on
        const span& v = _spans[pick(rng, _numbers)];
        return s.substr(0, v.begin) + nums[rng() % nums.size()] + s.substr(v.end);
      }
      case 8: {  // deep nesting, balanced or not
        const std::size_t d = 64 + std::size_t(rng() % 100000);
        const span& v = _spans[rng() % _spans.size()];
        std::string deep(d, rng() % 2 ? '[' : '{');
        if (rng() % 2) deep += std::string(d, deep[0] == '[' ? ']' : '}');
        return s.substr(0, v.begin) + deep + s.substr(v.end);
      }
      case 9: {  // transplant another value
        const span& a = _spans[rng() % _spans.size()];
        const span& b = _spans[rng() % _spans.size()];
        const std::string moved = s.substr(b.begin, b.end - b.begin);
        return s.substr(0, a.begin) + moved + s.substr(a.end);
      }
      case 10: {  // damage a key
        const span& v = _spans[pick(rng, _members)];
        std::string t = s;
        const std::size_t close = t.find('"', v.key + 1);
        const std::size_t at = v.key + 1 + std::size_t(rng() % std::max<std::size_t>(1, close - v.key - 1));
        t[at] = char('a' + rng() % 26);
        return t;
      }
      default: {  // whitespace, which must not matter
        std::string t = s;
        const span& v = _spans[rng() % _spans.size()];
        t.insert(rng() % 2 ? v.begin : v.end, rng() % 2 ? " " : "\n\t");
        return t;
      }
    }
  }

  std::string wrap(std::string_view c1) const {
    static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string b;
    std::size_t i = 0;
    for (; i + 3 <= c1.size(); i += 3) {
      const std::uint32_t w = std::uint32_t(std::uint8_t(c1[i])) << 16 | std::uint32_t(std::uint8_t(c1[i + 1])) << 8 |
                              std::uint8_t(c1[i + 2]);
      for (int s = 18; s >= 0; s -= 6) b += a[(w >> s) & 63];
    }
    const std::size_t rest = c1.size() - i;
    if (rest) {
      std::uint32_t w = std::uint32_t(std::uint8_t(c1[i])) << 16;
      if (rest == 2) w |= std::uint32_t(std::uint8_t(c1[i + 1])) << 8;
      b += a[(w >> 18) & 63];
      b += a[(w >> 12) & 63];
      b += rest == 2 ? a[(w >> 6) & 63] : '=';
      b += '=';
    }
    return "{\"SectorNum\":3,\"Phase1Out\":\"" + b + "\",\"SectorSize\":" + std::to_string(_sector_size) + "}";
  }

  std::string _base;
  std::uint64_t _sector_size;
  std::vector<span> _spans;
  std::vector<std::size_t> _numbers, _others, _members, _elements;
};

}  // namespace cuzk::test
