// SPDX-License-Identifier: Apache-2.0
#pragma once
// Witness-like value vectors for tests of the coded witness and the witness
// MSMs: each value zero with probability p0, one with p1, else a uniformly
// random element (almost never 0 or 1).

#include <cstddef>
#include <random>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::test {

inline std::vector<ff::fr> witness_values(std::size_t n, double p0, double p1, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<ff::fr> v(n);
  for (auto& x : v) {
    const double r = u(rng);
    x = r < p0 ? ff::fr::zero() : r < p0 + p1 ? ff::fr::one() : ff::fr::random(rng);
  }
  return v;
}

}  // namespace cuzk::test
