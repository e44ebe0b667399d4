// SPDX-License-Identifier: Apache-2.0
// GPU sparse matrix-vector products of an R1CS shape: a, b, c = A·w, B·w, C·w.
// API, method and costs: cuzk/r1cs/spmv_gpu.hpp.
//
// Kernel: a 2-D grid, y = the matrix (0, 1, 2), x = rows; one thread per row
// walks row_ptr[i] .. row_ptr[i+1] (64-bit offsets: PoRep matrices exceed
// 2^32 non-zeros in total). Invariants: w and the dictionary fully reduced
// Montgomery Fr; outputs fully reduced.

#include <cuzk/r1cs/spmv_gpu.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>

namespace cuzk::r1cs {
namespace {

using gpu::fr_d;

struct csr_view {
  const std::uint64_t* row_ptr;
  const std::uint32_t* cols;
  const std::uint32_t* ids;
  fr_d* out;
};
struct abc_views {
  csr_view m[3];
};

constexpr unsigned spmv_threads = 128;

__global__ void __launch_bounds__(spmv_threads)
    spmv_kernel(abc_views v, const fr_d* __restrict__ d_w, const fr_d* __restrict__ d_coeffs,
                std::uint64_t rows) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const csr_view& m = v.m[blockIdx.y];
  const std::uint64_t begin = m.row_ptr[i], end = m.row_ptr[i + 1];
  fr_d acc = fr_d::zero();
  for (std::uint64_t k = begin; k < end; ++k) {
    const fr_d x = d_w[m.cols[k]];
    const std::uint32_t id = m.ids[k];
    if (id == r1cs_shape::coeff_one)
      acc += x;
    else if (id == r1cs_shape::coeff_minus_one)
      acc -= x;
    else
      acc += x * d_coeffs[id];
  }
  m.out[i] = acc;
}

struct device_csr {
  gpu::device_buffer<std::uint64_t> row_ptr;
  gpu::device_buffer<std::uint32_t> cols, ids;

  device_csr() = default;
  device_csr(const csr_matrix& m, cudaStream_t s)
      : row_ptr(m.row_ptr.size()), cols(m.cols.size()), ids(m.coeff_ids.size()) {
    row_ptr.upload(m.row_ptr.data(), m.row_ptr.size(), s);
    cols.upload(m.cols.data(), m.cols.size(), s);
    ids.upload(m.coeff_ids.data(), m.coeff_ids.size(), s);
  }
  std::size_t bytes() const { return row_ptr.bytes() + cols.bytes() + ids.bytes(); }
};

std::size_t csr_bytes(const csr_matrix& m) {
  return m.row_ptr.size() * 8 + m.cols.size() * 4 + m.coeff_ids.size() * 4;
}

}  // namespace

struct gpu_shape::impl {
  int device = 0;
  bool with_c = true;
  std::size_t rows = 0, vars = 0;
  device_csr m[3];
  gpu::device_buffer<ff::fr> coeffs;
};

std::size_t gpu_shape_bytes(const r1cs_shape& shape, bool with_c) {
  return csr_bytes(shape.a) + csr_bytes(shape.b) + (with_c ? csr_bytes(shape.c) : 0) +
         shape.coeffs.size() * sizeof(ff::fr);
}

gpu_shape::gpu_shape(const r1cs_shape& shape, int device, bool with_c)
    : _impl(std::make_unique<impl>()) {
  for (const csr_matrix* m : {&shape.a, &shape.b, &shape.c})
    if (m->rows() != shape.num_constraints || m->cols.size() != m->coeff_ids.size() ||
        m->row_ptr.back() != m->cols.size())
      throw std::invalid_argument("r1cs::gpu_shape: a matrix does not match num_constraints " +
                                  std::to_string(shape.num_constraints));
  if (shape.coeffs.size() < 2)
    throw std::invalid_argument("r1cs::gpu_shape: coefficient dictionary lacks 1 and -1");
  gpu::device_guard guard(device);
  gpu::stream s;
  _impl->device = device;
  _impl->rows = shape.num_constraints;
  _impl->vars = shape.num_variables();
  _impl->m[0] = device_csr(shape.a, s);
  _impl->m[1] = device_csr(shape.b, s);
  _impl->with_c = with_c;
  if (with_c) _impl->m[2] = device_csr(shape.c, s);
  _impl->coeffs = gpu::device_buffer<ff::fr>(shape.coeffs.size());
  _impl->coeffs.upload(shape.coeffs.data(), shape.coeffs.size(), s);
  s.synchronize();
}

gpu_shape::~gpu_shape() = default;
gpu_shape::gpu_shape(gpu_shape&&) noexcept = default;
gpu_shape& gpu_shape::operator=(gpu_shape&&) noexcept = default;

int gpu_shape::device() const { return _impl->device; }
std::size_t gpu_shape::num_constraints() const { return _impl->rows; }
std::size_t gpu_shape::num_variables() const { return _impl->vars; }
std::size_t gpu_shape::device_bytes() const {
  return _impl->m[0].bytes() + _impl->m[1].bytes() + _impl->m[2].bytes() + _impl->coeffs.bytes();
}

bool gpu_shape::has_c() const { return _impl->with_c; }

void gpu_shape::evaluate_ab(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b,
                            CUstream_st* stream) const {
  evaluate(d_w, d_a, d_b, nullptr, stream);
}

void gpu_shape::evaluate_abc(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, ff::fr* d_c,
                             CUstream_st* stream) const {
  if (!d_c) throw std::invalid_argument("r1cs::gpu_shape::evaluate_abc: null device pointer");
  if (!_impl->with_c)
    throw std::logic_error("r1cs::gpu_shape::evaluate_abc: built without the C matrix");
  evaluate(d_w, d_a, d_b, d_c, stream);
}

void gpu_shape::evaluate(const ff::fr* d_w, ff::fr* d_a, ff::fr* d_b, ff::fr* d_c,
                         CUstream_st* stream) const {
  if (_impl->rows == 0) return;
  if (!d_w || !d_a || !d_b)
    throw std::invalid_argument("r1cs::gpu_shape::evaluate_abc: null device pointer");
  gpu::device_guard guard(_impl->device);
  abc_views v{};
  ff::fr* outs[3] = {d_a, d_b, d_c};
  const unsigned mats = d_c ? 3 : 2;
  for (unsigned k = 0; k < mats; ++k)
    v.m[k] = {_impl->m[k].row_ptr.data(), _impl->m[k].cols.data(), _impl->m[k].ids.data(),
              reinterpret_cast<fr_d*>(outs[k])};
  const dim3 grid(unsigned((_impl->rows + spmv_threads - 1) / spmv_threads), mats);
  spmv_kernel<<<grid, spmv_threads, 0, reinterpret_cast<cudaStream_t>(stream)>>>(
      v, reinterpret_cast<const fr_d*>(d_w), reinterpret_cast<const fr_d*>(_impl->coeffs.data()),
      _impl->rows);
  CUZK_CUDA_CHECK_LAUNCH();
}

void gpu_shape::evaluate_abc(std::span<const ff::fr> w, std::span<ff::fr> a, std::span<ff::fr> b,
                             std::span<ff::fr> c) const {
  if (w.size() != _impl->vars)
    throw std::invalid_argument("r1cs::gpu_shape::evaluate_abc: assignment has " +
                                std::to_string(w.size()) + " values, shape has " +
                                std::to_string(_impl->vars) + " variables");
  for (const auto* o : {&a, &b, &c})
    if (o->size() < _impl->rows)
      throw std::invalid_argument("r1cs::gpu_shape::evaluate_abc: output shorter than " +
                                  std::to_string(_impl->rows) + " rows");
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
