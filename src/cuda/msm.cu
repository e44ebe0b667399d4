// SPDX-License-Identifier: Apache-2.0
// G1 Pippenger MSM on the GPU: signed windows, CUB radix sort into buckets,
// segmented XYZZ bucket sums, parallel bucket reduction, host-side window
// combination. API, method summary and memory: cuzk/msm/msm_gpu.hpp.
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
//     point at infinity). A thread finds its run by binary search over the
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
// integers on the device (a Montgomery multiplication by 1); bases are
// affine with infinity as x = y = 0 (skipped by the complete mixed
// addition); the device structures are byte-identical to ec::g1_affine and
// ec::g1_xyzz (static_asserts), so results are copied back with memcpy.
// Every addition is complete (handles infinity, P == Q, P == -Q).
// Cost for n terms, W = ceil(256/c) windows: ~W n mixed additions (minus
// zero digits) + W (n/G) XYZZ additions + W (2B + 2c) XYZZ operations for the
// reduction, + W radix sorts of n (key, value) pairs.

#include <cuzk/msm/msm_gpu.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/ec/xyzz.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
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

struct affine_d {
  fp_d x, y;
};
struct xyzz_d {
  fp_d x, y, zz, zzz;
};
static_assert(sizeof(affine_d) == sizeof(ec::g1_affine) && alignof(affine_d) <= alignof(ec::g1_affine));
static_assert(sizeof(xyzz_d) == sizeof(ec::g1_xyzz) && alignof(xyzz_d) <= alignof(ec::g1_xyzz));

__device__ __forceinline__ xyzz_d infinity() {
  xyzz_d r;
  r.x = fp_d::zero(), r.y = fp_d::zero(), r.zz = fp_d::zero(), r.zzz = fp_d::zero();
  return r;
}
__device__ __forceinline__ bool is_infinity(const xyzz_d& p) { return p.zz.is_zero(); }
__device__ __forceinline__ bool is_infinity(const affine_d& q) {
  return q.x.is_zero() && q.y.is_zero();
}

// The formulas of ec/xyzz.hpp (EFD g1p/auto-shortw-xyzz, a = 0), same order.

/// dbl-2008-s-1, 6M + 3S.
__device__ xyzz_d dbl(const xyzz_d& p) {
  if (is_infinity(p)) return p;
  const fp_d u = p.y.dbl();
  const fp_d v = u.sqr();
  const fp_d w = u * v;
  const fp_d s = p.x * v;
  const fp_d x2 = p.x.sqr();
  const fp_d m = x2.dbl() + x2;
  xyzz_d r;
  r.x = m.sqr() - s.dbl();
  r.y = m * (s - r.x) - w * p.y;
  r.zz = v * p.zz;
  r.zzz = w * p.zzz;
  return r;
}

/// mdbl-2008-s-1, 4M + 3S (q not infinity).
__device__ xyzz_d dbl_affine(const affine_d& q) {
  const fp_d u = q.y.dbl();
  const fp_d v = u.sqr();
  const fp_d w = u * v;
  const fp_d s = q.x * v;
  const fp_d x2 = q.x.sqr();
  const fp_d m = x2.dbl() + x2;
  xyzz_d r;
  r.x = m.sqr() - s.dbl();
  r.y = m * (s - r.x) - w * q.y;
  r.zz = v;
  r.zzz = w;
  return r;
}

/// Complete mixed addition (madd-2008-s, 8M + 2S in the generic case).
__device__ xyzz_d add_affine(const xyzz_d& p, const affine_d& q) {
  if (is_infinity(q)) return p;
  if (is_infinity(p)) {
    xyzz_d r;
    r.x = q.x, r.y = q.y, r.zz = fp_d::one(), r.zzz = fp_d::one();
    return r;
  }
  const fp_d u2 = q.x * p.zz;
  const fp_d s2 = q.y * p.zzz;
  const fp_d pd = u2 - p.x;
  const fp_d rd = s2 - p.y;
  if (pd.is_zero()) return rd.is_zero() ? dbl_affine(q) : infinity();
  const fp_d pp = pd.sqr();
  const fp_d ppp = pd * pp;
  const fp_d qq = p.x * pp;
  xyzz_d r;
  r.x = rd.sqr() - ppp - qq.dbl();
  r.y = rd * (qq - r.x) - p.y * ppp;
  r.zz = p.zz * pp;
  r.zzz = p.zzz * ppp;
  return r;
}

/// Complete addition (add-2008-s, 12M + 2S in the generic case).
__device__ xyzz_d add(const xyzz_d& p, const xyzz_d& q) {
  if (is_infinity(p)) return q;
  if (is_infinity(q)) return p;
  const fp_d u1 = p.x * q.zz;
  const fp_d u2 = q.x * p.zz;
  const fp_d s1 = p.y * q.zzz;
  const fp_d s2 = q.y * p.zzz;
  const fp_d pd = u2 - u1;
  const fp_d rd = s2 - s1;
  if (pd.is_zero()) return rd.is_zero() ? dbl(p) : infinity();
  const fp_d pp = pd.sqr();
  const fp_d ppp = pd * pp;
  const fp_d qq = u1 * pp;
  xyzz_d r;
  r.x = rd.sqr() - ppp - qq.dbl();
  r.y = rd * (qq - r.x) - s1 * ppp;
  r.zz = p.zz * q.zz * pp;
  r.zzz = p.zzz * q.zzz * ppp;
  return r;
}

/// k * p for a small k (double-and-add from the top bit).
__device__ xyzz_d mul_small(const xyzz_d& p, std::uint32_t k) {
  xyzz_d r = infinity();
  if (k == 0) return r;
  for (int bit = 31 - __clz(k); bit >= 0; --bit) {
    r = dbl(r);
    if ((k >> bit) & 1) r = add(r, p);
  }
  return r;
}

// 16-byte vector copies of whole structures (device arrays are 16-byte aligned
// and both sizes are multiples of 16).
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

/// Montgomery -> canonical, in place (a * 1 / R).
__global__ void to_canonical_kernel(fr_d* d_s, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_d one_raw = fr_d::zero();
  one_raw.l[0] = 1;
  d_s[i] = d_s[i] * one_raw;
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

/// Signed digit of window |w| for every scalar: key |d|, value i | sign.
__global__ void digits_kernel(const fr_d* __restrict__ d_canon, std::uint32_t n, unsigned w,
                              unsigned c, std::uint32_t* d_keys, std::uint32_t* d_vals) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
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
  d_keys[i] = std::uint32_t(d < 0 ? -d : d);
  d_vals[i] = i | (d < 0 ? sign_bit : 0u);
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
__global__ void __launch_bounds__(tune::accumulate_threads)
    accumulate_points_kernel(const affine_d* __restrict__ d_bases,
                             const std::uint32_t* __restrict__ d_sorted_vals,
                             const std::uint32_t* __restrict__ d_run_keys, level_view lv,
                             xyzz_d* d_out) {
  const std::uint32_t o = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t runs = *lv.num_runs;
  const std::uint32_t total = lv.off_out[runs - 1] + lv.cnt_out[runs - 1];
  if (o >= total) return;
  const std::uint32_t k = find_run(lv.off_out, runs, o);
  xyzz_d acc = infinity();
  if (d_run_keys[k] != 0) {  // digit 0: nothing to add
    const std::uint32_t j = o - lv.off_out[k];
    const std::uint32_t begin = lv.off_in[k] + j * tune::points_per_thread;
    const std::uint32_t end =
        lv.off_in[k] + min((j + 1) * tune::points_per_thread, lv.cnt_in[k]);
    for (std::uint32_t t = begin; t < end; ++t) {
      const std::uint32_t v = d_sorted_vals[t];
      affine_d q = load16(d_bases + (v & ~sign_bit));
      if (v & sign_bit) q.y = -q.y;
      acc = add_affine(acc, q);
    }
  }
  store16(d_out + o, acc);
}

/// Levels >= 1: one thread per group of <= G partial sums of one run.
__global__ void __launch_bounds__(tune::accumulate_threads)
    accumulate_sums_kernel(const xyzz_d* __restrict__ d_in, level_view lv, xyzz_d* d_out) {
  const std::uint32_t o = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t runs = *lv.num_runs;
  const std::uint32_t total = lv.off_out[runs - 1] + lv.cnt_out[runs - 1];
  if (o >= total) return;
  const std::uint32_t k = find_run(lv.off_out, runs, o);
  const std::uint32_t j = o - lv.off_out[k];
  const std::uint32_t begin = lv.off_in[k] + j * tune::points_per_thread;
  const std::uint32_t end = lv.off_in[k] + min((j + 1) * tune::points_per_thread, lv.cnt_in[k]);
  xyzz_d acc = load16(d_in + begin);
  for (std::uint32_t t = begin + 1; t < end; ++t) acc = add(acc, load16(d_in + t));
  store16(d_out + o, acc);
}

/// buckets[key - 1] = the run's sum, for every run with key != 0.
__global__ void scatter_kernel(const xyzz_d* __restrict__ d_sums,
                               const std::uint32_t* __restrict__ d_off,
                               const std::uint32_t* __restrict__ d_run_keys,
                               const std::uint32_t* __restrict__ d_num_runs, xyzz_d* d_buckets) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= *d_num_runs) return;
  const std::uint32_t key = d_run_keys[k];
  if (key != 0) store16(d_buckets + (key - 1), load16(d_sums + d_off[k]));
}

/// sum_d d * S_d over a window's buckets: see the file comment. Grid
/// (blocks per window, windows), RT threads, RT * 192 bytes of shared memory.
__global__ void __launch_bounds__(tune::reduce_threads)
    reduce_buckets_kernel(const xyzz_d* __restrict__ d_buckets, unsigned lg_b, unsigned lg_l,
                          xyzz_d* d_block_sums) {
  extern __shared__ uint4 smem_raw[];
  xyzz_d* sh = reinterpret_cast<xyzz_d*>(smem_raw);
  const unsigned w = blockIdx.y;
  const std::uint32_t chunk = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t first = chunk << lg_l;  // bucket position of digit first + 1
  const xyzz_d* b = d_buckets + (std::size_t(w) << lg_b);
  xyzz_d running = infinity(), acc = infinity();
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

  shape(std::size_t n_, unsigned c_) : n(n_), c(c_) {
    windows = (256 + c - 1) / c;
    lg_b = c - 1;
    buckets = std::size_t(1) << lg_b;
    slots = buckets + 1;
    const std::size_t g = tune::points_per_thread;
    partials = (n + g - 1) / g + slots;
    levels_after = 0;
    for (std::size_t m = (n + g - 1) / g; m > 1; m = (m + g - 1) / g) ++levels_after;
    lg_tt = std::min(lg_b, 10u);
    lg_rt = std::min(lg_tt, lg_floor(tune::reduce_threads));
    lg_l = lg_b - lg_tt;
  }
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

}  // namespace

unsigned gpu_default_window_bits(std::size_t n) {
  // First guess, not tuned: W (n + 2^c) additions is smallest near c = lg n - 3.
  const int lg = int(lg_floor(std::max<std::size_t>(n, 1)));
  return unsigned(std::clamp(lg - 3, int(tune::min_window), int(tune::max_window)));
}

struct gpu_msm_context::impl {
  int device;
  cudaStream_t s;
  gpu::device_buffer<ec::g1_affine> bases;
  // scratch, sized for the largest (n, c) seen
  std::size_t cap_n = 0, cap_slots = 0, cap_partials = 0, cap_buckets = 0, cap_block_sums = 0,
              cap_temp = 0;
  gpu::device_buffer<fr> scalars;
  gpu::device_buffer<std::uint32_t> keys_in, vals_in, keys_out, vals_out;
  gpu::device_buffer<std::uint32_t> run_keys, num_runs, cnt_a, off_a, cnt_b, off_b;
  gpu::device_buffer<ec::g1_xyzz> part_x, part_y, buckets, block_sums;
  gpu::device_buffer<unsigned char> temp;

  impl(int dev, cudaStream_t stream) : device(dev), s(stream) {}

  std::size_t cub_temp_bytes(const shape& sh) {
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

  void reserve(const shape& sh) {
    if (sh.n > cap_n) {
      scalars = gpu::device_buffer<fr>(sh.n);
      keys_in = gpu::device_buffer<std::uint32_t>(sh.n);
      vals_in = gpu::device_buffer<std::uint32_t>(sh.n);
      keys_out = gpu::device_buffer<std::uint32_t>(sh.n);
      vals_out = gpu::device_buffer<std::uint32_t>(sh.n);
      cap_n = sh.n;
    }
    if (sh.slots > cap_slots) {
      for (auto* b : {&run_keys, &cnt_a, &off_a, &cnt_b, &off_b})
        *b = gpu::device_buffer<std::uint32_t>(sh.slots);
      cap_slots = sh.slots;
    }
    if (!num_runs) num_runs = gpu::device_buffer<std::uint32_t>(1);
    if (sh.partials > cap_partials) {
      part_x = gpu::device_buffer<ec::g1_xyzz>(sh.partials);
      part_y = gpu::device_buffer<ec::g1_xyzz>(sh.partials);
      cap_partials = sh.partials;
    }
    const std::size_t nb = sh.buckets * sh.windows;
    if (nb > cap_buckets) {
      buckets = gpu::device_buffer<ec::g1_xyzz>(nb);
      cap_buckets = nb;
    }
    const std::size_t nbs = std::size_t(sh.windows) << (sh.lg_tt - sh.lg_rt);
    if (nbs > cap_block_sums) {
      block_sums = gpu::device_buffer<ec::g1_xyzz>(nbs);
      cap_block_sums = nbs;
    }
    const std::size_t tb = cub_temp_bytes(sh);
    if (tb > cap_temp) {
      temp = gpu::device_buffer<unsigned char>(tb);
      cap_temp = tb;
    }
  }

  ec::g1_jacobian run(std::span<const fr> h_scalars, unsigned window_bits) {
    const std::size_t n = h_scalars.size();
    if (n > bases.size())
      throw std::invalid_argument("cuzk::msm gpu: " + std::to_string(n) + " scalars but " +
                                  std::to_string(bases.size()) + " resident bases");
    if (n >= (std::size_t(1) << 31))
      throw std::invalid_argument("cuzk::msm gpu: at most 2^31 - 1 terms");
    if (n == 0) return ec::g1_jacobian::identity();
    const shape sh(n, choose_window(n, window_bits));
    gpu::device_guard guard(device);
    reserve(sh);
    const std::uint32_t n32 = std::uint32_t(n);
    scalars.upload(h_scalars.data(), n, s);
    fr_d* d_scalars = reinterpret_cast<fr_d*>(scalars.data());
    to_canonical_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d_scalars, n32);
    CUZK_CUDA_CHECK_LAUNCH();
    CUZK_CUDA_CHECK(cudaMemsetAsync(buckets.data(), 0, sh.buckets * sh.windows * sizeof(xyzz_d), s));

    const affine_d* d_bases = reinterpret_cast<const affine_d*>(bases.data());
    const unsigned slot_blocks = blocks_for(sh.slots, 256);
    std::size_t temp_bytes = cap_temp;
    for (unsigned w = 0; w < sh.windows; ++w) {
      digits_kernel<<<blocks_for(n, tune::digit_threads), tune::digit_threads, 0, s>>>(
          d_scalars, n32, w, sh.c, keys_in.data(), vals_in.data());
      CUZK_CUDA_CHECK_LAUNCH();
      temp_bytes = cap_temp;
      CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys_in.data(),
                                                      keys_out.data(), vals_in.data(),
                                                      vals_out.data(), int(n), 0, int(sh.c), s));
      CUZK_CUDA_CHECK(cudaMemsetAsync(cnt_a.data(), 0, sh.slots * sizeof(std::uint32_t), s));
      temp_bytes = cap_temp;
      CUZK_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(temp.data(), temp_bytes, keys_out.data(),
                                                         run_keys.data(), cnt_a.data(),
                                                         num_runs.data(), int(n), s));
      std::uint32_t *ca = cnt_a.data(), *oa = off_a.data(), *cb = cnt_b.data(),
                    *ob = off_b.data();
      auto scan = [&](const std::uint32_t* in, std::uint32_t* out) {
        std::size_t tb = cap_temp;
        CUZK_CUDA_CHECK(
            cub::DeviceScan::ExclusiveSum(temp.data(), tb, in, out, int(sh.slots), s));
      };
      auto next_level = [&]() {
        next_counts_kernel<<<slot_blocks, 256, 0, s>>>(ca, cb, std::uint32_t(sh.slots));
        CUZK_CUDA_CHECK_LAUNCH();
        scan(cb, ob);
      };
      scan(ca, oa);
      next_level();
      xyzz_d* px = reinterpret_cast<xyzz_d*>(part_x.data());
      xyzz_d* py = reinterpret_cast<xyzz_d*>(part_y.data());
      const unsigned acc_blocks = blocks_for(sh.partials, tune::accumulate_threads);
      accumulate_points_kernel<<<acc_blocks, tune::accumulate_threads, 0, s>>>(
          d_bases, vals_out.data(), run_keys.data(), level_view{ca, oa, cb, ob, num_runs.data()},
          px);
      CUZK_CUDA_CHECK_LAUNCH();
      for (unsigned lvl = 0; lvl < sh.levels_after; ++lvl) {
        std::swap(ca, cb);
        std::swap(oa, ob);
        next_level();
        accumulate_sums_kernel<<<acc_blocks, tune::accumulate_threads, 0, s>>>(
            px, level_view{ca, oa, cb, ob, num_runs.data()}, py);
        CUZK_CUDA_CHECK_LAUNCH();
        std::swap(px, py);
      }
      xyzz_d* d_window = reinterpret_cast<xyzz_d*>(buckets.data()) + std::size_t(w) * sh.buckets;
      scatter_kernel<<<slot_blocks, 256, 0, s>>>(px, ob, run_keys.data(), num_runs.data(),
                                                 d_window);
      CUZK_CUDA_CHECK_LAUNCH();
    }

    const unsigned rt = 1u << sh.lg_rt;
    const dim3 grid(1u << (sh.lg_tt - sh.lg_rt), sh.windows);
    reduce_buckets_kernel<<<grid, rt, rt * sizeof(xyzz_d), s>>>(
        reinterpret_cast<const xyzz_d*>(buckets.data()), sh.lg_b, sh.lg_l,
        reinterpret_cast<xyzz_d*>(block_sums.data()));
    CUZK_CUDA_CHECK_LAUNCH();
    const std::size_t per_window = grid.x;
    std::vector<ec::g1_xyzz> h_sums(per_window * sh.windows);
    block_sums.download(h_sums.data(), h_sums.size(), s);
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));

    ec::g1_xyzz acc = ec::g1_xyzz::identity();
    for (unsigned w = sh.windows; w-- > 0;) {
      for (unsigned k = 0; k < sh.c; ++k) acc = acc.dbl();
      for (std::size_t b = 0; b < per_window; ++b) acc += h_sums[w * per_window + b];
    }
    return acc.to_jacobian();
  }
};

gpu_msm_context::gpu_msm_context(int device, CUstream_st* stream)
    : _impl(std::make_unique<impl>(device, reinterpret_cast<cudaStream_t>(stream))) {}
gpu_msm_context::~gpu_msm_context() = default;
gpu_msm_context::gpu_msm_context(gpu_msm_context&&) noexcept = default;
gpu_msm_context& gpu_msm_context::operator=(gpu_msm_context&&) noexcept = default;

void gpu_msm_context::upload_bases(std::span<const ec::g1_affine> h_bases) {
  gpu::device_guard guard(_impl->device);
  if (h_bases.size() != _impl->bases.size())
    _impl->bases = gpu::device_buffer<ec::g1_affine>(h_bases.size());
  _impl->bases.upload(h_bases.data(), h_bases.size(), _impl->s);
  CUZK_CUDA_CHECK(cudaStreamSynchronize(_impl->s));
}

std::size_t gpu_msm_context::n_bases() const { return _impl->bases.size(); }

ec::g1_jacobian gpu_msm_context::run(std::span<const fr> scalars, unsigned window_bits) {
  return _impl->run(scalars, window_bits);
}

std::size_t gpu_msm_scratch_bytes(std::size_t n, unsigned window_bits) {
  if (n == 0) return 0;
  const shape sh(n, choose_window(n, window_bits));
  const std::size_t words = 4 * n + 5 * sh.slots + 1;
  const std::size_t points = 2 * sh.partials + sh.buckets * sh.windows +
                             (std::size_t(sh.windows) << (sh.lg_tt - sh.lg_rt));
  // CUB's radix sort scratch is about one more copy of keys and values
  return n * sizeof(fr) + words * 4 + points * sizeof(ec::g1_xyzz) + 8 * n;
}

ec::g1_jacobian msm_gpu(std::span<const ec::g1_affine> bases, std::span<const fr> scalars,
                        const gpu_msm_config& cfg) {
  if (bases.size() != scalars.size())
    throw std::invalid_argument("cuzk::msm::msm_gpu: " + std::to_string(bases.size()) +
                                " bases but " + std::to_string(scalars.size()) + " scalars");
  if (scalars.empty()) return ec::g1_jacobian::identity();
  (void)choose_window(scalars.size(), cfg.window_bits);  // validate before touching the GPU
  gpu_msm_context ctx(cfg.device, cfg.stream);
  ctx.upload_bases(bases);
  return ctx.run(scalars, cfg.window_bits);
}

}  // namespace cuzk::msm
