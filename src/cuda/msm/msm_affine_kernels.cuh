// SPDX-License-Identifier: Apache-2.0
#pragma once
// Level 0 of the G1 bucket sums by batch-affine additions (src/cuda/msm/msm.cu
// takes it for random-scalar MSMs when tuning::msm::affine_by_default or
// CUZK_MSM_AFFINE asks; msm_kernels.cuh has the XYZZ version and the
// bookkeeping both share). Off by default: on the H200 it measured up to
// 5% slower than the XYZZ loop at 2^26-2^27 and far slower at 2^22
// (bench/RESULTS.md, 2026-12-03), for the memory reasons below.
//
// Why: level 0 is nearly all of a large MSM (679 of the 844 ms of a 2^27
// MSM on the H200, 2026-12-02), and it is bound by field multiplications:
// an XYZZ mixed addition is 8M + 2S. An affine addition is
// lambda = dy / dx, x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1:
// 2M + 1S once 1/dx is known, and Montgomery's trick gives K inverses for
// one inversion and 3(K - 1) multiplications. Per addition: 5M + 1S plus
// 1/K of an inversion (gpu::inverse, ~30 M), against 8M + 2S.
//
// Method: thread t takes the K segments order[t K + k] (segments sorted
// longest first, so its K have nearly equal lengths, as have its warp's) and
// keeps one affine accumulator per segment in |accs| (global memory,
// accs[k T + t] for T threads: a warp's accesses are contiguous). Each
// round adds the next point of every unfinished segment: a forward pass
// forms dx_k = x(q_k) - x(acc_k) and the prefix products, one inversion, then a
// backward pass peels each 1/dx_k off and applies the additions. A segment
// whose next addition is not a plain one (either side infinity, or equal x:
// P == Q needs a doubling, P == -Q gives infinity; also any x of 0, since
// infinity is stored as x = y = 0) takes it by the complete XYZZ formula and
// one inversion of its own, outside the batch: never on random data, often
// in tests with duplicated points.
// At the end each accumulator is written like the XYZZ kernel's sums (a
// bucket's sum or a partial for the next level), so the later levels and
// the window sums are unchanged.
// Memory per addition: the base's x and the accumulator's x in the
// forward pass, both points whole in the backward pass, the accumulator
// written, a prefix product written and read (local memory): ~480 bytes
// against the XYZZ loop's ~100 (the base once), so this pays only where the multiplications, not
// the memory, bound level 0 (measured: tuning::msm::affine_*). Included by msm.cu only.

#include <cstdint>

#include <cuzk/ff/detail/cuda_inverse.cuh>

#include "msm_kernels.cuh"

namespace cuzk::msm::detail {

/// Entry |v| of a bucket's list as a point: the base, negated when the
/// digit was negative.
__device__ __forceinline__ affine_d<fp_d> entry_point(const affine_d<fp_d>* bases, std::uint32_t v) {
  affine_d<fp_d> q = load16_ro(bases + (v & ~sign_bit));
  if (v & sign_bit) q.y = -q.y;
  return q;
}

/// acc + q by the complete formula, back to affine with an inversion of
/// its own: the additions a batch cannot take (infinity, equal x).
__device__ __noinline__ affine_d<fp_d> add_outside_batch(const affine_d<fp_d>& acc, const affine_d<fp_d>& q) {
  if (q.is_infinity()) return acc;
  if (acc.is_infinity()) return q;
  const xyzz_d<fp_d> s = xyzz_d<fp_d>::from_affine(acc).add_affine(q);
  if (s.is_infinity()) return affine_d<fp_d>::identity();
  const fp_d inv = gpu::inverse(s.zz * s.zzz);  // 1/ZZ = ZZZ inv, 1/ZZZ = ZZ inv
  affine_d<fp_d> r;
  r.x = s.x * s.zzz * inv;
  r.y = s.y * s.zz * inv;
  return r;
}

template <unsigned K>
__global__ void __launch_bounds__(tune::affine_threads, tune::affine_min_blocks)
    accumulate_affine_kernel(const affine_d<fp_d>* __restrict__ bases, const std::uint32_t* __restrict__ entries,
                             const std::uint32_t* __restrict__ order, std::uint32_t bound, level_view lv,
                             affine_d<fp_d>* __restrict__ accs, xyzz_d<fp_d>* __restrict__ buckets,
                             xyzz_d<fp_d>* __restrict__ parts) {
  static_assert(K >= 1 && K <= 32, "one bit per segment in a 32-bit mask");
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t threads = gridDim.x * blockDim.x;
  const std::uint32_t total = lv.seg_off[lv.nb];
  // per segment: next entry, end; dynamically indexed, so local memory
  std::uint32_t cur[K], end[K];
  fp_d prefix[K];
#pragma unroll 1
  for (unsigned k = 0; k < K; ++k) {
    const std::uint32_t idx = t * K + k;
    cur[k] = end[k] = 0;
    affine_d<fp_d> first = affine_d<fp_d>::identity();
    const std::uint32_t s = idx < bound ? order[idx] : total;
    if (s < total) {
      const std::uint32_t b = find_bucket(lv.seg_off, lv.nb, s);
      const std::uint32_t j = s - lv.seg_off[b];
      const std::uint32_t begin = lv.off[b] + j * lv.cap;
      end[k] = min(begin + lv.cap, lv.off[b + 1]);
      first = entry_point(bases, entries[begin]);
      cur[k] = begin + 1;
    }
    store16(accs + std::size_t(k) * threads + t, first);
  }
#pragma unroll 1
  for (;;) {
    // forward: dx of every plain addition of this round, prefix products
    std::uint32_t in_batch = 0;
    bool any = false;
    fp_d prod = fp_d::one();
#pragma unroll 1
    for (unsigned k = 0; k < K; ++k) {
      if (cur[k] >= end[k]) continue;
      any = true;
      // x alone here (the y's are read in the backward pass), unless an x
      // is 0: then the point may be infinity (x = y = 0)
      affine_d<fp_d>* a = accs + std::size_t(k) * threads + t;
      const std::uint32_t v = entries[cur[k]];
      const fp_d qx = load16_ro(&bases[v & ~sign_bit].x);
      const fp_d ax = load16(&a->x);
      const fp_d dx = qx - ax;
      if (qx.is_zero() || ax.is_zero() || dx.is_zero()) {
        store16(a, add_outside_batch(load16(a), entry_point(bases, v)));
        ++cur[k];
        continue;
      }
      prefix[k] = prod;
      prod = prod * dx;
      in_batch |= 1u << k;
    }
    if (!any) break;
    if (!in_batch) continue;
    fp_d inv = gpu::inverse(prod);  // 1 / (product of this round's dx)
                                    // backward: 1/dx_k = inv * prefix_k, then inv *= dx_k drops it
#pragma unroll 1
    for (unsigned k = K; k-- > 0;) {
      if (!((in_batch >> k) & 1u)) continue;
      affine_d<fp_d>* a = accs + std::size_t(k) * threads + t;
      const affine_d<fp_d> q = entry_point(bases, entries[cur[k]]);
      const affine_d<fp_d> acc = load16(a);
      const fp_d dx = q.x - acc.x;
      const fp_d inv_dx = inv * prefix[k];
      inv = inv * dx;
      const fp_d lambda = (q.y - acc.y) * inv_dx;
      affine_d<fp_d> r;
      r.x = lambda.sqr() - acc.x - q.x;
      r.y = lambda * (acc.x - r.x) - acc.y;
      store16(a, r);
      ++cur[k];
    }
  }
  // each segment's sum where the XYZZ kernel puts it
#pragma unroll 1
  for (unsigned k = 0; k < K; ++k) {
    const std::uint32_t idx = t * K + k;
    const std::uint32_t s = idx < bound ? order[idx] : total;
    if (s >= total) continue;
    const std::uint32_t b = find_bucket(lv.seg_off, lv.nb, s);
    const std::uint32_t j = s - lv.seg_off[b];
    const xyzz_d<fp_d> sum = xyzz_d<fp_d>::from_affine(load16(accs + std::size_t(k) * threads + t));
    if (lv.seg_off[b + 1] - lv.seg_off[b] == 1) store16(buckets + b, sum);
    else store16(parts + lv.part_off[b] + j, sum);
  }
}

}  // namespace cuzk::msm::detail
