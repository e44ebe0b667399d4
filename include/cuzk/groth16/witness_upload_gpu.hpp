// SPDX-License-Identifier: Apache-2.0
#pragma once
// Moving a coded witness (coded_witness.hpp) to the GPU and expanding it into
// the full assignment d_w there. Host-callable (plain C++); the kernels are in
// src/cuda/groth16/witness_upload.cu.
//
// Method: the codes, the per-group counts and the other values are copied
// through the device's two pinned staging buffers (witness_stage_bytes each,
// made on the device's first upload and shared by every uploader of that
// device; gpu_witness_staging_bytes reports them), used as a ring of 8 MiB
// slots: all host threads copy a piece into one slot while the DMA engine
// moves the previous ones. Then one kernel writes d_w: one thread per value,
// a warp per code word; a value
// coded "other" finds its place as its group's prefix count plus the others
// before it in the group (popcounts of the code words, summed over the
// block's warps in shared memory).
// Costs at 32 GiB (130.2 M values, ~1.3% other): ~89 MB through the link
// instead of 4.2 GB, then one pass writing 4.2 GB of device memory. (upload_raw
// moves a witness as it is through the same staging.)
// Memory (device): 8 bytes per 32 values (codes) + 4 bytes per 256 values
// (counts), held by the uploader; the other values go to caller scratch.
// Threads: uploads to one device serialise on a per-device mutex around the
// staging buffers; an uploader object is used by one upload at a time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/groth16/coded_witness.hpp>

struct CUstream_st;

namespace cuzk::groth16 {

/// A coded witness kept coded in device memory (gpu_witness_uploader::
/// upload_coded): its codes, per-group counts and other values.
struct gpu_coded_view {
  const std::uint64_t* codes = nullptr;
  const std::uint32_t* group_others = nullptr;
  const ff::fr* others = nullptr;
  std::size_t size = 0;  ///< values
};

/// Device bytes upload_coded stores for |values| values with at most
/// |max_others| other values (each part 16-byte aligned).
std::size_t gpu_coded_store_bytes(std::size_t values, std::size_t max_others);

/// Some of the bits [0, n) of a mask in device memory (r1cs density masks):
/// bit j of words[j / 64], word_off[k] the set bits before word k, on the
/// device and (host_word_off) on the host. words null: every bit is set.
struct gpu_value_selection {
  const std::uint64_t* words = nullptr;
  const std::uint64_t* word_off = nullptr;
  std::span<const std::uint64_t> host_word_off;
  std::size_t count = 0;  ///< bits set (n when words is null)
};

/// d_dst[k] for k < count: the value at value_lo + j of |cw|, for the j in
/// [0, n_bits) that |sel| selects, taken in order from the rank_lo-th (a
/// chunk of an MSM's scalars, which are a witness range compacted through a
/// density mask). One thread per bit of the words spanning the ranks; a
/// value coded "other" finds its slot from its group's count and the code
/// words before it in the group (at most 7). Queued on |stream|.
/// std::invalid_argument when the ranks pass the selection's end.
void gpu_expand_selected(const gpu_coded_view& cw, std::size_t value_lo, std::size_t n_bits,
                         const gpu_value_selection& sel, std::size_t rank_lo, std::size_t count, ff::fr* d_dst,
                         CUstream_st* stream);

class gpu_witness_uploader {
 public:
  /// Device buffers for witnesses of up to |max_values| values on |device|.
  gpu_witness_uploader(int device, std::size_t max_values);
  ~gpu_witness_uploader();
  gpu_witness_uploader(gpu_witness_uploader&&) noexcept;
  gpu_witness_uploader& operator=(gpu_witness_uploader&&) noexcept;
  gpu_witness_uploader(const gpu_witness_uploader&) = delete;
  gpu_witness_uploader& operator=(const gpu_witness_uploader&) = delete;

  /// Device bytes an uploader for |max_values| values holds.
  static std::size_t device_bytes_for(std::size_t max_values);
  std::size_t device_bytes() const;

  /// d_w[0 .. cw.size) = the values |cw| codes. |d_others| is device scratch
  /// of at least cw.others.size() elements (it receives the other values);
  /// both on this uploader's device. Queued on |stream| (the caller
  /// synchronises before reading d_w or reusing d_others); returns once the
  /// host has handed every chunk to the DMA engine. std::invalid_argument
  /// when |cw| is larger than the uploader or inconsistent.
  void upload(const coded_witness& cw, ff::fr* d_w, ff::fr* d_others, CUstream_st* stream);
  /// d_w = inputs || aux as they are (32 bytes per value) through the same
  /// staging: for witnesses with too many other values to code.
  void upload_raw(std::span<const ff::fr> inputs, std::span<const ff::fr> aux, ff::fr* d_w, CUstream_st* stream);
  /// |cw| as it is (codes, counts, others) into |store| (device memory of
  /// this uploader's device, 16-byte aligned, at least
  /// gpu_coded_store_bytes(cw.size, cw.others.size()) bytes), through the
  /// same staging; queued on |stream|. The view is valid while |store| is
  /// (gpu_expand_selected reads it). std::invalid_argument when the store is
  /// too small or misaligned, or |cw| is inconsistent or too large.
  gpu_coded_view upload_coded(const coded_witness& cw, void* store, std::size_t store_bytes, CUstream_st* stream);

 private:
  struct impl;
  std::unique_ptr<impl> _impl;
};

}  // namespace cuzk::groth16
