// SPDX-License-Identifier: Apache-2.0
// The reference cuzk-bench's vanilla file (a JSON array of base64 strings;
// see include/cuzk/io/snap_vanilla.hpp). Strict standard base64 (io/base64.hpp:
// padded, as Go writes it). Cost: linear in the text.
#include <cuzk/io/snap_vanilla.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include <cuzk/io/base64.hpp>
#include <cuzk/io/format_error.hpp>

namespace cuzk::io {
namespace {

constexpr const char* kind_name = "snap vanilla json";

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
  if (!j.is_array())
    throw format_error(kind_name, std::string(label), "document", format_error::no_offset,
                       "expected a JSON array of base64 strings");
  std::vector<std::vector<std::uint8_t>> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    // appended rather than "[" + to_string(i): GCC 12 at -O3 sees a false
    // overlap in the latter (-Wrestrict, GCC bug 105329)
    std::string where(1, '[');
    where.append(std::to_string(i)).push_back(']');
    if (!j[i].is_string())
      throw format_error(kind_name, std::string(label), where, format_error::no_offset, "expected a base64 string");
    std::vector<std::uint8_t> bytes;
    if (const auto e = decode_base64(j[i].get_ref<const std::string&>(), base64_mode::strict, bytes))
      throw format_error(kind_name, std::string(label), where, format_error::no_offset, e->message());
    out.push_back(std::move(bytes));
  }
  return out;
}

std::string write_snap_vanilla_json(std::span<const std::vector<std::uint8_t>> partitions) {
  std::string out = "[";
  for (std::size_t k = 0; k < partitions.size(); ++k) {
    if (k) out += ',';
    out += '"';
    out += to_base64(partitions[k]);
    out += '"';
  }
  return out + "]";
}

}  // namespace cuzk::io
