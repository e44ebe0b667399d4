// SPDX-License-Identifier: Apache-2.0
#pragma once
// Launch parameters of the CUDA kernels, in one place and checked at compile
// time (CONVENTIONS.md item 14). Plain C++: the host planning code and the
// kernels read the same numbers.
//
// Provenance: first values, chosen from the H200's limits (228 KiB shared
// memory and 64 K registers per SM, 1024 threads per block), not yet tuned by
// measurement; bench/gpu_bench.cu prints the timings to tune them against.

#include <cstdint>

namespace cuzk::gpu::tuning {

constexpr bool is_pow2(unsigned v) { return v && !(v & (v - 1)); }

/// NTT: one DIF pass transforms tiles of 2^lg_tile Fr elements in shared
/// memory (2^10 * 32 B = 32 KiB), doing up to lg_tile radix-2 levels over
/// 2^k rows x 2^(lg_tile - k) columns, one butterfly per thread per level.
struct ntt {
  static constexpr unsigned lg_tile = 10;
  static constexpr unsigned threads_per_tile = (1u << lg_tile) / 2;
  /// Threads per block of the element-wise kernels (scaling, bit reversal).
  static constexpr unsigned pointwise_threads = 256;
  /// Largest transform the GPU backend accepts (cuzk::ntt::lg_max_domain).
  static constexpr unsigned lg_max = 28;
};
static_assert(ntt::lg_tile >= 2 && ntt::lg_tile <= 11, "tile must fit 64 KiB of shared memory");
static_assert(is_pow2(ntt::threads_per_tile) && ntt::threads_per_tile <= 1024);
static_assert(is_pow2(ntt::pointwise_threads) && ntt::pointwise_threads <= 1024);

/// MSM (G1 Pippenger, signed windows, XYZZ buckets).
struct msm {
  /// Window width range; the default width is picked from the term count.
  static constexpr unsigned min_window = 8;
  static constexpr unsigned max_window = 17;
  /// Threads per block of the digit, accumulation and reduction kernels.
  static constexpr unsigned digit_threads = 256;
  static constexpr unsigned accumulate_threads = 128;
  static constexpr unsigned reduce_threads = 128;
  /// Buckets with more points than this are split across several threads
  /// (load balance for skewed digit distributions: 0/1-heavy witnesses,
  /// duplicates).
  static constexpr unsigned points_per_thread = 64;
};
static_assert(msm::min_window >= 2 && msm::max_window <= 24 && msm::min_window <= msm::max_window);
static_assert(is_pow2(msm::digit_threads) && is_pow2(msm::accumulate_threads) &&
              is_pow2(msm::reduce_threads));
static_assert(msm::points_per_thread >= 1);

}  // namespace cuzk::gpu::tuning
