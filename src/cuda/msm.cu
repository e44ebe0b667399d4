// SPDX-License-Identifier: Apache-2.0
// G1 and G2 Pippenger MSM on the GPU: signed windows, CUB radix sort into
// buckets, segmented XYZZ bucket sums, parallel bucket reduction, host-side
// window combination. API, method summary and memory: cuzk/msm/msm_gpu.hpp.
// One template over the device field (fp_d for G1, fp2_d for G2), explicitly
// instantiated for the two groups at the end of this file.
//
// Per window w (c-bit windows, B = 2^(c-1) buckets, G = points_per_thread):
//  1. digits_kernel: digit d_w of every scalar (signed recoding, carries
//     recomputed from window 0 upwards: O(w) shifts per scalar, no storage),
//     written as key |d_w| and value index | (d_w < 0) << 31.
//  2. cub::DeviceRadixSort::SortPairs on the c key bits.
//  3. cub::DeviceRunLengthEncode::Encode: the distinct keys (buckets, key 0 =
//     digit 0 included), their counts, the number of runs; an exclusive scan
//     gives each run's offset in the sorted order.
//  4. Segmented tree sum. Level 0: run k is cut into ceil(count_k / G)
//     segments; one thread per segment adds its <= G affine points (negated
//     for negative digits) into an XYZZ partial sum (mixed additions,
//     8M + 2S). Each further level cuts the partial sums of every run again
//     into groups of G (general XYZZ additions, 12M + 2S) until every run
//     has one sum; the number of levels is fixed by n (ceil(log_G n)), so no
//     host round trip is needed. The key-0 run is skipped (its sums are the
//     point at infinity): zero scalars cost a sort slot and nothing else.
//     The digit-1 bucket of window 0 (scalars equal to 1, most of a Filecoin
//     witness) is summed by the same segmented tree, so it never serialises
//     on one thread. A thread finds its run by binary search over the
//     level's offsets.
//  5. scatter_kernel puts each run's sum into the window's bucket array
//     (B XYZZ points, digit d at d - 1, zero-filled = infinity first).
// Then reduce_buckets_kernel, W x (TT / RT) blocks of RT threads: thread t of
// a window owns L = B / TT consecutive buckets d_lo .. d_lo + L - 1 and forms
// sum_d (d - d_lo + 1) S_d by running sums (2L additions) plus
// (d_lo - 1) * sum_d S_d (double-and-add, <= c - 1 doublings); a
// shared-memory tree sums each block. The host adds the block sums of each
// window and combines windows from the top (c doublings each).
//
// Invariants: scalars are Montgomery Fr, converted once to canonical
// integers on the device (a Montgomery multiplication by 1) into the
// workspace (the caller's scalars, host or device, are never modified);
// bases are affine with infinity as x = y = 0 (skipped by the complete mixed
// addition); the device structures are byte-identical to ec::affine<F> and
// ec::xyzz<F> (static_asserts), so results are copied back with memcpy.
// Every addition is complete (handles infinity, P == Q, P == -Q).
// Cost for n terms, W = ceil(256/c) windows: ~W n mixed additions (minus
// zero digits) + W (n/G) XYZZ additions + W (2B + 2c) XYZZ operations for the
// reduction, + W radix sorts of n (key, value) pairs. G2 operations cost ~3x
// G1 ones (Fp2 Karatsuba) and move twice the bytes.

#include <cuzk/msm/msm_gpu.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuzk/ec/xyzz.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_fp2.cuh>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>
#include <cuzk/gpu/tuning.hpp>

namespace cuzk::msm {
namespace {

using ff::fr;
using gpu::fp_d;
using gpu::fr_d;
using tune = gpu::tuning::msm;

constexpr unsigned min_explicit_window = 2;
constexpr unsigned max_explicit_window = 20;
constexpr std::uint32_t sign_bit = 0x80000000u;

// ---- device points -------------------------------------------------------------

template <class Fd>
struct affine_d {
  Fd x, y;
};
template <class Fd>
struct xyzz_d {
  Fd x, y, zz, zzz;
};

/// Host field -> device field.
template <class F>
struct device_field;
template <>
struct device_field<ff::fp> {
  using type = fp_d;
};
template <>
struct device_field<ff::fp2> {
  using type = gpu::fp2_d;
};
template <class F>
using fd_of = typename device_field<F>::type;

static_assert(sizeof(affine_d<fp_d>) == sizeof(ec::g1_affine) &&
              alignof(affine_d<fp_d>) <= alignof(ec::g1_affine));
static_assert(sizeof(xyzz_d<fp_d>) == sizeof(ec::xyzz<ff::fp>) &&
              alignof(xyzz_d<fp_d>) <= alignof(ec::xyzz<ff::fp>));
static_assert(sizeof(affine_d<gpu::fp2_d>) == sizeof(ec::g2_affine) &&
              alignof(affine_d<gpu::fp2_d>) <= alignof(ec::g2_affine));
static_assert(sizeof(xyzz_d<gpu::fp2_d>) == sizeof(ec::xyzz<ff::fp2>) &&
              alignof(xyzz_d<gpu::fp2_d>) <= alignof(ec::xyzz<ff::fp2>));

template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> infinity() {
  xyzz_d<Fd> r;
  r.x = Fd::zero(), r.y = Fd::zero(), r.zz = Fd::zero(), r.zzz = Fd::zero();
  return r;
}
template <class Fd>
__device__ __forceinline__ bool is_infinity(const xyzz_d<Fd>& p) {
  return p.zz.is_zero();
}
template <class Fd>
__device__ __forceinline__ bool is_infinity(const affine_d<Fd>& q) {
  return q.x.is_zero() && q.y.is_zero();
}

// The formulas of ec/xyzz.hpp (EFD g1p/auto-shortw-xyzz, a = 0), same order.

/// dbl-2008-s-1, 6M + 3S.
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> dbl_impl(const xyzz_d<Fd>& p) {
  if (is_infinity(p)) return p;
  const Fd u = p.y.dbl();
  const Fd v = u.sqr();
  const Fd w = u * v;
  const Fd s = p.x * v;
  const Fd x2 = p.x.sqr();
  const Fd m = x2.dbl() + x2;
  xyzz_d<Fd> r;
  r.x = m.sqr() - s.dbl();
  r.y = m * (s - r.x) - w * p.y;
  r.zz = v * p.zz;
  r.zzz = w * p.zzz;
  return r;
}

/// mdbl-2008-s-1, 4M + 3S (q not infinity).
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> dbl_affine_impl(const affine_d<Fd>& q) {
  const Fd u = q.y.dbl();
  const Fd v = u.sqr();
  const Fd w = u * v;
  const Fd s = q.x * v;
  const Fd x2 = q.x.sqr();
  const Fd m = x2.dbl() + x2;
  xyzz_d<Fd> r;
  r.x = m.sqr() - s.dbl();
  r.y = m * (s - r.x) - w * q.y;
  r.zz = v;
  r.zzz = w;
  return r;
}

/// Complete mixed addition (madd-2008-s, 8M + 2S in the generic case).
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> add_affine_impl(const xyzz_d<Fd>& p, const affine_d<Fd>& q) {
  if (is_infinity(q)) return p;
  if (is_infinity(p)) {
    xyzz_d<Fd> r;
    r.x = q.x, r.y = q.y, r.zz = Fd::one(), r.zzz = Fd::one();
    return r;
  }
  const Fd u2 = q.x * p.zz;
  const Fd s2 = q.y * p.zzz;
  const Fd pd = u2 - p.x;
  const Fd rd = s2 - p.y;
  if (pd.is_zero()) return rd.is_zero() ? dbl_affine_impl(q) : infinity<Fd>();
  const Fd pp = pd.sqr();
  const Fd ppp = pd * pp;
  const Fd qq = p.x * pp;
  xyzz_d<Fd> r;
  r.x = rd.sqr() - ppp - qq.dbl();
  r.y = rd * (qq - r.x) - p.y * ppp;
  r.zz = p.zz * pp;
  r.zzz = p.zzz * ppp;
  return r;
}

/// Complete addition (add-2008-s, 12M + 2S in the generic case).
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> add_impl(const xyzz_d<Fd>& p, const xyzz_d<Fd>& q) {
  if (is_infinity(p)) return q;
  if (is_infinity(q)) return p;
  const Fd u1 = p.x * q.zz;
  const Fd u2 = q.x * p.zz;
  const Fd s1 = p.y * q.zzz;
  const Fd s2 = q.y * p.zzz;
  const Fd pd = u2 - u1;
  const Fd rd = s2 - s1;
  if (pd.is_zero()) return rd.is_zero() ? dbl_impl(p) : infinity<Fd>();
  const Fd pp = pd.sqr();
  const Fd ppp = pd * pp;
  const Fd qq = u1 * pp;
  xyzz_d<Fd> r;
  r.x = rd.sqr() - ppp - qq.dbl();
  r.y = rd * (qq - r.x) - s1 * ppp;
  r.zz = p.zz * q.zz * pp;
  r.zzz = p.zzz * q.zzz * ppp;
  return r;
}

// G1 operations are inlined into the kernels (registers, no call overhead).
// G2 ones are out-of-line functions except in the level-0 accumulation
// loop, which does nearly all of an MSM's additions: a G2 addition is ~25 k
// instructions, and inlining every call site of every kernel made this
// translation unit take tens of minutes in cicc. Measured on the H200 with
// everything out of line: G2 2^24 1583 ms, about 2x the G1 time times the
// Fp2/Fp cost ratio, so the calls (points through local memory) did cost.
template <class Fd>
__device__ __noinline__ xyzz_d<Fd> dbl_call(const xyzz_d<Fd>& p) {
  return dbl_impl(p);
}
template <class Fd>
__device__ __noinline__ xyzz_d<Fd> add_affine_call(const xyzz_d<Fd>& p, const affine_d<Fd>& q) {
  return add_affine_impl(p, q);
}
template <class Fd>
__device__ __noinline__ xyzz_d<Fd> add_call(const xyzz_d<Fd>& p, const xyzz_d<Fd>& q) {
  return add_impl(p, q);
}
template <class Fd>
constexpr bool inline_points = std::is_same_v<Fd, fp_d>;

template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> dbl(const xyzz_d<Fd>& p) {
  if constexpr (inline_points<Fd>) return dbl_impl(p);
  else return dbl_call(p);
}
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> add_affine(const xyzz_d<Fd>& p, const affine_d<Fd>& q) {
  if constexpr (inline_points<Fd>) return add_affine_impl(p, q);
  else return add_affine_call(p, q);
}
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> add(const xyzz_d<Fd>& p, const xyzz_d<Fd>& q) {
  if constexpr (inline_points<Fd>) return add_impl(p, q);
  else return add_call(p, q);
}

/// k * p for a small k (double-and-add from the top bit).
template <class Fd>
__device__ xyzz_d<Fd> mul_small(const xyzz_d<Fd>& p, std::uint32_t k) {
  xyzz_d<Fd> r = infinity<Fd>();
  if (k == 0) return r;
  for (int bit = 31 - __clz(k); bit >= 0; --bit) {
    r = dbl(r);
    if ((k >> bit) & 1) r = add(r, p);
  }
  return r;
}

// 16-byte vector copies of whole structures (device arrays are 16-byte aligned
// and all point sizes are multiples of 16).
template <class T>
__device__ __forceinline__ T load16(const T* p) {
  static_assert(sizeof(T) % 16 == 0);
  T r;
  const uint4* s = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (unsigned i = 0; i < sizeof(T) / 16; ++i) d[i] = __ldg(s + i);
  return r;
}
template <class T>
__device__ __forceinline__ void store16(T* p, const T& v) {
  static_assert(sizeof(T) % 16 == 0);
  const uint4* s = reinterpret_cast<const uint4*>(&v);
  uint4* d = reinterpret_cast<uint4*>(p);
#pragma unroll
  for (unsigned i = 0; i < sizeof(T) / 16; ++i) d[i] = s[i];
}

// ---- kernels ---------------------------------------------------------------------

/// Montgomery -> canonical (a * 1 / R); |d_in| may equal |d_out|.
__global__ void to_canonical_kernel(const fr_d* d_in, fr_d* d_out, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_d one_raw = fr_d::zero();
  one_raw.l[0] = 1;
  d_out[i] = d_in[i] * one_raw;
}

/// Bits [bit, bit + c) of the 256-bit canonical scalar |s| (c <= 32).
__device__ __forceinline__ std::uint32_t window_bits_at(const std::uint32_t* s, unsigned bit,
                                                        unsigned c) {
  const unsigned word = bit / 32, sh = bit % 32;
  if (word >= 8) return 0;
  std::uint64_t v = s[word];
  if (word + 1 < 8) v |= std::uint64_t(s[word + 1]) << 32;
  return std::uint32_t(v >> sh) & ((1u << c) - 1);
}

/// Signed digit of window |w| for every term j < n: key |d|, value i | sign,
/// where i = d_map[j] (the term's scalar and base index) or j without a map.
__global__ void digits_kernel(const fr_d* __restrict__ d_canon,
                              const std::uint32_t* __restrict__ d_map, std::uint32_t n,
                              unsigned w, unsigned c, std::uint32_t* d_keys,
                              std::uint32_t* d_vals) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const std::uint32_t i = d_map ? d_map[j] : j;
  const fr_d s = d_canon[i];
  const std::int32_t half = std::int32_t(1) << (c - 1);
  std::int32_t carry = 0, d = 0;
  for (unsigned j = 0; j <= w; ++j) {
    d = std::int32_t(window_bits_at(s.l, j * c, c)) + carry;
    carry = 0;
    if (d > half) {
      d -= std::int32_t(1) << c;
      carry = 1;
    }
  }
  d_keys[j] = std::uint32_t(d < 0 ? -d : d);
  d_vals[j] = i | (d < 0 ? sign_bit : 0u);
}

/// Scalar classes for the split: d_big[i] = 1 unless the canonical scalar
/// is 0 or 1, d_one[i] = 1 when it is 1.
__global__ void classify_kernel(const fr_d* __restrict__ d_canon, std::uint32_t n,
                                std::uint8_t* __restrict__ d_big,
                                std::uint8_t* __restrict__ d_one) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const fr_d s = d_canon[i];
  std::uint32_t high = 0;
  for (unsigned k = 1; k < 8; ++k) high |= s.l[k];
  const bool small = high == 0 && s.l[0] <= 1;
  d_big[i] = small ? 0 : 1;
  d_one[i] = (small && s.l[0] == 1) ? 1 : 0;
}

/// The run arrays of a single run (key 1) of |n| terms: the sum of the
/// points listed in the sorted-values array, by the same segmented tree.
__global__ void single_run_kernel(std::uint32_t* d_run_keys, std::uint32_t* d_cnt,
                                  std::uint32_t* d_num_runs, std::uint32_t n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    d_run_keys[0] = 1;
    d_cnt[0] = n;
    *d_num_runs = 1;
  }
}

/// cnt_out[k] = ceil(cnt_in[k] / G) for every slot (zero slots stay zero).
__global__ void next_counts_kernel(const std::uint32_t* d_cnt_in, std::uint32_t* d_cnt_out,
                                   std::uint32_t slots) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < slots) d_cnt_out[k] = (d_cnt_in[k] + tune::points_per_thread - 1) / tune::points_per_thread;
}

/// The run k whose output range [off[k], off[k] + cnt[k]) holds position o.
__device__ __forceinline__ std::uint32_t find_run(const std::uint32_t* d_off, std::uint32_t runs,
                                                  std::uint32_t o) {
  std::uint32_t lo = 0, hi = runs;  // d_off[lo] <= o < d_off[hi] (d_off[runs] = total)
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (d_off[mid] <= o)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

struct level_view {
  const std::uint32_t* cnt_in;
  const std::uint32_t* off_in;
  const std::uint32_t* cnt_out;
  const std::uint32_t* off_out;
  const std::uint32_t* num_runs;
};

/// Level 0: one thread per segment of <= G sorted points of one run.
template <class Fd>
__global__ void __launch_bounds__(tune::accumulate_threads)
    accumulate_points_kernel(const affine_d<Fd>* __restrict__ d_bases,
                             const std::uint32_t* __restrict__ d_sorted_vals,
                             const std::uint32_t* __restrict__ d_run_keys, level_view lv,
                             xyzz_d<Fd>* d_out) {
  const std::uint32_t o = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t runs = *lv.num_runs;
  const std::uint32_t total = lv.off_out[runs - 1] + lv.cnt_out[runs - 1];
  if (o >= total) return;
  const std::uint32_t k = find_run(lv.off_out, runs, o);
  xyzz_d<Fd> acc = infinity<Fd>();
  if (d_run_keys[k] != 0) {  // digit 0: nothing to add
    const std::uint32_t j = o - lv.off_out[k];
    const std::uint32_t begin = lv.off_in[k] + j * tune::points_per_thread;
    const std::uint32_t end =
        lv.off_in[k] + min((j + 1) * tune::points_per_thread, lv.cnt_in[k]);
    for (std::uint32_t t = begin; t < end; ++t) {
      const std::uint32_t v = d_sorted_vals[t];
      affine_d<Fd> q = load16(d_bases + (v & ~sign_bit));
      if (v & sign_bit) q.y = -q.y;
      acc = add_affine_impl(acc, q);  // the hot loop: inlined for G2 too
    }
  }
  store16(d_out + o, acc);
}

/// Levels >= 1: one thread per group of <= G partial sums of one run.
template <class Fd>
__global__ void __launch_bounds__(tune::accumulate_threads)
    accumulate_sums_kernel(const xyzz_d<Fd>* __restrict__ d_in, level_view lv,
                           xyzz_d<Fd>* d_out) {
  const std::uint32_t o = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t runs = *lv.num_runs;
  const std::uint32_t total = lv.off_out[runs - 1] + lv.cnt_out[runs - 1];
  if (o >= total) return;
  const std::uint32_t k = find_run(lv.off_out, runs, o);
  const std::uint32_t j = o - lv.off_out[k];
  const std::uint32_t begin = lv.off_in[k] + j * tune::points_per_thread;
  const std::uint32_t end = lv.off_in[k] + min((j + 1) * tune::points_per_thread, lv.cnt_in[k]);
  xyzz_d<Fd> acc = load16(d_in + begin);
  for (std::uint32_t t = begin + 1; t < end; ++t) acc = add(acc, load16(d_in + t));
  store16(d_out + o, acc);
}

/// buckets[key - 1] = the run's sum, for every run with key != 0.
template <class Fd>
__global__ void scatter_kernel(const xyzz_d<Fd>* __restrict__ d_sums,
                               const std::uint32_t* __restrict__ d_off,
                               const std::uint32_t* __restrict__ d_run_keys,
                               const std::uint32_t* __restrict__ d_num_runs,
                               xyzz_d<Fd>* d_buckets) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= *d_num_runs) return;
  const std::uint32_t key = d_run_keys[k];
  if (key != 0) store16(d_buckets + (key - 1), load16(d_sums + d_off[k]));
}

/// sum_d d * S_d over a window's buckets: see the file comment. Grid
/// (blocks per window, windows), RT threads, RT * sizeof(xyzz) bytes of
/// shared memory.
template <class Fd>
__global__ void __launch_bounds__(tune::reduce_threads)
    reduce_buckets_kernel(const xyzz_d<Fd>* __restrict__ d_buckets, unsigned lg_b, unsigned lg_l,
                          xyzz_d<Fd>* d_block_sums) {
  extern __shared__ uint4 smem_raw[];
  xyzz_d<Fd>* sh = reinterpret_cast<xyzz_d<Fd>*>(smem_raw);
  const unsigned w = blockIdx.y;
  const std::uint32_t chunk = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t first = chunk << lg_l;  // bucket position of digit first + 1
  const xyzz_d<Fd>* b = d_buckets + (std::size_t(w) << lg_b);
  xyzz_d<Fd> running = infinity<Fd>(), acc = infinity<Fd>();
  for (std::uint32_t p = first + (1u << lg_l); p-- > first;) {
    running = add(running, load16(b + p));
    acc = add(acc, running);
  }
  // acc = sum (d - d_lo + 1) S_d with d_lo = first + 1; add (d_lo - 1) * sum S_d
  acc = add(acc, mul_small(running, first));
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) sh[threadIdx.x] = add(sh[threadIdx.x], sh[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) d_block_sums[std::size_t(w) * gridDim.x + blockIdx.x] = sh[0];
}

// ---- host side --------------------------------------------------------------------

unsigned blocks_for(std::size_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

unsigned lg_floor(std::size_t n) {
  unsigned lg = 0;
  while ((std::size_t(2) << lg) <= n) ++lg;
  return lg;
}

struct shape {
  std::size_t n;
  unsigned c, windows, lg_b;
  std::size_t buckets;         // B = 2^(c-1)
  std::size_t slots;           // B + 1 runs at most (keys 0..B)
  std::size_t partials;        // bound on partial sums per level
  unsigned levels_after;       // XYZZ levels after level 0
  unsigned lg_tt, lg_rt, lg_l; // reduction: threads per window, per block, buckets per thread

  shape(std::size_t n_, unsigned c_, std::size_t point_bytes) : n(n_), c(c_) {
    windows = (256 + c - 1) / c;
    lg_b = c - 1;
    buckets = std::size_t(1) << lg_b;
    slots = buckets + 1;
    const std::size_t g = tune::points_per_thread;
    partials = (n + g - 1) / g + slots;
    levels_after = 0;
    for (std::size_t m = (n + g - 1) / g; m > 1; m = (m + g - 1) / g) ++levels_after;
    lg_tt = std::min(lg_b, 10u);
    // the block's shared-memory tree holds RT points: stay within 48 KiB
    lg_rt = std::min({lg_tt, lg_floor(tune::reduce_threads), lg_floor((48u << 10) / point_bytes)});
    lg_l = lg_b - lg_tt;
  }
  std::size_t block_sums() const { return std::size_t(windows) << (lg_tt - lg_rt); }
};

unsigned choose_window(std::size_t n, unsigned requested) {
  if (requested) {
    if (requested < min_explicit_window || requested > max_explicit_window)
      throw std::invalid_argument("cuzk::msm gpu: window_bits " + std::to_string(requested) +
                                  " outside [2, 20]");
    return requested;
  }
  return gpu_default_window_bits(n);
}

template <class T>
void grow(gpu::device_buffer<T>& b, std::size_t n) {
  if (b.size() < n) {
    b.reset();  // free first: the old and new buffers need not coexist
    b = gpu::device_buffer<T>(n);
  }
}

}  // namespace

unsigned gpu_default_window_bits(std::size_t n) {
  // First guess, not tuned: W (n + 2^c) additions is smallest near c = lg n - 3.
  const int lg = int(lg_floor(std::max<std::size_t>(n, 1)));
  return unsigned(std::clamp(lg - 3, int(tune::min_window), int(tune::max_window)));
}

// ---- workspace ---------------------------------------------------------------------

struct gpu_msm_workspace::impl {
  int device;
  // scratch, grown to the largest (n, c, point size) seen; points as raw 16-byte units
  gpu::device_buffer<fr> scalars;
  gpu::device_buffer<std::uint32_t> keys_in, vals_in, keys_out, vals_out;
  gpu::device_buffer<std::uint32_t> run_keys, num_runs, cnt_a, off_a, cnt_b, off_b;
  gpu::device_buffer<uint4> part_x, part_y, buckets, block_sums;
  gpu::device_buffer<unsigned char> temp;
  // the split: scalar classes, the big / one index lists, their counts,
  // the sum of the ones' bases (one XYZZ point, G2 size)
  gpu::device_buffer<std::uint8_t> flags;
  gpu::device_buffer<std::uint32_t> big_idx, one_idx, split_counts;
  gpu::device_buffer<uint4> ones_sum;

  explicit impl(int dev) : device(dev) {}

  static std::size_t cub_temp_bytes(const shape& sh, cudaStream_t s) {
    std::size_t sort_bytes = 0, rle_bytes = 0, scan_bytes = 0;
    const int n = int(sh.n);
    CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, sort_bytes, static_cast<std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), n, 0, int(sh.c), s));
    CUZK_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(
        nullptr, rle_bytes, static_cast<std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), n, s));
    CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes,
                                                  static_cast<std::uint32_t*>(nullptr),
                                                  static_cast<std::uint32_t*>(nullptr),
                                                  int(sh.slots), s));
    return std::max({sort_bytes, rle_bytes, scan_bytes});
  }

  void reserve(const shape& sh, std::size_t xyzz_bytes, cudaStream_t s) {
    grow(scalars, sh.n);
    for (auto* b : {&keys_in, &vals_in, &keys_out, &vals_out}) grow(*b, sh.n);
    for (auto* b : {&run_keys, &cnt_a, &off_a, &cnt_b, &off_b}) grow(*b, sh.slots);
    grow(num_runs, 1);
    const std::size_t u = xyzz_bytes / 16;
    grow(part_x, sh.partials * u);
    grow(part_y, sh.partials * u);
    grow(buckets, sh.buckets * sh.windows * u);
    grow(block_sums, sh.block_sums() * u);
    grow(temp, cub_temp_bytes(sh, s));
  }

  std::size_t bytes() const {
    return scalars.bytes() + keys_in.bytes() + vals_in.bytes() + keys_out.bytes() +
           vals_out.bytes() + run_keys.bytes() + num_runs.bytes() + cnt_a.bytes() +
           off_a.bytes() + cnt_b.bytes() + off_b.bytes() + part_x.bytes() + part_y.bytes() +
           buckets.bytes() + block_sums.bytes() + temp.bytes() + flags.bytes() +
           big_idx.bytes() + one_idx.bytes() + split_counts.bytes() + ones_sum.bytes();
  }

  /// sum_i scalars[i] * bases[i] over n terms. Scalars come from the host
  /// (|h_scalars|) or from device memory (|d_scalars|); |after_launch| runs
  /// once every kernel is queued, before the host waits (chunk streaming
  /// queues its next copy there).
  ///
  /// Split (n >= tune::split_min_terms): the scalars are classified once;
  /// zeros are dropped, the bases of the scalars equal to 1 are summed by
  /// one segmented tree (one mixed addition each, no sort), and the
  /// Pippenger windows run over the remaining terms only, through an index
  /// map. A Filecoin PoRep witness is ~98% zeros and ones, so its A, B and L
  /// MSMs sort ~2% of the terms. Costs one pass over the scalars, two CUB
  /// selects and one host round trip for the counts; when nearly every
  /// scalar is "big" (the H MSM) the map is not used.
  template <class F>
  ec::jacobian<F> run(const affine_d<fd_of<F>>* d_bases, std::size_t n, const fr* h_scalars,
                      const fr* d_scalars, unsigned window_bits, cudaStream_t s,
                      const std::function<void()>& after_launch = {}) {
    using Fd = fd_of<F>;
    using xyzz_t = xyzz_d<Fd>;
    if (n >= (std::size_t(1) << 31))
      throw std::invalid_argument("cuzk::msm gpu: at most 2^31 - 1 terms");
    if (n == 0) {
      if (after_launch) after_launch();
      return ec::jacobian<F>::identity();
    }
    const shape full(n, choose_window(n, window_bits), sizeof(xyzz_t));
    gpu::device_guard guard(device);
    reserve(full, sizeof(xyzz_t), s);
    const std::uint32_t n32 = std::uint32_t(n);
    fr_d* d_canon = reinterpret_cast<fr_d*>(scalars.data());
    if (h_scalars) {
      scalars.upload(h_scalars, n, s);
      to_canonical_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d_canon, d_canon, n32);
    } else {
      to_canonical_kernel<<<blocks_for(n, 256), 256, 0, s>>>(
          reinterpret_cast<const fr_d*>(d_scalars), d_canon, n32);
    }
    CUZK_CUDA_CHECK_LAUNCH();

    std::size_t n_big = n, n_one = 0;
    const std::uint32_t* d_map = nullptr;
    if (n >= tune::split_min_terms) {
      const auto [big, one] = split(d_canon, n, s);
      // a map costs a gather per window: use it only when it removes work
      if (big + one < n || one > 0) {
        n_big = big;
        n_one = one;
        d_map = big_idx.data();
      }
    }

    grow(ones_sum, sizeof(xyzz_t) / 16);
    xyzz_t* d_ones = reinterpret_cast<xyzz_t*>(ones_sum.data());
    if (n_one > 0) sum_listed<F>(d_bases, one_idx.data(), n_one, d_ones, s);

    ec::xyzz<F> acc = ec::xyzz<F>::identity();
    std::vector<ec::xyzz<F>> h_sums;
    std::size_t per_window = 0;
    unsigned c = 0, windows = 0;
    if (n_big > 0) {
      const shape sh(n_big, choose_window(n_big, window_bits), sizeof(xyzz_t));
      reserve(sh, sizeof(xyzz_t), s);
      pippenger_windows<F>(d_bases, d_canon, d_map, sh, s);
      const unsigned rt = 1u << sh.lg_rt;
      const dim3 grid(1u << (sh.lg_tt - sh.lg_rt), sh.windows);
      xyzz_t* d_block_sums = reinterpret_cast<xyzz_t*>(block_sums.data());
      reduce_buckets_kernel<Fd><<<grid, rt, rt * sizeof(xyzz_t), s>>>(
          reinterpret_cast<xyzz_t*>(buckets.data()), sh.lg_b, sh.lg_l, d_block_sums);
      CUZK_CUDA_CHECK_LAUNCH();
      per_window = grid.x;
      c = sh.c;
      windows = sh.windows;
      h_sums.resize(per_window * sh.windows);
      CUZK_CUDA_CHECK(cudaMemcpyAsync(h_sums.data(), d_block_sums,
                                      h_sums.size() * sizeof(xyzz_t), cudaMemcpyDeviceToHost, s));
    }
    ec::xyzz<F> ones = ec::xyzz<F>::identity();
    if (n_one > 0)
      CUZK_CUDA_CHECK(
          cudaMemcpyAsync(&ones, d_ones, sizeof(xyzz_t), cudaMemcpyDeviceToHost, s));
    if (after_launch) after_launch();
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));

    for (unsigned w = windows; w-- > 0;) {
      for (unsigned k = 0; k < c; ++k) acc = acc.dbl();
      for (std::size_t b = 0; b < per_window; ++b) acc += h_sums[w * per_window + b];
    }
    acc += ones;
    return acc.to_jacobian();
  }

 private:
  /// Classifies the n canonical scalars: big_idx = indices of scalars other
  /// than 0 and 1, one_idx = indices of the scalars equal to 1 (both in
  /// increasing order); returns their counts (waits for them).
  std::pair<std::size_t, std::size_t> split(const fr_d* d_canon, std::size_t n, cudaStream_t s) {
    grow(flags, 2 * n);
    grow(big_idx, n);
    grow(one_idx, n);
    grow(split_counts, 2);
    const int ni = int(n);
    classify_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d_canon, std::uint32_t(n), flags.data(),
                                                      flags.data() + n);
    CUZK_CUDA_CHECK_LAUNCH();
    const thrust::counting_iterator<std::uint32_t> index(0);
    std::size_t tb = 0;
    CUZK_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, tb, index, flags.data(), big_idx.data(),
                                               split_counts.data(), ni, s));
    grow(temp, tb);
    tb = temp.size();
    CUZK_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.data(), tb, index, flags.data(),
                                               big_idx.data(), split_counts.data(), ni, s));
    tb = temp.size();
    CUZK_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.data(), tb, index, flags.data() + n,
                                               one_idx.data(), split_counts.data() + 1, ni, s));
    std::uint32_t counts[2] = {0, 0};
    CUZK_CUDA_CHECK(cudaMemcpyAsync(counts, split_counts.data(), sizeof(counts),
                                    cudaMemcpyDeviceToHost, s));
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
    return {counts[0], counts[1]};
  }

  /// *d_out = sum of bases[d_list[t]] over t < n (one run of the segmented
  /// tree: level 0 mixed additions, then XYZZ levels).
  template <class F>
  void sum_listed(const affine_d<fd_of<F>>* d_bases, const std::uint32_t* d_list, std::size_t n,
                  xyzz_d<fd_of<F>>* d_out, cudaStream_t s) {
    using Fd = fd_of<F>;
    using xyzz_t = xyzz_d<Fd>;
    const shape sh(n, tune::min_window, sizeof(xyzz_t));  // only n's levels are used
    CUZK_CUDA_CHECK(cudaMemsetAsync(cnt_a.data(), 0, sh.slots * sizeof(std::uint32_t), s));
    single_run_kernel<<<1, 1, 0, s>>>(run_keys.data(), cnt_a.data(), num_runs.data(),
                                      std::uint32_t(n));
    CUZK_CUDA_CHECK_LAUNCH();
    xyzz_t* result = accumulate_runs<F>(d_bases, d_list, sh, s);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(d_out, result, sizeof(xyzz_t), cudaMemcpyDeviceToDevice, s));
  }

  /// Sums every run described by run_keys / cnt_a / num_runs over the
  /// sorted values |d_vals| (level 0, then XYZZ levels); returns where the
  /// run sums are (run k's sum at offset off_b[k] after the call).
  template <class F>
  xyzz_d<fd_of<F>>* accumulate_runs(const affine_d<fd_of<F>>* d_bases,
                                    const std::uint32_t* d_vals, const shape& sh,
                                    cudaStream_t s) {
    using Fd = fd_of<F>;
    using xyzz_t = xyzz_d<Fd>;
    const std::size_t cap_temp = temp.size();
    const unsigned slot_blocks = blocks_for(sh.slots, 256);
    std::uint32_t *ca = cnt_a.data(), *oa = off_a.data(), *cb = cnt_b.data(), *ob = off_b.data();
    auto scan = [&](const std::uint32_t* in, std::uint32_t* out) {
      std::size_t tb = cap_temp;
      CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), tb, in, out, int(sh.slots), s));
    };
    auto next_level = [&]() {
      next_counts_kernel<<<slot_blocks, 256, 0, s>>>(ca, cb, std::uint32_t(sh.slots));
      CUZK_CUDA_CHECK_LAUNCH();
      scan(cb, ob);
    };
    scan(ca, oa);
    next_level();
    xyzz_t* px = reinterpret_cast<xyzz_t*>(part_x.data());
    xyzz_t* py = reinterpret_cast<xyzz_t*>(part_y.data());
    const unsigned acc_blocks = blocks_for(sh.partials, tune::accumulate_threads);
    accumulate_points_kernel<Fd><<<acc_blocks, tune::accumulate_threads, 0, s>>>(
        d_bases, d_vals, run_keys.data(), level_view{ca, oa, cb, ob, num_runs.data()}, px);
    CUZK_CUDA_CHECK_LAUNCH();
    for (unsigned lvl = 0; lvl < sh.levels_after; ++lvl) {
      std::swap(ca, cb);
      std::swap(oa, ob);
      next_level();
      accumulate_sums_kernel<Fd><<<acc_blocks, tune::accumulate_threads, 0, s>>>(
          px, level_view{ca, oa, cb, ob, num_runs.data()}, py);
      CUZK_CUDA_CHECK_LAUNCH();
      std::swap(px, py);
    }
    final_off = ob;
    return px;
  }

  /// Every window of the Pippenger part over sh.n terms (through |d_map|
  /// when given): digits, sort, runs, run sums, scatter into the buckets.
  template <class F>
  void pippenger_windows(const affine_d<fd_of<F>>* d_bases, const fr_d* d_canon,
                         const std::uint32_t* d_map, const shape& sh, cudaStream_t s) {
    using Fd = fd_of<F>;
    using xyzz_t = xyzz_d<Fd>;
    const std::uint32_t n32 = std::uint32_t(sh.n);
    xyzz_t* d_buckets = reinterpret_cast<xyzz_t*>(buckets.data());
    CUZK_CUDA_CHECK(cudaMemsetAsync(d_buckets, 0, sh.buckets * sh.windows * sizeof(xyzz_t), s));
    const std::size_t cap_temp = temp.size();
    const unsigned slot_blocks = blocks_for(sh.slots, 256);
    for (unsigned w = 0; w < sh.windows; ++w) {
      digits_kernel<<<blocks_for(sh.n, tune::digit_threads), tune::digit_threads, 0, s>>>(
          d_canon, d_map, n32, w, sh.c, keys_in.data(), vals_in.data());
      CUZK_CUDA_CHECK_LAUNCH();
      std::size_t temp_bytes = cap_temp;
      CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys_in.data(),
                                                      keys_out.data(), vals_in.data(),
                                                      vals_out.data(), int(sh.n), 0, int(sh.c), s));
      CUZK_CUDA_CHECK(cudaMemsetAsync(cnt_a.data(), 0, sh.slots * sizeof(std::uint32_t), s));
      temp_bytes = cap_temp;
      CUZK_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(temp.data(), temp_bytes, keys_out.data(),
                                                         run_keys.data(), cnt_a.data(),
                                                         num_runs.data(), int(sh.n), s));
      xyzz_t* sums = accumulate_runs<F>(d_bases, vals_out.data(), sh, s);
      scatter_kernel<Fd><<<slot_blocks, 256, 0, s>>>(sums, final_off, run_keys.data(),
                                                     num_runs.data(),
                                                     d_buckets + std::size_t(w) * sh.buckets);
      CUZK_CUDA_CHECK_LAUNCH();
    }
  }

  std::uint32_t* final_off = nullptr;  // offsets of the last accumulate_runs' sums

 public:
};

gpu_msm_workspace::gpu_msm_workspace(int device) : _impl(std::make_unique<impl>(device)) {}
gpu_msm_workspace::~gpu_msm_workspace() = default;
gpu_msm_workspace::gpu_msm_workspace(gpu_msm_workspace&&) noexcept = default;
gpu_msm_workspace& gpu_msm_workspace::operator=(gpu_msm_workspace&&) noexcept = default;
int gpu_msm_workspace::device() const { return _impl->device; }
std::size_t gpu_msm_workspace::bytes() const { return _impl->bytes(); }
void gpu_msm_workspace::release() {
  gpu::device_guard guard(_impl->device);
  *_impl = impl(_impl->device);
}

// ---- contexts ----------------------------------------------------------------------

template <class F>
struct gpu_msm_context_t<F>::impl {
  int device;
  cudaStream_t s;
  std::shared_ptr<gpu_msm_workspace> ws;
  gpu::device_buffer<ec::affine<F>> bases;
  // bases owned elsewhere (use_device_bases): |external| wins over |bases|
  std::shared_ptr<const void> external_owner;
  const ec::affine<F>* external = nullptr;
  std::size_t external_n = 0;
  // chunk streaming: two base buffers, a copy stream, one event per buffer
  gpu::device_buffer<ec::affine<F>> chunk_bufs[2];
  std::unique_ptr<gpu::stream> copy_stream;
  std::unique_ptr<gpu::event> copied[2];

  const affine_d<fd_of<F>>* d_bases() const {
    return reinterpret_cast<const affine_d<fd_of<F>>*>(external ? external : bases.data());
  }
  std::size_t n_bases() const { return external ? external_n : bases.size(); }
  void drop_external() {
    external = nullptr;
    external_n = 0;
    external_owner.reset();
  }
};

template <class F>
gpu_msm_context_t<F>::gpu_msm_context_t(int device, CUstream_st* stream,
                                        std::shared_ptr<gpu_msm_workspace> workspace)
    : _impl(std::make_unique<impl>()) {
  _impl->device = device;
  _impl->s = reinterpret_cast<cudaStream_t>(stream);
  _impl->ws = workspace ? std::move(workspace) : std::make_shared<gpu_msm_workspace>(device);
  if (_impl->ws->device() != device)
    throw std::invalid_argument("cuzk::msm gpu: workspace of device " +
                                std::to_string(_impl->ws->device()) + " given to a context of device " +
                                std::to_string(device));
}
template <class F>
gpu_msm_context_t<F>::~gpu_msm_context_t() = default;
template <class F>
gpu_msm_context_t<F>::gpu_msm_context_t(gpu_msm_context_t&&) noexcept = default;
template <class F>
gpu_msm_context_t<F>& gpu_msm_context_t<F>::operator=(gpu_msm_context_t&&) noexcept = default;

template <class F>
void gpu_msm_context_t<F>::upload_bases(std::span<const ec::affine<F>> h_bases) {
  gpu::device_guard guard(_impl->device);
  _impl->drop_external();
  if (h_bases.size() != _impl->bases.size()) {
    _impl->bases.reset();
    _impl->bases = gpu::device_buffer<ec::affine<F>>(h_bases.size());
  }
  _impl->bases.upload(h_bases.data(), h_bases.size(), _impl->s);
  CUZK_CUDA_CHECK(cudaStreamSynchronize(_impl->s));
}

template <class F>
void gpu_msm_context_t<F>::use_device_bases(std::shared_ptr<const void> owner,
                                            const ec::affine<F>* d_bases, std::size_t n) {
  if (n && !d_bases) throw std::invalid_argument("cuzk::msm gpu: null device bases");
  gpu::device_guard guard(_impl->device);
  _impl->bases.reset();
  _impl->external_owner = std::move(owner);
  _impl->external = d_bases;
  _impl->external_n = n;
}

template <class F>
void gpu_msm_context_t<F>::release_bases() {
  gpu::device_guard guard(_impl->device);
  _impl->bases.reset();
  _impl->drop_external();
}

template <class F>
std::size_t gpu_msm_context_t<F>::n_bases() const {
  return _impl->n_bases();
}

template <class F>
std::shared_ptr<gpu_msm_workspace> gpu_msm_context_t<F>::workspace() const {
  return _impl->ws;
}

template <class F>
void gpu_msm_context_t<F>::check_terms(std::size_t first, std::size_t n) const {
  const std::size_t have = _impl->n_bases();
  if (first > have || n > have - first)
    throw std::invalid_argument("cuzk::msm gpu: " + std::to_string(n) + " scalars from base " +
                                std::to_string(first) + " but " + std::to_string(have) +
                                " resident bases");
}

template <class F>
ec::jacobian<F> gpu_msm_context_t<F>::run(std::span<const fr> scalars, unsigned window_bits) {
  check_terms(0, scalars.size());
  return _impl->ws->internals().template run<F>(_impl->d_bases(), scalars.size(), scalars.data(),
                                                nullptr, window_bits, _impl->s);
}

template <class F>
ec::jacobian<F> gpu_msm_context_t<F>::run_device(const fr* d_scalars, std::size_t n,
                                                 std::size_t first_base, unsigned window_bits) {
  check_terms(first_base, n);
  if (n && !d_scalars) throw std::invalid_argument("cuzk::msm gpu: null device scalars");
  return _impl->ws->internals().template run<F>(_impl->d_bases() + first_base, n, nullptr,
                                                d_scalars, window_bits, _impl->s);
}

template <class F>
ec::jacobian<F> gpu_msm_context_t<F>::run_streamed(std::span<const ec::affine<F>> h_bases,
                                                   const fr* d_scalars, std::size_t chunk_terms,
                                                   unsigned window_bits) {
  const std::size_t n = h_bases.size();
  if (n == 0) return ec::jacobian<F>::identity();
  if (!d_scalars) throw std::invalid_argument("cuzk::msm gpu: null device scalars");
  if (chunk_terms == 0) throw std::invalid_argument("cuzk::msm gpu: chunk of 0 terms");
  gpu::device_guard guard(_impl->device);
  impl& m = *_impl;
  const std::size_t chunk = std::min(chunk_terms, n);
  for (auto& b : m.chunk_bufs)
    if (b.size() < chunk) {
      b.reset();
      b = gpu::device_buffer<ec::affine<F>>(chunk);
    }
  if (!m.copy_stream) {
    m.copy_stream = std::make_unique<gpu::stream>();
    m.copied[0] = std::make_unique<gpu::event>();
    m.copied[1] = std::make_unique<gpu::event>();
  }
  const std::size_t chunks = (n + chunk - 1) / chunk;
  auto queue_copy = [&](std::size_t k) {
    const std::size_t first = k * chunk, len = std::min(chunk, n - first);
    m.chunk_bufs[k % 2].upload(h_bases.data() + first, len, *m.copy_stream);
    m.copied[k % 2]->record(*m.copy_stream);
  };
  queue_copy(0);
  ec::jacobian<F> acc = ec::jacobian<F>::identity();
  for (std::size_t k = 0; k < chunks; ++k) {
    const std::size_t first = k * chunk, len = std::min(chunk, n - first);
    CUZK_CUDA_CHECK(cudaStreamWaitEvent(m.s, m.copied[k % 2]->get(), 0));
    // the other buffer was last read by chunk k - 1, which has finished
    const std::function<void()> next = [&] {
      if (k + 1 < chunks) queue_copy(k + 1);
    };
    acc += m.ws->internals().template run<F>(
        reinterpret_cast<const affine_d<fd_of<F>>*>(m.chunk_bufs[k % 2].data()), len, nullptr,
        d_scalars + first, window_bits, m.s, next);
  }
  return acc;
}

template <class F>
std::size_t gpu_msm_scratch_bytes(std::size_t n, unsigned window_bits) {
  if (n == 0) return 0;
  const std::size_t xb = sizeof(ec::xyzz<F>);
  const shape sh(n, choose_window(n, window_bits), xb);
  const std::size_t words = 4 * n + 5 * sh.slots + 1;
  const std::size_t points = 2 * sh.partials + sh.buckets * sh.windows + sh.block_sums();
  // CUB's radix sort scratch is about one more copy of keys and values; the
  // split adds two flag bytes and two 32-bit indices per term
  const std::size_t split = n >= tune::split_min_terms ? 10 * n : 0;
  return n * sizeof(fr) + words * 4 + points * xb + 8 * n + split;
}

template <class F>
ec::jacobian<F> msm_gpu(std::span<const ec::affine<F>> bases, std::span<const fr> scalars,
                        const gpu_msm_config& cfg) {
  if (bases.size() != scalars.size())
    throw std::invalid_argument("cuzk::msm::msm_gpu: " + std::to_string(bases.size()) +
                                " bases but " + std::to_string(scalars.size()) + " scalars");
  if (scalars.empty()) return ec::jacobian<F>::identity();
  (void)choose_window(scalars.size(), cfg.window_bits);  // validate before touching the GPU
  gpu_msm_context_t<F> ctx(cfg.device, cfg.stream);
  ctx.upload_bases(bases);
  return ctx.run(scalars, cfg.window_bits);
}

template class gpu_msm_context_t<ff::fp>;
template class gpu_msm_context_t<ff::fp2>;
template std::size_t gpu_msm_scratch_bytes<ff::fp>(std::size_t, unsigned);
template std::size_t gpu_msm_scratch_bytes<ff::fp2>(std::size_t, unsigned);
template ec::jacobian<ff::fp> msm_gpu(std::span<const ec::affine<ff::fp>>, std::span<const fr>,
                                      const gpu_msm_config&);
template ec::jacobian<ff::fp2> msm_gpu(std::span<const ec::affine<ff::fp2>>, std::span<const fr>,
                                       const gpu_msm_config&);

}  // namespace cuzk::msm
