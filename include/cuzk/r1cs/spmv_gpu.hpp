// SPDX-License-Identifier: Apache-2.0
#pragma once
// a = A·w, b = B·w, c = C·w on the GPU, from an r1cs_shape's CSR matrices
// kept resident on one device. Host-callable (plain C++). Results equal
// r1cs::evaluate_abc on the CPU bit for bit (field sums are exact; the
// order of additions does not matter).
//
// Method (src/cuda/r1cs/spmv.cu): the rows of each matrix are classified once,
// when the shape is uploaded, because their lengths are very uneven (32 GiB
// PoRep A: 130.3 M rows, 99.7% of them with 0-3 non-zeros, ~0.36 M with
// 9-69, ~0.13 M with 254-929, which hold a third of A's 309 M non-zeros;
// B: all rows 0-2):
//   - short rows (at most |short_row_max| non-zeros): one thread per row,
//     every row of the matrix is visited and the longer ones skipped, so a
//     warp waits for at most |short_row_max| elements;
//   - longer rows: cut into warp tasks of at most |warp_chunk| non-zeros; the
//     32 lanes of a warp stride through a task (coalesced column and id
//     loads) and add their sums with shuffles. A row of one task is written
//     directly; a row of several tasks ("long") gets one partial sum per task,
//     which a third kernel adds up (one warp per long row), so a row of 10^6
//     non-zeros is spread over ~2000 warps instead of one thread.
// Each thread loads |batch| (column, id) pairs and their w values before it
// adds them, so several 32-byte gathers are in flight per thread. A
// non-zero is a (column u32, coefficient id u32) pair read once; w[col] a
// random 32-byte load (two 16-byte loads); coefficient ids 0 and 1 (+1 and
// -1) add or subtract without a multiplication, other ids multiply by the
// dictionary entry. Every output is written exactly once (no atomics).
// Memory: the matrices packed (6 bytes per non-zero: a 32-bit column and a
// 16-bit coefficient id, 8 with a dictionary of more than 2^16 entries; 4
// bytes per row: its offset within a group of 4096 rows, and 8 per group),
// against the host's 8 + 8: 3.7 GB instead of 5.6 GB for the 32 GiB PoRep's
// A and B; the coefficient dictionary (32 bytes per entry), and per matrix the
// plan: 16 bytes per warp task, 16 bytes per long row and 32 bytes (a partial
// sum) per task of a long row (~20 MB for the 32 GiB PoRep A with the
// defaults: 0.64 M tasks, 0.13 M long rows; B needs none).
// Streamed (gpu_spmv_config::stream_block_nnz, for cards that cannot keep
// the matrices: 5.5 GB at the 32 GiB PoRep): the matrices stay in the host
// shape, pinned in place while the gpu_shape lives, and every call copies
// them in row blocks (cut at row boundaries, at most stream_block_nnz
// non-zeros and as many rows, a longer row alone) through one device
// staging buffer of 16 bytes per block non-zero; the plan and the
// dictionary stay resident. A block's copy and its kernels follow each
// other on the caller's stream (measured, 32 GiB PoRep A and B on an H200:
// 113 ms per call against 10 resident; the 5.6 GB copy is the rest).
// Cost: memory-bound, ~6 bytes + one 32-byte gather per non-zero plus
// 4 + 32 bytes per row (row offsets, the output); three launches per call
// (per block when streamed, plus 8 bytes per non-zero and per row over the
// host link).
// Threads: the object is immutable after construction except for the
// partial sums of long rows, a scratch buffer it owns: calls that queue work
// on a stream (evaluate_ab, evaluate_abc with device pointers) must not
// overlap on the device with another such call on the same object (the
// prover makes them under its per-device kernel lock). The synchronous host
// overload serialises itself and may be called from any thread.
// Errors: std::invalid_argument on size mismatch, a device pointer not
// 16-byte aligned, or more than 2^31 rows; cuzk::gpu::cuda_error on a
// CUDA failure.

#include <cstddef>
#include <memory>
#include <span>

#include <cuzk/gpu/tuning.hpp>
#include <cuzk/r1cs/shape.hpp>

struct CUstream_st;

namespace cuzk::r1cs {

/// Row classification of the GPU SpMV (defaults: gpu::tuning::spmv).
struct gpu_spmv_config {
  /// Rows with at most this many non-zeros are summed by one thread
  /// (1 .. gpu::tuning::spmv::short_row_cap).
  unsigned short_row_max = gpu::tuning::spmv::short_row_max;
  /// Non-zeros per warp task (a positive multiple of 32).
  unsigned warp_chunk = gpu::tuning::spmv::warp_chunk;
  /// 0: the matrices resident on the device. Otherwise they are streamed
  /// from the host shape in row blocks of at most this many non-zeros
  /// (raised to the longest row); only the shared_ptr constructor streams.
  std::size_t stream_block_nnz = 0;
};

class gpu_shape {
 public:
  /// Copies the matrices of |shape| to |device| (synchronous); without
  /// |with_c| only A and B (the GPU prover's six-transform quotient needs no
  /// c = C·w: docs/H-SIX-TRANSFORMS.md), and only evaluate_ab may be called.
  /// The row classification of |cfg| is built here, once (std::invalid_argument
  /// for a config out of range).
  explicit gpu_shape(const r1cs_shape& shape, int device = 0, bool with_c = true, gpu_spmv_config cfg = {});
  /// The same; with cfg.stream_block_nnz the matrices stay in |shape|
  /// (held, and pinned in place, for the gpu_shape's life: they must not
  /// change meanwhile) and are streamed by every call.
  gpu_shape(std::shared_ptr<const r1cs_shape> shape, int device, bool with_c, gpu_spmv_config cfg);
  ~gpu_shape();
  gpu_shape(gpu_shape&&) noexcept;
  gpu_shape& operator=(gpu_shape&&) noexcept;
  gpu_shape(const gpu_shape&) = delete;
  gpu_shape& operator=(const gpu_shape&) = delete;

  int device() const;
  std::size_t num_constraints() const;
  std::size_t num_variables() const;
  /// Device bytes held.
  std::size_t device_bytes() const;
  /// Whether the matrices are streamed from the host by every call, and
  /// whether their host memory is pinned (false: pageable copies, 4-7 GB/s).
  bool streamed() const;
  bool streamed_pinned() const;

  /// d_a/d_b/d_c[i] = (M·w)[i] for i < num_constraints(); |d_w| holds the
  /// full assignment (num_variables() Fr, inputs then aux) in device
  /// memory. Elements past num_constraints() are left untouched. Queued on
  /// |stream|; the caller synchronises.
  void evaluate_abc(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, ff::fr* d_c, CUstream_st* stream) const;

  /// d_a, d_b only (A·w, B·w), as evaluate_abc otherwise.
  void evaluate_ab(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, CUstream_st* stream) const;
  /// Whether C was uploaded.
  bool has_c() const;

  /// Host convenience (synchronous): out spans at least num_constraints() long.
  void evaluate_abc(std::span<const ff::fr> w, std::span<ff::fr> a, std::span<ff::fr> b, std::span<ff::fr> c) const;

 private:
  void evaluate(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, ff::fr* d_c, CUstream_st* stream) const;
  struct impl;
  std::unique_ptr<impl> _impl;
};

/// Device bytes gpu_shape(shape, device, with_c, cfg) will hold (for VRAM
/// planning; streamed with cfg.stream_block_nnz). Scans the row offsets
/// (all host threads; ~10 ms at 130 M rows).
std::size_t gpu_shape_bytes(const r1cs_shape& shape, bool with_c = true, gpu_spmv_config cfg = {});
/// Host bytes of the matrices a call moves when they are streamed (A and B,
/// and C |with_c|): 8 per non-zero and per row.
std::size_t gpu_shape_stream_bytes(const r1cs_shape& shape, bool with_c = true);

}  // namespace cuzk::r1cs
