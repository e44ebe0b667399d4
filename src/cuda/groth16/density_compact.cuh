// SPDX-License-Identifier: Apache-2.0
#pragma once
// Density compaction on the device, shared by the GPU setup (the A and B
// query scalars) and the GPU prover (the A and B MSM scalars): the elements
// of a vector whose bit is set in a density mask, in order. The element of
// set bit j goes to rank(j) = (set bits in the 64-bit words before j's word,
// a prefix computed on the host and uploaded with the mask) +
// popcount(word & below-j mask).
// Cost: one thread per element, one 32-byte copy per set bit; 16 bytes of
// device memory per 64 elements for the mask and its prefix, and the prefix
// again on the host (8 bytes per 64 elements: 16 MB for a 32 GiB PoRep's
// aux mask), which finds the words of a range of ranks.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>
#include <cuzk/groth16/detail/coded_expand.cuh>
#include <cuzk/groth16/witness_upload_gpu.hpp>

namespace cuzk::gpu {

// static: each .cu including this header gets its own copy (no -rdc)
static __global__ void density_compact_kernel(const fr_d* __restrict__ d_src, std::uint64_t n_bits,
                                              const std::uint64_t* __restrict__ d_words,
                                              const std::uint64_t* __restrict__ d_word_off, fr_d* __restrict__ d_dst) {
  const std::uint64_t j = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint64_t rank = 0;
  if (j >= n_bits || !groth16::detail::selected_rank(d_words, d_word_off, j, rank)) return;
  d_dst[rank] = d_src[j];
}

/// A density mask on the device: its words and the set bits before each word.
struct device_density {
  std::size_t n_bits = 0, count = 0;
  device_buffer<std::uint64_t> words, word_off;
  std::vector<std::uint64_t> host_word_off;  ///< word_off on the host (finding the words of a rank range)

  device_density() = default;
  /// The mask of |n_bits| bits in |w| (bit j of word j / 64); waits for the
  /// upload, so |w| may be a temporary.
  device_density(std::span<const std::uint64_t> w, std::size_t n_bits_, cudaStream_t s)
      : n_bits(n_bits_), words(w.size()), word_off(w.size()), host_word_off(w.size()) {
    std::uint64_t acc = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      host_word_off[i] = acc;
      acc += unsigned(__builtin_popcountll(w[i]));
    }
    count = std::size_t(acc);
    words.upload(w.data(), w.size(), s);
    word_off.upload(host_word_off.data(), host_word_off.size(), s);
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));  // |w| may be a temporary
  }
  std::size_t bytes() const { return words.bytes() + word_off.bytes(); }
  /// The mask as a selection of coded witness values (gpu_expand_selected).
  groth16::gpu_value_selection selection() const { return {words.data(), word_off.data(), host_word_off, count}; }

  /// d_dst[0, count) = the elements of d_src[0, n_bits) whose bit is set.
  void compact(const ff::fr* d_src, ff::fr* d_dst, cudaStream_t s) const {
    if (n_bits == 0) return;
    constexpr unsigned threads = 256;
    density_compact_kernel<<<unsigned((n_bits + threads - 1) / threads), threads, 0, s>>>(
        reinterpret_cast<const fr_d*>(d_src), n_bits, words.data(), word_off.data(), reinterpret_cast<fr_d*>(d_dst));
    CUZK_CUDA_CHECK_LAUNCH();
  }
};

}  // namespace cuzk::gpu
