// SPDX-License-Identifier: Apache-2.0
// Host half of the GPU parameter setup: power tables, transposes, query
// densities, scalar formulas and the device-memory plan. What each piece is
// and costs: include/cuzk/groth16/setup_plan_gpu.hpp.
#include <cuzk/groth16/setup_plan_gpu.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/ntt/ntt.hpp>

namespace cuzk::groth16::gpu_setup_detail {

std::vector<fr> make_power_tables(const fr& base) {
  std::vector<fr> t(3 * power_split_size);
  fr step = base;  // base^(2^(12 k)) for table k
  for (std::size_t k = 0; k < 3; ++k) {
    fr p = fr::one();
    for (std::size_t j = 0; j < power_split_size; ++j) {
      t[k * power_split_size + j] = p;
      p *= step;
    }
    step = p;  // step^4096
  }
  return t;
}

fr power_from_tables(std::span<const fr> tables, std::uint64_t i) {
  if (i >= power_limit) throw std::invalid_argument("gpu setup: power index beyond 2^36");
  const std::size_t mask = power_split_size - 1;
  return tables[i & mask] * tables[power_split_size + ((i >> power_split_bits) & mask)] *
         tables[2 * power_split_size + (i >> (2 * power_split_bits))];
}

void powers_host(std::span<const fr> tables, const fr& scale, std::span<fr> out) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = scale * power_from_tables(tables, i);
}

csc_matrix transpose(const r1cs::csr_matrix& m, std::size_t num_variables) {
  if (m.nnz() >= (std::uint64_t(1) << 32))
    throw std::invalid_argument("gpu setup: a matrix has " + std::to_string(m.nnz()) +
                                " non-zeros, the transpose takes fewer than 2^32");
  if (m.rows() >= (std::uint64_t(1) << 32)) throw std::invalid_argument("gpu setup: more than 2^32 - 1 rows");
  csc_matrix t;
  std::vector<std::uint32_t> cursor(num_variables + 1, 0);
  for (std::uint32_t c : m.cols) {
    if (c >= num_variables)
      throw std::invalid_argument("gpu setup: column " + std::to_string(c) + " beyond " +
                                  std::to_string(num_variables) + " variables");
    ++cursor[c];
  }
  // exclusive scan: col_ptr[c] = non-zeros in columns before c
  t.col_ptr.resize(num_variables + 1);
  std::uint32_t acc = 0;
  for (std::size_t c = 0; c <= num_variables; ++c) {
    t.col_ptr[c] = acc;
    acc += cursor[c];
  }
  std::copy(t.col_ptr.begin(), t.col_ptr.end(), cursor.begin());
  t.rows.resize(m.nnz());
  t.coeff_ids.resize(m.nnz());
  for (std::size_t row = 0; row < m.rows(); ++row)
    for (std::uint64_t k = m.row_ptr[row]; k < m.row_ptr[row + 1]; ++k) {
      const std::uint32_t pos = cursor[m.cols[k]]++;
      t.rows[pos] = std::uint32_t(row);
      t.coeff_ids[pos] = m.coeff_ids[k];
    }
  return t;
}

void column_sums(const csc_matrix& t, std::span<const fr> coeffs, std::span<const fr> lagrange, std::span<fr> out) {
  for (std::size_t c = 0; c + 1 < t.col_ptr.size(); ++c) {
    fr acc = fr::zero();
    for (std::uint32_t p = t.col_ptr[c]; p < t.col_ptr[c + 1]; ++p) {
      const fr& x = lagrange[t.rows[p]];
      const std::uint32_t id = t.coeff_ids[p];
      if (id == r1cs::r1cs_shape::coeff_one) acc += x;
      else if (id == r1cs::r1cs_shape::coeff_minus_one) acc -= x;
      else acc += x * coeffs[id];
    }
    out[c] = acc;
  }
}

namespace {

query_density finish_density(std::vector<std::uint64_t> words, std::size_t n_bits) {
  query_density d;
  d.n_bits = n_bits;
  d.words = std::move(words);
  d.word_off.resize(d.words.size());
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < d.words.size(); ++i) {
    d.word_off[i] = acc;
    acc += std::uint64_t(__builtin_popcountll(d.words[i]));
  }
  d.count = std::size_t(acc);
  return d;
}

/// Bits [0, ni) from |inputs| (or all set when null), then [ni, ni + na) from |aux|.
query_density unified_density(std::size_t ni, const r1cs::density_mask* inputs, const r1cs::density_mask& aux) {
  const std::size_t na = aux.size(), n = ni + na;
  std::vector<std::uint64_t> words((n + 63) / 64, 0);
  for (std::size_t i = 0; i < ni; ++i)
    if (!inputs || inputs->test(i)) words[i >> 6] |= std::uint64_t(1) << (i & 63);
  // aux bit j lands at bit ni + j: shift the mask's words by ni
  const auto aw = aux.words();
  const unsigned sh = unsigned(ni & 63);
  const std::size_t base = ni >> 6;
  for (std::size_t k = 0; k < aw.size(); ++k) {
    words[base + k] |= aw[k] << sh;
    if (sh && base + k + 1 < words.size()) words[base + k + 1] |= aw[k] >> (64 - sh);
  }
  return finish_density(std::move(words), n);
}

void check_density_sizes(const r1cs::r1cs_shape& shape) {
  if (shape.a_aux_density.size() != shape.num_aux || shape.b_aux_density.size() != shape.num_aux ||
      shape.b_input_density.size() != shape.num_inputs)
    throw std::invalid_argument("gpu setup: density masks do not match the variable counts");
}

}  // namespace

query_density a_query_density(const r1cs::r1cs_shape& shape) {
  check_density_sizes(shape);
  return unified_density(shape.num_inputs, nullptr, shape.a_aux_density);
}

query_density b_query_density(const r1cs::r1cs_shape& shape) {
  check_density_sizes(shape);
  return unified_density(shape.num_inputs, &shape.b_input_density, shape.b_aux_density);
}

void compact(const query_density& d, std::span<const fr> src, std::span<fr> dst) {
  for (std::size_t c = 0; c < d.n_bits; ++c)
    if (d.test(c)) dst[d.rank(c)] = src[c];
}

scalar_constants make_scalar_constants(const toxic_waste& t, std::size_t domain_size) {
  const ntt::evaluation_domain domain(domain_size);
  scalar_constants k;
  k.alpha = t.alpha;
  k.beta = t.beta;
  k.gamma_inv = t.gamma.inverse();
  k.delta_inv = t.delta.inverse();
  k.z_over_delta = domain.z(t.tau) * k.delta_inv;
  return k;
}

void combine_ic_l(const scalar_constants& k, std::size_t num_inputs, std::span<const fr> u, std::span<const fr> v,
                  std::span<fr> w) {
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = (k.beta * u[i] + k.alpha * v[i] + w[i]) * (i < num_inputs ? k.gamma_inv : k.delta_inv);
}

query_scalars host_query_scalars(const r1cs::r1cs_shape& shape, const toxic_waste& t) {
  const ntt::evaluation_domain domain(shape.num_constraints);
  const std::size_t m = domain.size(), ni = shape.num_inputs, nv = shape.num_variables();
  const std::vector<fr> tables = make_power_tables(t.tau);
  std::vector<fr> lag(m);
  powers_host(tables, fr::one(), lag);
  ntt::intt(domain, lag);

  std::vector<fr> u(nv), v(nv), w(nv);
  column_sums(transpose(shape.a, nv), shape.coeffs, lag, u);
  column_sums(transpose(shape.b, nv), shape.coeffs, lag, v);
  column_sums(transpose(shape.c, nv), shape.coeffs, lag, w);

  const scalar_constants k = make_scalar_constants(t, m);
  query_scalars q;
  q.h.resize(m - 1);
  powers_host(tables, k.z_over_delta, q.h);
  combine_ic_l(k, ni, u, v, w);
  q.ic.assign(w.begin(), w.begin() + std::ptrdiff_t(ni));
  q.l.assign(w.begin() + std::ptrdiff_t(ni), w.end());
  const query_density da = a_query_density(shape), db = b_query_density(shape);
  q.a.resize(da.count);
  compact(da, u, q.a);
  q.b.resize(db.count);
  compact(db, v, q.b);
  return q;
}

std::size_t transpose_bytes(const r1cs::csr_matrix& m, std::size_t num_variables) {
  const std::size_t nnz = m.nnz();
  return 8 * (m.rows() + 1) + 8 * nnz    // CSR: row_ptr, cols + ids
         + 2 * 4 * (num_variables + 1)   // counts / cursors, column offsets
         + 8 * nnz                       // (row, id) per non-zero
         + 4 * (nnz / long_column + 2);  // long-column list and its length
}

std::size_t memory_plan::peak() const {
  // phases of generate_parameters_gpu (setup_gpu.hpp), live buffers of each
  const std::size_t u = uvw / 3;
  const std::size_t base = ntt_tables + fixed_tables;
  const std::size_t phases[] = {
      base + lagrange + uvw + transpose,  // u, v, w (one matrix at a time)
      base + lagrange + uvw + h,          // H from the scalars in the L buffer
      base + uvw + h + l,                 // L from w (combined in place)
      base + 2 * u + scratch_a + h + l,   // A scalars compacted from u
      base + u + scratch_a + h + l + a,   // A points (u freed)
      base + u + scratch_b + h + l + a,   // B scalars compacted from v
      base + scratch_b + queries(),       // B_G1, B_G2 points (v freed)
  };
  return *std::max_element(std::begin(phases), std::end(phases));
}

memory_plan plan_memory(const r1cs::r1cs_shape& shape, std::size_t ntt_table_bytes) {
  const ntt::evaluation_domain domain(shape.num_constraints);
  const std::size_t m = domain.size(), nv = shape.num_variables();
  const std::size_t a_len = shape.num_inputs + shape.a_aux_density.count();
  const std::size_t b_len = shape.b_input_density.count() + shape.b_aux_density.count();
  const std::size_t g1 = sizeof(ec::g1_affine), g2 = sizeof(ec::g2_affine), s = sizeof(fr);
  memory_plan p;
  p.lagrange = s * m;
  p.uvw = 3 * s * nv;
  p.transpose = std::max({transpose_bytes(shape.a, nv), transpose_bytes(shape.b, nv), transpose_bytes(shape.c, nv)}) +
                s * shape.coeffs.size() + 3 * s * power_split_size;
  p.ntt_tables = ntt_table_bytes;
  p.h = g1 * (m - 1);
  p.l = g1 * shape.num_aux;
  p.a = g1 * a_len;
  p.b_g1 = g1 * b_len;
  p.b_g2 = g2 * b_len;
  p.scratch_a = s * a_len;
  p.scratch_b = s * b_len;
  p.fixed_tables = 32 * 255 * (g1 + g2);
  return p;
}

}  // namespace cuzk::groth16::gpu_setup_detail
