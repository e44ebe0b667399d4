// SPDX-License-Identifier: Apache-2.0
#pragma once
// G1 multi-scalar multiplication on the GPU, host-callable (plain C++: no
// CUDA headers needed to include this file). Results equal cuzk::msm::msm on
// the CPU (as group elements; compare jacobian points with ==).
//
// Method (src/cuda/msm.cu): Pippenger with signed c-bit windows. Per window:
// digits in [-(2^(c-1) - 1), 2^(c-1)] (a digit above 2^(c-1) borrows from the
// next window; ceil(256/c) windows absorb the last borrow since r < 2^255);
// (|digit|, point index | sign << 31) pairs sorted by CUB radix sort; runs of
// equal |digit| (buckets) found by CUB run-length encoding; each bucket summed
// in XYZZ coordinates by a segmented tree reduction (threads sum at most
// tuning::msm::points_per_thread points, then partial sums of one bucket are
// summed again), so a bucket holding most of the points (0/1 witnesses,
// duplicated scalars) does not serialise on one thread. Digit 0 is never
// summed. Buckets are then reduced per window with per-thread running sums
// over chunks of buckets plus a shared-memory tree, and the host combines the
// per-block sums and the windows (Horner with c doublings per window).
// Infinity bases (x = y = 0) and zero scalars contribute nothing.
//
// Memory on the device: bases 96 n bytes (kept by gpu_msm_context), scalars
// 32 n, sort keys/values 16 n + CUB scratch, partial sums 2 x 192 n / G
// (G = tuning::msm::points_per_thread), buckets 192 * 2^(c-1) * ceil(256/c):
// see gpu_msm_scratch_bytes.
// Errors: std::invalid_argument on size mismatch or a window outside
// [2, 20]; cuzk::gpu::cuda_error on any CUDA failure (including no device).

#include <cstddef>
#include <memory>
#include <span>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ff/bls12_381.hpp>

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace cuzk::msm {

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

/// Device bytes one MSM of |n| terms allocates besides the bases.
std::size_t gpu_msm_scratch_bytes(std::size_t n, unsigned window_bits = 0);

/// sum_i scalars[i] * bases[i] (sizes must match); uploads the bases every
/// call. For repeated MSMs over the same bases use gpu_msm_context.
ec::g1_jacobian msm_gpu(std::span<const ec::g1_affine> bases, std::span<const ff::fr> scalars,
                        const gpu_msm_config& cfg = {});

/// Bases resident on one device; scratch kept between runs.
class gpu_msm_context {
 public:
  explicit gpu_msm_context(int device = 0, CUstream_st* stream = nullptr);
  ~gpu_msm_context();
  gpu_msm_context(gpu_msm_context&&) noexcept;
  gpu_msm_context& operator=(gpu_msm_context&&) noexcept;
  gpu_msm_context(const gpu_msm_context&) = delete;
  gpu_msm_context& operator=(const gpu_msm_context&) = delete;

  /// Replaces the resident bases (synchronous).
  void upload_bases(std::span<const ec::g1_affine> bases);
  std::size_t n_bases() const;

  /// sum_i scalars[i] * bases[i] over the first scalars.size() resident
  /// bases (scalars.size() <= n_bases(), std::invalid_argument otherwise).
  ec::g1_jacobian run(std::span<const ff::fr> scalars, unsigned window_bits = 0);

 private:
  struct impl;
  std::unique_ptr<impl> _impl;
};

}  // namespace cuzk::msm
