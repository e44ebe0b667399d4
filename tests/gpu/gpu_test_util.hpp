// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared helpers of the GPU differential tests: the skip-when-no-GPU guard
// and a few generators. Every GPU test starts with CUZK_REQUIRE_GPU(), so the
// binary passes (with visible skips) on machines without a CUDA device.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <random>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/gpu/runtime.hpp>

#define CUZK_REQUIRE_GPU()                                                                      \
  do {                                                                                          \
    if (::cuzk::gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device: skipping GPU tests"; \
  } while (0)

namespace cuzk::test {

template <class F>
std::vector<F> random_elements(std::size_t n, std::mt19937_64& rng) {
  std::vector<F> v(n);
  for (auto& x : v) x = F::random(rng);
  return v;
}

/// Unsets the environment variable |name| when the scope ends (tests that
/// set a tuning knob of the GPU code, read at every call, for a while).
class unset_env_at_exit {
 public:
  explicit unset_env_at_exit(const char* name) : _name(name) {}
  ~unset_env_at_exit() { unsetenv(_name); }
  unset_env_at_exit(const unset_env_at_exit&) = delete;
  unset_env_at_exit& operator=(const unset_env_at_exit&) = delete;

 private:
  const char* _name;
};

/// Index of the first difference, or n when equal.
template <class T>
std::size_t first_mismatch(const std::vector<T>& a, const std::vector<T>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    if (!(a[i] == b[i])) return i;
  return n;
}

}  // namespace cuzk::test
