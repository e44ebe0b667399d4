// SPDX-License-Identifier: Apache-2.0
#pragma once
// Constant-time comparison of a presented secret with the configured one
// (the gRPC token check and the HTTP status listener's). The time depends
// only on the longer length, never on where the first difference is.
#include <algorithm>
#include <cstddef>
#include <string_view>

namespace cuzk::service {

inline bool same_secret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    diff |= static_cast<unsigned char>((i < a.size() ? a[i] : 0) ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

}  // namespace cuzk::service
