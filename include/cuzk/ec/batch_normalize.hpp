// SPDX-License-Identifier: Apache-2.0
#pragma once
// Jacobian -> affine for many points with one field inversion per chunk
// (Montgomery's simultaneous-inversion trick): 3 multiplications per point
// plus the usual 3 for the conversion, instead of one inversion per point
// (an Fp inversion costs about 60 multiplications). Chunks of 4096
// points run in parallel on oneTBB workers.

#include <span>
#include <stdexcept>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cuzk/ec/jacobian.hpp>

namespace cuzk::ec {

/// out[i] = in[i] as an affine point (infinity -> x = y = 0).
template <class F>
void batch_to_affine(std::span<const jacobian<F>> in, std::span<affine<F>> out) {
  if (in.size() != out.size()) throw std::invalid_argument("batch_to_affine: size mismatch");
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, in.size(), 4096), [&](const auto& r) {
    std::vector<F> prefix(r.size());
    F acc = F::one();
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      prefix[i - r.begin()] = acc;
      if (!in[i].is_infinity()) acc *= in[i].z;
    }
    F inv = acc.inverse();
    for (std::size_t i = r.end(); i-- > r.begin();) {
      if (in[i].is_infinity()) {
        out[i] = affine<F>::identity();
        continue;
      }
      const F zi = inv * prefix[i - r.begin()];
      inv *= in[i].z;
      const F zi2 = zi.sqr();
      out[i] = affine<F>{in[i].x * zi2, in[i].y * zi2 * zi};
    }
  });
}

}  // namespace cuzk::ec
