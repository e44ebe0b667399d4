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
//   NTT: the register-resident passes of 2026-12-01 (src/cuda/ntt/ntt.cu has
//     their sweep; bench/RESULTS.md the timings).
//   MSM: the counting-sort pipeline of 2026-12-01 (src/cuda/msm/msm.cu); its
//     window and segment sweeps are in bench/RESULTS.md. (The radix-sort
//     pipeline before it measured c = 16-18 within 1% at 2^24.)

#include <cstddef>
#include <cstdint>

namespace cuzk::gpu::tuning {

constexpr bool is_pow2(unsigned v) { return v && !(v & (v - 1)); }

/// NTT: the pass kernels' tile and radix are chosen in src/cuda/ntt/ntt.cu (with
/// their measured sweep); these are the element-wise kernels' and the size limit.
struct ntt {
  /// Threads per block of the element-wise kernels (scaling, bit reversal).
  static constexpr unsigned pointwise_threads = 256;
  /// Largest transform the GPU backend accepts (cuzk::ntt::lg_max_domain).
  static constexpr unsigned lg_max = 28;
};
static_assert(is_pow2(ntt::pointwise_threads) && ntt::pointwise_threads <= 1024);

/// MSM (G1 and G2 Pippenger, signed windows, XYZZ buckets; src/cuda/msm/msm.cu).
struct msm {
  /// Window widths: the default is picked from the term count
  /// (gpu_default_window_bits), an explicit width may be any in
  /// [min_explicit_window, max_window].
  static constexpr unsigned min_window = 8;
  static constexpr unsigned min_explicit_window = 2;
  static constexpr unsigned max_window = 24;
  /// From 3 * 2^25 terms (the H MSM of a 32 GiB PoRep has 2^27 - 1) the
  /// default window is 22 bits: 12 windows instead of 13, and the larger
  /// window sums and counters cost less than the window saved once the
  /// pair buffer takes a batch in one stage (H200, 2026-12-04: 2^27 777 ms
  /// against 802 at c = 20 with the same buffers; 2^26 stays at 20: 405
  /// against 398).
  static constexpr std::size_t wide_window_terms = std::size_t(3) << 25;
  static constexpr unsigned wide_window = 22;
  /// A streamed MSM (run_streamed) holds every window's buckets across its
  /// chunks, so its window is that of all its terms, but at most this many
  /// bits wider than a chunk's own default: the buckets (~240 bytes each
  /// with their bookkeeping, 2^(c-1) per window) then stay within a few
  /// times the chunk's entries, and every chunk's per-bucket passes
  /// (counters, scans, segment planning) stay short against its additions.
  static constexpr unsigned streamed_window_extra = 2;
  /// Threads per block of the digit, accumulation and window-sum kernels.
  static constexpr unsigned digit_threads = 256;
  static constexpr unsigned accumulate_threads = 128;
  static constexpr unsigned reduce_threads = 128;
  /// Window sums: each thread takes at least 2^this buckets, more only to
  /// keep 2^13 threads per window. G1 is work-bound there (a thread's 2L
  /// additions against the ~2 lg reduce_threads of its block's scan and
  /// trees; 2^3 measured 3.3 ms against 2.4 at 2^21); G2 is latency-bound
  /// (short chains over many threads: 2^3 took a 2^20 G2 MSM's window sums
  /// from 8.2 to 6.9 ms on the H200, 2026-12-02).
  static constexpr unsigned reduce_min_lg_buckets_g1 = 5;
  static constexpr unsigned reduce_min_lg_buckets_g2 = 3;
  /// Resident blocks per SM asked of the G1 level-0 kernel (its register
  /// cap: 65536 / (accumulate_threads * this)).
  /// 3: the level-0 loop loads each base a step ahead (msm_kernels.cuh),
  /// which needs 168 registers; at 4 (128, spilling) it was slower.
  /// The loop runs the fmaheavy pipe (the 32-bit multiply-adds) at 86.7%
  /// (H100, ncu, 2026-12-07). Measured there and removed: the same loop
  /// over Karatsuba products (-10% multiply-add slots, +33% instructions:
  /// instruction-cache stalls, 2^27 862 ms against 748) and with four or
  /// all of its ten multiplications on the FP64 pipe (255 registers, two
  /// blocks per SM: 850 and 1048 ms); bench/RESULTS.md, 2026-12-07
  /// (fourth session).
  static constexpr unsigned accumulate_min_blocks_g1 = 3;
  /// Entries one thread adds into a bucket's sum at level 0 (mixed
  /// additions): above the mean bucket size of the default windows (n / 2^(c-1):
  /// 32 at c = lg n - 4, 128 at 2^26 with c = 20, 64 at 2^27 with c = 22), so
  /// a random-scalar bucket is one thread's, while a
  /// bucket holding most of the terms (the ones of a 0/1 witness,
  /// duplicated scalars) is spread over many threads.
  static constexpr unsigned bucket_segment = 256;
  /// Partial sums one thread adds at each later level (XYZZ additions).
  /// Those levels run few threads, so their time is a thread's chain of
  /// additions: 8 took the 32 GiB PoRep's witness MSMs' later levels from
  /// 1.5 / 1.5 / 1.4 / 6.7 ms (L, A, B_G1, B_G2 at 32) to 0.85 / 0.83 / 0.66 /
  /// 2.75 on the H200 (2026-12-02; the H MSM's from 1.19 to 1.36 per batch).
  static constexpr unsigned partial_segment = 8;
  /// Scratch bound per batch of windows: windows are processed in as few
  /// batches as keep entries, buckets and partial sums under this.
  static constexpr std::size_t batch_bytes = std::size_t(4) << 30;
  /// The partitioned scatter (msm_kernels.cuh), used once a stage's entries
  /// exceed what the L2 holds: threads per block and terms per thread of its
  /// first pass (a block's runs per bin grow with both), the most bins a
  /// stage may have (shared-memory counters), the fraction of the L2 one
  /// bin's entries may take (1 / 2^this; at 2^24 on the H200, 60 MiB of L2:
  /// bins of 2^18 / 2^20 / 2^22 entries gave 14.4 / 12.3 / 9.3 ms of scatter),
  /// and the (key, entry) pair buffer, which always holds at least the
  /// largest window. 4 GiB holds a whole batch of the 2^27 MSM at c = 22
  /// (4 windows of 2^27 entries), so each batch is one partitioned stage:
  /// on the H200 (2026-12-04) its scatter took 98 ms against 162 ms direct
  /// (1 GiB: one window per stage, which the partition rule refuses), and
  /// c = 22 then beats c = 20 (bench/RESULTS.md).
  /// The digit count pass takes as many windows at once as keep their
  /// counters in 1 / 2^this of the L2 (more passes over the scalars
  /// otherwise): at c = 22 all 12 windows of a 2^27 MSM at once (100 MB of
  /// counters) counted in 62 ms on the H200 (2026-12-04), the L2 missed by
  /// every atomic.
  /// A bin sort (the second pass per bin of ~16 K entries in shared memory
  /// instead of an L2 atomic per entry) measured slower where its plan
  /// applied (H100, 2026-12-07: 2^24, first pass 16.9 ms against the pair
  /// partition's 3.4) and was removed.
  static constexpr unsigned count_lg_l2_share = 1;
  static constexpr unsigned partition_threads = 256;
  static constexpr unsigned partition_terms_per_thread = 4;
  static constexpr unsigned partition_max_bins = 2048;
  static constexpr unsigned partition_lg_l2_share = 2;
  static constexpr std::size_t partition_pair_bytes = std::size_t(4) << 30;
  /// The workspace's own pair buffer, charged where the caller lends one
  /// for its largest MSM (gpu_msm_scratch_bytes): what its other MSMs (a
  /// prover's witness MSMs) may still grow it to.
  static constexpr std::size_t own_pair_bytes_when_lent = std::size_t(1) << 30;
  /// The partitioned scatter is used for a batch when its multi-digit
  /// entries exceed this many per term and stage: each stage reads every
  /// scalar again. Measured on the H200 (2026-12-02): a stage's pass over
  /// the scalars cost ~51 ps per term, and each entry ~44 ps partitioned
  /// against ~77 ps direct (the 2^27 H MSM at one window per stage: 64 ms
  /// per five-window batch, 52 direct; 2^24 in two stages: 12 ms, 22 direct).
  static constexpr double partition_pass_cost = 1.55;
  /// Level 0 by batch-affine additions (src/cuda/msm/msm_affine_kernels.cuh),
  /// G1 MSMs of random scalars only: whether the default takes it, threads
  /// per block, resident blocks per SM asked for (a register cap: 3 gives
  /// the XYZZ kernel's 168), segments per thread (K: the additions that share
  /// one inversion), the least number of threads (segments / K) for which
  /// it is taken (below that the XYZZ kernel's K times more threads fill the
  /// device better), and the least mean number of entries per level-0
  /// segment (a held MSM's chunks hold a few per bucket).
  /// CUZK_MSM_AFFINE=0 turns it off, =16/32 forces K (tuning runs, tests).
  /// Off by default. The first kernel (two passes a round, 128 registers)
  /// measured slower than the XYZZ loop on the H200 (2026-12-03: a five-
  /// window 2^27 batch's level 0 272.7 / 290.5 ms at K = 16 / 32 against
  /// 261.6). The woven kernel that replaced it (one pass a round, cp.async
  /// staging) has 31% fewer multiply-add slots per addition than the XYZZ
  /// loop at K = 32 and 25% at K = 16 (SASS) and is still slower (H100,
  /// 2026-12-07, bench/RESULTS.md: a three-window 2^27 batch's level 0
  /// 166.4 / 176.5 ms at K = 32 / 16 against 144.0). At the same ~11 warps
  /// per SM its warps wait on instruction fetch (the step and the round's
  /// inversion do not share the instruction cache: 2.9 cycles per issue
  /// against 0.9) and on the accumulators and prefixes in DRAM (long
  /// scoreboard 2.7 against 0.3; ncu), and K = 32 leaves 2^24 MSMs too few
  /// threads to fill the device (0.4 waves).
  static constexpr bool affine_by_default = false;
  static constexpr unsigned affine_threads = 128;
  static constexpr unsigned affine_min_blocks = 3;
  static constexpr unsigned affine_batch = 16;
  static constexpr std::size_t affine_min_threads = std::size_t(1) << 16;
  static constexpr std::size_t affine_min_mean_entries = 16;
};
static_assert(msm::min_window >= 2 && msm::max_window <= 24 && msm::min_window <= msm::max_window);
static_assert(msm::min_explicit_window >= 2 && msm::min_explicit_window <= msm::min_window);
static_assert(is_pow2(msm::digit_threads) && is_pow2(msm::accumulate_threads) && is_pow2(msm::reduce_threads) &&
              msm::digit_threads % 32 == 0);
static_assert(msm::bucket_segment >= 2 && msm::partial_segment >= 2);
static_assert(is_pow2(msm::partition_threads) && msm::partition_threads % 32 == 0 &&
              msm::partition_terms_per_thread >= 1);
static_assert(is_pow2(msm::affine_threads) && msm::affine_threads % 32 == 0 &&
              (msm::affine_batch == 16 || msm::affine_batch == 32));

/// R1CS SpMV (a = A·w, b = B·w; src/cuda/r1cs/spmv.cu, cuzk/r1cs/spmv_gpu.hpp).
/// First values from the PoRep row lengths (2 KiB partition, A: 99.4% of
/// the rows hold 1-3 non-zeros, then clusters at 9, 10-66 and 254-929), not
/// yet measured against alternatives: the spmv mode of bench/gpu_bench.cu
/// times other values of both knobs (gpu_spmv_config).
struct spmv {
  /// Threads per block of the three kernels.
  static constexpr unsigned threads = 128;
  /// Rows with at most this many non-zeros are one thread's; longer rows go
  /// to warps. Above the common 1-3 and below the next cluster (9, then
  /// 10-66), so a warp of short rows waits at most this long.
  static constexpr unsigned short_row_max = 8;
  /// Largest |short_row_max| a config may ask for.
  static constexpr unsigned short_row_cap = 64;
  /// Non-zeros one warp sums in one task (16 per lane); longer rows are cut
  /// into tasks whose partial sums a second kernel adds up.
  static constexpr unsigned warp_chunk = 512;
  /// Non-zeros a thread loads before it adds them (loads in flight per thread).
  static constexpr unsigned batch = 4;
  /// Resident matrices keep their row offsets as 32-bit values relative to
  /// groups of 2^lg_row_group rows (one 64-bit base per group): 4 bytes a
  /// row instead of 8, 8 bytes per 4096 rows for the bases, and a group may
  /// hold up to 2^32 - 1 non-zeros (a whole 32 GiB PoRep matrix holds 0.3 G).
  static constexpr unsigned lg_row_group = 12;
  /// Dictionaries of at most this many coefficients keep 16-bit ids when
  /// resident (the 32 GiB PoRep has ~2.5 k); larger ones keep 32-bit ids.
  static constexpr std::size_t max_short_id_coeffs = std::size_t(1) << 16;
};
static_assert(is_pow2(spmv::threads) && spmv::threads % 32 == 0 && spmv::threads <= 1024);
static_assert(spmv::short_row_max >= 1 && spmv::short_row_max <= spmv::short_row_cap);
static_assert(spmv::warp_chunk >= 32 && spmv::warp_chunk % 32 == 0);
static_assert(spmv::batch >= 1 && spmv::batch <= 8);

/// The Groth16 GPU prover (src/cuda/groth16/prover.cu).
struct groth16 {
  /// Coded witnesses one coded batch pass takes at most (gpu_prover::
  /// batch_capacity). Memory allows ~20 at 32 GiB; each member adds an MSM
  /// per streamed chunk with its fixed cost (~4 ms), and the engine's
  /// max_batch_size bounds it first in practice.
  static constexpr std::size_t max_coded_batch = 16;
};

}  // namespace cuzk::gpu::tuning
