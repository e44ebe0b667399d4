// SPDX-License-Identifier: Apache-2.0
#pragma once
// G1 and G2 multi-scalar multiplication on the GPU, host-callable (plain
// C++: no CUDA headers needed to include this file). Results equal
// cuzk::msm::msm on the CPU (as group elements; compare jacobian points with
// ==).
//
// Method (src/cuda/msm/msm.cu): Pippenger with signed c-bit windows, every
// window at once (or in a few batches when memory is short): digits in
// [-(2^(c-1) - 1), 2^(c-1)] (a digit above 2^(c-1) borrows from the next
// window; ceil(256/c) windows absorb the last borrow since r < 2^255), all
// windows' digits computed in one pass over the scalars and grouped by
// bucket with a counting sort (atomic counters, one scan, a scatter pass);
// zero digits are dropped there, so zero scalars cost one read and scalars
// equal to 1 cost one mixed addition each. Each bucket is summed in XYZZ
// coordinates by a segmented tree (a thread sums at most
// tuning::msm::bucket_segment entries, partial sums of one bucket are summed
// again in groups of tuning::msm::partial_segment), so a bucket holding most
// of the points (0/1 witnesses, duplicated scalars) does not serialise on one
// thread. Buckets are reduced per window by running sums over chunks of
// buckets plus a shared-memory tree; the host combines the per-block sums and
// the windows (Horner with c doublings per window) after one download.
// Infinity bases (x = y = 0) and zero scalars contribute nothing.
//
// Memory on the device: bases 96 n (G1) / 192 n (G2) bytes, kept by the
// context; scratch in a gpu_msm_workspace, which several contexts of one
// device may share (a prover's A, B, L, H MSMs run one after the other on the
// same scratch): scalars 32 n (host scalars only), per batch of windows 4 n
// bytes of entries per window, buckets X 2^(c-1) per window (X = 192 for G1,
// 384 for G2), partial sums <= 2 X n / bucket_segment per window, seven
// 32-bit arrays per bucket; batches are sized to tuning::msm::batch_bytes
// (gpu_msm_scratch_bytes gives the total). The workspace grows to the
// largest call and keeps its memory until release().
// Threads: a context (and a workspace) serves one call at a time; callers
// serialise (the Groth16 GPU prover holds its per-GPU lock).
// Errors: std::invalid_argument on size mismatch or a window outside
// [tuning::msm::min_explicit_window, tuning::msm::max_window] = [2, 24];
// cuzk::gpu::cuda_error on any CUDA failure (including no device).

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ff/bls12_381.hpp>

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace cuzk::msm {

/// What a caller knows about the scalars of one MSM.
enum class gpu_scalar_mix {
  /// Any values (the H query's): window and batches from n alone.
  random,
  /// Mostly 0 and 1 (witness vectors: the L, A and B queries): the call
  /// first counts the others on the device (one pass, one wait) and takes
  /// the window (unless one is given) and the batches from that count;
  /// zeros cost nothing and ones one entry each, so a 32 GiB PoRep's 130 M
  /// L terms (1.7 M others) fit one batch at c = 16 instead of four at 20.
  mostly_binary,
};

struct gpu_msm_config {
  /// CUDA device ordinal.
  int device = 0;
  /// Window width in bits, 0: gpu_default_window_bits(n).
  unsigned window_bits = 0;
  /// Stream the work is queued on (nullptr: the legacy default stream). Every
  /// call still returns only when the result is on the host.
  CUstream_st* stream = nullptr;
};

/// The window width used for |n| terms when none is given.
unsigned gpu_default_window_bits(std::size_t n);

/// The window for an MSM whose scalars are mostly 0 and 1 (a Filecoin
/// witness: ~51% zero, ~47% one), |multi_digit| of them other: zeros add
/// nothing and ones one entry each to a single bucket whatever c is, so the
/// window trades the others' ceil(256/c) digits against 2^(c-1) buckets per
/// window exactly as a dense MSM of |multi_digit| terms does.
unsigned gpu_sparse_window_bits(std::size_t multi_digit);

/// The window of a streamed MSM (gpu_msm_context_t::run_streamed, one
/// vector of random scalars) of |n| terms in chunks of |chunk_terms|: it
/// holds every window's buckets across its chunks, so the width is that of
/// n terms, at most tuning::msm::streamed_window_extra bits wider than a
/// chunk's own default, and the narrowest with its window count.
unsigned gpu_streamed_window_bits(std::size_t n, std::size_t chunk_terms);

/// Device bytes one MSM of |n| terms over ec::affine<F> allocates besides
/// the bases (F = ff::fp for G1, ff::fp2 for G2), for random scalars; a
/// mostly_binary call of the same n is sized by the same batch bound
/// (tuning::msm::batch_bytes) and in practice takes less. |lent_pair_bytes|:
/// what the caller lends for the pair buffer (gpu_msm_workspace::
/// lend_pair_buffer); when that holds this MSM's pairs, the workspace's own
/// pair buffer is charged only up to tuning::msm::own_pair_bytes_when_lent
/// (what the caller's other MSMs may still grow it to). |host_scalars|:
/// whether the scalars come from the host (a 32 n byte upload buffer;
/// run_device and run_streamed take them in place).
template <class F = ff::fp>
std::size_t gpu_msm_scratch_bytes(std::size_t n, unsigned window_bits = 0, std::size_t lent_pair_bytes = 0,
                                  bool host_scalars = true);

/// Device bytes run_streamed over one vector of |n| random scalars in
/// chunks of |chunk_terms| allocates besides its two chunk buffers, at
/// |window_bits| (0: gpu_streamed_window_bits(n, chunk_terms));
/// |lent_pair_bytes| as for gpu_msm_scratch_bytes. A mostly_binary vector
/// takes at most a chunk's default window and fits within the same bytes.
template <class F = ff::fp>
std::size_t gpu_msm_streamed_scratch_bytes(std::size_t n, std::size_t chunk_terms, unsigned window_bits = 0,
                                           std::size_t lent_pair_bytes = 0);
/// The same for one mostly_binary vector of which at most |multi_digit|
/// scalars are neither 0 nor 1 (run_streamed counts them and plans each
/// chunk for that many), no pair buffer lent: what a witness MSM with a
/// bounded number of other values takes.
template <class F = ff::fp>
std::size_t gpu_msm_streamed_sparse_scratch_bytes(std::size_t n, std::size_t chunk_terms, std::size_t multi_digit,
                                                  unsigned window_bits = 0);

/// sum_i scalars[i] * bases[i] (sizes must match); uploads the bases every
/// call. For repeated MSMs over the same bases use gpu_msm_context_t.
template <class F>
ec::jacobian<F> msm_gpu(std::span<const ec::affine<F>> bases, std::span<const ff::fr> scalars,
                        const gpu_msm_config& cfg = {});

/// Scratch device memory of MSMs on one device (opaque; see the file comment).
class gpu_msm_workspace {
 public:
  explicit gpu_msm_workspace(int device = 0);
  ~gpu_msm_workspace();
  gpu_msm_workspace(gpu_msm_workspace&&) noexcept;
  gpu_msm_workspace& operator=(gpu_msm_workspace&&) noexcept;
  gpu_msm_workspace(const gpu_msm_workspace&) = delete;
  gpu_msm_workspace& operator=(const gpu_msm_workspace&) = delete;

  int device() const;
  /// Device bytes held now.
  std::size_t bytes() const;
  /// Frees the scratch (it grows again on the next call).
  void release();
  /// Lends |bytes| of device memory at |ptr| (this device's, 8-byte
  /// aligned) as the partitioned scatter's pair buffer until the loan is
  /// ended (lend_pair_buffer(nullptr, 0)): an MSM whose pairs fit it uses it
  /// instead of growing its own. The Groth16 prover lends the vector the H
  /// MSM no longer needs, so that MSM's one-stage scatter costs no VRAM.
  void lend_pair_buffer(void* ptr, std::size_t bytes);

  struct impl;  // src/cuda/msm/msm.cu
  impl& internals() { return *_impl; }

 private:
  std::unique_ptr<impl> _impl;
};

/// Writes |count| Montgomery scalars of scalar vector |vector|, its terms
/// [first, first + count), to |d_dst| (device memory), queued on |stream|
/// (gpu_msm_context_t::run_streamed_batch_filled).
using gpu_scalar_fill =
    std::function<void(std::size_t vector, std::size_t first, std::size_t count, ff::fr* d_dst, CUstream_st* stream)>;

/// Bases resident on one device (G1: F = ff::fp, G2: F = ff::fp2).
template <class F>
class gpu_msm_context_t {
 public:
  /// |workspace| null: a private one. A shared workspace must belong to
  /// |device| (std::invalid_argument otherwise).
  explicit gpu_msm_context_t(int device = 0, CUstream_st* stream = nullptr,
                             std::shared_ptr<gpu_msm_workspace> workspace = {});
  ~gpu_msm_context_t();
  gpu_msm_context_t(gpu_msm_context_t&&) noexcept;
  gpu_msm_context_t& operator=(gpu_msm_context_t&&) noexcept;
  gpu_msm_context_t(const gpu_msm_context_t&) = delete;
  gpu_msm_context_t& operator=(const gpu_msm_context_t&) = delete;

  /// Replaces the resident bases (synchronous).
  void upload_bases(std::span<const ec::affine<F>> bases);
  /// Uses |n| bases already in this device's memory at |d_bases| (no copy);
  /// |owner| keeps that memory alive for as long as the context uses it.
  void use_device_bases(std::shared_ptr<const void> owner, const ec::affine<F>* d_bases, std::size_t n);
  /// Frees (or lets go of) the resident bases.
  void release_bases();
  std::size_t n_bases() const;
  std::shared_ptr<gpu_msm_workspace> workspace() const;

  /// sum_i scalars[i] * bases[i] over the first scalars.size() resident
  /// bases (scalars.size() <= n_bases(), std::invalid_argument otherwise).
  ec::jacobian<F> run(std::span<const ff::fr> scalars, unsigned window_bits = 0,
                      gpu_scalar_mix mix = gpu_scalar_mix::random);

  /// The same with |n| Montgomery scalars already in this device's memory
  /// (not modified), over resident bases [first_base, first_base + n).
  /// Work is queued on the context's stream; returns with the result.
  ec::jacobian<F> run_device(const ff::fr* d_scalars, std::size_t n, std::size_t first_base = 0,
                             unsigned window_bits = 0, gpu_scalar_mix mix = gpu_scalar_mix::random);

  /// How many of the |n| Montgomery scalars at |d_scalars| (this device's
  /// memory) are neither 0 nor 1, i.e. have more than one non-zero window
  /// digit. One read of the scalars (32 n bytes) on the context's stream,
  /// then a wait for the stream. For gpu_sparse_window_bits.
  std::size_t count_multi_digit_scalars(const ff::fr* d_scalars, std::size_t n);

  /// Bases NOT resident: sum_i d_scalars[i] * h_bases[i], the bases copied
  /// in chunks of |chunk_terms| into two device buffers on a second stream,
  /// the copy of chunk k + 1 overlapping the MSM of chunk k (fully so from
  /// pinned host memory; from pageable memory the host stages the copy
  /// while the GPU computes). For parameters larger than free VRAM.
  /// |lent|/|lent_bytes|: device memory of this device (16-byte aligned,
  /// idle for the call) that holds both chunk buffers instead of the
  /// workspace's own (std::invalid_argument when it is too small); the
  /// Groth16 prover lends its NTT scratch vector to the H MSM.
  /// One MSM over all n terms: every window's buckets are held on the
  /// device across the chunks, the window sums run once at the end, and the
  /// host waits only for the result. |window_bits| 0: gpu_streamed_window_bits
  /// for random scalars; for mostly_binary ones the sparse window of the
  /// whole vector (one count of it first), at most a chunk's default.
  /// Scratch: gpu_msm_streamed_scratch_bytes.
  ec::jacobian<F> run_streamed(std::span<const ec::affine<F>> h_bases, const ff::fr* d_scalars, std::size_t chunk_terms,
                               unsigned window_bits = 0, gpu_scalar_mix mix = gpu_scalar_mix::random,
                               void* lent = nullptr, std::size_t lent_bytes = 0);
  /// run_streamed for several scalar vectors over the same bases (a batch
  /// of proofs of one circuit): result v = sum_i d_scalars[v][i] *
  /// h_bases[i]. Each chunk is copied once and its MSM runs once per
  /// vector, so the bytes moved are those of one MSM (what cross-sector
  /// batching saves on a card that cannot hold the bases). With several
  /// vectors each chunk is an MSM of its own (gpu_msm_scratch_bytes of a
  /// chunk, windows as for run_device); one vector is run_streamed.
  std::vector<ec::jacobian<F>> run_streamed_batch(std::span<const ec::affine<F>> h_bases,
                                                  std::span<const ff::fr* const> d_scalars, std::size_t chunk_terms,
                                                  unsigned window_bits = 0, gpu_scalar_mix mix = gpu_scalar_mix::random,
                                                  void* lent = nullptr, std::size_t lent_bytes = 0);
  /// run_streamed_batch for |vectors| scalar vectors that are not in device
  /// memory as they are (a batch's coded witnesses, expanded piece by
  /// piece): before vector v's MSM of a chunk, |fill| writes that chunk's
  /// scalars of v to |d_chunk_scalars| (min(chunk_terms, n) elements of this
  /// device's memory, reused by every chunk and vector, so a batch's scalars
  /// take one chunk of memory instead of a vector each). Every chunk of
  /// every vector is an MSM of its own, as in a batch.
  std::vector<ec::jacobian<F>> run_streamed_batch_filled(std::span<const ec::affine<F>> h_bases, std::size_t vectors,
                                                         const gpu_scalar_fill& fill, ff::fr* d_chunk_scalars,
                                                         std::size_t chunk_terms, unsigned window_bits = 0,
                                                         gpu_scalar_mix mix = gpu_scalar_mix::random,
                                                         void* lent = nullptr, std::size_t lent_bytes = 0);

 private:
  /// The chunk loop of both streamed batches: |scalars_at(v, first, len)|
  /// gives vector v's scalars of a chunk (device memory); |held_scalars|
  /// non-null (one vector in device memory): one MSM with its buckets held
  /// across the chunks instead.
  std::vector<ec::jacobian<F>> streamed_batch(
      std::span<const ec::affine<F>> h_bases, std::size_t vectors,
      const std::function<const ff::fr*(std::size_t, std::size_t, std::size_t)>& scalars_at, const ff::fr* held_scalars,
      std::size_t chunk_terms, unsigned window_bits, gpu_scalar_mix mix, void* lent, std::size_t lent_bytes);
  void check_terms(std::size_t first, std::size_t n) const;
  struct impl;
  std::unique_ptr<impl> _impl;
};

using gpu_msm_context = gpu_msm_context_t<ff::fp>;      ///< G1
using gpu_msm_g2_context = gpu_msm_context_t<ff::fp2>;  ///< G2

extern template class gpu_msm_context_t<ff::fp>;
extern template class gpu_msm_context_t<ff::fp2>;
extern template std::size_t gpu_msm_scratch_bytes<ff::fp>(std::size_t, unsigned, std::size_t, bool);
extern template std::size_t gpu_msm_scratch_bytes<ff::fp2>(std::size_t, unsigned, std::size_t, bool);
extern template std::size_t gpu_msm_streamed_scratch_bytes<ff::fp>(std::size_t, std::size_t, unsigned, std::size_t);
extern template std::size_t gpu_msm_streamed_scratch_bytes<ff::fp2>(std::size_t, std::size_t, unsigned, std::size_t);
extern template std::size_t gpu_msm_streamed_sparse_scratch_bytes<ff::fp>(std::size_t, std::size_t, std::size_t,
                                                                          unsigned);
extern template std::size_t gpu_msm_streamed_sparse_scratch_bytes<ff::fp2>(std::size_t, std::size_t, std::size_t,
                                                                           unsigned);
extern template ec::jacobian<ff::fp> msm_gpu(std::span<const ec::affine<ff::fp>>, std::span<const ff::fr>,
                                             const gpu_msm_config&);
extern template ec::jacobian<ff::fp2> msm_gpu(std::span<const ec::affine<ff::fp2>>, std::span<const ff::fr>,
                                              const gpu_msm_config&);

}  // namespace cuzk::msm
