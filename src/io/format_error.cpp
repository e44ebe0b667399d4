// SPDX-License-Identifier: Apache-2.0
// io::format_error: message assembly (see include/cuzk/io/format_error.hpp).
#include <cuzk/io/format_error.hpp>

#include <utility>

namespace cuzk::io {

namespace {

std::string describe(const std::string& kind, const std::string& path, const std::string& section, std::uint64_t offset,
                     const std::string& detail) {
  std::string s = kind + " file '" + path + "'";
  if (!section.empty()) s += ": " + section;
  if (offset != format_error::no_offset) s += " at byte offset " + std::to_string(offset);
  return s + ": " + detail;
}

}  // namespace

format_error::format_error(std::string kind, std::string path, std::string section, std::uint64_t offset,
                           const std::string& detail)
    : std::runtime_error(describe(kind, path, section, offset, detail)),
      _kind(std::move(kind)),
      _path(std::move(path)),
      _section(std::move(section)),
      _offset(offset) {}

}  // namespace cuzk::io
