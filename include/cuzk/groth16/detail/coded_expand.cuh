// SPDX-License-Identifier: Apache-2.0
#pragma once
// The per-value rules of expanding a coded witness (coded_witness.hpp) on the
// GPU, written once for the device kernels (src/cuda/groth16/witness_upload.cu)
// and for the host, where tests/device_host runs them against decode_witness
// and a density compaction on the CPU.
//
// coded_value: a value's code; a value coded "other" finds its slot in the
// other values as its group's count plus the others of the code words before
// it in the group (at most group_size / 32 - 1 = 7 loads) and below it in its
// word. expand_selected_one: one thread of gpu_expand_selected, bit j of a
// selection (a density mask; none: every value) written at its rank less
// rank_lo when its rank lies in [rank_lo, rank_hi). selected_bit_range: the
// bits whose words can hold those ranks (host), the kernel's grid.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/groth16/detail/witness_codes.hpp>  // other_bits

namespace cuzk::groth16::detail {

__host__ __device__ __forceinline__ unsigned popc64(std::uint64_t x) {
#ifdef __CUDA_ARCH__
  return unsigned(__popcll(x));
#else
  return unsigned(__builtin_popcountll(x));
#endif
}

/// A read through the read-only cache on the device.
template <class T>
__host__ __device__ __forceinline__ T load_ro(const T* p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}

/// The low |bits| bits set (bits < 64).
__host__ __device__ __forceinline__ std::uint64_t low_bits(unsigned bits) {
  return bits ? ~std::uint64_t(0) >> (64 - bits) : 0;
}

/// The value at index |i| of a coded witness.
__host__ __device__ __forceinline__ gpu::fr_d coded_value(const std::uint64_t* __restrict__ codes,
                                                          const std::uint32_t* __restrict__ group_others,
                                                          const gpu::fr_d* __restrict__ others, std::uint64_t i) {
  constexpr std::uint64_t words_per_group = coded_witness::group_size / 32;
  const std::uint64_t wi = i / 32;
  const std::uint64_t word = load_ro(codes + wi);
  const unsigned lane = unsigned(i % 32);
  const unsigned code = unsigned(word >> (2 * lane)) & 3;
  if (code == coded_witness::code_zero) return gpu::fr_d::zero();
  if (code == coded_witness::code_one) return gpu::fr_d::one();
  std::uint64_t slot = load_ro(group_others + i / coded_witness::group_size);
  for (std::uint64_t w = wi - wi % words_per_group; w < wi; ++w) slot += popc64(other_bits(load_ro(codes + w)));
  return others[slot + popc64(other_bits(word) & low_bits(2 * lane))];
}

/// Bit |j| of a selection (|words| null: every bit, rank j): whether it is
/// set, and its rank (the set bits before it).
__host__ __device__ __forceinline__ bool selected_rank(const std::uint64_t* __restrict__ words,
                                                       const std::uint64_t* __restrict__ word_off, std::uint64_t j,
                                                       std::uint64_t& rank) {
  if (!words) {
    rank = j;
    return true;
  }
  const std::uint64_t word = load_ro(words + j / 64);
  const unsigned bit = unsigned(j % 64);
  if (!((word >> bit) & 1)) return false;
  rank = load_ro(word_off + j / 64) + popc64(word & low_bits(bit));
  return true;
}

/// Bit |j| of the selection over values [value_lo, value_lo + n_bits):
/// dst[rank - rank_lo] = its value when it is selected and its rank is in
/// [rank_lo, rank_hi).
__host__ __device__ __forceinline__ void expand_selected_one(
    const std::uint64_t* __restrict__ codes, const std::uint32_t* __restrict__ group_others,
    const gpu::fr_d* __restrict__ others, std::uint64_t value_lo, std::uint64_t j,
    const std::uint64_t* __restrict__ words, const std::uint64_t* __restrict__ word_off, std::uint64_t rank_lo,
    std::uint64_t rank_hi, gpu::fr_d* __restrict__ dst) {
  std::uint64_t rank = 0;
  if (!selected_rank(words, word_off, j, rank) || rank < rank_lo || rank >= rank_hi) return;
  dst[rank - rank_lo] = coded_value(codes, group_others, others, value_lo + j);
}

/// Bits [j0, j1) of an |n_bits|-bit selection whose words hold ranks
/// [rank_lo, rank_hi) (rank_lo < rank_hi <= the bits set): every bit when
/// |host_word_off| is empty (no mask), else from the word holding rank_lo to
/// the word holding rank_hi - 1 (host_word_off[k]: set bits before word k).
inline std::pair<std::size_t, std::size_t> selected_bit_range(std::span<const std::uint64_t> host_word_off,
                                                              std::size_t n_bits, std::size_t rank_lo,
                                                              std::size_t rank_hi) {
  if (host_word_off.empty()) return {rank_lo, rank_hi};
  const auto& off = host_word_off;
  const std::size_t w0 = std::size_t(std::upper_bound(off.begin(), off.end(), rank_lo) - off.begin()) - 1;
  const std::size_t w1 = std::size_t(std::upper_bound(off.begin(), off.end(), rank_hi - 1) - off.begin()) - 1;
  return {64 * w0, std::min(n_bits, 64 * (w1 + 1))};
}

}  // namespace cuzk::groth16::detail
