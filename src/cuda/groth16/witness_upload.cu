// SPDX-License-Identifier: Apache-2.0
// Coded witness upload and expansion on the GPU. API, method and costs:
// cuzk/groth16/witness_upload_gpu.hpp; the coded form: coded_witness.hpp.
//
// expand_kernel: blocks of 256 threads = 8 warps = one group of 256 values
// (coded_witness::group_size), a warp per code word, a thread per value.
// Lane 0 of each warp puts its word's "other" count in shared memory; every
// thread adds the counts of the warps before its own to the group's prefix
// and the others below it in its word, which is its slot in |others|. The
// writes of a warp are 1 KiB contiguous; the other values are read in order.
// expand_selected_kernel (gpu_expand_selected): a chunk of an MSM's scalars
// from a witness kept coded on the device (upload_coded): one thread per bit
// of the density words spanning the chunk's ranks; a selected value in range
// is decoded by detail::coded_value (cuzk/groth16/detail/coded_expand.cuh,
// also run on the host by tests/device_host), which counts the other values
// of the code words before it in its group (at most 7 loads, cached).
// Invariants: codes 0, 1, 2 only (the encoder's); Montgomery one is written
// for code 1.

#include <cuzk/groth16/witness_upload_gpu.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>
#include <cuzk/groth16/detail/coded_expand.cuh>
#include <cuzk/groth16/prover_gpu.hpp>

namespace cuzk::groth16 {
namespace {

using ff::fr;
using gpu::fr_d;

constexpr unsigned expand_threads = unsigned(coded_witness::group_size);
static_assert(expand_threads % 32 == 0 && expand_threads <= 1024);

using detail::other_bits;

__global__ void __launch_bounds__(expand_threads)
    expand_kernel(const std::uint64_t* __restrict__ codes, const std::uint32_t* __restrict__ group_others,
                  const fr_d* __restrict__ others, std::uint64_t n, fr_d* __restrict__ d_w) {
  __shared__ std::uint32_t warp_others[expand_threads / 32];
  const std::uint64_t i = std::uint64_t(blockIdx.x) * expand_threads + threadIdx.x;
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint64_t word = i < n ? __ldg(codes + i / 32) : 0;  // i / 32: one word per warp
  const std::uint64_t ob = other_bits(word);
  if (lane == 0) warp_others[warp] = unsigned(__popcll(ob));
  __syncthreads();
  if (i >= n) return;
  std::uint32_t slot = __ldg(group_others + blockIdx.x);
  for (unsigned k = 0; k < warp; ++k) slot += warp_others[k];
  const std::uint64_t below = ob & detail::low_bits(2 * lane);
  slot += unsigned(__popcll(below));
  const unsigned code = unsigned(word >> (2 * lane)) & 3;
  fr_d v;
  if (code == coded_witness::code_zero) v = fr_d::zero();
  else if (code == coded_witness::code_one) v = fr_d::one();
  else v = others[slot];
  d_w[i] = v;
}

/// dst[rank - rank_lo] = value(value_lo + j) for every j in [j0, j1) that
/// |words| selects (all when null) whose rank lies in [rank_lo, rank_hi)
/// (detail::expand_selected_one).
__global__ void __launch_bounds__(expand_threads)
    expand_selected_kernel(const std::uint64_t* __restrict__ codes, const std::uint32_t* __restrict__ group_others,
                           const fr_d* __restrict__ others, std::uint64_t value_lo, std::uint64_t j0, std::uint64_t j1,
                           const std::uint64_t* __restrict__ words, const std::uint64_t* __restrict__ word_off,
                           std::uint64_t rank_lo, std::uint64_t rank_hi, fr_d* __restrict__ dst) {
  const std::uint64_t j = j0 + std::uint64_t(blockIdx.x) * expand_threads + threadIdx.x;
  if (j >= j1) return;
  detail::expand_selected_one(codes, group_others, others, value_lo, j, words, word_off, rank_lo, rank_hi, dst);
}

constexpr std::size_t round16(std::size_t b) { return (b + 15) / 16 * 16; }

/// Pinned staging for witness uploads, one per device, behind its mutex.
/// Why: cudaMemcpyAsync from pageable memory moved ~5.7 GB/s on the H200
/// host; copying into pinned memory with all host threads while the DMA
/// engine moves the previous piece keeps the link busy. The two buffers are
/// used as one ring of 8 MiB slots (an event each), so the first DMA starts
/// after 8 MiB of host copying, and a 32 GiB coded witness (~92 MB) fits in
/// the ring without waiting for a slot.
/// Cost: 2 x witness_stage_bytes of pinned host memory per device, made on
/// first use (groth16::gpu_witness_staging_bytes reports it).
struct witness_stage {
  static constexpr std::size_t slot_bytes = std::size_t(8) << 20;
  static constexpr std::size_t slots_per_buffer = witness_stage_bytes / slot_bytes;
  static constexpr std::size_t slots = 2 * slots_per_buffer;
  static_assert(witness_stage_bytes % slot_bytes == 0 && slots_per_buffer >= 1);
  std::mutex busy;
  gpu::pinned_buffer<unsigned char> buf[2];
  std::array<gpu::event, slots> copied;
  std::array<bool, slots> used{};
  std::size_t next = 0;  // the slot the next piece takes (round robin over uploads)
  witness_stage()
      : buf{gpu::pinned_buffer<unsigned char>(witness_stage_bytes),
            gpu::pinned_buffer<unsigned char>(witness_stage_bytes)} {}
  unsigned char* slot(std::size_t k) { return buf[k / slots_per_buffer].data() + (k % slots_per_buffer) * slot_bytes; }
};

/// The staging of |device| (the current device), made on first use.
witness_stage& stage_for(int device) {
  static std::array<std::unique_ptr<witness_stage>, 64> stages;
  static std::mutex make;
  if (device < 0 || device >= int(stages.size()))
    throw std::invalid_argument("groth16: device ordinal " + std::to_string(device) + " out of range");
  std::lock_guard lock(make);
  auto& st = stages[std::size_t(device)];
  if (!st) st = std::make_unique<witness_stage>();
  return *st;
}

/// One host array and where it goes on the device.
struct segment {
  const unsigned char* src;
  std::size_t bytes;
  unsigned char* dst;
};

/// Copies |segs| to the device through the pinned staging of |device|, one
/// slot-sized piece at a time (a piece may span segments), queued on |s|.
void staged_copy(int device, std::span<const segment> segs, cudaStream_t s) {
  witness_stage& st = stage_for(device);
  std::lock_guard lock(st.busy);
  std::size_t seg = 0, seg_off = 0;
  while (seg < segs.size()) {
    const std::size_t k = st.next;
    st.next = (st.next + 1) % witness_stage::slots;
    if (st.used[k]) st.copied[k].synchronize();  // its previous DMA has finished
    unsigned char* stage = st.slot(k);
    std::size_t fill = 0;
    while (seg < segs.size() && fill < witness_stage::slot_bytes) {
      const segment& g = segs[seg];
      const std::size_t len = std::min(witness_stage::slot_bytes - fill, g.bytes - seg_off);
      const unsigned char* from = g.src + seg_off;
      unsigned char* to = stage + fill;
      tbb::parallel_for(
          tbb::blocked_range<std::size_t>(0, len, std::size_t(256) << 10),
          [&](const tbb::blocked_range<std::size_t>& r) { std::memcpy(to + r.begin(), from + r.begin(), r.size()); });
      if (len) CUZK_CUDA_CHECK(cudaMemcpyAsync(g.dst + seg_off, to, len, cudaMemcpyHostToDevice, s));
      fill += len;
      seg_off += len;
      if (seg_off == g.bytes) ++seg, seg_off = 0;
    }
    st.copied[k].record(s);
    st.used[k] = true;
  }
}

template <class T>
segment seg_of(const std::vector<T>& v, void* d) {
  return {reinterpret_cast<const unsigned char*>(v.data()), v.size() * sizeof(T), static_cast<unsigned char*>(d)};
}

}  // namespace

struct gpu_witness_uploader::impl {
  int device = 0;
  std::size_t max_values = 0;
  gpu::device_buffer<std::uint64_t> codes;
  gpu::device_buffer<std::uint32_t> group_others;
};

gpu_witness_uploader::gpu_witness_uploader(int device, std::size_t max_values) : _impl(std::make_unique<impl>()) {
  gpu::device_guard guard(device);
  _impl->device = device;
  _impl->max_values = max_values;
  _impl->codes = gpu::device_buffer<std::uint64_t>(coded_witness::code_words(max_values));
  _impl->group_others = gpu::device_buffer<std::uint32_t>(coded_witness::groups(max_values));
}

gpu_witness_uploader::~gpu_witness_uploader() = default;
gpu_witness_uploader::gpu_witness_uploader(gpu_witness_uploader&&) noexcept = default;
gpu_witness_uploader& gpu_witness_uploader::operator=(gpu_witness_uploader&&) noexcept = default;

std::size_t gpu_witness_uploader::device_bytes_for(std::size_t max_values) {
  return coded_witness::code_words(max_values) * sizeof(std::uint64_t) +
         coded_witness::groups(max_values) * sizeof(std::uint32_t);
}

std::size_t gpu_witness_uploader::device_bytes() const { return _impl->codes.bytes() + _impl->group_others.bytes(); }

void gpu_witness_uploader::upload(const coded_witness& cw, fr* d_w, fr* d_others, CUstream_st* stream) {
  if (cw.size > _impl->max_values)
    throw std::invalid_argument("groth16::gpu_witness_uploader: " + std::to_string(cw.size) +
                                " values, uploader holds " + std::to_string(_impl->max_values));
  if (cw.codes.size() != coded_witness::code_words(cw.size) || cw.group_others.size() != coded_witness::groups(cw.size))
    throw std::invalid_argument("groth16::gpu_witness_uploader: inconsistent coded witness");
  if (cw.size == 0) return;
  if (!d_w || (!cw.others.empty() && !d_others))
    throw std::invalid_argument("groth16::gpu_witness_uploader: null device pointer");
  gpu::device_guard guard(_impl->device);
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  const segment segs[3] = {seg_of(cw.codes, _impl->codes.data()), seg_of(cw.group_others, _impl->group_others.data()),
                           seg_of(cw.others, d_others)};
  staged_copy(_impl->device, segs, s);
  expand_kernel<<<unsigned(coded_witness::groups(cw.size)), expand_threads, 0, s>>>(
      _impl->codes.data(), _impl->group_others.data(), reinterpret_cast<const fr_d*>(d_others), cw.size,
      reinterpret_cast<fr_d*>(d_w));
  CUZK_CUDA_CHECK_LAUNCH();
}

void gpu_witness_uploader::upload_raw(std::span<const fr> inputs, std::span<const fr> aux, fr* d_w,
                                      CUstream_st* stream) {
  const std::size_t n = inputs.size() + aux.size();
  if (n > _impl->max_values)
    throw std::invalid_argument("groth16::gpu_witness_uploader: " + std::to_string(n) + " values, uploader holds " +
                                std::to_string(_impl->max_values));
  if (n == 0) return;
  if (!d_w) throw std::invalid_argument("groth16::gpu_witness_uploader: null device pointer");
  gpu::device_guard guard(_impl->device);
  const segment segs[2] = {{reinterpret_cast<const unsigned char*>(inputs.data()), inputs.size_bytes(),
                            reinterpret_cast<unsigned char*>(d_w)},
                           {reinterpret_cast<const unsigned char*>(aux.data()), aux.size_bytes(),
                            reinterpret_cast<unsigned char*>(d_w + inputs.size())}};
  staged_copy(_impl->device, segs, reinterpret_cast<cudaStream_t>(stream));
}

std::size_t gpu_coded_store_bytes(std::size_t values, std::size_t max_others) {
  return round16(coded_witness::code_words(values) * sizeof(std::uint64_t)) +
         round16(coded_witness::groups(values) * sizeof(std::uint32_t)) + max_others * sizeof(fr);
}

gpu_coded_view gpu_witness_uploader::upload_coded(const coded_witness& cw, void* store, std::size_t store_bytes,
                                                  CUstream_st* stream) {
  if (cw.size > _impl->max_values)
    throw std::invalid_argument("groth16::gpu_witness_uploader: " + std::to_string(cw.size) +
                                " values, uploader holds " + std::to_string(_impl->max_values));
  if (cw.codes.size() != coded_witness::code_words(cw.size) || cw.group_others.size() != coded_witness::groups(cw.size))
    throw std::invalid_argument("groth16::gpu_witness_uploader: inconsistent coded witness");
  const std::size_t need = gpu_coded_store_bytes(cw.size, cw.others.size());
  if (!store || (reinterpret_cast<std::uintptr_t>(store) & 15) != 0 || store_bytes < need)
    throw std::invalid_argument("groth16::gpu_witness_uploader: a coded store of " + std::to_string(store_bytes) +
                                " bytes cannot hold " + std::to_string(need) + " 16-byte aligned");
  auto* at = static_cast<unsigned char*>(store);
  unsigned char* counts = at + round16(cw.codes.size() * sizeof(std::uint64_t));
  unsigned char* others = counts + round16(cw.group_others.size() * sizeof(std::uint32_t));
  gpu_coded_view v{reinterpret_cast<const std::uint64_t*>(at), reinterpret_cast<const std::uint32_t*>(counts),
                   reinterpret_cast<const fr*>(others), cw.size};
  if (cw.size == 0) return v;
  gpu::device_guard guard(_impl->device);
  const segment segs[3] = {seg_of(cw.codes, at), seg_of(cw.group_others, counts), seg_of(cw.others, others)};
  staged_copy(_impl->device, segs, reinterpret_cast<cudaStream_t>(stream));
  return v;
}

void gpu_expand_selected(const gpu_coded_view& cw, std::size_t value_lo, std::size_t n_bits,
                         const gpu_value_selection& sel, std::size_t rank_lo, std::size_t count, fr* d_dst,
                         CUstream_st* stream) {
  if (count == 0) return;
  if (value_lo + n_bits > cw.size)
    throw std::invalid_argument("groth16::gpu_expand_selected: values [" + std::to_string(value_lo) + ", " +
                                std::to_string(value_lo + n_bits) + ") past the witness's " + std::to_string(cw.size));
  const std::size_t selected = sel.words ? sel.count : n_bits;
  if (rank_lo + count > selected)
    throw std::invalid_argument("groth16::gpu_expand_selected: ranks up to " + std::to_string(rank_lo + count) +
                                " of a selection of " + std::to_string(selected));
  if (!d_dst) throw std::invalid_argument("groth16::gpu_expand_selected: null device pointer");
  const std::size_t rank_hi = rank_lo + count;
  if (sel.words && sel.host_word_off.size() != (n_bits + 63) / 64)
    throw std::invalid_argument("groth16::gpu_expand_selected: selection of " +
                                std::to_string(sel.host_word_off.size()) + " words for " + std::to_string(n_bits) +
                                " bits");
  const auto [j0, j1] = detail::selected_bit_range(sel.words ? sel.host_word_off : std::span<const std::uint64_t>{},
                                                   n_bits, rank_lo, rank_hi);
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  expand_selected_kernel<<<unsigned((j1 - j0 + expand_threads - 1) / expand_threads), expand_threads, 0, s>>>(
      cw.codes, cw.group_others, reinterpret_cast<const fr_d*>(cw.others), value_lo, j0, j1, sel.words, sel.word_off,
      rank_lo, rank_hi, reinterpret_cast<fr_d*>(d_dst));
  CUZK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuzk::groth16
