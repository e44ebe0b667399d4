// SPDX-License-Identifier: Apache-2.0
// The reference cuzk-bench's vanilla file (a JSON array of base64 strings;
// see include/cuzk/io/snap_vanilla.hpp). Strict standard base64 (RFC 4648
// section 4, padded, as Go writes it). Cost: linear in the text.
#include <cuzk/io/snap_vanilla.hpp>

#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include <cuzk/io/format_error.hpp>

namespace cuzk::io {
namespace {

constexpr const char* kind_name = "snap vanilla json";
constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int value_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Decodes |s|; returns an error text ("" when fine).
std::string decode(const std::string& s, std::vector<std::uint8_t>& out) {
  if (s.size() % 4 != 0) return "base64 length " + std::to_string(s.size()) + " is not a multiple of 4";
  out.reserve(s.size() / 4 * 3);
  for (std::size_t i = 0; i < s.size(); i += 4) {
    const bool last = i + 4 == s.size();
    int v[4];
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = s[i + std::size_t(j)];
      if (c == '=' && last && j >= 2) {
        ++pad;
        v[j] = 0;
        continue;
      }
      v[j] = value_of(c);
      if (v[j] < 0 || pad) return "invalid base64 character at " + std::to_string(i + std::size_t(j));
    }
    const std::uint32_t x = std::uint32_t(v[0]) << 18 | std::uint32_t(v[1]) << 12 | std::uint32_t(v[2]) << 6 |
                            std::uint32_t(v[3]);
    out.push_back(std::uint8_t(x >> 16));
    if (pad < 2) out.push_back(std::uint8_t(x >> 8));
    if (pad < 1) out.push_back(std::uint8_t(x));
  }
  return "";
}

}  // namespace

std::vector<std::vector<std::uint8_t>> parse_snap_vanilla_json(std::string_view text, std::string_view label) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw format_error(kind_name, std::string(label), "document", e.byte, e.what());
  } catch (const nlohmann::json::exception& e) {
    // e.g. out_of_range for a number literal too large for a double (found by fuzz_snap_vanilla)
    throw format_error(kind_name, std::string(label), "document", format_error::no_offset, e.what());
  }
  if (!j.is_array()) throw format_error(kind_name, std::string(label), "document", format_error::no_offset,
                                        "expected a JSON array of base64 strings");
  std::vector<std::vector<std::uint8_t>> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string where = "[" + std::to_string(i) + "]";
    if (!j[i].is_string())
      throw format_error(kind_name, std::string(label), where, format_error::no_offset, "expected a base64 string");
    std::vector<std::uint8_t> bytes;
    const std::string err = decode(j[i].get<std::string>(), bytes);
    if (!err.empty()) throw format_error(kind_name, std::string(label), where, format_error::no_offset, err);
    out.push_back(std::move(bytes));
  }
  return out;
}

std::string write_snap_vanilla_json(std::span<const std::vector<std::uint8_t>> partitions) {
  std::string out = "[";
  for (std::size_t k = 0; k < partitions.size(); ++k) {
    if (k) out += ',';
    out += '"';
    const std::vector<std::uint8_t>& b = partitions[k];
    std::size_t i = 0;
    for (; i + 2 < b.size(); i += 3) {
      const std::uint32_t v = std::uint32_t(b[i]) << 16 | std::uint32_t(b[i + 1]) << 8 | b[i + 2];
      for (int s = 18; s >= 0; s -= 6) out += alphabet[(v >> s) & 63];
    }
    if (i < b.size()) {
      const bool two = i + 1 < b.size();
      const std::uint32_t v = std::uint32_t(b[i]) << 16 | (two ? std::uint32_t(b[i + 1]) << 8 : 0);
      out += alphabet[v >> 18];
      out += alphabet[(v >> 12) & 63];
      out += two ? alphabet[(v >> 6) & 63] : '=';
      out += '=';
    }
    out += '"';
  }
  return out + "]";
}

}  // namespace cuzk::io
