// SPDX-License-Identifier: Apache-2.0
#pragma once
// The fixed-base kernel template behind fixed_base.cuh (included by
// fixed_base_g1.cu and fixed_base_g2.cu only).
// Per point: ~32 x (8M + 2S) for the additions (zero digits skipped), ~8 M
// for the affine conversion and 1/K of an inversion (~25 M), in the
// group's field (K points per thread share one inversion: Montgomery's
// trick, ec/detail/batch_affine.hpp); table reads are 8160 random affine
// points per group (0.8 MB G1, 1.6 MB G2), L2-resident.

#include <cstdint>

#include <cuzk/ec/detail/batch_affine.hpp>
#include <cuzk/ec/fixed_base.hpp>
#include <cuzk/gpu/cuda_check.cuh>

#include "setup_points.cuh"

namespace cuzk::groth16::setup_gpu {

inline constexpr unsigned fb_windows = ec::fixed_base_table<ff::fp>::n_windows;
inline constexpr unsigned fb_per_window = unsigned(ec::fixed_base_table<ff::fp>::per_window);
static_assert(ec::fixed_base_table<ff::fp>::window_bits == 8 && fb_windows == 32 && fb_per_window == 255,
              "the kernel reads one byte of the scalar per window");

/// Thread t of block b makes the points b * Threads * K + j * Threads + t,
/// j < K (coalesced per j), then converts its K points to affine with one
/// inversion (ec/detail/batch_affine.hpp).
template <class Fd, unsigned Threads, int K, unsigned MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks)
    fixed_base_kernel(const affine_d<Fd>* __restrict__ d_table, const fr_d* __restrict__ d_scalars, std::uint64_t n,
                      affine_d<Fd>* __restrict__ d_out) {
  const std::uint64_t first = std::uint64_t(blockIdx.x) * Threads * K + threadIdx.x;
  Fd px[K], py[K], d[K], prefix[K];
  fr_d one_raw = fr_d::zero();
  one_raw.l[0] = 1;
#pragma unroll 1
  for (int j = 0; j < K; ++j) {
    const std::uint64_t i = first + std::uint64_t(j) * Threads;
    xyzz_d<Fd> acc = xyzz_d<Fd>::identity();
    if (i < n) {
      const fr_d k = d_scalars[i] * one_raw;  // canonical, < r < 2^255
#pragma unroll 1
      for (unsigned w = 0; w < fb_windows; ++w) {
        const unsigned digit = (k.l[w / 4] >> (8 * (w % 4))) & 0xffu;
        if (digit) acc = acc.add_affine(d_table[w * fb_per_window + digit - 1]);
      }
    }
    ec::detail::xyzz_fraction(acc, px[j], py[j], d[j]);
  }
  ec::detail::finish_affine<K>(px, py, d, prefix, [](const Fd& a) { return invert<Fd>(a); });
#pragma unroll 1
  for (int j = 0; j < K; ++j) {
    const std::uint64_t i = first + std::uint64_t(j) * Threads;
    if (i < n) d_out[i] = affine_d<Fd>{px[j], py[j]};
  }
}

/// |MinBlocks| resident blocks per SM bounds the registers (65536 / (Threads
/// MinBlocks)): the Montgomery carry chains need several warps per scheduler.
template <class Fd, unsigned Threads, int K, unsigned MinBlocks, class HostPoint>
void launch_fixed_base(const HostPoint* d_table, const ff::fr* d_scalars, std::size_t n, HostPoint* d_out,
                       CUstream_st* s) {
  static_assert(sizeof(affine_d<Fd>) == sizeof(HostPoint));
  if (n == 0) return;
  const std::size_t per_block = std::size_t(Threads) * K;
  const std::size_t blocks = (n + per_block - 1) / per_block;
  fixed_base_kernel<Fd, Threads, K, MinBlocks><<<unsigned(blocks), Threads, 0, s>>>(
      reinterpret_cast<const affine_d<Fd>*>(d_table), reinterpret_cast<const fr_d*>(d_scalars), std::uint64_t(n),
      reinterpret_cast<affine_d<Fd>*>(d_out));
  CUZK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuzk::groth16::setup_gpu
