// SPDX-License-Identifier: Apache-2.0
#pragma once
// n distinct affine points of a group for MSM and addition tests: an
// arithmetic progression p, p + s, p + 2s, ... from random multiples p and s
// of the generator (one addition and one normalisation a point, so a few
// thousand cost milliseconds; random scalar multiples would cost ~0.1 ms each).

#include <cstddef>
#include <random>
#include <vector>

#include <cuzk/ec/scalar_mul.hpp>
#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::test {

template <class J>
std::vector<typename J::affine_type> random_points(std::mt19937_64& rng, std::size_t n) {
  std::vector<typename J::affine_type> out;
  J p = ec::mul(J::generator(), ff::fr::random(rng));
  const J step = ec::mul(J::generator(), ff::fr::random(rng));
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(p.to_affine());
    p += step;
  }
  return out;
}

}  // namespace cuzk::test
