// SPDX-License-Identifier: Apache-2.0
// G1 and G2 Pippenger MSM on the GPU. API: cuzk/msm/msm_gpu.hpp; kernels:
// msm_kernels.cuh. One template over the device field (fp_d for G1, fp2_d
// for G2), explicitly instantiated for the two groups at the end.
//
// Method, n terms, c-bit signed windows (W = ceil(256/c) windows, B =
// 2^(c-1) buckets each), windows taken in batches that fit
// tuning::msm::batch_bytes (all of them at once unless memory is short):
//  1. count_digits_kernel: every window's signed digit of every scalar in
//     one pass over the scalars (Montgomery -> canonical on the fly), one
//     atomic increment per non-zero digit into its bucket's counter (lanes
//     of a warp that hit the same bucket merged into one atomic). Zero
//     digits produce nothing: zero scalars cost one read.
//  2. CUB exclusive scan of the counters: each bucket's range in one
//     entries array (a counting sort: no key/value sort, no run-length
//     encoding).
//  3. The same digits again, each written as (term index | sign) into a
//     slot of its bucket's range. While a batch's entries fit a share of
//     the L2, directly (scatter_digits_kernel); above that, random 4-byte
//     stores into a multi-GB array cost a DRAM sector read-modify-write
//     each (125 ms of a 2^27 MSM, 2026-12-02), so the digits are first
//     binned by key range into a pair buffer with one run per block and
//     bin (partition_digits_kernel), then stored bin by bin
//     (scatter_pairs_kernel), the destinations of one bin staying in the L2.
//     The pair buffer (up to tuning::msm::partition_pair_bytes) holds a
//     whole batch of the 2^27 MSM, one stage per batch; a caller may lend
//     one (gpu_msm_workspace::lend_pair_buffer: the Groth16 prover lends
//     its b vector to the H MSM). The count pass of step 1 takes as many
//     windows at once as keep their counters in half the L2.
//  4. Bucket sums, a segmented tree with no host round trip: a bucket of s
//     entries is summed by ceil(s / cap0) threads (mixed additions, cap0 =
//     tuning::msm::bucket_segment); a bucket with one segment writes its sum
//     straight into the bucket array, the others write partial sums, which
//     the next level sums again in groups of tuning::msm::partial_segment
//     (XYZZ additions) until every bucket has one sum. The number of levels
//     is fixed by n (a bucket holds at most n entries), so it is known
//     without reading anything back. Scalars equal to 1 (most of a Filecoin
//     witness) all land in bucket 1 of window 0 and are spread over many
//     threads this way, as are duplicated scalars. Level-0 segments are
//     taken longest first (a CUB radix sort of ~9-bit lengths), so the
//     lanes of a warp do nearly equal work. G1 MSMs of random scalars
//     can run level 0 by batch-affine additions instead
//     (msm_affine_kernels.cuh: 5M + 1S per addition and a share of one
//     inversion, against 8M + 2S), with the same outputs, held MSMs'
//     chunks included; off by default (tuning::msm::affine_by_default:
//     both kernels measured slower than the XYZZ loop, the woven one by
//     15% in the 2^27 level 0 on the H100).
//  5. reduce_buckets_kernel: sum_d d S_d per window by running sums over
//     chunks of buckets, then per block a shared-memory tree and a suffix
//     scan, which replace each thread's multiplication by its chunk's
//     first digit (that was a quarter of a G2 MSM at c = 16); two sums per
//     block stay on the device until the end, when finish_windows_kernel
//     forms every window's sum from its blocks' (one block per window).
//     G2 runs them over lane pairs (reduce_buckets_pair_kernel, fp2_pair_d:
//     half a point per lane, the loop's additions inlined; one lane a G2
//     point spilled: its window sums were twice as slow).
// One download (the W window sums) and one stream synchronisation per MSM;
// the host combines the windows (Horner, c doublings per window).
// Streamed bases (run_streamed: bases copied in chunks beside the work, for
// parameters VRAM cannot hold) make one MSM over all n terms: steps 1-4 run
// per chunk with every window in one batch, the bucket array is held
// across chunks (a later chunk's sums are added to what the buckets hold),
// and step 5 runs once. An MSM per chunk instead took a chunk's narrower
// window and paid every chunk's window sums: the 32 GiB PoRep's H at a 16
// GiB limit, 24 chunks of 5.6 M terms, did 15 windows of additions where
// the held MSM does 13 (gpu_streamed_window_bits). Batches of several
// scalar vectors (run_streamed_batch) still run an MSM per chunk and vector;
// run_streamed_batch_filled has the caller write each vector's chunk of
// scalars into one buffer just before its MSM (coded witnesses expanded a
// chunk at a time), so a batch holds one chunk of scalars, not a vector each.
// Where the time goes (2^27 G1, c = 22, four batches; H100, 2026-12-06,
// CUZK_MSM_PHASES=1): level 0 568 of 741 ms (77%), the scatter 107 (14%),
// the count 22, the window sums 37. Level 0 keeps the multiply-add pipe
// 87% busy (Nsight Compute) at 11.7 warps per SM: the XYZZ addition's
// products, not latency, bound it. The phases run one after another on one
// stream. Sorting batch k + 1 on a second stream during batch k's level 0
// was measured twice and dropped (bench/RESULTS.md, 2026-12-06 third
// session): full-grid kernels on two streams do not share the SMs (the
// first dispatched takes them all, whatever the priorities), and with level
// 0 held to 2 of its 3 blocks per SM to make room, it lost more time beside
// the sort than the sort costs alone (both lean on the L2). The sort's 130
// ms at 2^27 has to get cheaper itself.
//
// Invariants: scalars are Montgomery Fr, never modified; bases are affine
// with infinity as x = y = 0 (the complete mixed addition skips it); device
// points are ec::affine / ec::xyzz over the device fields, byte-identical to
// the host's, so results are copied back with memcpy. Every addition is
// complete (infinity, P == Q, P == -Q). Bucket order is arbitrary (atomic
// slots); results are exact group elements, independent of it.
// Cost, n terms: ~W n mixed additions minus zero digits, plus 2 W B XYZZ
// additions for the window sums (c = lg n - 4 up to 20 keeps this under
// ~10%; 22 from 3 * 2^25 terms, where one window fewer pays for them); two passes over the scalars (32 n bytes each) and
// 4 bytes of entries written and read per non-zero digit. Memory:
// gpu_msm_scratch_bytes. G2 operations cost ~3x G1 ones and move twice the
// bytes.

#include <cuzk/msm/msm_gpu.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuzk/ec/xyzz.hpp>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>

#include "msm_affine_kernels.cuh"
#include "msm_kernels.cuh"

namespace cuzk::msm {
namespace {

using ff::fr;
using gpu::fp_d;
using gpu::fr_d;
using tune = gpu::tuning::msm;
using detail::affine_d;
using detail::xyzz_d;

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

static_assert(sizeof(affine_d<fp_d>) == sizeof(ec::g1_affine));
static_assert(sizeof(xyzz_d<fp_d>) == sizeof(ec::xyzz<ff::fp>));
static_assert(sizeof(affine_d<gpu::fp2_d>) == sizeof(ec::g2_affine));
static_assert(sizeof(xyzz_d<gpu::fp2_d>) == sizeof(ec::xyzz<ff::fp2>));

unsigned blocks_for(std::size_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

unsigned lg_floor(std::size_t n) {
  unsigned lg = 0;
  while ((std::size_t(2) << lg) <= n) ++lg;
  return lg;
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// The narrowest width with as many windows as |c| (ceil(256 / c)): 21 bits
/// take 13 windows as 20 do, with twice the buckets.
unsigned narrowest_with_windows_of(unsigned c) {
  const unsigned w = (256 + c - 1) / c;
  while (c > 1 && (256 + c - 2) / (c - 1) == w) --c;
  return c;
}

/// Window-sum threads take at least 2^this buckets: G1 is work-bound there
/// (2L additions against the block's scan and trees), G2 latency-bound
/// (short chains over many threads).
template <class F>
inline constexpr unsigned reduce_min_lg_buckets =
    std::is_same_v<F, ff::fp> ? tune::reduce_min_lg_buckets_g1 : tune::reduce_min_lg_buckets_g2;

/// Partial sums one thread adds per level after level 0:
/// tuning::msm::partial_segment, or CUZK_MSM_PARTIAL_SEGMENT (>= 2; tuning
/// only). Fewer per thread means more, shorter levels: those levels run few
/// threads, so their time is the latency of a thread's chain of additions.
std::uint32_t partial_segment() {
  static const std::uint32_t cap = [] {
    const char* e = std::getenv("CUZK_MSM_PARTIAL_SEGMENT");
    const long v = e && *e ? std::atol(e) : 0;
    return v >= 2 ? std::uint32_t(v) : std::uint32_t(tune::partial_segment);
  }();
  return cap;
}

/// A size in MiB from the environment variable |name| (> 0; tuning runs
/// only), else |fallback| bytes. Read at every MSM, so one process may time
/// several settings.
std::size_t env_mib_or(const char* name, std::size_t fallback) {
  const char* e = std::getenv(name);
  const long long v = e && *e ? std::atoll(e) : 0;
  return v > 0 ? std::size_t(v) << 20 : fallback;
}

/// Scratch bound per batch of windows (tuning::msm::batch_bytes) and the
/// partitioned scatter's pair buffer (tuning::msm::partition_pair_bytes);
/// CUZK_MSM_BATCH_MB and CUZK_MSM_PAIR_MB override them for tuning runs.
std::size_t batch_bytes_limit() { return env_mib_or("CUZK_MSM_BATCH_MB", tune::batch_bytes); }
std::size_t pair_bytes_limit() { return env_mib_or("CUZK_MSM_PAIR_MB", tune::partition_pair_bytes); }

/// 16-byte units of one slot of the batch-affine level 0: its accumulator
/// (an affine point) and its prefix product (an Fp element).
constexpr std::size_t affine_slot_units_acc = sizeof(ec::affine<ff::fp>) / 16;
constexpr std::size_t affine_slot_units = affine_slot_units_acc + sizeof(ff::fp) / 16;

/// Accumulators the batch-affine level 0 needs (one per segment, rounded
/// up to whole blocks of threads).
std::size_t affine_accumulators(std::size_t segments, unsigned k) {
  if (!k) return 0;
  const std::size_t per_block = std::size_t(tune::affine_threads) * k;
  return ceil_div(segments, per_block) * per_block;
}

/// Everything sized from (n, c, point size) alone, so the host knows every
/// launch and buffer without reading the data.
struct plan {
  std::size_t n;
  unsigned c, windows, lg_b;
  std::size_t buckets;        // B = 2^(c-1) per window
  unsigned wpb, batches;      // windows per batch
  std::size_t nb;             // buckets per batch (wpb B)
  std::size_t multi, single;  // terms that may have several non-zero digits / at most one (in window 0)
  std::size_t entries;        // bound on a batch's non-zero digits: single + wpb multi
  std::size_t pairs;          // the partitioned scatter's pair buffer (entries); holds any one window
  std::size_t seg0;           // bound on level-0 segments
  // later levels: partial-sum bounds and thread bounds, ping-pong buffers
  std::vector<std::size_t> level_parts, level_threads;
  std::size_t part_a, part_b;
  unsigned lg_tt, lg_rt, lg_l;  // window sums: threads per window, per block, buckets per thread
  std::size_t point_bytes;

  /// |multi_digit|: how many of the n scalars may have more than one
  /// non-zero digit (n when unknown); the others are 0 or 1, which have at
  /// most one, in window 0.
  /// |min_lg_l|: the least lg of buckets per window-sum thread
  /// (reduce_min_lg_buckets<F>).
  /// |all_windows|: every window in one batch whatever tuning::msm::
  /// batch_bytes says (a streamed MSM holds every bucket across its chunks).
  plan(std::size_t n_, unsigned c_, std::size_t xyzz_bytes, std::size_t multi_digit, unsigned min_lg_l,
       bool all_windows = false)
      : n(n_), c(c_), point_bytes(xyzz_bytes) {
    windows = (256 + c - 1) / c;
    lg_b = c - 1;
    buckets = std::size_t(1) << lg_b;
    multi = std::min(multi_digit, n);
    single = n - multi;
    const std::size_t fixed = single * 4 + 2 * single / tune::bucket_segment * point_bytes;
    const std::size_t per_window = window_bytes();
    const std::size_t limit = batch_bytes_limit();
    const std::size_t room = limit > fixed ? limit - fixed : 0;
    wpb = all_windows ? windows : unsigned(std::clamp<std::size_t>(room / per_window, 1, windows));
    // offsets are 32-bit: a batch holds fewer than 2^32 entries
    const std::size_t max_entries = (std::size_t(1) << 32) - 1;
    const std::size_t most_windows = (max_entries - std::min(single, max_entries)) / std::max<std::size_t>(multi, 1);
    if (all_windows && most_windows < windows)
      throw std::invalid_argument("cuzk::msm gpu: a streamed chunk of " + std::to_string(n) +
                                  " terms has more entries than 32-bit offsets hold");
    wpb = std::max(unsigned(std::min<std::size_t>(wpb, most_windows)), 1u);
    batches = unsigned(ceil_div(windows, wpb));
    wpb = unsigned(ceil_div(windows, batches));  // even batches
    nb = std::size_t(wpb) * buckets;
    entries = single + std::size_t(wpb) * multi;
    pairs = std::min(entries, std::max(pair_bytes_limit() / 8, single + multi));
    const std::size_t cap0 = tune::bucket_segment, cap = partial_segment();
    seg0 = entries / cap0 + std::min(nb, entries) + 1;
    // after level 0: multi-segment buckets hold <= 2 entries / cap0 partials
    // (each such bucket has > cap0 entries), at most ceil(n / cap0) in one
    std::size_t parts = 2 * entries / cap0 + 1, most = ceil_div(n, cap0);
    part_a = parts;
    part_b = 1;
    bool into_b = true;
    while (most > 1) {
      level_parts.push_back(parts);
      level_threads.push_back(parts / cap + parts / 2 + 1);
      parts = 2 * parts / cap + 1;
      most = ceil_div(most, cap);
      if (into_b) part_b = std::max(part_b, parts);
      else part_a = std::max(part_a, parts);
      into_b = !into_b;
    }
    // window sums: a thread takes L = 2^lg_l buckets (2L additions; the
    // block's scan and trees add ~2 lg RT more), at least 2^min_lg_l, and
    // there are at most 2^13 threads per window (64 blocks of 128 for
    // finish_windows_kernel)
    lg_l = std::max(lg_b > 13 ? lg_b - 13 : 0u, std::min(lg_b, min_lg_l));
    lg_tt = lg_b - lg_l;
    lg_rt = std::min({lg_tt, lg_floor(tune::reduce_threads), lg_floor((48u << 10) / point_bytes)});
  }
  /// Scratch per window of a batch beyond what the single-digit terms take.
  std::size_t window_bytes() const {
    return multi * 4 + buckets * (point_bytes + 7 * 4) + 2 * multi / tune::bucket_segment * point_bytes;
  }
  /// Non-zero digits windows [wa, wb) may hold.
  std::size_t entries_of(unsigned wa, unsigned wb) const {
    return (wa == 0 ? single : 0) + std::size_t(wb - wa) * multi;
  }
  std::size_t per_window_sums() const { return std::size_t(1) << (lg_tt - lg_rt); }
  /// Two per block (reduce_buckets_kernel's A and R), then one per window.
  std::size_t block_sums() const { return 2 * std::size_t(windows) * per_window_sums(); }
  std::size_t sums() const { return block_sums() + windows; }
  unsigned levels_after() const { return unsigned(level_parts.size()); }
};

/// Segments per thread of the batch-affine level 0 for an MSM over F under
/// plan |p| of |mix| scalars, 0 for the XYZZ kernel. By default
/// (tuning::msm::affine_by_default) G1 random-scalar MSMs take it with
/// tuning::msm::affine_batch when they have at least
/// tuning::msm::affine_min_threads threads and their level-0 segments hold
/// tuning::msm::affine_min_mean_entries entries on average (a held MSM's
/// chunks hold a few per bucket: there each slot's set-up would cost more
/// than its additions save). CUZK_MSM_AFFINE (read at every MSM, so tests
/// may change it between runs) = 0 turns it off, = 16 or 32 forces it
/// with that K at any size (tuning runs, and tests at small sizes).
template <class F>
unsigned affine_batch_for(const plan& p, gpu_scalar_mix mix) {
  if constexpr (!std::is_same_v<F, ff::fp>) return 0;
  const char* e = std::getenv("CUZK_MSM_AFFINE");
  if (e && *e) {
    const long v = std::atol(e);
    return v == 16 || v == 32 ? unsigned(v) : 0;
  }
  if (!tune::affine_by_default || mix != gpu_scalar_mix::random) return 0;
  if (p.entries < tune::affine_min_mean_entries * p.seg0) return 0;
  return p.seg0 / tune::affine_batch >= tune::affine_min_threads ? tune::affine_batch : 0;
}

unsigned choose_window(std::size_t n, unsigned requested) {
  if (requested) {
    if (requested < tune::min_explicit_window || requested > tune::max_window)
      throw std::invalid_argument("cuzk::msm gpu: window_bits " + std::to_string(requested) + " outside [" +
                                  std::to_string(tune::min_explicit_window) + ", " + std::to_string(tune::max_window) +
                                  "]");
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

std::size_t scan_temp_bytes(std::size_t items) {
  std::size_t bytes = 0;
  CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<std::uint32_t*>(nullptr),
                                                static_cast<std::uint32_t*>(nullptr), int(items)));
  return bytes;
}

std::size_t sort_temp_bytes(std::size_t items) {
  std::size_t bytes = 0;
  CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, bytes, static_cast<std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
      static_cast<std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), int(items)));
  return bytes;
}

/// Bits of the segment-order keys (0 .. cap + 1).
int key_bits(std::uint32_t cap) {
  int bits = 1;
  while ((std::uint32_t(1) << bits) <= cap + 1) ++bits;
  return bits;
}

/// CUZK_MSM_PHASES=1 (tuning only): the time of each phase of every batch
/// (count, the scan, the scatter (a partitioned one as its two passes,
/// "partition" and "scatter", per stage), segment planning, level 0, later
/// levels, window sums) on stderr after each MSM, from events on the
/// stream; off, it records nothing.
class phase_timer {
 public:
  phase_timer() : _on(enabled()) {}
  void mark(cudaStream_t s, const char* what) {
    if (!_on) return;
    _marks.emplace_back(what, gpu::event{});
    _marks.back().second.record(s);
  }
  /// After the stream has been synchronised.
  void print(std::size_t n, unsigned c, unsigned batches, std::size_t sums, double host_ms) const {
    if (!_on || _marks.size() < 2) return;
    std::fprintf(stderr, "msm phases n=%zu c=%u batches=%u:", n, c, batches);
    for (std::size_t i = 1; i < _marks.size(); ++i)
      std::fprintf(stderr, " %s %.2f", _marks[i].first,
                   double(_marks[i].second.elapsed_ms_since(_marks[i - 1].second)));
    std::fprintf(stderr, "; host combine of %zu window sums %.2f ms\n", sums, host_ms);
  }

 private:
  static bool enabled() {
    const char* e = std::getenv("CUZK_MSM_PHASES");
    return e && *e && *e != '0';
  }
  bool _on;
  std::vector<std::pair<const char*, gpu::event>> _marks;
};

}  // namespace

unsigned gpu_default_window_bits(std::size_t n) {
  // W (n + 2.8 B) operations (a bucket-sum XYZZ addition is ~1.4 mixed
  // ones, two per bucket) is smallest near c = lg n - 4; measured on the
  // H200, 20 stays best up to 2^26 (the counting sort's atomics and the
  // batches grow with 2^c); from tuning::msm::wide_window_terms, 22
  // (bench/RESULTS.md 2026-12-04).
  if (n >= tune::wide_window_terms) return tune::wide_window;
  const int lg = int(lg_floor(std::max<std::size_t>(n, 1)));
  return unsigned(std::clamp(lg - 4, int(tune::min_window), 20));
}

unsigned gpu_sparse_window_bits(std::size_t multi_digit) {
  return gpu_default_window_bits(std::max<std::size_t>(multi_digit, 1));
}

unsigned gpu_streamed_window_bits(std::size_t n, std::size_t chunk_terms) {
  const std::size_t chunk = std::clamp<std::size_t>(chunk_terms, 1, std::max<std::size_t>(n, 1));
  const unsigned cap = gpu_default_window_bits(chunk) + tune::streamed_window_extra;
  return narrowest_with_windows_of(std::min(gpu_default_window_bits(n), cap));
}

namespace {
/// The plan of a held MSM (run_streamed: one vector of |n| terms in chunks
/// of |chunk|, every window's buckets held across them), which its scratch
/// estimates and begin_held share. |multi_digit|: for mostly_binary
/// scalars, how many are neither 0 nor 1 (each chunk is planned for that
/// many; window the sparse one of that count, at most a chunk's default);
/// nullopt for random ones (window gpu_streamed_window_bits). |window_bits|
/// 0: that default.
template <class F>
plan held_plan(std::size_t n, std::size_t chunk, std::optional<std::size_t> multi_digit, unsigned window_bits) {
  const std::size_t multi = multi_digit ? std::min(*multi_digit, chunk) : chunk;
  unsigned c = window_bits;
  if (!c)
    c = multi_digit ? narrowest_with_windows_of(std::min(gpu_sparse_window_bits(multi), gpu_default_window_bits(chunk)))
                    : gpu_streamed_window_bits(n, chunk);
  return plan(chunk, choose_window(chunk, c), sizeof(ec::xyzz<F>), multi, reduce_min_lg_buckets<F>,
              /*all_windows=*/true);
}
}  // namespace

// ---- workspace ---------------------------------------------------------------------

struct gpu_msm_workspace::impl {
  int device;
  // scratch, grown to the largest plan seen; points as raw 16-byte units
  gpu::device_buffer<fr> scalars;  // host scalars are uploaded here
  gpu::device_buffer<std::uint32_t> entries, cnt, off, nseg, npart, seg_off, poff_a, poff_b;
  gpu::device_buffer<uint2> pairs;  // the partitioned scatter's first pass
  uint2* lent_pairs = nullptr;      // lend_pair_buffer's, when set
  std::size_t lent_pair_count = 0;
  uint2* pair_ptr = nullptr;                   // the one this MSM uses (reserve)
  gpu::device_buffer<std::uint32_t> bin_fill;  // its per-bin counts
  std::size_t l2_bytes = 0;                    // of |device|, read once
  gpu::device_buffer<std::uint32_t> seg_keys, seg_keys_sorted, seg_order_in, seg_order;
  gpu::device_buffer<uint4> buckets, part_a, part_b, block_sums;
  gpu::device_buffer<uint4> accs;  // the batch-affine level 0's accumulators
  gpu::device_buffer<unsigned char> temp;
  gpu::device_buffer<unsigned long long> counter;
  // chunk streaming (run_streamed): two base buffers shared by every context
  // of the workspace (their MSMs take turns), a copy stream, one event each
  gpu::device_buffer<uint4> chunk_bufs[2];
  std::unique_ptr<gpu::stream> copy_stream;
  std::unique_ptr<gpu::event> copied[2];
  std::unique_ptr<gpu::event> consumed[2];    // the MSM stream's last read of each buffer
  std::unique_ptr<gpu::event> scalars_ready;  // the MSM stream's work before a streamed MSM

  explicit impl(int dev) : device(dev) {}

  /// Scratch for |p|; the pair buffer (up to tune::partition_pair_bytes)
  /// only when some batch takes the partitioned scatter, the affine
  /// accumulators only when level 0 is batch-affine (|affine_k| segments per
  /// thread).
  void reserve(const plan& p, bool partitioned, unsigned affine_k) {
    if (affine_k) grow(accs, affine_accumulators(p.seg0, affine_k) * affine_slot_units);
    grow(entries, p.entries);
    if (partitioned) {
      if (lent_pair_count >= p.pairs) {
        pair_ptr = lent_pairs;
      } else {
        grow(pairs, p.pairs);
        pair_ptr = pairs.data();
      }
      grow(bin_fill, tune::partition_max_bins);
    }
    for (auto* b : {&cnt, &off, &nseg, &npart, &seg_off, &poff_a, &poff_b}) grow(*b, p.nb + 1);
    const std::size_t u = p.point_bytes / 16;
    grow(buckets, p.nb * u);
    grow(part_a, p.part_a * u);
    grow(part_b, p.part_b * u);
    grow(block_sums, p.sums() * u);
    for (auto* b : {&seg_keys, &seg_keys_sorted, &seg_order_in, &seg_order}) grow(*b, p.seg0);
    grow(temp, std::max(scan_temp_bytes(p.nb + 1), sort_temp_bytes(p.seg0)));
  }

  /// Scalars of d_scalars[0, n) other than 0 and 1; waits for |s|.
  std::size_t count_multi_digit(const fr* d_scalars, std::size_t n, cudaStream_t s) {
    if (n == 0) return 0;
    grow(counter, 1);
    CUZK_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned long long), s));
    // enough blocks to fill the device a few times over; threads stride
    const unsigned blocks = unsigned(std::min<std::size_t>(blocks_for(n, tune::digit_threads), 4096));
    detail::count_multi_digit_kernel<<<blocks, tune::digit_threads, 0, s>>>(reinterpret_cast<const fr_d*>(d_scalars), n,
                                                                            counter.data());
    CUZK_CUDA_CHECK_LAUNCH();
    unsigned long long count = 0;
    counter.download(&count, 1, s);
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
    return std::size_t(count);
  }

  std::size_t bytes() const {
    std::size_t b = scalars.bytes() + temp.bytes() + counter.bytes() + pairs.bytes() + bin_fill.bytes() +
                    chunk_bufs[0].bytes() + chunk_bufs[1].bytes();
    for (auto* a : {&entries, &cnt, &off, &nseg, &npart, &seg_off, &poff_a, &poff_b, &seg_keys, &seg_keys_sorted,
                    &seg_order_in, &seg_order})
      b += a->bytes();
    for (auto* a : {&buckets, &part_a, &part_b, &block_sums, &accs}) b += a->bytes();
    return b;
  }

  /// sum_i scalars[i] * bases[i] over n terms. Scalars come from the host
  /// (|h_scalars|) or from device memory (|d_scalars|); |after_launch| runs
  /// once every kernel is queued, before the host waits (chunk streaming
  /// queues its next copy there).
  template <class F>
  ec::jacobian<F> run(const affine_d<fd_of<F>>* d_bases, std::size_t n, const fr* h_scalars, const fr* d_scalars,
                      unsigned window_bits, gpu_scalar_mix mix, cudaStream_t s,
                      const std::function<void()>& after_launch = {}) {
    using Fd = fd_of<F>;
    using xyzz_t = xyzz_d<Fd>;
    if (n >= (std::size_t(1) << 31)) throw std::invalid_argument("cuzk::msm gpu: at most 2^31 - 1 terms");
    if (n == 0) {
      if (after_launch) after_launch();
      return ec::jacobian<F>::identity();
    }
    gpu::device_guard guard(device);
    if (h_scalars) {
      grow(scalars, n);
      scalars.upload(h_scalars, n, s);
      d_scalars = scalars.data();
    }
    // mostly 0/1 scalars: window and batches from the count of the others
    // (exact, from these very scalars, so the entry bound cannot be exceeded)
    std::size_t multi = n;
    unsigned c = window_bits;
    if (!c && mix == gpu_scalar_mix::random) c = forced_window_bits();
    if (mix == gpu_scalar_mix::mostly_binary) {
      multi = count_multi_digit(d_scalars, n, s);
      if (!c) c = gpu_sparse_window_bits(multi);
    }
    const plan p(n, choose_window(n, c), sizeof(xyzz_t), multi, reduce_min_lg_buckets<F>);
    const std::size_t forced = forced_bin_entries();
    const std::size_t per_bin = forced ? forced : l2_bin_entries();
    std::vector<scatter_plan> scatters;
    bool partitioned = false;
    for (unsigned bt = 0; bt < p.batches; ++bt) {
      const unsigned w_first = bt * p.wpb, w_end = std::min(w_first + p.wpb, p.windows);
      scatters.push_back(plan_scatter(p, w_first, w_end, per_bin, forced != 0));
      partitioned |= scatters.back().partitioned;
    }
    const unsigned affine_k = affine_batch_for<F>(p, mix);
    reserve(p, partitioned, affine_k);
    xyzz_t* d_buckets = reinterpret_cast<xyzz_t*>(buckets.data());
    phase_timer phases;
    phases.mark(s, "start");
    for (unsigned bt = 0; bt < p.batches; ++bt) {
      const unsigned w_first = bt * p.wpb;
      const unsigned w_count = std::min(p.wpb, p.windows - w_first);
      const std::size_t nb = std::size_t(w_count) * p.buckets;
      const detail::batch_view bv{reinterpret_cast<const fr_d*>(d_scalars), std::uint32_t(n), p.c, w_first, w_count};
      sort_batch(bv, p, nb, scatters[bt], per_bin, s, phases);  // marks its own phases
      sum_buckets<F>(d_bases, p, nb, d_buckets, affine_k, /*accumulate=*/false, s, phases);
      phases.mark(s, "levels");
      reduce_windows<F>(p, w_first, w_count, s);
      phases.mark(s, "reduce");
    }
    return combine_windows<F>(p, n, s, phases, after_launch);
  }

  /// How one batch's digits reach their buckets: in stages of whole windows
  /// whose pairs fit the pair buffer, partitioned or direct.
  struct scatter_plan {
    std::vector<std::pair<unsigned, unsigned>> stages;
    bool partitioned = false;
  };

  /// A streamed MSM of |n| terms whose chunks of at most |chunk| terms
  /// arrive one after another (run_streamed): one plan for every chunk,
  /// every window in one batch, and the buckets held across the chunks, so
  /// the window sums and the host's combination run once, at the end, and
  /// nothing waits for the host between chunks. Against an MSM per chunk
  /// this takes the window of all n terms instead of a chunk's (the 32 GiB
  /// PoRep's H at a 16 GiB limit: 13 windows instead of 15) and drops every
  /// chunk's window sums.
  struct held_msm {
    plan p;
    scatter_plan sp;
    std::size_t per_bin;
    unsigned affine_k;  // level 0's segments per thread when batch-affine (affine_batch_for)
    std::size_t chunks_done = 0;
    phase_timer phases;
  };

  /// The plan of a held MSM over |d_scalars| (n values on the device; a
  /// mostly_binary vector is counted here, one wait for the stream), its
  /// scratch reserved. Window: |window_bits|, else gpu_streamed_window_bits
  /// for random scalars and, for mostly_binary ones, the sparse window of
  /// the whole vector but at most a chunk's default (the scratch of one
  /// chunk's MSM, which the callers plan for, then holds it).
  template <class F>
  held_msm begin_held(std::size_t n, std::size_t chunk, const fr* d_scalars, unsigned window_bits, gpu_scalar_mix mix,
                      cudaStream_t s) {
    gpu::device_guard guard(device);
    unsigned c = window_bits;
    if (!c && mix == gpu_scalar_mix::random) c = forced_window_bits();
    std::optional<std::size_t> multi;
    if (mix == gpu_scalar_mix::mostly_binary) multi = count_multi_digit(d_scalars, n, s);
    held_msm h{held_plan<F>(n, chunk, multi, c), {}, 0, 0};
    const std::size_t forced = forced_bin_entries();
    h.per_bin = forced ? forced : l2_bin_entries();
    h.sp = plan_scatter(h.p, 0, h.p.windows, h.per_bin, forced != 0);
    h.affine_k = affine_batch_for<F>(h.p, mix);
    reserve(h.p, h.sp.partitioned, h.affine_k);
    h.phases.mark(s, "start");
    return h;
  }

  /// The next chunk of a held MSM: |len| terms, their bases at |d_bases|.
  template <class F>
  void add_chunk(held_msm& h, const affine_d<fd_of<F>>* d_bases, std::size_t len, const fr* d_scalars, cudaStream_t s) {
    if (len == 0) return;
    if (len > h.p.n) throw std::logic_error("cuzk::msm gpu: a streamed chunk larger than its plan");
    gpu::device_guard guard(device);
    const detail::batch_view bv{reinterpret_cast<const fr_d*>(d_scalars), std::uint32_t(len), h.p.c, 0, h.p.windows};
    sort_batch(bv, h.p, h.p.nb, h.sp, h.per_bin, s, h.phases);
    sum_buckets<F>(d_bases, h.p, h.p.nb, reinterpret_cast<xyzz_d<fd_of<F>>*>(buckets.data()), h.affine_k,
                   /*accumulate=*/h.chunks_done > 0, s, h.phases);
    h.phases.mark(s, "levels");
    ++h.chunks_done;
  }

  /// The held MSM's result over its |n| terms (identity when no chunk came).
  template <class F>
  ec::jacobian<F> finish_held(held_msm& h, std::size_t n, cudaStream_t s) {
    if (h.chunks_done == 0) return ec::jacobian<F>::identity();
    gpu::device_guard guard(device);
    reduce_windows<F>(h.p, 0, h.p.windows, s);
    h.phases.mark(s, "reduce");
    return combine_windows<F>(h.p, n, s, h.phases, {});
  }

 private:
  void scan(const std::uint32_t* in, std::uint32_t* out, std::size_t items, cudaStream_t s) {
    std::size_t tb = temp.size();
    CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), tb, in, out, int(items), s));
  }

  /// Step 5 for windows [w_first, w_first + w_count), whose buckets are
  /// the bucket array's: two sums per block into the block-sum array.
  template <class F>
  void reduce_windows(const plan& p, unsigned w_first, unsigned w_count, cudaStream_t s) {
    using Fd = fd_of<F>;
    using xyzz_t = xyzz_d<Fd>;
    xyzz_t* d_buckets = reinterpret_cast<xyzz_t*>(buckets.data());
    const unsigned rt = 1u << p.lg_rt;
    const dim3 grid(unsigned(p.per_window_sums()), w_count);
    xyzz_t* block_out = reinterpret_cast<xyzz_t*>(block_sums.data()) + 2 * std::size_t(w_first) * p.per_window_sums();
    if constexpr (std::is_same_v<F, ff::fp>)
      detail::reduce_buckets_kernel<Fd><<<grid, rt, rt * sizeof(xyzz_t), s>>>(d_buckets, p.lg_b, p.lg_l, block_out);
    else
      detail::reduce_buckets_pair_kernel<<<grid, 2 * rt, rt * sizeof(xyzz_t), s>>>(d_buckets, p.lg_b, p.lg_l,
                                                                                   block_out);
    CUZK_CUDA_CHECK_LAUNCH();
  }

  /// Every window's sum from the block sums on the device, one download
  /// (|after_launch| runs once it is queued), a wait for the stream, and the
  /// host's Horner over the windows.
  template <class F>
  ec::jacobian<F> combine_windows(const plan& p, std::size_t n, cudaStream_t s, phase_timer& phases,
                                  const std::function<void()>& after_launch) {
    using Fd = fd_of<F>;
    using xyzz_t = xyzz_d<Fd>;
    xyzz_t* d_sums = reinterpret_cast<xyzz_t*>(block_sums.data());
    xyzz_t* d_windows = d_sums + p.block_sums();
    const unsigned g = unsigned(p.per_window_sums());
    detail::finish_windows_kernel<Fd><<<p.windows, g, g * sizeof(xyzz_t), s>>>(d_sums, p.lg_rt + p.lg_l, d_windows);
    CUZK_CUDA_CHECK_LAUNCH();
    phases.mark(s, "windows");
    std::vector<ec::xyzz<F>> h_windows(p.windows);
    CUZK_CUDA_CHECK(
        cudaMemcpyAsync(h_windows.data(), d_windows, h_windows.size() * sizeof(xyzz_t), cudaMemcpyDeviceToHost, s));
    if (after_launch) after_launch();
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));

    const auto t_host = std::chrono::steady_clock::now();
    ec::xyzz<F> acc = ec::xyzz<F>::identity();
    for (unsigned w = p.windows; w-- > 0;) {
      for (unsigned k = 0; k < p.c; ++k) acc = acc.dbl();
      acc += h_windows[w];
    }
    phases.print(n, p.c, p.batches, h_windows.size(),
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_host).count());
    return acc.to_jacobian();
  }

  /// CUZK_MSM_WINDOW (> 0): the window width of MSMs that ask for the
  /// default (tuning runs only); 0 when unset. Read at every MSM.
  static unsigned forced_window_bits() {
    const char* e = std::getenv("CUZK_MSM_WINDOW");
    const long v = e && *e ? std::atol(e) : 0;
    return v > 0 ? unsigned(v) : 0;
  }

  /// CUZK_MSM_BIN_ENTRIES (> 0): entries per bin of the partitioned
  /// scatter, which it then takes wherever a batch outgrows one bin (for
  /// tuning, and for tests that reach it at small sizes); 0 when unset.
  /// Read at every MSM, so a test can change it between runs.
  static std::size_t forced_bin_entries() {
    const char* e = std::getenv("CUZK_MSM_BIN_ENTRIES");
    if (!e || !*e) return 0;
    const long long v = std::atoll(e);
    return v > 0 ? std::size_t(v) : 0;
  }

  /// Entries one bin of the partitioned scatter should hold: a share of
  /// the L2 (its size read once).
  std::size_t l2_bin_entries() { return std::max<std::size_t>((l2_size() >> tune::partition_lg_l2_share) / 4, 1); }

  /// The device's L2 size, read once.
  std::size_t l2_size() {
    if (!l2_bytes) {
      int l2 = 0;
      CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
      l2_bytes = std::size_t(std::max(l2, 1 << 20));
    }
    return l2_bytes;
  }

  /// The scatter of windows [w_first, w_end). Direct: one pass over the
  /// scalars, a DRAM read-modify-write per multi-digit entry once they
  /// overflow the L2. Partitioned: one pass over the scalars per stage,
  /// cheaper entries. tuning::msm::partition_pass_cost (measured) prices a
  /// pass over the scalars in saved entries; the single-digit terms (the
  /// ones of a witness, all in one bucket) write in sequence either way and
  /// do not count. |forced|: partitioned whenever the batch outgrows a bin.
  static scatter_plan plan_scatter(const plan& p, unsigned w_first, unsigned w_end, std::size_t per_bin, bool forced) {
    scatter_plan sp;
    for (unsigned wa = w_first; wa < w_end;) {
      unsigned wb = wa + 1;
      while (wb < w_end && p.entries_of(wa, wb + 1) <= p.pairs) ++wb;
      sp.stages.emplace_back(wa, wb);
      wa = wb;
    }
    const std::size_t all = p.entries_of(w_first, w_end);
    if (all <= per_bin) return sp;  // the whole batch stays in the L2
    const double random = double(all - (w_first == 0 ? p.single : 0));
    sp.partitioned = forced || random > tune::partition_pass_cost * double(sp.stages.size()) * double(p.n);
    return sp;
  }

  /// Steps 1-3: entries of every non-zero digit of the batch, grouped by
  /// bucket; off[b] .. off[b+1] is bucket b's range (nb + 1 offsets).
  void sort_batch(const detail::batch_view& bv, const plan& p, std::size_t nb, const scatter_plan& sp,
                  std::size_t per_bin, cudaStream_t s, phase_timer& ph) {
    CUZK_CUDA_CHECK(cudaMemsetAsync(cnt.data(), 0, (nb + 1) * sizeof(std::uint32_t), s));
    const unsigned blocks = blocks_for(bv.n, tune::digit_threads);
    // windows counted per pass: as many as keep their counters in a share
    // of the L2 (each pass reads the scalars again)
    const std::size_t l2_counters =
        std::max<std::size_t>((l2_size() >> tune::count_lg_l2_share) / sizeof(std::uint32_t), 1);
    const unsigned per_pass = unsigned(std::clamp<std::size_t>(l2_counters / p.buckets, 1, bv.w_count));
    for (unsigned wa = bv.w_first; wa < bv.w_first + bv.w_count; wa += per_pass) {
      const unsigned wb = std::min(wa + per_pass, bv.w_first + bv.w_count);
      detail::count_digits_kernel<<<blocks, tune::digit_threads, 0, s>>>(bv, wa, wb, cnt.data());
      CUZK_CUDA_CHECK_LAUNCH();
    }
    ph.mark(s, "count");
    scan(cnt.data(), off.data(), nb + 1, s);
    ph.mark(s, "scan");
    // cnt becomes each bucket's cursor, the end of its range, which the
    // scatter counts down: a slot is one atomic on it, with no read of off
    CUZK_CUDA_CHECK(
        cudaMemcpyAsync(cnt.data(), off.data() + 1, nb * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, s));
    if (!sp.partitioned) {
      detail::scatter_digits_kernel<<<blocks, tune::digit_threads, 0, s>>>(bv, cnt.data(), entries.data());
      CUZK_CUDA_CHECK_LAUNCH();
      ph.mark(s, "scatter");
      return;
    }
    for (const auto& [wa, wb] : sp.stages) scatter_stage(bv, p, wa, wb, per_bin, s, ph);
  }

  /// The partitioned scatter of windows [wa, wb) of the batch.
  void scatter_stage(const detail::batch_view& bv, const plan& p, unsigned wa, unsigned wb, std::size_t per_bin,
                     cudaStream_t s, phase_timer& ph) {
    const std::size_t bound = p.entries_of(wa, wb);
    const std::size_t keys = std::size_t(wb - wa) * p.buckets;
    // bins of 2^lg_bin keys, each expected to hold about |per_bin| entries
    unsigned lg_bin = 0;
    while ((std::size_t(2) << lg_bin) <= keys &&
           (std::size_t(2) << lg_bin) * double(bound) / double(keys) <= double(per_bin))
      ++lg_bin;
    while (ceil_div(keys, std::size_t(1) << lg_bin) > tune::partition_max_bins) ++lg_bin;
    const detail::stage_view st{wa,
                                wb,
                                std::uint32_t((wa - bv.w_first) * p.buckets),
                                std::uint32_t((wb - bv.w_first) * p.buckets),
                                lg_bin,
                                unsigned(ceil_div(keys, std::size_t(1) << lg_bin))};
    CUZK_CUDA_CHECK(cudaMemsetAsync(bin_fill.data(), 0, st.nbins * sizeof(std::uint32_t), s));
    const unsigned per_block = tune::partition_threads * tune::partition_terms_per_thread;
    detail::partition_digits_kernel<<<blocks_for(bv.n, per_block), tune::partition_threads, 0, s>>>(
        bv, st, off.data(), bin_fill.data(), pair_ptr);
    CUZK_CUDA_CHECK_LAUNCH();
    ph.mark(s, "partition");
    detail::scatter_pairs_kernel<<<blocks_for(bound, tune::digit_threads), tune::digit_threads, 0, s>>>(
        pair_ptr, st, off.data(), cnt.data(), entries.data());
    CUZK_CUDA_CHECK_LAUNCH();
    ph.mark(s, "scatter");
  }

  /// The batch-affine level 0 with K = |k| segments per thread.
  void launch_affine(unsigned k, const affine_d<fp_d>* d_bases, std::uint32_t bound, const detail::level_view& lv,
                     xyzz_d<fp_d>* d_buckets, xyzz_d<fp_d>* pa, cudaStream_t s) {
    const std::size_t slots = affine_accumulators(bound, k);
    const unsigned blocks = unsigned(slots / (std::size_t(tune::affine_threads) * k));
    auto* a = reinterpret_cast<affine_d<fp_d>*>(accs.data());
    auto* pre = reinterpret_cast<fp_d*>(accs.data() + slots * affine_slot_units_acc);
    switch (k) {
      case 16: launch_affine_k<16>(blocks, d_bases, bound, lv, a, pre, d_buckets, pa, s); break;
      case 32: launch_affine_k<32>(blocks, d_bases, bound, lv, a, pre, d_buckets, pa, s); break;
      default: throw std::logic_error("cuzk::msm gpu: batch-affine K " + std::to_string(k));
    }
  }
  template <unsigned K>
  void launch_affine_k(unsigned blocks, const affine_d<fp_d>* d_bases, std::uint32_t bound,
                       const detail::level_view& lv, affine_d<fp_d>* a, fp_d* pre, xyzz_d<fp_d>* d_buckets,
                       xyzz_d<fp_d>* pa, cudaStream_t s) {
    constexpr std::size_t shared = detail::affine_shared_bytes<K>;
    // above the default 48 KB of dynamic shared memory (a per-device
    // setting, so asked at every launch: a host-side call)
    CUZK_CUDA_CHECK(cudaFuncSetAttribute(detail::accumulate_affine_kernel<K>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
    detail::accumulate_affine_kernel<K><<<blocks, tune::affine_threads, shared, s>>>(
        d_bases, entries.data(), seg_order.data(), bound, lv, a, pre, d_buckets, pa);
    CUZK_CUDA_CHECK_LAUNCH();
  }

  /// Step 4: every bucket's sum into |d_buckets| (empty buckets: infinity).
  /// Level 0 by batch-affine additions when |affine_k| (G1 only).
  /// |accumulate|: add to the sums the buckets hold (a held MSM's later
  /// chunks) instead of starting from infinity.
  template <class F>
  void sum_buckets(const affine_d<fd_of<F>>* d_bases, const plan& p, std::size_t nb, xyzz_d<fd_of<F>>* d_buckets,
                   unsigned affine_k, bool accumulate, cudaStream_t s, phase_timer& ph) {
    using Fd = fd_of<F>;
    using xyzz_t = xyzz_d<Fd>;
    if (!accumulate) CUZK_CUDA_CHECK(cudaMemsetAsync(d_buckets, 0, nb * sizeof(xyzz_t), s));
    const std::uint32_t nb32 = std::uint32_t(nb);
    const unsigned slot_blocks = blocks_for(nb + 1, 256);
    xyzz_t* pa = reinterpret_cast<xyzz_t*>(part_a.data());
    xyzz_t* pb = reinterpret_cast<xyzz_t*>(part_b.data());
    std::uint32_t *in_off = off.data(), *out_off = poff_a.data(), *spare_off = poff_b.data();
    // level 0: the entries
    std::uint32_t cap = tune::bucket_segment;
    detail::segments_kernel<<<slot_blocks, 256, 0, s>>>(in_off, nb32, cap, nseg.data(), npart.data());
    CUZK_CUDA_CHECK_LAUNCH();
    scan(nseg.data(), seg_off.data(), nb + 1, s);
    scan(npart.data(), out_off, nb + 1, s);
    const std::uint32_t bound = std::uint32_t(p.seg0);
    detail::segment_keys_kernel<<<blocks_for(bound, 256), 256, 0, s>>>(in_off, seg_off.data(), nb32, cap, bound,
                                                                       seg_keys.data(), seg_order_in.data());
    CUZK_CUDA_CHECK_LAUNCH();
    std::size_t tb = temp.size();
    CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), tb, seg_keys.data(), seg_keys_sorted.data(),
                                                    seg_order_in.data(), seg_order.data(), int(bound), 0, key_bits(cap),
                                                    s));
    ph.mark(s, "segments");
    const detail::level_view lv0{in_off, seg_off.data(), out_off, nb32, cap, accumulate};
    bool affine = false;
    if constexpr (std::is_same_v<F, ff::fp>) {
      affine = affine_k != 0;
      if (affine) launch_affine(affine_k, d_bases, bound, lv0, d_buckets, pa, s);
    }
    if (!affine)
      detail::accumulate_points_kernel<Fd>
          <<<blocks_for(bound, tune::accumulate_threads), tune::accumulate_threads, 0, s>>>(
              d_bases, entries.data(), seg_order.data(), bound, lv0, d_buckets, pa);
    CUZK_CUDA_CHECK_LAUNCH();
    ph.mark(s, "level0");
    // later levels: the partial sums, ping-pong between part_a and part_b
    cap = partial_segment();
    xyzz_t *in = pa, *out = pb;
    in_off = out_off;
    out_off = spare_off;
    for (unsigned lvl = 0; lvl < p.levels_after(); ++lvl) {
      detail::segments_kernel<<<slot_blocks, 256, 0, s>>>(in_off, nb32, cap, nseg.data(), npart.data());
      CUZK_CUDA_CHECK_LAUNCH();
      scan(nseg.data(), seg_off.data(), nb + 1, s);
      scan(npart.data(), out_off, nb + 1, s);
      detail::accumulate_sums_kernel<Fd>
          <<<blocks_for(p.level_threads[lvl], tune::accumulate_threads), tune::accumulate_threads, 0, s>>>(
              in, detail::level_view{in_off, seg_off.data(), out_off, nb32, cap, accumulate}, d_buckets, out);
      CUZK_CUDA_CHECK_LAUNCH();
      std::swap(in, out);
      std::swap(in_off, out_off);
    }
  }
};

gpu_msm_workspace::gpu_msm_workspace(int device) : _impl(std::make_unique<impl>(device)) {}
gpu_msm_workspace::~gpu_msm_workspace() = default;
gpu_msm_workspace::gpu_msm_workspace(gpu_msm_workspace&&) noexcept = default;
gpu_msm_workspace& gpu_msm_workspace::operator=(gpu_msm_workspace&&) noexcept = default;
int gpu_msm_workspace::device() const { return _impl->device; }
std::size_t gpu_msm_workspace::bytes() const { return _impl->bytes(); }
void gpu_msm_workspace::release() {
  gpu::device_guard guard(_impl->device);
  uint2* lent = _impl->lent_pairs;
  const std::size_t lent_count = _impl->lent_pair_count;
  *_impl = impl(_impl->device);
  _impl->lent_pairs = lent;  // a loan outlives a release
  _impl->lent_pair_count = lent_count;
}
void gpu_msm_workspace::lend_pair_buffer(void* ptr, std::size_t bytes) {
  if (ptr && reinterpret_cast<std::uintptr_t>(ptr) % alignof(uint2) != 0)
    throw std::invalid_argument("cuzk::msm gpu: a lent pair buffer must be 8-byte aligned");
  _impl->lent_pairs = ptr ? static_cast<uint2*>(ptr) : nullptr;
  _impl->lent_pair_count = ptr ? bytes / sizeof(uint2) : 0;
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
gpu_msm_context_t<F>::gpu_msm_context_t(int device, CUstream_st* stream, std::shared_ptr<gpu_msm_workspace> workspace)
    : _impl(std::make_unique<impl>()) {
  _impl->device = device;
  _impl->s = reinterpret_cast<cudaStream_t>(stream);
  _impl->ws = workspace ? std::move(workspace) : std::make_shared<gpu_msm_workspace>(device);
  if (_impl->ws->device() != device)
    throw std::invalid_argument("cuzk::msm gpu: workspace of device " + std::to_string(_impl->ws->device()) +
                                " given to a context of device " + std::to_string(device));
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
void gpu_msm_context_t<F>::use_device_bases(std::shared_ptr<const void> owner, const ec::affine<F>* d_bases,
                                            std::size_t n) {
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
    throw std::invalid_argument("cuzk::msm gpu: " + std::to_string(n) + " scalars from base " + std::to_string(first) +
                                " but " + std::to_string(have) + " resident bases");
}

template <class F>
ec::jacobian<F> gpu_msm_context_t<F>::run(std::span<const fr> scalars, unsigned window_bits, gpu_scalar_mix mix) {
  check_terms(0, scalars.size());
  return _impl->ws->internals().template run<F>(_impl->d_bases(), scalars.size(), scalars.data(), nullptr, window_bits,
                                                mix, _impl->s);
}

template <class F>
ec::jacobian<F> gpu_msm_context_t<F>::run_device(const fr* d_scalars, std::size_t n, std::size_t first_base,
                                                 unsigned window_bits, gpu_scalar_mix mix) {
  check_terms(first_base, n);
  if (n && !d_scalars) throw std::invalid_argument("cuzk::msm gpu: null device scalars");
  return _impl->ws->internals().template run<F>(_impl->d_bases() + first_base, n, nullptr, d_scalars, window_bits, mix,
                                                _impl->s);
}

template <class F>
std::size_t gpu_msm_context_t<F>::count_multi_digit_scalars(const fr* d_scalars, std::size_t n) {
  if (n && !d_scalars) throw std::invalid_argument("cuzk::msm gpu: null device scalars");
  gpu::device_guard guard(_impl->device);
  return _impl->ws->internals().count_multi_digit(d_scalars, n, _impl->s);
}

template <class F>
ec::jacobian<F> gpu_msm_context_t<F>::run_streamed(std::span<const ec::affine<F>> h_bases, const fr* d_scalars,
                                                   std::size_t chunk_terms, unsigned window_bits, gpu_scalar_mix mix,
                                                   void* lent, std::size_t lent_bytes) {
  const fr* const one[1] = {d_scalars};
  return run_streamed_batch(h_bases, one, chunk_terms, window_bits, mix, lent, lent_bytes).front();
}

template <class F>
std::vector<ec::jacobian<F>> gpu_msm_context_t<F>::run_streamed_batch(std::span<const ec::affine<F>> h_bases,
                                                                      std::span<const fr* const> d_scalars,
                                                                      std::size_t chunk_terms, unsigned window_bits,
                                                                      gpu_scalar_mix mix, void* lent,
                                                                      std::size_t lent_bytes) {
  for (const fr* v : d_scalars)
    if (!v) throw std::invalid_argument("cuzk::msm gpu: null device scalars");
  const auto at = [&](std::size_t v, std::size_t first, std::size_t) { return d_scalars[v] + first; };
  return streamed_batch(h_bases, d_scalars.size(), at, d_scalars.size() == 1 ? d_scalars[0] : nullptr, chunk_terms,
                        window_bits, mix, lent, lent_bytes);
}

template <class F>
std::vector<ec::jacobian<F>> gpu_msm_context_t<F>::run_streamed_batch_filled(
    std::span<const ec::affine<F>> h_bases, std::size_t vectors, const gpu_scalar_fill& fill, fr* d_chunk_scalars,
    std::size_t chunk_terms, unsigned window_bits, gpu_scalar_mix mix, void* lent, std::size_t lent_bytes) {
  if (vectors && !h_bases.empty() && (!fill || !d_chunk_scalars))
    throw std::invalid_argument("cuzk::msm gpu: a filled batch needs its fill and chunk scalars");
  const auto at = [&](std::size_t v, std::size_t first, std::size_t len) -> const fr* {
    fill(v, first, len, d_chunk_scalars, _impl->s);
    return d_chunk_scalars;
  };
  return streamed_batch(h_bases, vectors, at, nullptr, chunk_terms, window_bits, mix, lent, lent_bytes);
}

template <class F>
std::vector<ec::jacobian<F>> gpu_msm_context_t<F>::streamed_batch(
    std::span<const ec::affine<F>> h_bases, std::size_t vectors,
    const std::function<const fr*(std::size_t, std::size_t, std::size_t)>& scalars_at, const fr* held_scalars,
    std::size_t chunk_terms, unsigned window_bits, gpu_scalar_mix mix, void* lent, std::size_t lent_bytes) {
  const std::size_t n = h_bases.size();
  std::vector<ec::jacobian<F>> acc(vectors, ec::jacobian<F>::identity());
  if (n == 0 || vectors == 0) return acc;
  if (chunk_terms == 0) throw std::invalid_argument("cuzk::msm gpu: chunk of 0 terms");
  gpu::device_guard guard(_impl->device);
  impl& m = *_impl;
  auto& w = m.ws->internals();
  const std::size_t chunk = std::min(chunk_terms, n);
  const std::size_t chunk_words = (chunk * sizeof(ec::affine<F>) + 15) / 16;
  uint4* bufs[2] = {nullptr, nullptr};
  if (lent) {
    if (reinterpret_cast<std::uintptr_t>(lent) % 16 != 0 || lent_bytes / 16 < 2 * chunk_words)
      throw std::invalid_argument("cuzk::msm gpu: lent chunk memory of " + std::to_string(lent_bytes) +
                                  " bytes cannot hold two chunks of " + std::to_string(chunk) +
                                  " terms 16-byte aligned");
    bufs[0] = static_cast<uint4*>(lent);
    bufs[1] = bufs[0] + chunk_words;
  } else {
    for (int k = 0; k < 2; ++k) {
      auto& b = w.chunk_bufs[k];
      if (b.size() < chunk_words) {
        b.reset();
        b = gpu::device_buffer<uint4>(chunk_words);
      }
      bufs[k] = b.data();
    }
  }
  if (!w.copy_stream) {
    w.copy_stream = std::make_unique<gpu::stream>();
    for (int k = 0; k < 2; ++k) {
      w.copied[k] = std::make_unique<gpu::event>();
      w.consumed[k] = std::make_unique<gpu::event>();
    }
    w.scalars_ready = std::make_unique<gpu::event>();
  }
  // the copies start after the work already queued on the MSM's stream:
  // it may still read the lent memory (a caller's compaction out of it) or
  // still be writing the scalars
  w.scalars_ready->record(m.s);
  CUZK_CUDA_CHECK(cudaStreamWaitEvent(*w.copy_stream, w.scalars_ready->get(), 0));
  const std::size_t chunks = (n + chunk - 1) / chunk;
  auto chunk_ptr = [&](std::size_t k) { return reinterpret_cast<ec::affine<F>*>(bufs[k % 2]); };
  // chunk k's copy waits for the MSM stream's last read of its buffer,
  // chunk k - 2's (nothing from an earlier call is pending: each ends with
  // its stream synchronised)
  auto queue_copy = [&](std::size_t k) {
    const std::size_t first = k * chunk, len = std::min(chunk, n - first);
    if (k >= 2) CUZK_CUDA_CHECK(cudaStreamWaitEvent(*w.copy_stream, w.consumed[k % 2]->get(), 0));
    CUZK_CUDA_CHECK(cudaMemcpyAsync(chunk_ptr(k), h_bases.data() + first, len * sizeof(ec::affine<F>),
                                    cudaMemcpyHostToDevice, *w.copy_stream));
    w.copied[k % 2]->record(*w.copy_stream);
  };
  // From pinned memory chunk k + 1's copy is queued before chunk k's MSM
  // starts, so the copy engine runs back to back; queued after chunk k's
  // kernels, it also waited for that MSM's own host round trips (the 32 GiB
  // PoRep at a 24 GiB limit on an H200: L 335 -> 232 ms, H 1061 -> 868, the
  // partition 2390 -> 1867). From pageable memory cudaMemcpyAsync returns
  // only once the host has staged the copy, so it is queued after chunk k's
  // kernels, to run while they do.
  cudaPointerAttributes attr{};
  const bool pinned = cudaPointerGetAttributes(&attr, h_bases.data()) == cudaSuccess && attr.type == cudaMemoryTypeHost;
  if (!pinned) (void)cudaGetLastError();
  // one vector: one MSM whose buckets are held across the chunks; several
  // (a batch): an MSM per chunk and vector, each vector's buckets would
  // need their own memory
  std::optional<typename gpu_msm_workspace::impl::held_msm> held;
  if (held_scalars) held.emplace(w.template begin_held<F>(n, chunk, held_scalars, window_bits, mix, m.s));
  queue_copy(0);
  for (std::size_t k = 0; k < chunks; ++k) {
    const std::size_t first = k * chunk, len = std::min(chunk, n - first);
    if (pinned && k + 1 < chunks) queue_copy(k + 1);
    CUZK_CUDA_CHECK(cudaStreamWaitEvent(m.s, w.copied[k % 2]->get(), 0));
    const auto* d_chunk = reinterpret_cast<const affine_d<fd_of<F>>*>(chunk_ptr(k));
    if (held) {
      w.template add_chunk<F>(*held, d_chunk, len, held_scalars + first, m.s);
      w.consumed[k % 2]->record(m.s);
      if (!pinned && k + 1 < chunks) queue_copy(k + 1);
      continue;
    }
    // one copy of the chunk serves every scalar vector (a batch's MSMs);
    // from pageable memory the next copy is staged during the last of them
    for (std::size_t v = 0; v < vectors; ++v) {
      const std::function<void()> next = [&] {
        if (v + 1 == vectors) w.consumed[k % 2]->record(m.s);
        if (!pinned && v + 1 == vectors && k + 1 < chunks) queue_copy(k + 1);
      };
      acc[v] += w.template run<F>(d_chunk, len, nullptr, scalars_at(v, first, len), window_bits, mix, m.s, next);
    }
  }
  if (held) acc[0] = w.template finish_held<F>(*held, n, m.s);
  return acc;
}

namespace {
/// Device bytes of an MSM under plan |p| (its scalars from the host or not).
template <class F>
std::size_t scratch_bytes_of(const plan& p, std::size_t lent_pair_bytes, bool host_scalars) {
  const std::size_t xb = sizeof(ec::xyzz<F>);
  const std::size_t own_pairs =
      lent_pair_bytes / 8 >= p.pairs ? std::min(p.pairs, tune::own_pair_bytes_when_lent / 8) : p.pairs;
  // the pair buffer is charged even where the direct scatter will be taken
  // (that choice needs the device's L2 size)
  const std::size_t words = p.entries + 2 * own_pairs + tune::partition_max_bins + 7 * (p.nb + 1) + 4 * p.seg0;
  const std::size_t points = p.nb + p.part_a + p.part_b + p.sums();
  // the batch-affine level 0's slots (reserve)
  const std::size_t affine_slots = affine_accumulators(p.seg0, affine_batch_for<F>(p, gpu_scalar_mix::random));
  // CUB's scratch: the segment sort's is about one more copy of its keys
  // and values; the scans' a few bytes per 1 K items; plus slack
  const std::size_t cub = 8 * p.seg0 + (p.nb + 1) / 64 + (std::size_t(1) << 20);
  return (host_scalars ? p.n * sizeof(fr) : 0) + words * 4 + points * xb + affine_slots * affine_slot_units * 16 + cub;
}
}  // namespace

template <class F>
std::size_t gpu_msm_scratch_bytes(std::size_t n, unsigned window_bits, std::size_t lent_pair_bytes, bool host_scalars) {
  if (n == 0) return 0;
  return scratch_bytes_of<F>(plan(n, choose_window(n, window_bits), sizeof(ec::xyzz<F>), n, reduce_min_lg_buckets<F>),
                             lent_pair_bytes, host_scalars);
}

template <class F>
std::size_t gpu_msm_streamed_scratch_bytes(std::size_t n, std::size_t chunk_terms, unsigned window_bits,
                                           std::size_t lent_pair_bytes) {
  if (n == 0 || chunk_terms == 0) return 0;
  return scratch_bytes_of<F>(held_plan<F>(n, std::min(chunk_terms, n), std::nullopt, window_bits), lent_pair_bytes,
                             /*host_scalars=*/false);
}

template <class F>
std::size_t gpu_msm_streamed_sparse_scratch_bytes(std::size_t n, std::size_t chunk_terms, std::size_t multi_digit,
                                                  unsigned window_bits) {
  if (n == 0 || chunk_terms == 0) return 0;
  return scratch_bytes_of<F>(held_plan<F>(n, std::min(chunk_terms, n), multi_digit, window_bits), 0,
                             /*host_scalars=*/false);
}

template <class F>
ec::jacobian<F> msm_gpu(std::span<const ec::affine<F>> bases, std::span<const fr> scalars, const gpu_msm_config& cfg) {
  if (bases.size() != scalars.size())
    throw std::invalid_argument("cuzk::msm::msm_gpu: " + std::to_string(bases.size()) + " bases but " +
                                std::to_string(scalars.size()) + " scalars");
  if (scalars.empty()) return ec::jacobian<F>::identity();
  (void)choose_window(scalars.size(), cfg.window_bits);  // validate before touching the GPU
  gpu_msm_context_t<F> ctx(cfg.device, cfg.stream);
  ctx.upload_bases(bases);
  return ctx.run(scalars, cfg.window_bits);
}

template class gpu_msm_context_t<ff::fp>;
template class gpu_msm_context_t<ff::fp2>;
template std::size_t gpu_msm_scratch_bytes<ff::fp>(std::size_t, unsigned, std::size_t, bool);
template std::size_t gpu_msm_scratch_bytes<ff::fp2>(std::size_t, unsigned, std::size_t, bool);
template std::size_t gpu_msm_streamed_scratch_bytes<ff::fp>(std::size_t, std::size_t, unsigned, std::size_t);
template std::size_t gpu_msm_streamed_scratch_bytes<ff::fp2>(std::size_t, std::size_t, unsigned, std::size_t);
template std::size_t gpu_msm_streamed_sparse_scratch_bytes<ff::fp>(std::size_t, std::size_t, std::size_t, unsigned);
template std::size_t gpu_msm_streamed_sparse_scratch_bytes<ff::fp2>(std::size_t, std::size_t, std::size_t, unsigned);
template ec::jacobian<ff::fp> msm_gpu(std::span<const ec::affine<ff::fp>>, std::span<const fr>, const gpu_msm_config&);
template ec::jacobian<ff::fp2> msm_gpu(std::span<const ec::affine<ff::fp2>>, std::span<const fr>,
                                       const gpu_msm_config&);

}  // namespace cuzk::msm
