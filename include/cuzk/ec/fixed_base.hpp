// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fixed-base scalar multiplication: many k_i * G for one base G.
//
// Method: a table of T[w][d] = d * 2^(c*w) * G for every window w and digit
// d in [1, 2^c), so k * G = sum_w T[w][k_w] costs ceil(255/c) mixed
// additions and no doublings. c = 8: 32 windows x 255 entries = 8160 affine
// points (0.8 MB for G1, 1.6 MB for G2), built once per base with
// ~8160 additions and one batch normalization. Results come back in affine
// form through batch_to_affine. Used by the test-parameter setup, where
// every point of a parameter file is a multiple of the G1 or G2 generator.

#include <span>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cuzk/ec/batch_normalize.hpp>
#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::ec {

template <class F>
class fixed_base_table {
 public:
  static constexpr unsigned window_bits = 8;
  static constexpr unsigned n_windows = (255 + window_bits - 1) / window_bits;
  static constexpr std::size_t per_window = (std::size_t(1) << window_bits) - 1;

  explicit fixed_base_table(const jacobian<F>& base) : _table(n_windows * per_window) {
    std::vector<jacobian<F>> proj(_table.size());
    jacobian<F> window_base = base;
    for (unsigned w = 0; w < n_windows; ++w) {
      jacobian<F> acc = window_base;
      for (std::size_t d = 0; d < per_window; ++d) {
        proj[w * per_window + d] = acc;
        acc += window_base;
      }
      window_base = acc;  // 2^c * previous window base
    }
    batch_to_affine<F>(proj, _table);
  }

  jacobian<F> mul(const ff::fr& k) const {
    const auto c = k.to_canonical();
    jacobian<F> acc = jacobian<F>::identity();
    for (unsigned w = 0; w < n_windows; ++w) {
      const unsigned bit = w * window_bits;
      const unsigned d = unsigned((c[bit / 64] >> (bit % 64)) & per_window);
      if (d) acc += _table[w * per_window + d - 1];
    }
    return acc;
  }

  /// out[i] = scalars[i] * base, in parallel.
  void mul_many(std::span<const ff::fr> scalars, std::span<affine<F>> out) const {
    std::vector<jacobian<F>> proj(scalars.size());
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, scalars.size(), 1024),
                      [&](const auto& r) {
                        for (std::size_t i = r.begin(); i != r.end(); ++i) proj[i] = mul(scalars[i]);
                      });
    batch_to_affine<F>(proj, out);
  }

  /// The table itself, T[w][d - 1] at w * per_window + d - 1 (the GPU setup
  /// uploads it and runs the same lookup on the device).
  std::span<const affine<F>> table() const noexcept { return _table; }

 private:
  static_assert(64 % window_bits == 0, "windows must not straddle limbs");
  std::vector<affine<F>> _table;
};

}  // namespace cuzk::ec
