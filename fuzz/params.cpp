// SPDX-License-Identifier: Apache-2.0
// Fuzz target: .params / .vk headers and sections. The first input byte
// picks the file kind and whether points get the subgroup check; the rest
// is the file image. Property: parameter_layout::parse succeeds or throws
// io::format_error; a parsed layout's sections lie inside the image, in
// order, without overlap; decoding a parsed layout (vk sections, or every
// section of a .params) succeeds or throws io::format_error; a decoded .vk
// re-encodes to exactly its input.
#include <cstring>
#include <sstream>
#include <string>

#include <cuzk/io/format_error.hpp>
#include <cuzk/io/params.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cuzk::io;
  if (size < 1 || size > (1u << 20)) return 0;
  const bool vk = (data[0] & 1) != 0;
  read_options opt;
  opt.check_points = (data[0] & 2) != 0;
  const auto img = cuzk::fuzz::bytes(data + 1, size - 1);
  try {
    const auto layout =
        parameter_layout::parse(img, vk ? parameter_file_kind::verifying_key : parameter_file_kind::parameters, "fuzz");
    std::uint64_t end = 0;
    for (const section& s : layout.sections()) {
      cuzk::fuzz::fuzz_check(s.offset >= end, "sections overlap or are out of order");
      cuzk::fuzz::fuzz_check(s.bytes.size() == s.count * s.point_size, "section byte span != count * point size");
      cuzk::fuzz::fuzz_check(s.offset + s.bytes.size() <= img.size(), "section runs past the image");
      cuzk::fuzz::fuzz_check(s.bytes.data() == img.data() + s.offset, "section span is not at its offset");
      end = s.offset + s.bytes.size();
    }
    if (vk) {
      const auto k = decode_verifying_key(layout, opt);
      std::ostringstream os;
      write_verifying_key(k, os);
      const std::string out = os.str();
      cuzk::fuzz::fuzz_check(out.size() == img.size() && std::memcmp(out.data(), img.data(), out.size()) == 0,
                             ".vk does not re-encode to its input");
    } else {
      (void)decode_parameters(layout, opt);
    }
  } catch (const format_error&) {
  }
  return 0;
}
