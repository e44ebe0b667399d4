// SPDX-License-Identifier: Apache-2.0
// Client-facing text helpers (see client_text.hpp).
#include <cuzk/engine/client_text.hpp>

#include <cstdio>

namespace cuzk::engine {

std::string quoted_id(std::string_view id) {
  std::string out = "'";
  const std::size_t n = std::min(id.size(), max_quoted_id_chars);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(id[i]);
    if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c));
      out += buf;
    } else {
      out += char(c);
    }
  }
  out += "'";
  if (id.size() > n) out += "...(" + std::to_string(id.size()) + " bytes)";
  return out;
}

std::string without_host_paths(std::string msg, const std::filesystem::path& dir) {
  if (dir.empty()) return msg;
  std::string prefix = dir.lexically_normal().string();
  while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  prefix += '/';
  for (std::size_t at = msg.find(prefix); at != std::string::npos; at = msg.find(prefix, at))
    msg.erase(at, prefix.size());
  return msg;
}

}  // namespace cuzk::engine
