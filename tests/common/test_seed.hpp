// SPDX-License-Identifier: Apache-2.0
#pragma once
// Seeds for randomized tests: taken from CUZK_TEST_SEED when set, otherwise
// fresh from std::random_device; always printed so a failure can be replayed.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace cuzk::test {

inline std::uint64_t test_seed(const char* what) {
  std::uint64_t seed;
  if (const char* env = std::getenv("CUZK_TEST_SEED"); env && *env) {
    seed = std::strtoull(env, nullptr, 0);
  } else {
    std::random_device rd;
    seed = (std::uint64_t(rd()) << 32) | rd();
  }
  std::printf("[seed] %s: CUZK_TEST_SEED=%llu\n", what, static_cast<unsigned long long>(seed));
  return seed;
}

inline std::string shared_dir() { return CUZK_SHARED_DIR; }

}  // namespace cuzk::test
