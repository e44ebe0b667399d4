// SPDX-License-Identifier: Apache-2.0
#pragma once
// Launch parameters of the CUDA kernels, in one place and checked at compile
// time (CONVENTIONS.md item 14). Plain C++: the host planning code and the
// kernels read the same numbers.
//
// Provenance: first values, chosen from the H200's limits (228 KiB shared
// memory and 64 K registers per SM, 1024 threads per block), not yet tuned;
// bench/gpu_bench.cu prints the timings to tune them against. Measured on
// one H200 (sm_90, 132 SMs), medians of 10 after 2 warm-ups:
//   NTT (lg_tile 10, 3 passes at 2^26): ntt 2^20 0.45 ms, 2^24 8.1 ms,
//     2^26 35.1 ms; compute_h 2^24 62 ms, 2^26 269 ms.
//   MSM G1 (default window lg n - 3 capped at 17, host wall clock incl. the
//     scalar upload from pageable memory): points_per_thread 64: 2^20 50 ms,
//     2^24 339 ms; points_per_thread 16: 2^20 45 ms, 2^24 317 ms.
//   Window sweep at 2^24, scalars resident (bench/RESULTS.md, 2026-11-29):
//     G1 c = 16, 17, 18 within 1% (248-250 ms), c = 14: 292, c = 20: 283;
//     G2 best at c = 19 (1549 ms), c = 17: 1583 (2% slower), c = 16: 1609.
//     So the default stays lg n - 3 capped at 17 until 2^25+ is swept.

#include <cstddef>
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
  /// Points (and, at later levels, partial sums) one thread adds before its
  /// sum is combined with the other segments of its bucket: buckets with
  /// more points are split across threads (load balance for 0/1-heavy
  /// witnesses and duplicated scalars), and smaller segments mean more
  /// threads per window (at 2^20 terms, 64 gave ~4 warps per SM).
  static constexpr unsigned points_per_thread = 16;
  /// From this many terms on, scalars equal to 0 or 1 are split off before
  /// the windows (see msm.cu): below it the extra pass and the host round
  /// trip for the counts cost more than the sorts they save.
  static constexpr std::size_t split_min_terms = std::size_t(1) << 14;
};
static_assert(msm::min_window >= 2 && msm::max_window <= 24 && msm::min_window <= msm::max_window);
static_assert(is_pow2(msm::digit_threads) && is_pow2(msm::accumulate_threads) &&
              is_pow2(msm::reduce_threads));
static_assert(msm::points_per_thread >= 1);

}  // namespace cuzk::gpu::tuning
