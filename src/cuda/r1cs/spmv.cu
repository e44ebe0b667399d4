// SPDX-License-Identifier: Apache-2.0
// GPU sparse matrix-vector products of an R1CS shape: a, b, c = A·w, B·w, C·w.
// API, method, memory and costs: cuzk/r1cs/spmv_gpu.hpp.
//
// Three kernels per call (per row block when streamed), in this order on the
// caller's stream, each a 2-D grid whose y is the matrix (0, 1, 2; one
// matrix per launch when streamed):
//   short_rows_kernel  x = rows, one thread per row; rows longer than
//                      |short_row_max| return at once (warp tasks own them);
//   warp_tasks_kernel  x = warp tasks, one warp per task, lanes striding by 32;
//   long_rows_kernel   x = long rows, one warp per row adding its partials.
// The first two write disjoint rows of the output; the second writes the
// partial sums the third reads. Resident matrices are packed when uploaded
// (packed_bytes): row offsets as 32-bit values within groups of
// 2^lg_row_group rows plus one 64-bit base per group, and 16-bit coefficient
// ids where the dictionary allows; streamed blocks are read as the host
// holds them (64-bit offsets, 32-bit ids), copied in place.
// A view of a row block (matrix_view::row_base, nnz_base) reads its row
// offsets, columns and ids from the staging copy, indexed relative to the
// block; warp tasks, long rows and partial sums keep the whole matrix's
// numbering, so one plan serves the resident and the streamed calls.
// Invariants: w and the dictionary fully reduced Montgomery Fr (so every sum
// and product is fully reduced, and any order of additions gives the CPU's
// result bit for bit); outputs fully reduced. Device vectors are read and
// written as 16-byte words (the host checks their alignment).

#include <cuzk/r1cs/spmv_gpu.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>
#include <cuzk/gpu/runtime.hpp>
#include <cuzk/gpu/vector_io.cuh>

namespace cuzk::r1cs {
namespace {

using gpu::fr_d;
namespace tune = gpu::tuning;

static_assert(fr_d::n_words == 8, "Fr is eight 32-bit words (two 16-byte loads)");

/// Up to |warp_chunk| consecutive non-zeros of one row, one warp's work.
struct warp_task {
  std::uint64_t begin;  ///< first non-zero
  std::uint32_t len;    ///< non-zeros, 1 .. warp_chunk
  std::uint32_t dst;    ///< output row, or partial_flag | partial-sum slot
};
/// A row of several warp tasks: its partial sums are slots [first, first + count).
struct long_row {
  std::uint32_t row, first, count, unused;
};
static_assert(sizeof(warp_task) == 16 && sizeof(long_row) == 16);

constexpr std::uint32_t partial_flag = 0x80000000u;
/// Coefficient id of a lane slot past the end of its row (never a dictionary id).
constexpr std::uint32_t no_id = 0xffffffffu;

/// Row offsets and coefficient ids either as on the host (row_ptr, ids: a
/// streamed block's staging copy) or packed (resident matrices): offset(r) =
/// group_base[r >> lg_group] + row_rel[r], and 16-bit ids where the
/// dictionary has at most 2^16 entries. The choice is uniform over a launch.
struct matrix_view {
  const std::uint64_t* row_ptr;     ///< rows + 1 offsets, from row row_base on; null when packed
  const std::uint32_t* row_rel;     ///< packed: offset less its group's base
  const std::uint64_t* group_base;  ///< packed: the offset of each group's first row
  const std::uint32_t* cols;        ///< non-zeros from nnz_base on
  const std::uint32_t* ids;         ///< 32-bit ids, or null
  const std::uint16_t* ids16;       ///< 16-bit ids, or null
  fr_d* out;                        ///< the whole output (row 0)
  const warp_task* tasks;
  const long_row* longs;
  fr_d* partials;
  std::uint64_t n_tasks, n_longs;
  std::uint64_t rows, row_base, nnz_base;
};
struct matrix_views {
  matrix_view m[3];
};

using gpu::load16_ro;
using gpu::store16;

/// Row |i|'s first non-zero (i relative to the view's row_base).
__device__ __forceinline__ std::uint64_t row_offset(const matrix_view& m, std::uint64_t i) {
  if (m.row_ptr) return __ldg(m.row_ptr + i);
  return __ldg(m.group_base + (i >> tune::spmv::lg_row_group)) + __ldg(m.row_rel + i);
}

/// Coefficient id of non-zero |e| (absolute).
__device__ __forceinline__ std::uint32_t coeff_id(const matrix_view& m, std::uint64_t e) {
  return m.ids16 ? std::uint32_t(__ldg(m.ids16 + (e - m.nnz_base))) : __ldg(m.ids + (e - m.nnz_base));
}

/// acc += coefficient(id) * w[col] for the |batch| non-zeros k, k + stride,
/// ... that lie before |end|: all index loads first, then all w gathers,
/// then the additions, so the loads of a batch are in flight together.
__device__ __forceinline__ void add_batch(fr_d& acc, const matrix_view& m, std::uint64_t k, std::uint64_t end,
                                          unsigned stride, const fr_d* __restrict__ w,
                                          const fr_d* __restrict__ coeffs) {
  constexpr unsigned B = tune::spmv::batch;
  std::uint32_t col[B], id[B];
#pragma unroll
  for (unsigned j = 0; j < B; ++j) {
    const std::uint64_t e = k + std::uint64_t(j) * stride;
    id[j] = no_id;
    col[j] = 0;
    if (e < end) {
      col[j] = __ldg(m.cols + (e - m.nnz_base));
      id[j] = coeff_id(m, e);
    }
  }
  fr_d x[B];
#pragma unroll
  for (unsigned j = 0; j < B; ++j)
    if (id[j] != no_id) x[j] = load16_ro(w + col[j]);
#pragma unroll
  for (unsigned j = 0; j < B; ++j) {
    if (id[j] == no_id) continue;
    if (id[j] == r1cs_shape::coeff_one) acc += x[j];
    else if (id[j] == r1cs_shape::coeff_minus_one) acc -= x[j];
    else acc += x[j] * load16_ro(coeffs + id[j]);
  }
}

/// The sum over the warp's 32 lanes, in lane 0 (the other lanes hold
/// partial sums). Every lane of the warp must call it.
__device__ __forceinline__ fr_d warp_sum(fr_d a) {
#pragma unroll
  for (unsigned off = 16; off > 0; off >>= 1) {
    fr_d b;
#pragma unroll
    for (int j = 0; j < 8; ++j) b.l[j] = __shfl_down_sync(0xffffffffu, a.l[j], off);
    a += b;
  }
  return a;
}

__global__ void __launch_bounds__(tune::spmv::threads)
    short_rows_kernel(matrix_views v, const fr_d* __restrict__ w, const fr_d* __restrict__ coeffs,
                      unsigned short_row_max) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const matrix_view& m = v.m[blockIdx.y];
  if (i >= m.rows) return;
  const std::uint64_t begin = row_offset(m, i), end = row_offset(m, i + 1);
  if (end - begin > short_row_max) return;
  fr_d acc = fr_d::zero();
  for (std::uint64_t k = begin; k < end; k += tune::spmv::batch) add_batch(acc, m, k, end, 1, w, coeffs);
  store16(m.out + m.row_base + i, acc);
}

__global__ void __launch_bounds__(tune::spmv::threads)
    warp_tasks_kernel(matrix_views v, const fr_d* __restrict__ w, const fr_d* __restrict__ coeffs) {
  const matrix_view& m = v.m[blockIdx.y];
  const std::uint64_t t = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (t >= m.n_tasks) return;  // uniform over the warp
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t begin = m.tasks[t].begin, end = begin + m.tasks[t].len;
  const std::uint32_t dst = m.tasks[t].dst;
  fr_d acc = fr_d::zero();
  for (std::uint64_t k = begin + lane; k < end; k += 32 * tune::spmv::batch) add_batch(acc, m, k, end, 32, w, coeffs);
  acc = warp_sum(acc);
  if (lane == 0) store16((dst & partial_flag) ? m.partials + (dst & ~partial_flag) : m.out + dst, acc);
}

__global__ void __launch_bounds__(tune::spmv::threads) long_rows_kernel(matrix_views v) {
  const matrix_view& m = v.m[blockIdx.y];
  const std::uint64_t r = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (r >= m.n_longs) return;  // uniform over the warp
  const unsigned lane = threadIdx.x % 32;
  const long_row lr = m.longs[r];
  fr_d acc = fr_d::zero();
  for (std::uint32_t k = lane; k < lr.count; k += 32) acc += load16_ro(m.partials + lr.first + k);
  acc = warp_sum(acc);
  if (lane == 0) store16(m.out + lr.row, acc);
}

/// The row classification of one matrix (host side).
struct host_plan {
  std::vector<warp_task> tasks;
  std::vector<long_row> longs;
  std::vector<std::uint32_t> task_rows;  ///< the row of each task (host only: row blocks)
  std::size_t partials = 0;

  std::size_t bytes() const {
    return tasks.size() * sizeof(warp_task) + longs.size() * sizeof(long_row) + partials * sizeof(ff::fr);
  }
};

void check_config(const gpu_spmv_config& cfg) {
  if (cfg.short_row_max < 1 || cfg.short_row_max > tune::spmv::short_row_cap || cfg.warp_chunk < 32 ||
      cfg.warp_chunk % 32 != 0)
    throw std::invalid_argument("r1cs::gpu_shape: spmv config out of range (short_row_max " +
                                std::to_string(cfg.short_row_max) + ", warp_chunk " + std::to_string(cfg.warp_chunk) +
                                ")");
}

/// Rows longer than |short_row_max| (in order), found with all host threads;
/// then their warp tasks, one row after another.
host_plan make_plan(const csr_matrix& m, const gpu_spmv_config& cfg) {
  const std::size_t rows = m.rows();
  constexpr std::size_t block = std::size_t(1) << 18;
  const std::size_t blocks = (rows + block - 1) / block;
  std::vector<std::vector<std::uint32_t>> found(blocks);
  tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
    const std::size_t lo = b * block, hi = std::min(rows, lo + block);
    for (std::size_t i = lo; i < hi; ++i)
      if (m.row_ptr[i + 1] - m.row_ptr[i] > cfg.short_row_max) found[b].push_back(std::uint32_t(i));
  });
  host_plan p;
  for (const auto& f : found)
    for (const std::uint32_t i : f) {
      const std::uint64_t begin = m.row_ptr[i], len = m.row_ptr[i + 1] - begin;
      const std::uint64_t n = (len + cfg.warp_chunk - 1) / cfg.warp_chunk;
      p.task_rows.insert(p.task_rows.end(), n, i);
      if (n == 1) {
        p.tasks.push_back({begin, std::uint32_t(len), i});
        continue;
      }
      if (p.partials + n >= partial_flag) throw std::invalid_argument("r1cs::gpu_shape: too many partial sums");
      p.longs.push_back({i, std::uint32_t(p.partials), std::uint32_t(n), 0});
      for (std::uint64_t c = 0; c < n; ++c) {
        const std::uint64_t lo = begin + c * cfg.warp_chunk;
        p.tasks.push_back({lo, std::uint32_t(std::min<std::uint64_t>(cfg.warp_chunk, begin + len - lo)),
                           partial_flag | std::uint32_t(p.partials + c)});
      }
      p.partials += n;
    }
  return p;
}

/// Bytes of |m| as the host holds it (what a streamed call moves).
std::size_t csr_bytes(const csr_matrix& m) { return m.row_ptr.size() * 8 + m.cols.size() * 4 + m.coeff_ids.size() * 4; }

constexpr unsigned lg_group = tune::spmv::lg_row_group;
/// Groups of rows of a matrix of |rows| rows: one base per group holding a
/// row offset, the end offset (row |rows|) included.
std::size_t row_groups(std::size_t rows) { return (rows >> lg_group) + 1; }
bool short_ids(std::size_t dictionary) { return dictionary <= tune::spmv::max_short_id_coeffs; }

/// Bytes of |m| packed for residence: 32-bit row offsets within their
/// group, the group bases, columns, and 16- or 32-bit ids.
std::size_t packed_bytes(const csr_matrix& m, std::size_t dictionary) {
  return m.row_ptr.size() * 4 + row_groups(m.rows()) * 8 + m.cols.size() * 4 +
         m.coeff_ids.size() * (short_ids(dictionary) ? 2 : 4);
}

/// Rows [r0, r1) of a streamed matrix: non-zeros [nz0, nz1), warp tasks
/// [t0, t1), long rows [l0, l1) (every task of a row lies in its block).
struct row_block {
  std::uint64_t r0, r1, nz0, nz1, t0, t1, l0, l1;
};

/// Consecutive row blocks of at most |block_nnz| non-zeros and as many rows
/// (a longer row is a block of its own).
std::vector<row_block> make_blocks(const csr_matrix& m, const host_plan& p, std::size_t block_nnz) {
  std::vector<row_block> out;
  const std::uint64_t rows = m.rows(), k = std::max<std::uint64_t>(block_nnz, 1);
  std::uint64_t r0 = 0, t = 0, l = 0;
  while (r0 < rows) {
    // the last row end within k non-zeros of row r0's start, at most k rows on
    const auto first = m.row_ptr.begin() + std::ptrdiff_t(r0 + 1);
    const auto last = m.row_ptr.begin() + std::ptrdiff_t(std::min(rows, r0 + k) + 1);
    const std::uint64_t r1 = std::max<std::uint64_t>(
        r0 + 1, std::uint64_t(std::upper_bound(first, last, m.row_ptr[r0] + k) - m.row_ptr.begin()) - 1);
    row_block b{r0, r1, m.row_ptr[r0], m.row_ptr[r1], t, t, l, l};
    while (t < p.task_rows.size() && p.task_rows[t] < r1) ++t;
    while (l < p.longs.size() && p.longs[l].row < r1) ++l;
    b.t1 = t;
    b.l1 = l;
    out.push_back(b);
    r0 = r1;
  }
  return out;
}

/// Staging elements a streamed call needs for |blocks|: the most non-zeros
/// and the most row offsets (rows + 1) of one block.
struct staging_size {
  std::size_t nnz = 0, offsets = 0;
  void fit(const std::vector<row_block>& blocks) {
    for (const row_block& b : blocks) {
      nnz = std::max<std::size_t>(nnz, b.nz1 - b.nz0);
      offsets = std::max<std::size_t>(offsets, b.r1 - b.r0 + 1);
    }
  }
  std::size_t bytes() const { return nnz * 8 + offsets * 8; }
};
/// Host elements converted per upload while packing: the temporary host
/// memory of a resident build (a few tens of MB, not a second matrix).
constexpr std::size_t pack_slice = std::size_t(1) << 22;

/// Converts [0, n) of a host array through |fn| (index -> device element) in
/// slices, uploading each to |dst| (synchronous: the slice is reused).
template <class T, class Fn>
void upload_converted(gpu::device_buffer<T>& dst, std::size_t n, Fn&& fn, cudaStream_t s) {
  std::vector<T> slice(std::min(n, pack_slice));
  for (std::size_t lo = 0; lo < n; lo += pack_slice) {
    const std::size_t len = std::min(pack_slice, n - lo);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, len, std::size_t(1) << 16),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t k = r.begin(); k < r.end(); ++k) slice[k] = fn(lo + k);
                      });
    dst.upload(slice.data(), len, s, lo);
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
  }
}

struct device_csr {
  // resident only, packed (packed_bytes)
  gpu::device_buffer<std::uint32_t> row_rel;
  gpu::device_buffer<std::uint64_t> group_base;
  gpu::device_buffer<std::uint32_t> cols, ids;
  gpu::device_buffer<std::uint16_t> ids16;
  gpu::device_buffer<warp_task> tasks;
  gpu::device_buffer<long_row> longs;
  gpu::device_buffer<ff::fr> partials;
  std::vector<row_block> blocks;  // streamed: the row blocks of the host matrix

  device_csr() = default;
  /// Resident, or (|streamed|) read from |m| in |streamed_blocks| by every call.
  device_csr(const csr_matrix& m, const host_plan& p, std::size_t dictionary, bool streamed,
             std::vector<row_block> streamed_blocks, cudaStream_t s)
      : tasks(p.tasks.size()), longs(p.longs.size()), partials(p.partials) {
    tasks.upload(p.tasks.data(), p.tasks.size(), s);
    longs.upload(p.longs.data(), p.longs.size(), s);
    if (streamed) {
      blocks = std::move(streamed_blocks);
      return;
    }
    const std::size_t groups = row_groups(m.rows());
    std::vector<std::uint64_t> base(groups);
    for (std::size_t g = 0; g < groups; ++g) base[g] = m.row_ptr[g << lg_group];
    for (std::size_t g = 0; g + 1 < groups; ++g)
      if (base[g + 1] - base[g] > 0xffffffffull)
        throw std::invalid_argument("r1cs::gpu_shape: rows " + std::to_string(g << lg_group) + ".." +
                                    std::to_string(((g + 1) << lg_group) - 1) + " hold " +
                                    std::to_string(base[g + 1] - base[g]) +
                                    " non-zeros, more than 32-bit row offsets within a group allow");
    group_base = gpu::device_buffer<std::uint64_t>(groups);
    group_base.upload(base.data(), groups, s);
    row_rel = gpu::device_buffer<std::uint32_t>(m.row_ptr.size());
    upload_converted(
        row_rel, m.row_ptr.size(), [&](std::size_t r) { return std::uint32_t(m.row_ptr[r] - base[r >> lg_group]); }, s);
    cols = gpu::device_buffer<std::uint32_t>(m.cols.size());
    cols.upload(m.cols.data(), m.cols.size(), s);
    if (short_ids(dictionary)) {
      ids16 = gpu::device_buffer<std::uint16_t>(m.coeff_ids.size());
      upload_converted(
          ids16, m.coeff_ids.size(), [&](std::size_t e) { return std::uint16_t(m.coeff_ids[e]); }, s);
    } else {
      ids = gpu::device_buffer<std::uint32_t>(m.coeff_ids.size());
      ids.upload(m.coeff_ids.data(), m.coeff_ids.size(), s);
    }
  }
  std::size_t bytes() const {
    return row_rel.bytes() + group_base.bytes() + cols.bytes() + ids.bytes() + ids16.bytes() + tasks.bytes() +
           longs.bytes() + partials.bytes();
  }
};

void check_matrices(const r1cs_shape& shape) {
  for (const csr_matrix* m : {&shape.a, &shape.b, &shape.c})
    if (m->rows() != shape.num_constraints || m->cols.size() != m->coeff_ids.size() ||
        m->row_ptr.back() != m->cols.size())
      throw std::invalid_argument("r1cs::gpu_shape: a matrix does not match num_constraints " +
                                  std::to_string(shape.num_constraints));
  if (shape.num_constraints >= partial_flag) throw std::invalid_argument("r1cs::gpu_shape: more than 2^31 - 1 rows");
  if (shape.coeffs.size() < 2) throw std::invalid_argument("r1cs::gpu_shape: coefficient dictionary lacks 1 and -1");
  if (shape.coeffs.size() >= no_id) throw std::invalid_argument("r1cs::gpu_shape: coefficient dictionary too large");
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0; }

}  // namespace

struct gpu_shape::impl {
  int device = 0;
  bool with_c = true;
  gpu_spmv_config cfg;
  std::size_t rows = 0, vars = 0;
  device_csr m[3];
  gpu::device_buffer<ff::fr> coeffs;
  std::mutex host_call;  // serialises the synchronous host overload
  // streamed: the host shape (held), its matrices' pins, one staging buffer
  std::shared_ptr<const r1cs_shape> held;
  std::vector<std::shared_ptr<const void>> pins;
  bool pinned = false;
  gpu::device_buffer<std::uint64_t> stage_offsets;
  gpu::device_buffer<std::uint32_t> stage_cols, stage_ids;

  bool streamed() const { return held != nullptr; }
  void build(const r1cs_shape& shape, int dev, bool c, gpu_spmv_config config);
};

namespace {
const csr_matrix* matrix_of(const r1cs_shape& shape, unsigned k) {
  const csr_matrix* mats[3] = {&shape.a, &shape.b, &shape.c};
  return mats[k];
}
}  // namespace

std::size_t gpu_shape_bytes(const r1cs_shape& shape, bool with_c, gpu_spmv_config cfg) {
  check_config(cfg);
  std::size_t bytes = shape.coeffs.size() * sizeof(ff::fr);
  staging_size stage;
  for (unsigned k = 0; k < (with_c ? 3u : 2u); ++k) {
    const csr_matrix& m = *matrix_of(shape, k);
    const host_plan p = make_plan(m, cfg);
    bytes += p.bytes();
    if (cfg.stream_block_nnz) stage.fit(make_blocks(m, p, cfg.stream_block_nnz));
    else bytes += packed_bytes(m, shape.coeffs.size());
  }
  return bytes + stage.bytes();
}

std::size_t gpu_shape_stream_bytes(const r1cs_shape& shape, bool with_c) {
  std::size_t bytes = 0;
  for (unsigned k = 0; k < (with_c ? 3u : 2u); ++k) bytes += csr_bytes(*matrix_of(shape, k));
  return bytes;
}

void gpu_shape::impl::build(const r1cs_shape& shape, int dev, bool c, gpu_spmv_config config) {
  check_config(config);
  check_matrices(shape);
  gpu::device_guard guard(dev);
  gpu::stream s;
  device = dev;
  cfg = config;
  rows = shape.num_constraints;
  vars = shape.num_variables();
  with_c = c;
  staging_size stage;
  for (unsigned k = 0; k < (with_c ? 3u : 2u); ++k) {
    const csr_matrix& mat = *matrix_of(shape, k);
    const host_plan p = make_plan(mat, cfg);
    std::vector<row_block> blocks;
    if (streamed()) {
      blocks = make_blocks(mat, p, cfg.stream_block_nnz);
      stage.fit(blocks);
    }
    m[k] = device_csr(mat, p, shape.coeffs.size(), streamed(), std::move(blocks), s);
    s.synchronize();  // |p| is freed at the end of this iteration
  }
  coeffs = gpu::device_buffer<ff::fr>(shape.coeffs.size());
  coeffs.upload(shape.coeffs.data(), shape.coeffs.size(), s);
  if (streamed()) {
    stage_offsets = gpu::device_buffer<std::uint64_t>(stage.offsets);
    stage_cols = gpu::device_buffer<std::uint32_t>(stage.nnz);
    stage_ids = gpu::device_buffer<std::uint32_t>(stage.nnz);
    // pinned in place: each call's copies then run at the link's speed
    pinned = true;
    for (unsigned k = 0; k < (with_c ? 3u : 2u); ++k) {
      const csr_matrix& mat = *matrix_of(shape, k);
      auto pin = [&](const auto& v) {
        if (v.empty()) return;
        pins.push_back(gpu::pin_host_range(v.data(), v.size() * sizeof(v[0])));
        pinned = pinned && pins.back() != nullptr;
      };
      pin(mat.row_ptr);
      pin(mat.cols);
      pin(mat.coeff_ids);
    }
  }
  s.synchronize();
}

gpu_shape::gpu_shape(const r1cs_shape& shape, int device, bool with_c, gpu_spmv_config cfg)
    : _impl(std::make_unique<impl>()) {
  if (cfg.stream_block_nnz)
    throw std::invalid_argument("r1cs::gpu_shape: streaming the matrices needs the shape shared (shared_ptr)");
  _impl->build(shape, device, with_c, cfg);
}

gpu_shape::gpu_shape(std::shared_ptr<const r1cs_shape> shape, int device, bool with_c, gpu_spmv_config cfg)
    : _impl(std::make_unique<impl>()) {
  if (!shape) throw std::invalid_argument("r1cs::gpu_shape: null shape");
  if (cfg.stream_block_nnz) _impl->held = shape;
  _impl->build(*shape, device, with_c, cfg);
}

gpu_shape::~gpu_shape() = default;
gpu_shape::gpu_shape(gpu_shape&&) noexcept = default;
gpu_shape& gpu_shape::operator=(gpu_shape&&) noexcept = default;

int gpu_shape::device() const { return _impl->device; }
std::size_t gpu_shape::num_constraints() const { return _impl->rows; }
std::size_t gpu_shape::num_variables() const { return _impl->vars; }
std::size_t gpu_shape::device_bytes() const {
  return _impl->m[0].bytes() + _impl->m[1].bytes() + _impl->m[2].bytes() + _impl->coeffs.bytes() +
         _impl->stage_offsets.bytes() + _impl->stage_cols.bytes() + _impl->stage_ids.bytes();
}
bool gpu_shape::streamed() const { return _impl->streamed(); }
bool gpu_shape::streamed_pinned() const { return _impl->streamed() && _impl->pinned; }

bool gpu_shape::has_c() const { return _impl->with_c; }

void gpu_shape::evaluate_ab(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, CUstream_st* stream) const {
  evaluate(d_w, d_a, d_b, nullptr, stream);
}

void gpu_shape::evaluate_abc(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, ff::fr* d_c, CUstream_st* stream) const {
  if (!d_c) throw std::invalid_argument("r1cs::gpu_shape::evaluate_abc: null device pointer");
  if (!_impl->with_c) throw std::logic_error("r1cs::gpu_shape::evaluate_abc: built without the C matrix");
  evaluate(d_w, d_a, d_b, d_c, stream);
}

void gpu_shape::evaluate(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, ff::fr* d_c, CUstream_st* stream) const {
  if (_impl->rows == 0) return;
  if (!d_w || !d_a || !d_b) throw std::invalid_argument("r1cs::gpu_shape::evaluate_abc: null device pointer");
  if (!aligned16(d_w) || !aligned16(d_a) || !aligned16(d_b) || (d_c && !aligned16(d_c)))
    throw std::invalid_argument("r1cs::gpu_shape::evaluate_abc: device vectors must be 16-byte aligned");
  gpu::device_guard guard(_impl->device);
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  ff::fr* outs[3] = {d_a, d_b, d_c};
  const unsigned mats = d_c ? 3 : 2;
  const auto* w = reinterpret_cast<const fr_d*>(d_w);
  const auto* coeffs = reinterpret_cast<const fr_d*>(_impl->coeffs.data());
  const unsigned short_row_max = _impl->cfg.short_row_max;
  // the three kernels over |count| views
  auto launch = [&](const matrix_views& v, unsigned count) {
    constexpr unsigned threads = tune::spmv::threads, warps = threads / 32;
    std::uint64_t max_rows = 0, max_tasks = 0, max_longs = 0;
    for (unsigned k = 0; k < count; ++k) {
      max_rows = std::max(max_rows, v.m[k].rows);
      max_tasks = std::max(max_tasks, v.m[k].n_tasks);
      max_longs = std::max(max_longs, v.m[k].n_longs);
    }
    short_rows_kernel<<<dim3(unsigned((max_rows + threads - 1) / threads), count), threads, 0, s>>>(v, w, coeffs,
                                                                                                    short_row_max);
    CUZK_CUDA_CHECK_LAUNCH();
    if (max_tasks) {
      warp_tasks_kernel<<<dim3(unsigned((max_tasks + warps - 1) / warps), count), threads, 0, s>>>(v, w, coeffs);
      CUZK_CUDA_CHECK_LAUNCH();
    }
    if (max_longs) {
      long_rows_kernel<<<dim3(unsigned((max_longs + warps - 1) / warps), count), threads, 0, s>>>(v);
      CUZK_CUDA_CHECK_LAUNCH();
    }
  };
  if (!_impl->streamed()) {
    matrix_views v{};
    for (unsigned k = 0; k < mats; ++k) {
      const device_csr& d = _impl->m[k];
      v.m[k] = {nullptr,
                d.row_rel.data(),
                d.group_base.data(),
                d.cols.data(),
                d.ids.data(),  // one of the two is empty (null)
                d.ids16.data(),
                reinterpret_cast<fr_d*>(outs[k]),
                d.tasks.data(),
                d.longs.data(),
                reinterpret_cast<fr_d*>(d.partials.data()),
                d.tasks.size(),
                d.longs.size(),
                _impl->rows,
                0,
                0};
    }
    launch(v, mats);
    return;
  }
  // streamed: each block's rows through the staging buffer, then its kernels
  // (the next block's copy is queued behind them on the same stream)
  for (unsigned k = 0; k < mats; ++k) {
    const device_csr& d = _impl->m[k];
    const csr_matrix& h = *matrix_of(*_impl->held, k);
    for (const row_block& b : d.blocks) {
      const std::size_t nnz = b.nz1 - b.nz0, offsets = b.r1 - b.r0 + 1;
      _impl->stage_offsets.upload(h.row_ptr.data() + b.r0, offsets, s);
      if (nnz) {
        _impl->stage_cols.upload(h.cols.data() + b.nz0, nnz, s);
        _impl->stage_ids.upload(h.coeff_ids.data() + b.nz0, nnz, s);
      }
      matrix_views v{};
      v.m[0] = {_impl->stage_offsets.data(),
                nullptr,
                nullptr,
                _impl->stage_cols.data(),
                _impl->stage_ids.data(),
                nullptr,
                reinterpret_cast<fr_d*>(outs[k]),
                d.tasks.data() + b.t0,
                d.longs.data() + b.l0,
                reinterpret_cast<fr_d*>(d.partials.data()),
                b.t1 - b.t0,
                b.l1 - b.l0,
                b.r1 - b.r0,
                b.r0,
                b.nz0};
      launch(v, 1);
    }
  }
}

void gpu_shape::evaluate_abc(std::span<const ff::fr> w, std::span<ff::fr> a, std::span<ff::fr> b,
                             std::span<ff::fr> c) const {
  if (w.size() != _impl->vars)
    throw std::invalid_argument("r1cs::gpu_shape::evaluate_abc: assignment has " + std::to_string(w.size()) +
                                " values, shape has " + std::to_string(_impl->vars) + " variables");
  for (const auto* o : {&a, &b, &c})
    if (o->size() < _impl->rows)
      throw std::invalid_argument("r1cs::gpu_shape::evaluate_abc: output shorter than " + std::to_string(_impl->rows) +
                                  " rows");
  std::lock_guard lock(_impl->host_call);
  gpu::device_guard guard(_impl->device);
  gpu::stream s;
  const std::size_t rows = _impl->rows;
  gpu::device_buffer<ff::fr> d_w(w.size()), d_out(3 * rows);
  d_w.upload(w.data(), w.size(), s);
  evaluate_abc(d_w.data(), d_out.data(), d_out.data() + rows, d_out.data() + 2 * rows, s);
  d_out.download(a.data(), rows, s, 0);
  d_out.download(b.data(), rows, s, rows);
  d_out.download(c.data(), rows, s, 2 * rows);
  s.synchronize();
}

}  // namespace cuzk::r1cs
