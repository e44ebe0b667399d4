// SPDX-License-Identifier: Apache-2.0
#pragma once
// The kernels of the GPU Pippenger MSM (src/cuda/msm/msm.cu drives them; the
// method and its costs are in the comment at the top of msm.cu). One
// template over the device field: gpu::fp_d for G1, gpu::fp2_d for G2. The
// point formulas are ec/xyzz.hpp's, the same code the host runs.
// Included by msm.cu only.

#include <cstdint>
#include <type_traits>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/xyzz.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_fp2.cuh>
#include <cuzk/ff/detail/cuda_fp2_pair.cuh>
#include <cuzk/gpu/tuning.hpp>
#include <cuzk/gpu/vector_io.cuh>

namespace cuzk::msm::detail {

using gpu::fp2_d;
using gpu::fp2_pair_d;
using gpu::fp_d;
using gpu::fr_d;
using tune = gpu::tuning::msm;

template <class Fd>
using affine_d = ec::affine<Fd>;
template <class Fd>
using xyzz_d = ec::xyzz<Fd>;

/// Entry of the sorted term lists: the term's index, bit 31 set when its
/// digit is negative (the base is negated when it is added).
inline constexpr std::uint32_t sign_bit = 0x80000000u;
inline constexpr unsigned full_mask = 0xffffffffu;

// ---- points -----------------------------------------------------------------------

// G1 additions are inlined everywhere (registers, no calls). A G2 addition
// is ~25 k instructions: inlined only in the hot loops (level 0, and the
// window sums' loop over lane pairs), which do nearly every addition of an
// MSM; elsewhere one out-of-line copy per kernel keeps the translation
// unit's compile time in minutes.
template <class Fd>
__device__ __noinline__ xyzz_d<Fd> add_call(const xyzz_d<Fd>& p, const xyzz_d<Fd>& q) {
  return p + q;
}
template <class Fd>
__device__ __noinline__ xyzz_d<Fd> dbl_call(const xyzz_d<Fd>& p) {
  return p.dbl();
}
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> add(const xyzz_d<Fd>& p, const xyzz_d<Fd>& q) {
  if constexpr (std::is_same_v<Fd, fp_d>) return p + q;
  else return add_call(p, q);
}
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> dbl(const xyzz_d<Fd>& p) {
  if constexpr (std::is_same_v<Fd, fp_d>) return p.dbl();
  else return dbl_call(p);
}
/// Device zero bytes: ZZ = 0 is the point at infinity (is_infinity tests ZZ).
template <class Fd>
__device__ __forceinline__ xyzz_d<Fd> infinity() {
  xyzz_d<Fd> r;
  r.x = Fd::zero(), r.y = Fd::zero(), r.zz = Fd::zero(), r.zzz = Fd::zero();
  return r;
}

using gpu::load16;
using gpu::load16_ro;
using gpu::store16;

// ---- points in memory, one lane or a lane pair each -----------------------------

/// An array of points that each thread reads and writes whole (plain
/// element copies, as the window sums did before lane pairs).
template <class Fd>
struct whole_points {
  xyzz_d<Fd>* p;
  __device__ __forceinline__ xyzz_d<Fd> get(std::size_t i) const { return p[i]; }
  __device__ __forceinline__ void set(std::size_t i, const xyzz_d<Fd>& v) const { p[i] = v; }
};

/// An array of G2 points (xyzz<fp2_d>, the host layout) held by lane pairs
/// (fp2_pair_d): each lane reads and writes its coordinate half, c0 on the
/// even lane, c1 on the odd one (48 contiguous bytes per coordinate).
struct pair_points {
  xyzz_d<fp2_d>* p;
  /// This lane's half of *q: coordinate k's at [2k].
  template <class Q>
  __device__ __forceinline__ static auto half(Q* q) {
    using half_t = std::conditional_t<std::is_const_v<Q>, const fp_d, fp_d>;
    return reinterpret_cast<half_t*>(q) + (threadIdx.x & 1u);
  }
  __device__ __forceinline__ xyzz_d<fp2_pair_d> get(std::size_t i) const {
    const fp_d* h = half(p + i);
    xyzz_d<fp2_pair_d> r;
    r.x.v = load16(h), r.y.v = load16(h + 2), r.zz.v = load16(h + 4), r.zzz.v = load16(h + 6);
    return r;
  }
  /// Point i of read-only memory, through the read-only data path.
  __device__ __forceinline__ static xyzz_d<fp2_pair_d> get_ro(const xyzz_d<fp2_d>* q) {
    const fp_d* h = half(q);
    xyzz_d<fp2_pair_d> r;
    r.x.v = load16_ro(h), r.y.v = load16_ro(h + 2), r.zz.v = load16_ro(h + 4), r.zzz.v = load16_ro(h + 6);
    return r;
  }
  __device__ __forceinline__ void set(std::size_t i, const xyzz_d<fp2_pair_d>& v) const {
    fp_d* h = half(p + i);
    store16(h, v.x.v), store16(h + 2, v.y.v), store16(h + 4, v.zz.v), store16(h + 6, v.zzz.v);
  }
};

// ---- digits -------------------------------------------------------------------------

/// Bits [bit, bit + c) of the 256-bit canonical scalar |s| (c <= 31).
__device__ __forceinline__ std::uint32_t window_bits_at(const std::uint32_t* s, unsigned bit, unsigned c) {
  const unsigned word = bit / 32, sh = bit % 32;
  if (word >= 8) return 0;
  std::uint64_t v = s[word];
  if (word + 1 < 8) v |= std::uint64_t(s[word + 1]) << 32;
  return std::uint32_t(v >> sh) & ((1u << c) - 1);
}

/// What one batch of windows works on: windows [w_first, w_first + w_count)
/// of c bits, B = 2^(c-1) buckets each; bucket key (w - w_first) * B + |d| - 1.
struct batch_view {
  const fr_d* scalars;  // Montgomery form, as the caller holds them
  std::uint32_t n;
  unsigned c, w_first, w_count;
};

/// Whether Montgomery-form |k| is 0 or 1 (word for word: both forms are unique).
__device__ __forceinline__ void classify_binary(const fr_d& k, bool& zero, bool& is_one) {
  const fr_d one = fr_d::one();
  zero = true, is_one = true;
#pragma unroll
  for (int w = 0; w < fr_d::n_words; ++w) {
    zero &= k.l[w] == 0;
    is_one &= k.l[w] == one.l[w];
  }
}

/// Term |i|'s scalar in canonical form (Montgomery times raw 1). 0 and 1
/// (Montgomery form compared word for word) skip the multiplication: ~98% of
/// a witness, so about two warps in three of a witness MSM's digit passes
/// (one in three has a lane with another value) multiply nothing.
__device__ __forceinline__ fr_d canonical_scalar(const batch_view& bv, std::uint32_t i) {
  const fr_d k = bv.scalars[i];
  bool zero, is_one;
  classify_binary(k, zero, is_one);
  fr_d r = fr_d::zero();
  if (is_one) r.l[0] = 1;
  if (zero || is_one) return r;
  r.l[0] = 1;
  return k * r;
}

/// Window |w|'s signed digit of canonical |k|, with the borrow |carry|
/// from window w - 1 in and window w's out.
__device__ __forceinline__ std::int32_t signed_digit(const fr_d& k, unsigned w, unsigned c, std::int32_t& carry) {
  std::int32_t d = std::int32_t(window_bits_at(k.l, w * c, c)) + carry;
  carry = 0;
  if (d > (std::int32_t(1) << (c - 1))) {
    d -= std::int32_t(1) << c;
    carry = 1;
  }
  return d;
}

/// Bucket key of digit |d| != 0 of window |w| in the batch.
__device__ __forceinline__ std::uint32_t digit_key(const batch_view& bv, unsigned w, std::int32_t d) {
  const std::uint32_t mag = std::uint32_t(d < 0 ? -d : d);
  return (w - bv.w_first) * (1u << (bv.c - 1)) + mag - 1;
}

/// Calls |emit(nonzero, key, negative)| for each window of [wa, wb) of the
/// batch, from canonical |k|: every lane calls it for every window, so the
/// warp-wide collectives inside |emit| see all lanes (|nonzero| false: no
/// digit there). Digits are in [-(2^(c-1) - 1), 2^(c-1)]: a window value
/// above 2^(c-1) becomes value - 2^c and carries one into the next window.
template <class Emit>
__device__ __forceinline__ void for_each_digit_of(const batch_view& bv, const fr_d& k, unsigned wa, unsigned wb,
                                                  Emit&& emit) {
  std::int32_t carry = 0;
  for (unsigned w = 0; w < wb; ++w) {
    const std::int32_t d = signed_digit(k, w, bv.c, carry);
    if (w < wa) continue;
    emit(d != 0, digit_key(bv, w, d), d < 0);
  }
}

/// The same over all the batch's windows for term |i| (|valid| false: a
/// lane past the end, with no digits).
template <class Emit>
__device__ __forceinline__ void for_each_digit(const batch_view& bv, std::uint32_t i, bool valid, Emit&& emit) {
  const fr_d k = valid ? canonical_scalar(bv, i) : fr_d::zero();
  for_each_digit_of(bv, k, bv.w_first, bv.w_first + bv.w_count, emit);
}

/// Lanes of this warp below this one.
__device__ __forceinline__ unsigned lanes_below() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// Lanes of one warp that share a counter (|peers|, from __match_any_sync on
// the key) are merged into one atomic by their lowest lane: the ones of a
// witness all hit one bucket and one bin, and 32 atomics on one address
// serialise.

/// *counter += the size of this lane's group.
__device__ __forceinline__ void add_merged(unsigned peers, std::uint32_t* counter) {
  if ((peers & lanes_below()) == 0) atomicAdd(counter, __popc(peers));
}

/// A distinct slot for each lane of the group, one atomic per group:
/// counting up, the slots are [old, old + size); counting down (CountDown),
/// [left - size, left) where |left| is what the counter held.
template <bool CountDown>
__device__ __forceinline__ std::uint32_t claim_slot(unsigned peers, std::uint32_t* counter) {
  const unsigned leader = __ffs(peers) - 1, size = __popc(peers);
  std::uint32_t base = 0;
  if (threadIdx.x % 32 == leader) base = CountDown ? atomicSub(counter, size) - size : atomicAdd(counter, size);
  return __shfl_sync(peers, base, leader) + __popc(peers & lanes_below());
}

/// cnt[key] += 1 for every non-zero digit of windows [wa, wb) of the batch
/// (a group whose counters the L2 holds: the atomics of a larger group miss
/// it). Lanes of a warp that hit the same bucket (duplicated scalars,
/// scalars equal to 1) are merged into one atomic.
__global__ void __launch_bounds__(tune::digit_threads)
    count_digits_kernel(batch_view bv, unsigned wa, unsigned wb, std::uint32_t* __restrict__ cnt) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const fr_d k = i < bv.n ? canonical_scalar(bv, i) : fr_d::zero();
  for_each_digit_of(bv, k, wa, wb, [&](bool nz, std::uint32_t key, bool) {
    const unsigned active = __ballot_sync(full_mask, nz);
    if (!nz) return;
    add_merged(__match_any_sync(active, key), cnt + key);
  });
}

/// Writes each non-zero digit's entry into its bucket's range of |entries|,
/// at a slot taken by counting the bucket's cursor down (cursor[key] holds
/// the end of the range on entry, its start on exit). Order inside a
/// bucket is arbitrary; sums are exact group elements, so results do not
/// depend on it.
__global__ void __launch_bounds__(tune::digit_threads)
    scatter_digits_kernel(batch_view bv, std::uint32_t* __restrict__ cursor, std::uint32_t* __restrict__ entries) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  for_each_digit(bv, i, i < bv.n, [&](bool nz, std::uint32_t key, bool neg) {
    const unsigned active = __ballot_sync(full_mask, nz);
    if (!nz) return;
    entries[claim_slot<true>(__match_any_sync(active, key), cursor + key)] = i | (neg ? sign_bit : 0u);
  });
}

// ---- the partitioned scatter ---------------------------------------------------------
//
// Above an L2's worth of entries, the direct scatter's 4-byte stores land at
// random addresses of a multi-GB array, each its own DRAM sector
// read-modify-write (ncu at 2^26: 58 GB moved to write 2.8 GB). The
// partitioned scatter writes every digit twice instead: first (key, entry)
// pairs into bins of 2^lg_bin consecutive keys (the bins are in key order,
// so bin b's range of the stage's entries is known from the counting
// scan), each block reserving one run per bin; then the pairs are read back
// in order and stored into their buckets, while the destination addresses
// stay within one bin's few MB, which the L2 holds. About 20 bytes of DRAM
// traffic per digit instead of ~80.

/// Windows [wa, wb) of a batch, whose keys are [key_lo, key_hi); bins of
/// 2^lg_bin keys from key_lo.
struct stage_view {
  unsigned wa, wb;
  std::uint32_t key_lo, key_hi;
  unsigned lg_bin, nbins;
};

/// Pass 1: every non-zero digit of the stage as {key, term | sign} into
/// its bin's part of |pairs| (positions relative to the stage's first entry,
/// off[key_lo]). A block takes tune::partition_terms_per_thread terms per
/// thread, counts its digits per bin in shared memory, reserves one run per
/// bin (one global atomic per block and bin: |fill| holds each bin's count
/// so far, zero on entry) and writes its digits into those runs.
__global__ void __launch_bounds__(tune::partition_threads)
    partition_digits_kernel(batch_view bv, stage_view st, const std::uint32_t* __restrict__ off,
                            std::uint32_t* __restrict__ fill, uint2* __restrict__ pairs) {
  __shared__ std::uint32_t run[tune::partition_max_bins];
  constexpr unsigned per = tune::partition_terms_per_thread;
  for (unsigned b = threadIdx.x; b < st.nbins; b += blockDim.x) run[b] = 0;
  __syncthreads();
  const std::uint32_t first = blockIdx.x * (blockDim.x * per) + threadIdx.x;
  // canonical scalars kept for both passes, in registers as long as every
  // index is a constant (unrolled loops; no lambda captures the array)
  fr_d k[per];
#pragma unroll
  for (unsigned t = 0; t < per; ++t) {
    const std::uint32_t i = first + t * blockDim.x;
    k[t] = i < bv.n ? canonical_scalar(bv, i) : fr_d::zero();
  }
  // count: warp-aggregated (the ones of a witness all hit one bin)
#pragma unroll
  for (unsigned t = 0; t < per; ++t)
    for_each_digit_of(bv, k[t], st.wa, st.wb, [&](bool nz, std::uint32_t key, bool) {
      const unsigned active = __ballot_sync(full_mask, nz);
      if (!nz) return;
      const std::uint32_t bin = (key - st.key_lo) >> st.lg_bin;
      add_merged(__match_any_sync(active, bin), run + bin);
    });
  __syncthreads();
  const std::uint32_t stage_first = off[st.key_lo];
  for (unsigned b = threadIdx.x; b < st.nbins; b += blockDim.x) {
    const std::uint32_t n_b = run[b];
    if (n_b == 0) continue;
    const std::uint32_t bin_first = off[st.key_lo + (b << st.lg_bin)] - stage_first;
    run[b] = bin_first + atomicAdd(fill + b, n_b);
  }
  __syncthreads();
#pragma unroll
  for (unsigned t = 0; t < per; ++t) {
    const std::uint32_t i = first + t * blockDim.x;
    for_each_digit_of(bv, k[t], st.wa, st.wb, [&](bool nz, std::uint32_t key, bool neg) {
      const unsigned active = __ballot_sync(full_mask, nz);
      if (!nz) return;
      const std::uint32_t bin = (key - st.key_lo) >> st.lg_bin;
      const std::uint32_t at = claim_slot<false>(__match_any_sync(active, bin), run + bin);
      pairs[at] = make_uint2(key, i | (neg ? sign_bit : 0u));
    });
  }
}

/// Pass 2: the stage's pairs, read in bin order, each stored at a slot of
/// its bucket's range (the direct scatter's rule: the bucket's cursor
/// counted down). Per entry one atomic and one store, both within the bin's
/// few MB (the L2). Threads past the stage's entry count (known on the
/// device only) do nothing.
__global__ void __launch_bounds__(tune::digit_threads)
    scatter_pairs_kernel(const uint2* __restrict__ pairs, stage_view st, const std::uint32_t* __restrict__ off,
                         std::uint32_t* __restrict__ cursor, std::uint32_t* __restrict__ entries) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = t < off[st.key_hi] - off[st.key_lo];
  const uint2 e = valid ? pairs[t] : make_uint2(0, 0);
  const unsigned active = __ballot_sync(full_mask, valid);
  if (!valid) return;
  entries[claim_slot<true>(__match_any_sync(active, e.x), cursor + e.x)] = e.y;
}

/// *count += the scalars of d_scalars[0, n) that are neither 0 nor 1
/// (Montgomery form compared word for word: both are unique there). Grid
/// stride; one atomic per warp.
__global__ void __launch_bounds__(tune::digit_threads)
    count_multi_digit_kernel(const fr_d* __restrict__ scalars, std::size_t n, unsigned long long* __restrict__ count) {
  unsigned mine = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    bool zero, is_one;
    classify_binary(scalars[i], zero, is_one);
    mine += !(zero || is_one);
  }
#pragma unroll
  for (unsigned d = 16; d > 0; d /= 2) mine += __shfl_down_sync(full_mask, mine, d);
  if (threadIdx.x % 32 == 0 && mine) atomicAdd(count, (unsigned long long)mine);
}

// ---- bucket sums: a segmented tree ---------------------------------------------------

/// For every bucket b < nb with size = off[b+1] - off[b] at this level:
/// nseg[b] = ceil(size / cap) threads sum it; npart[b] = nseg[b] when that is
/// more than one (those sums go to the next level), else 0. Entry nb of both
/// is 0, so exclusive scans over nb + 1 entries end with the totals.
__global__ void segments_kernel(const std::uint32_t* __restrict__ off, std::uint32_t nb, std::uint32_t cap,
                                std::uint32_t* __restrict__ nseg, std::uint32_t* __restrict__ npart) {
  const std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b > nb) return;
  std::uint32_t ns = 0;
  if (b < nb) ns = (off[b + 1] - off[b] + cap - 1) / cap;
  nseg[b] = ns;
  npart[b] = ns > 1 ? ns : 0;
}

/// The bucket whose segment range [seg_off[b], seg_off[b+1]) holds s: the
/// last b with seg_off[b] <= s (empty buckets repeat an offset).
__device__ __forceinline__ std::uint32_t find_bucket(const std::uint32_t* seg_off, std::uint32_t nb, std::uint32_t s) {
  std::uint32_t lo = 0, hi = nb;  // seg_off[lo] <= s < seg_off[hi]
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (seg_off[mid] <= s) lo = mid;
    else hi = mid;
  }
  return lo;
}

/// Level-0 segments ordered by length, longest first: key cap - length and
/// value s for every segment s < total; slots up to |bound| get a key that
/// sorts after every real one (the sort runs over the host-known bound).
/// With buckets of Poisson-distributed sizes (random scalars), a warp of
/// segments in bucket order waits for its longest one (~73% efficiency at a
/// mean of 32); in length order its lanes do nearly equal work.
__global__ void segment_keys_kernel(const std::uint32_t* __restrict__ off, const std::uint32_t* __restrict__ seg_off,
                                    std::uint32_t nb, std::uint32_t cap, std::uint32_t bound,
                                    std::uint32_t* __restrict__ keys, std::uint32_t* __restrict__ vals) {
  const std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= bound) return;
  std::uint32_t key = cap + 1;
  if (s < seg_off[nb]) {
    const std::uint32_t b = find_bucket(seg_off, nb, s);
    const std::uint32_t j = s - seg_off[b];
    key = cap - min(cap, off[b + 1] - off[b] - j * cap);
  }
  keys[s] = key;
  vals[s] = s;
}

/// One level's bookkeeping (all arrays of nb + 1 entries).
struct level_view {
  const std::uint32_t* off;       // where bucket b's inputs start
  const std::uint32_t* seg_off;   // its first segment
  const std::uint32_t* part_off;  // where its partial sums go (multi-segment buckets)
  std::uint32_t nb, cap;
  /// The buckets hold sums of earlier chunks of the same MSM (a streamed
  /// MSM, run_streamed): a bucket's final sum is added to what it holds
  /// instead of replacing it. Buckets this chunk leaves empty keep theirs.
  bool accumulate;
};

/// Segment s of bucket b sums inputs [off[b] + j cap, min(off[b] + (j+1) cap,
/// off[b+1])) with j = s - seg_off[b]; the sum is the bucket's when b has one
/// segment (written to buckets[b]), else a partial for the next level.
/// Level 0: the inputs are entries (term index | sign) of affine bases, summed
/// by mixed additions; the loop that does nearly all of an MSM's work. Thread
/// tid takes segment order[tid] (segment_keys_kernel, sorted).
/// Launch bounds: G1 asks for tune::accumulate_min_blocks blocks per SM
/// (a register cap); G2 needs every register it can get.
/// G1 loads each step's base one step ahead, so that its latency (an entry,
/// then a random 96-byte base) overlaps the previous addition: 24 more
/// registers (168 at 3 blocks of 128 threads), measured on the H200
/// (2026-12-03) 3.3% off a whole 2^27 MSM (844.1 -> 816.4 ms) and 2.9-3.6%
/// at 2^24-2^26; at 4 blocks (128 registers, spilling) it was 0.6% slower
/// than without. G2 stays as it was: at 255 registers the extra point
/// would spill.
template <class Fd>
inline constexpr unsigned accumulate_min_blocks = std::is_same_v<Fd, fp_d> ? tune::accumulate_min_blocks_g1 : 1;
template <class Fd>
inline constexpr bool load_base_ahead = std::is_same_v<Fd, fp_d>;

template <class Fd>
__global__ void __launch_bounds__(tune::accumulate_threads, accumulate_min_blocks<Fd>)
    accumulate_points_kernel(const affine_d<Fd>* __restrict__ bases, const std::uint32_t* __restrict__ entries,
                             const std::uint32_t* __restrict__ order, std::uint32_t bound, level_view lv,
                             xyzz_d<Fd>* __restrict__ buckets, xyzz_d<Fd>* __restrict__ parts) {
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= bound) return;
  const std::uint32_t s = order[tid];  // segments longest first
  if (s >= lv.seg_off[lv.nb]) return;
  const std::uint32_t b = find_bucket(lv.seg_off, lv.nb, s);
  const std::uint32_t j = s - lv.seg_off[b];
  const std::uint32_t begin = lv.off[b] + j * lv.cap;
  const std::uint32_t end = min(begin + lv.cap, lv.off[b + 1]);
  const bool whole = lv.seg_off[b + 1] - lv.seg_off[b] == 1;  // this thread writes the bucket
  // accumulating, a bucket's one segment starts from its sum so far: no
  // extra addition, one 4-coordinate load per bucket and chunk
  xyzz_d<Fd> acc = lv.accumulate && whole ? load16(buckets + b) : infinity<Fd>();
  if constexpr (load_base_ahead<Fd>) {
    std::uint32_t v = entries[begin];  // a segment holds at least one entry
    affine_d<Fd> q = load16_ro(bases + (v & ~sign_bit));
    for (std::uint32_t t = begin + 1;; ++t) {
      const bool more = t < end;
      const std::uint32_t vn = more ? entries[t] : 0u;
      affine_d<Fd> qn;
      if (more) qn = load16_ro(bases + (vn & ~sign_bit));
      if (v & sign_bit) q.y = -q.y;
      acc = acc.add_affine(q);
      if (!more) break;
      q = qn;
      v = vn;
    }
  } else {
    for (std::uint32_t t = begin; t < end; ++t) {
      const std::uint32_t v = entries[t];
      affine_d<Fd> q = load16_ro(bases + (v & ~sign_bit));
      if (v & sign_bit) q.y = -q.y;
      acc = acc.add_affine(q);  // inlined for G2 too
    }
  }
  if (whole) store16(buckets + b, acc);
  else store16(parts + lv.part_off[b] + j, acc);
}

/// Levels >= 1: the same over the previous level's partial sums.
template <class Fd>
__global__ void __launch_bounds__(tune::accumulate_threads)
    accumulate_sums_kernel(const xyzz_d<Fd>* __restrict__ in, level_view lv, xyzz_d<Fd>* __restrict__ buckets,
                           xyzz_d<Fd>* __restrict__ parts) {
  const std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= lv.seg_off[lv.nb]) return;
  const std::uint32_t b = find_bucket(lv.seg_off, lv.nb, s);
  const std::uint32_t j = s - lv.seg_off[b];
  const std::uint32_t begin = lv.off[b] + j * lv.cap;
  const std::uint32_t end = min(begin + lv.cap, lv.off[b + 1]);
  const bool whole = lv.seg_off[b + 1] - lv.seg_off[b] == 1;
  xyzz_d<Fd> acc = load16_ro(in + begin);
  if (lv.accumulate && whole) acc = add(load16(buckets + b), acc);
  for (std::uint32_t t = begin + 1; t < end; ++t) acc = add(acc, load16_ro(in + t));
  if (whole) store16(buckets + b, acc);
  else store16(parts + lv.part_off[b] + j, acc);
}

// ---- window sums ---------------------------------------------------------------------

// The block-level steps below run over n points, point j held by (logical)
// thread j: one thread per point (whole_points) or a lane pair
// (pair_points, G2); Fd is the field a thread computes in (fp2_pair_d for
// pairs) and Sh the shared array's view.

/// sh[0] = sh[0] + ... + sh[n - 1] (n a power of two, n points; sh is
/// overwritten). Ends synchronised.
template <class Fd, class Sh>
__device__ __forceinline__ void block_sum(const Sh& sh, unsigned j, unsigned n) {
  for (unsigned half = n / 2; half > 0; half /= 2) {
    if (j < half) sh.set(j, add<Fd>(sh.get(j), sh.get(j + half)));
    __syncthreads();
  }
}

/// From point j's |r| (n points, n a power of two): total = sum_j r_j and
/// weighted = sum_j j r_j (= sum_{i >= 1} sum_{j >= i} r_j: a suffix scan,
/// then a tree), both set in point 0's thread(s) only. Starts and ends
/// synchronised.
template <class Fd, class Sh>
__device__ __forceinline__ void block_weighted_sum(const Sh& sh, unsigned j, unsigned n, const xyzz_d<Fd>& r,
                                                   xyzz_d<Fd>& total, xyzz_d<Fd>& weighted) {
  sh.set(j, r);
  __syncthreads();
  for (unsigned d = 1; d < n; d *= 2) {
    const bool has = j + d < n;
    const xyzz_d<Fd> v = has ? sh.get(j + d) : infinity<Fd>();
    __syncthreads();
    if (has) sh.set(j, add<Fd>(sh.get(j), v));
    __syncthreads();
  }
  if (j == 0) {
    total = sh.get(0);
    sh.set(0, infinity<Fd>());
  }
  __syncthreads();
  block_sum<Fd>(sh, j, n);
  if (j == 0) weighted = sh.get(0);
  __syncthreads();
}

/// The end of a window-sum block: from point j's A_j (|acc|) and R_j
/// (|running|), out[0] = sum_j A_j + L sum_j j R_j and out[1] = sum_j R_j
/// (L = 2^lg_l), through shared memory |sh| (n points).
template <class Fd, class Sh, class Out>
__device__ __forceinline__ void finish_block_sums(const Sh& sh, unsigned j, unsigned n, const xyzz_d<Fd>& acc,
                                                  const xyzz_d<Fd>& running, unsigned lg_l, const Out& out) {
  sh.set(j, acc);
  __syncthreads();
  block_sum<Fd>(sh, j, n);
  if (j == 0) out.set(0, sh.get(0));
  __syncthreads();
  xyzz_d<Fd> total, weighted;
  block_weighted_sum<Fd>(sh, j, n, running, total, weighted);
  if (j == 0) {
    for (unsigned k = 0; k < lg_l; ++k) weighted = dbl(weighted);
    out.set(0, add<Fd>(out.get(0), weighted));
    out.set(1, total);
  }
}

/// sum_d d * S_d over each window's buckets (S_d at position d - 1), in two
/// parts per block. Grid (G blocks per window, windows) of RT threads;
/// thread j of block k owns the L = 2^lg_l buckets from first = (k RT + j) L
/// and forms by running sums from the top (2L additions) R_j = sum S_d and
/// A_j = sum (d - first) S_d, so that its share of the window sum is
/// A_j + first R_j. The block writes
///   A_k = sum_j A_j + L sum_j j R_j  and  R_k = sum_j R_j,
/// and the window sum is sum_k A_k + RT L sum_k k R_k (finish_windows_kernel).
/// No thread multiplies by its first digit (that was a quarter of a G2 MSM
/// at c = 16), so L may be small: many threads with short chains, which is
/// what G2 (latency-bound here) needs.
/// Output: sums[2 (w G + k)] = A_k, sums[2 (w G + k) + 1] = R_k.
/// RT * sizeof(xyzz) bytes of shared memory.
/// (Measured on the H200, 2026-12-05: the same sums as two loops of one live
/// point each, the buckets overwritten by their suffix sums, were slower for
/// both groups: G2 2^24 347.8 against 333.2 ms, G1 2^27 773.3 against 770.4;
/// G2's one-loop form spills, the two-loop one spilled more.)
template <class Fd>
__global__ void __launch_bounds__(tune::reduce_threads)
    reduce_buckets_kernel(const xyzz_d<Fd>* __restrict__ buckets, unsigned lg_b, unsigned lg_l,
                          xyzz_d<Fd>* __restrict__ sums) {
  extern __shared__ uint4 smem_raw[];
  xyzz_d<Fd>* sh = reinterpret_cast<xyzz_d<Fd>*>(smem_raw);
  const unsigned w = blockIdx.y, j = threadIdx.x, rt = blockDim.x;
  const std::uint32_t first = (blockIdx.x * rt + j) << lg_l;
  const xyzz_d<Fd>* bw = buckets + (std::size_t(w) << lg_b);
  xyzz_d<Fd>* out = sums + 2 * (std::size_t(w) * gridDim.x + blockIdx.x);
  xyzz_d<Fd> running = infinity<Fd>(), acc = infinity<Fd>();
  for (std::uint32_t p = first + (1u << lg_l); p-- > first;) {
    running = add(running, load16_ro(bw + p));
    acc = add(acc, running);
  }
  finish_block_sums<Fd>(whole_points<Fd>{sh}, j, rt, acc, running, lg_l, whole_points<Fd>{out});
}

/// reduce_buckets_kernel for G2 with each thread's work held by a lane pair
/// (fp2_pair_d): blocks of 2 RT threads for the same RT chunks, grid, shared
/// memory and outputs as reduce_buckets_kernel<fp2_d>. Each lane holds half
/// of every point (48 registers a point instead of 96), so the loop's two
/// complete additions are inlined and R_j, A_j and the loaded bucket stay in
/// registers; one lane per point calls the addition out of line and spills
/// (2.4 KB of stack a thread: 255 registers, 476 bytes of spill stores), and
/// its window sums were a fifth of a 2^24 G2 MSM (66 of 333 ms).
/// Measured on an H100 (2026-12-05): G2 2^24 MSM 345.5 -> 309.2 ms, its
/// window sums 35.6 -> 18.2 ms per batch. (A_j kept in a bank-conflict-free
/// shared slot instead, 48 registers fewer, measured the same: 308.4 ms;
/// dropped for the simpler form.)
__global__ void __launch_bounds__(2 * tune::reduce_threads)
    reduce_buckets_pair_kernel(const xyzz_d<fp2_d>* __restrict__ buckets, unsigned lg_b, unsigned lg_l,
                               xyzz_d<fp2_d>* __restrict__ sums) {
  extern __shared__ uint4 smem_raw[];
  const pair_points sh{reinterpret_cast<xyzz_d<fp2_d>*>(smem_raw)};
  const unsigned w = blockIdx.y, j = threadIdx.x / 2, rt = blockDim.x / 2;
  const std::uint32_t first = (blockIdx.x * rt + j) << lg_l;
  const xyzz_d<fp2_d>* bw = buckets + (std::size_t(w) << lg_b);
  const pair_points out{sums + 2 * (std::size_t(w) * gridDim.x + blockIdx.x)};
  xyzz_d<fp2_pair_d> running = infinity<fp2_pair_d>(), acc = infinity<fp2_pair_d>();
  for (std::uint32_t p = first + (1u << lg_l); p-- > first;) {
    running = running + pair_points::get_ro(bw + p);  // inlined: the loop's two additions
    acc = acc + running;
  }
  finish_block_sums<fp2_pair_d>(sh, j, rt, acc, running, lg_l, out);
}

/// One block of G threads per window: thread k takes block k's (A_k, R_k)
/// from reduce_buckets_kernel and the block writes the window sum
/// sum_k A_k + 2^lg_weight sum_k k R_k (2^lg_weight = RT L) to
/// window_sums[w_first + w]. G * sizeof(xyzz) bytes of shared memory.
template <class Fd>
__global__ void __launch_bounds__(tune::reduce_threads)
    finish_windows_kernel(const xyzz_d<Fd>* __restrict__ sums, unsigned lg_weight,
                          xyzz_d<Fd>* __restrict__ window_sums) {
  extern __shared__ uint4 smem_raw[];
  xyzz_d<Fd>* sh = reinterpret_cast<xyzz_d<Fd>*>(smem_raw);
  const unsigned w = blockIdx.x, k = threadIdx.x, g = blockDim.x;
  const xyzz_d<Fd>* in = sums + 2 * (std::size_t(w) * g + k);
  const whole_points<Fd> shp{sh};
  shp.set(k, load16_ro(in));
  const xyzz_d<Fd> r = load16_ro(in + 1);
  __syncthreads();
  block_sum<Fd>(shp, k, g);
  xyzz_d<Fd> a_total;
  if (k == 0) a_total = shp.get(0);
  __syncthreads();
  xyzz_d<Fd> total, weighted;
  block_weighted_sum<Fd>(shp, k, g, r, total, weighted);
  if (k == 0) {
    for (unsigned b = 0; b < lg_weight; ++b) weighted = dbl(weighted);
    window_sums[w] = add(a_total, weighted);
  }
}

}  // namespace cuzk::msm::detail
