// SPDX-License-Identifier: Apache-2.0
// Fuzz target: io::parse_c1_json (PoRep C1 output JSON, bare or in the
// lotus-bench / Curio {"Phase1Out": base64} wrapper). Property: the parse
// succeeds or throws io::format_error; on success write_c1_json(parsed)
// parses again to the same text (a fixed point). Inputs are capped at
// 1 MiB so one run stays in the millisecond range.
#include <string>
#include <string_view>

#include <cuzk/io/format_error.hpp>
#include <cuzk/io/porep_c1.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 20)) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto c1 = cuzk::io::parse_c1_json(text, "fuzz");
    const std::string once = cuzk::io::write_c1_json(c1);
    const std::string twice = cuzk::io::write_c1_json(cuzk::io::parse_c1_json(once, "fuzz-rewritten"));
    cuzk::fuzz::fuzz_check(once == twice, "write_c1_json(parse_c1_json(x)) is not a fixed point");
  } catch (const cuzk::io::format_error&) {
  }
  return 0;
}
