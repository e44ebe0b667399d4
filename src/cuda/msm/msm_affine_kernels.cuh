// SPDX-License-Identifier: Apache-2.0
#pragma once
// Level 0 of the G1 bucket sums by batch-affine additions (src/cuda/msm/msm.cu
// takes it for random-scalar MSMs when tuning::msm::affine_by_default or
// CUZK_MSM_AFFINE asks; msm_kernels.cuh has the XYZZ version and the
// bookkeeping both share).
//
// Why: level 0 is nearly all of a large MSM (568 of the 741 ms of a 2^27
// MSM on the H100, 2026-12-06), and it is bound by field multiplications:
// an XYZZ mixed addition is 8M + 2S, an affine one 5M + 1S and a share of
// one inversion (cuzk/msm/detail/affine_rounds.cuh has the rule and its
// costs). The first version of this kernel ran each round as two passes over
// its K segments, every step waiting on dependent loads, ~480 bytes per
// addition through global and local memory at 128 registers: up to 5%
// slower than the XYZZ loop at 2^26-2^27 on the H200 and far slower at 2^22
// (bench/RESULTS.md, 2026-12-03). This one weaves the two passes into one
// and stages each step's data into shared memory by cp.async a step ahead
// (affine_thread_memory), at the XYZZ kernel's 168 registers.
// Memory per addition: the point and the next point's x (144 bytes of
// bases), the accumulator read and written (192), the prefix product
// written and read (96), all coalesced across a warp except the bases.
// Shared memory per block: the staging rows (288 bytes a thread), two
// staged entries and each slot's position and end (8 bytes a slot).
// At the end each accumulator is written like the XYZZ kernel's sums (a
// bucket's sum or a partial for the next level), so the later levels and
// the window sums are unchanged. Included by msm.cu only.

#include <cstdint>

#include <cuzk/ff/detail/cuda_inverse.cuh>
#include <cuzk/msm/detail/affine_rounds.cuh>

#include "msm_kernels.cuh"

namespace cuzk::msm::detail {

/// Entry |v| of a bucket's list as a point: the base, negated when the
/// digit was negative.
__device__ __forceinline__ affine_d<fp_d> entry_point(const affine_d<fp_d>* bases, std::uint32_t v) {
  affine_d<fp_d> q = load16_ro(bases + (v & ~sign_bit));
  if (v & sign_bit) q.y = -q.y;
  return q;
}

/// acc + q by the complete formula (add_complete_affine), out of line: the
/// rare additions a batch cannot take stay out of the hot loop's registers.
__device__ __noinline__ affine_d<fp_d> add_outside_batch(const affine_d<fp_d>& acc, const affine_d<fp_d>& q) {
  return add_complete_affine(acc, q, [](const fp_d& a) { return gpu::inverse(a); });
}

/// One thread's memory for run_affine_rounds (cuzk/msm/detail/
/// affine_rounds.cuh): accumulators and prefix products in global memory,
/// slot k of thread t at [k * threads + t] (a warp's accesses contiguous);
/// each slot's position and end in shared memory; one staging slot per
/// thread in shared memory, rows of 16 bytes [row * blockDim.x + tid] (a
/// warp's 16-byte accesses hit distinct banks) and two 4-byte entries,
/// filled by cp.async.
struct affine_thread_memory {
  // staging rows: accumulator, point, next point's x, prefix product
  static constexpr unsigned acc_row = 0, q_row = 6, qn_row = 12, prefix_row = 15, rows = 18;

  const affine_d<fp_d>* bases;
  const std::uint32_t* entries;
  affine_d<fp_d>* accs;
  fp_d* prefixes;
  std::uint32_t threads, t;
  std::uint32_t *cur_, *end_;     // shared: [k * blockDim.x + threadIdx.x]
  uint4* stage_;                  // shared: this thread's column of the rows
  std::uint32_t* stage_entries_;  // shared: this thread's two entries, blockDim.x apart
  std::uint32_t staged_v1 = 0;
  bool staged_has_next = false;

  __device__ __forceinline__ std::uint32_t entry(std::uint32_t i) const { return entries[i]; }
  __device__ __forceinline__ affine_d<fp_d> point(std::uint32_t v) const { return entry_point(bases, v); }
  __device__ __forceinline__ fp_d point_x(std::uint32_t v) const { return load16_ro(&bases[v & ~sign_bit].x); }
  __device__ __forceinline__ affine_d<fp_d>* acc_at(unsigned k) const { return accs + std::size_t(k) * threads + t; }
  __device__ __forceinline__ fp_d* prefix_at(unsigned k) const { return prefixes + std::size_t(k) * threads + t; }
  __device__ __forceinline__ affine_d<fp_d> load_acc(unsigned k) const { return load16(acc_at(k)); }
  __device__ __forceinline__ void store_acc(unsigned k, const affine_d<fp_d>& a) const { store16(acc_at(k), a); }
  __device__ __forceinline__ void store_prefix(unsigned k, const fp_d& p) const { store16(prefix_at(k), p); }
  __device__ __forceinline__ std::uint32_t cur(unsigned k) const { return cur_[k * blockDim.x + threadIdx.x]; }
  __device__ __forceinline__ void set_cur(unsigned k, std::uint32_t c) const { cur_[k * blockDim.x + threadIdx.x] = c; }
  __device__ __forceinline__ std::uint32_t end(unsigned k) const { return end_[k * blockDim.x + threadIdx.x]; }
  __device__ __forceinline__ void set_end(unsigned k, std::uint32_t e) const { end_[k * blockDim.x + threadIdx.x] = e; }
  __device__ __forceinline__ fp_d invert(const fp_d& a) const { return gpu::inverse(a); }
  __device__ __forceinline__ affine_d<fp_d> outside(const affine_d<fp_d>& acc, const affine_d<fp_d>& q) const {
    return add_outside_batch(acc, q);
  }

  /// Whether slot k has an entry after its entry c.
  __device__ __forceinline__ bool has_after(unsigned k, std::uint32_t c) const { return c + 1 < end(k); }
  __device__ __forceinline__ step_entries load_entries(unsigned k) const {
    step_entries e;
    const std::uint32_t c = cur(k);
    e.has_next = has_after(k, c);
    e.v1 = entries[c];
    e.v2 = e.has_next ? entries[c + 1] : 0u;
    return e;
  }
  __device__ __forceinline__ affine_step<fp_d> load_step(unsigned k, const step_entries& e) const {
    affine_step<fp_d> st;
    st.acc = load_acc(k);
    st.q = point(e.v1);
    st.qn_x = e.has_next ? point_x(e.v2) : fp_d::zero();
    st.prefix = load16(prefix_at(k));
    return st;
  }

  /// |n| 16-byte units from |src| into staging rows [row, row + n).
  __device__ __forceinline__ void copy_rows(unsigned row, const void* src, unsigned n) const {
    const uint4* s = static_cast<const uint4*>(src);
#pragma unroll
    for (unsigned i = 0; i < n; ++i) {
      const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(stage_ + (row + i) * blockDim.x));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(s + i) : "memory");
    }
  }
  /// entries[i] into this thread's entry |j| of the staging area.
  __device__ __forceinline__ void copy_entry(unsigned j, std::uint32_t i) const {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(stage_entries_ + j * blockDim.x));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(entries + i) : "memory");
  }
  __device__ __forceinline__ void stage(unsigned k, const step_entries& e, bool then, unsigned k2) {
    copy_rows(acc_row, acc_at(k), 6);
    copy_rows(q_row, bases + (e.v1 & ~sign_bit), 6);
    if (e.has_next) copy_rows(qn_row, &bases[e.v2 & ~sign_bit].x, 3);
    copy_rows(prefix_row, prefix_at(k), 3);
    staged_v1 = e.v1;
    if (then) {
      const std::uint32_t c = cur(k2);
      staged_has_next = has_after(k2, c);
      copy_entry(0, c);
      if (staged_has_next) copy_entry(1, c + 1);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  template <class T>
  __device__ __forceinline__ T rows_as(unsigned row) const {
    static_assert(sizeof(T) % 16 == 0);
    T r;
    uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 16; ++i) d[i] = stage_[(row + i) * blockDim.x];
    return r;
  }
  __device__ __forceinline__ affine_step<fp_d> take_staged() const {
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    affine_step<fp_d> st;
    st.acc = rows_as<affine_d<fp_d>>(acc_row);
    st.q = rows_as<affine_d<fp_d>>(q_row);
    if (staged_v1 & sign_bit) st.q.y = -st.q.y;
    st.qn_x = rows_as<fp_d>(qn_row);  // stale when the segment has no next point: unused then
    st.prefix = rows_as<fp_d>(prefix_row);
    return st;
  }
  /// After take_staged (its wait covers them).
  __device__ __forceinline__ step_entries take_entries() const {
    step_entries e;
    e.has_next = staged_has_next;
    e.v1 = stage_entries_[0];
    e.v2 = staged_has_next ? stage_entries_[blockDim.x] : 0u;
    return e;
  }
};

/// Shared memory of accumulate_affine_kernel<K> per block.
template <unsigned K>
constexpr std::size_t affine_shared_bytes = std::size_t(tune::affine_threads) *
                                            (affine_thread_memory::rows * 16 + (2 * K + 2) * sizeof(std::uint32_t));

/// Level 0 by batch-affine additions: thread t sums the K segments
/// order[t K + k] (segments sorted longest first, so its K have nearly
/// equal lengths, as have its warp's) by run_affine_rounds, then writes
/// each sum where the XYZZ kernel puts it (a bucket's sum or a partial for
/// the next level), so the later levels and the window sums are unchanged.
template <unsigned K>
__global__ void __launch_bounds__(tune::affine_threads, tune::affine_min_blocks)
    accumulate_affine_kernel(const affine_d<fp_d>* __restrict__ bases, const std::uint32_t* __restrict__ entries,
                             const std::uint32_t* __restrict__ order, std::uint32_t bound, level_view lv,
                             affine_d<fp_d>* __restrict__ accs, fp_d* __restrict__ prefixes,
                             xyzz_d<fp_d>* __restrict__ buckets, xyzz_d<fp_d>* __restrict__ parts) {
  static_assert(K >= 1 && K <= 32, "one bit per segment in a 32-bit mask");
  extern __shared__ uint4 affine_shared[];
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t threads = gridDim.x * blockDim.x;
  const std::uint32_t total = lv.seg_off[lv.nb];
  auto* pos = reinterpret_cast<std::uint32_t*>(affine_shared + affine_thread_memory::rows * blockDim.x);
  affine_thread_memory m{bases,
                         entries,
                         accs,
                         prefixes,
                         threads,
                         t,
                         pos,
                         pos + K * blockDim.x,
                         affine_shared + threadIdx.x,
                         pos + 2 * K * blockDim.x + threadIdx.x};
  fp_d prod = fp_d::one();
  unsigned mask = 0;
#pragma unroll 1
  for (unsigned k = 0; k < K; ++k) {
    const std::uint32_t idx = t * K + k;
    const std::uint32_t s = idx < bound ? order[idx] : total;
    m.set_cur(k, 0);
    m.set_end(k, 0);
    if (s >= total) continue;
    const std::uint32_t b = find_bucket(lv.seg_off, lv.nb, s);
    const std::uint32_t j = s - lv.seg_off[b];
    const std::uint32_t begin = lv.off[b] + j * lv.cap;
    m.set_end(k, min(begin + lv.cap, lv.off[b + 1]));
    start_segment<fp_d>(m, k, begin, prod, mask);
  }
  run_affine_rounds<fp_d>(m, prod, mask);
#pragma unroll 1
  for (unsigned k = 0; k < K; ++k) {
    const std::uint32_t idx = t * K + k;
    const std::uint32_t s = idx < bound ? order[idx] : total;
    if (s >= total) continue;
    const std::uint32_t b = find_bucket(lv.seg_off, lv.nb, s);
    const std::uint32_t j = s - lv.seg_off[b];
    const xyzz_d<fp_d> sum = xyzz_d<fp_d>::from_affine(m.load_acc(k));
    if (lv.seg_off[b + 1] - lv.seg_off[b] != 1) store16(parts + lv.part_off[b] + j, sum);
    else if (lv.accumulate) store16(buckets + b, load16(buckets + b) + sum);  // a held MSM's later chunk
    else store16(buckets + b, sum);
  }
}

}  // namespace cuzk::msm::detail
