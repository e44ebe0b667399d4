// SPDX-License-Identifier: Apache-2.0
#pragma once
// a = A·w, b = B·w, c = C·w on the GPU, from an r1cs_shape's CSR matrices
// kept resident on one device. Host-callable (plain C++). Results equal
// r1cs::evaluate_abc on the CPU bit for bit (field sums are exact; the
// order of additions does not matter).
//
// Method (src/cuda/spmv.cu): one thread per row and matrix; a row's
// non-zeros are (column u32, coefficient id u32) pairs read once, the
// assignment value w[col] is a random 32-byte load; coefficient ids 0 and 1
// (+1 and -1) add or subtract without a multiplication, other ids multiply
// by the dictionary entry. Rows are independent, every output written once.
// Memory: the three matrices as on the host (8 bytes per non-zero plus
// 8 bytes per row) and the coefficient dictionary (32 bytes per entry).
// Cost: memory-bound, ~8 bytes + one 32-byte gather per non-zero.
// Threads: const member functions may run concurrently on different
// streams; the object itself is immutable after construction.
// Errors: std::invalid_argument on size mismatch; cuzk::gpu::cuda_error on a
// CUDA failure.

#include <cstddef>
#include <memory>
#include <span>

#include <cuzk/r1cs/shape.hpp>

struct CUstream_st;

namespace cuzk::r1cs {

class gpu_shape {
 public:
  /// Copies the matrices of |shape| to |device| (synchronous); without
  /// |with_c| only A and B (the GPU prover's six-transform quotient needs no
  /// c = C·w: docs/H-SIX-TRANSFORMS.md), and only evaluate_ab may be called.
  explicit gpu_shape(const r1cs_shape& shape, int device = 0, bool with_c = true);
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

  /// d_a/d_b/d_c[i] = (M·w)[i] for i < num_constraints(); |d_w| holds the
  /// full assignment (num_variables() Fr, inputs then aux) in device
  /// memory. Elements past num_constraints() are left untouched. Queued on
  /// |stream|; the caller synchronises.
  void evaluate_abc(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, ff::fr* d_c,
                    CUstream_st* stream) const;

  /// d_a, d_b only (A·w, B·w), as evaluate_abc otherwise.
  void evaluate_ab(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, CUstream_st* stream) const;
  /// Whether C was uploaded.
  bool has_c() const;

  /// Host convenience (synchronous): out spans at least num_constraints() long.
  void evaluate_abc(std::span<const ff::fr> w, std::span<ff::fr> a, std::span<ff::fr> b,
                    std::span<ff::fr> c) const;

 private:
  void evaluate(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, ff::fr* d_c,
                CUstream_st* stream) const;
  struct impl;
  std::unique_ptr<impl> _impl;
};

/// Device bytes gpu_shape(shape, device, with_c) will hold (for VRAM planning).
std::size_t gpu_shape_bytes(const r1cs_shape& shape, bool with_c = true);

}  // namespace cuzk::r1cs
