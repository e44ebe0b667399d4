// SPDX-License-Identifier: Apache-2.0
// shape_cs recording and finalization, and the A·w, B·w, C·w products.
// See include/cuzk/r1cs/shape_cs.hpp and shape.hpp for the method and rules.

#include <algorithm>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cuzk/r1cs/shape.hpp>
#include <cuzk/r1cs/shape_cs.hpp>

namespace cuzk::r1cs {

namespace {

constexpr std::uint32_t aux_tag = std::uint32_t(1) << 31;  // provisional aux column
constexpr std::size_t max_kind_count = aux_tag;            // per kind, while recording

// Rows per TBB task: large enough to amortize scheduling, small enough to
// balance rows of uneven length.
constexpr std::size_t rows_per_task = 8192;

}  // namespace

// ---- shape_cs ---------------------------------------------------------------

shape_cs::shape_cs() {
  _coeffs.push_back(fr::one());   // r1cs_shape::coeff_one
  _coeffs.push_back(-fr::one());  // r1cs_shape::coeff_minus_one
  _coeff_index.emplace(fr::one().raw(), r1cs_shape::coeff_one);
  _coeff_index.emplace((-fr::one()).raw(), r1cs_shape::coeff_minus_one);
}

void shape_cs::reserve(std::size_t constraints, std::size_t nnz_per_row) {
  for (csr_matrix* m : {&_a, &_b, &_c}) {
    m->row_ptr.reserve(constraints + 1);
    m->cols.reserve(constraints * nnz_per_row);
    m->coeff_ids.reserve(constraints * nnz_per_row);
  }
}

std::uint32_t shape_cs::coeff_id(const fr& v) {
  if (v == fr::one()) return r1cs_shape::coeff_one;
  if (v == -fr::one()) return r1cs_shape::coeff_minus_one;
  auto [it, inserted] = _coeff_index.try_emplace(v.raw(), std::uint32_t(_coeffs.size()));
  if (inserted) {
    if (_coeffs.size() >= 0xffffffffu) throw std::length_error("r1cs: coefficient dictionary full");
    _coeffs.push_back(v);
  }
  return it->second;
}

void shape_cs::append_row(csr_matrix& m, const linear_combination& lc) {
  // Normalize: sort by variable (inputs before aux), merge repeats, drop zeros.
  _scratch.assign(lc.terms().begin(), lc.terms().end());
  std::sort(_scratch.begin(), _scratch.end(), [](const term& x, const term& y) { return x.var.raw() < y.var.raw(); });
  std::size_t i = 0;
  while (i < _scratch.size()) {
    const variable v = _scratch[i].var;
    fr sum = _scratch[i].coeff;
    std::size_t j = i + 1;
    for (; j < _scratch.size() && _scratch[j].var == v; ++j) sum += _scratch[j].coeff;
    i = j;
    if (sum.is_zero()) continue;
    const std::uint64_t idx = v.index();
    if (v.is_input() ? idx >= _num_inputs : idx >= _num_aux)
      throw std::logic_error("r1cs: constraint uses a variable that was never allocated");
    m.cols.push_back(v.is_input() ? std::uint32_t(idx) : (std::uint32_t(idx) | aux_tag));
    m.coeff_ids.push_back(coeff_id(sum));
  }
  m.row_ptr.push_back(m.cols.size());
}

void shape_cs::record_row(const linear_combination& a, const linear_combination& b, const linear_combination& c) {
  if (_num_inputs > max_kind_count || _num_aux > max_kind_count)
    throw std::length_error("r1cs: shape_cs supports fewer than 2^31 inputs and aux variables");
  append_row(_a, a);
  append_row(_b, b);
  append_row(_c, c);
}

void shape_cs::extend(const shape_cs& child) {
  if (child._num_inputs == 0) throw std::logic_error("r1cs: extend needs a child whose input 0 is its temporary ONE");
  // child input 0 -> our ONE; child input i >= 1 -> our input in_off + i; aux j -> aux aux_off + j
  const std::uint32_t in_off = std::uint32_t(_num_inputs - 1);
  const std::uint32_t aux_off = std::uint32_t(_num_aux);
  std::vector<std::uint32_t> id_map(child._coeffs.size());
  for (std::size_t k = 0; k < child._coeffs.size(); ++k) id_map[k] = coeff_id(child._coeffs[k]);

  const csr_matrix* src[3] = {&child._a, &child._b, &child._c};
  csr_matrix* dst[3] = {&_a, &_b, &_c};
  for (int m = 0; m < 3; ++m) {
    const csr_matrix& s = *src[m];
    csr_matrix& d = *dst[m];
    const std::uint64_t base = d.cols.size();
    d.cols.reserve(d.cols.size() + s.cols.size());
    d.coeff_ids.reserve(d.coeff_ids.size() + s.coeff_ids.size());
    for (std::size_t k = 0; k < s.cols.size(); ++k) {
      const std::uint32_t col = s.cols[k];
      if (col & aux_tag) {
        d.cols.push_back(((col & ~aux_tag) + aux_off) | aux_tag);
      } else {
        d.cols.push_back(col == 0 ? 0 : col + in_off);
      }
      d.coeff_ids.push_back(id_map[s.coeff_ids[k]]);
    }
    for (std::size_t r = 1; r < s.row_ptr.size(); ++r) d.row_ptr.push_back(base + s.row_ptr[r]);
  }
  _num_inputs += child._num_inputs - 1;
  _num_aux += child._num_aux;
  if (_num_inputs > max_kind_count || _num_aux > max_kind_count)
    throw std::length_error("r1cs: shape_cs supports fewer than 2^31 inputs and aux variables");
}

r1cs_shape shape_cs::finish() && {
  if (_num_inputs + _num_aux > 0xffffffffULL) throw std::length_error("r1cs: more than 2^32 - 1 variables");
  r1cs_shape s;
  s.num_inputs = _num_inputs;
  s.num_aux = _num_aux;
  s.num_constraints = _a.rows();
  s.coeffs = std::move(_coeffs);
  s.a = std::move(_a);
  s.b = std::move(_b);
  s.c = std::move(_c);

  // Final columns: aux j -> num_inputs + j.
  const std::uint32_t n_in = std::uint32_t(s.num_inputs);
  for (csr_matrix* m : {&s.a, &s.b, &s.c}) {
    std::uint32_t* cols = m->cols.data();
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m->cols.size(), 1 << 16),
                      [cols, n_in](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t k = r.begin(); k != r.end(); ++k)
                          if (cols[k] & aux_tag) cols[k] = (cols[k] & ~aux_tag) + n_in;
                      });
  }

  // Densities (every stored coefficient is non-zero).
  s.a_aux_density = density_mask(s.num_aux);
  s.b_input_density = density_mask(s.num_inputs);
  s.b_aux_density = density_mask(s.num_aux);
  for (std::uint32_t col : s.a.cols)
    if (col >= n_in) s.a_aux_density.set(col - n_in);
  for (std::uint32_t col : s.b.cols) {
    if (col >= n_in) {
      s.b_aux_density.set(col - n_in);
    } else {
      s.b_input_density.set(col);
    }
  }

  // Leave *this a valid empty recorder.
  *this = shape_cs();
  return s;
}

// ---- r1cs_shape ---------------------------------------------------------------

std::vector<std::pair<std::uint32_t, fr>> r1cs_shape::row(const csr_matrix& m, std::size_t i) const {
  std::vector<std::pair<std::uint32_t, fr>> out;
  const auto cols_i = m.row_cols(i);
  const auto ids_i = m.row_coeff_ids(i);
  for (std::size_t k = 0; k < cols_i.size(); ++k) out.emplace_back(cols_i[k], coeffs[ids_i[k]]);
  return out;
}

std::optional<std::size_t> r1cs_shape::first_unconstrained_aux() const {
  density_mask used(num_aux);
  for (const csr_matrix* m : {&a, &b, &c})
    for (std::uint32_t col : m->cols)
      if (col >= num_inputs) used.set(col - num_inputs);
  for (std::size_t j = 0; j < num_aux; ++j)
    if (!used.test(j)) return j;
  return std::nullopt;
}

void release_matrices(r1cs_shape& shape) {
  for (csr_matrix* m : {&shape.a, &shape.b, &shape.c}) *m = csr_matrix{};
  shape.coeffs = {};
}

// ---- products -------------------------------------------------------------------

namespace {

// Row dot product; |value(col)| returns the assignment of a column. The
// accumulator starts from the first term (saves one addition per non-empty
// row); coefficients 1 and -1 cost an addition or a subtraction, others a
// multiplication as well.
template <class Value>
inline fr row_dot(const csr_matrix& m, const fr* coeffs, std::size_t i, const Value& value) {
  std::uint64_t k = m.row_ptr[i];
  const std::uint64_t end = m.row_ptr[i + 1];
  if (k == end) return fr::zero();
  fr acc;
  {
    const fr& x = value(m.cols[k]);
    const std::uint32_t id = m.coeff_ids[k];
    acc = id == r1cs_shape::coeff_one ? x : id == r1cs_shape::coeff_minus_one ? -x : x * coeffs[id];
  }
  for (++k; k < end; ++k) {
    const fr& x = value(m.cols[k]);
    const std::uint32_t id = m.coeff_ids[k];
    if (id == r1cs_shape::coeff_one) {
      acc += x;
    } else if (id == r1cs_shape::coeff_minus_one) {
      acc -= x;
    } else {
      acc += x * coeffs[id];
    }
  }
  return acc;
}

template <class Value>
void spmv_rows(const r1cs_shape& shape, const csr_matrix* const* ms, fr* const* outs, int n_mats, const Value& value) {
  const std::size_t rows = shape.num_constraints;
  const fr* coeffs = shape.coeffs.data();
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, rows, rows_per_task),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (int m = 0; m < n_mats; ++m) {
                        const csr_matrix& mat = *ms[m];
                        fr* out = outs[m];
                        for (std::size_t i = r.begin(); i != r.end(); ++i) out[i] = row_dot(mat, coeffs, i, value);
                      }
                    });
}

void require_matrices(const r1cs_shape& shape) {
  if (!shape.has_matrices())
    throw std::logic_error(
        "r1cs: the shape's matrices were released (only the device copies remain); this product needs them");
}

void check_out(const r1cs_shape& shape, std::span<fr> out, const char* name) {
  if (out.size() < shape.num_constraints)
    throw std::invalid_argument(std::string("r1cs: output vector ") + name +
                                " is shorter than the number of constraints");
}

}  // namespace

void spmv(const r1cs_shape& shape, const csr_matrix& m, std::span<const fr> w, std::span<fr> out) {
  if (w.size() != shape.num_variables())
    throw std::invalid_argument("r1cs: assignment length differs from num_inputs + num_aux");
  require_matrices(shape);
  check_out(shape, out, "out");
  if (m.rows() != shape.num_constraints) throw std::invalid_argument("r1cs: matrix does not belong to this shape");
  const csr_matrix* ms[1] = {&m};
  fr* outs[1] = {out.data()};
  const fr* wp = w.data();
  spmv_rows(shape, ms, outs, 1, [wp](std::uint32_t col) -> const fr& { return wp[col]; });
}

void evaluate_abc(const r1cs_shape& shape, std::span<const fr> w, std::span<fr> a, std::span<fr> b, std::span<fr> c) {
  if (w.size() != shape.num_variables())
    throw std::invalid_argument("r1cs: assignment length differs from num_inputs + num_aux");
  require_matrices(shape);
  check_out(shape, a, "a");
  check_out(shape, b, "b");
  check_out(shape, c, "c");
  const csr_matrix* ms[3] = {&shape.a, &shape.b, &shape.c};
  fr* outs[3] = {a.data(), b.data(), c.data()};
  const fr* wp = w.data();
  spmv_rows(shape, ms, outs, 3, [wp](std::uint32_t col) -> const fr& { return wp[col]; });
}

void evaluate_abc(const r1cs_shape& shape, std::span<const fr> inputs, std::span<const fr> aux, std::span<fr> a,
                  std::span<fr> b, std::span<fr> c) {
  if (inputs.size() != shape.num_inputs || aux.size() != shape.num_aux)
    throw std::invalid_argument("r1cs: input/aux assignment lengths differ from the shape");
  require_matrices(shape);
  check_out(shape, a, "a");
  check_out(shape, b, "b");
  check_out(shape, c, "c");
  const csr_matrix* ms[3] = {&shape.a, &shape.b, &shape.c};
  fr* outs[3] = {a.data(), b.data(), c.data()};
  const fr* in = inputs.data();
  const fr* ax = aux.data();
  const std::uint32_t n_in = std::uint32_t(shape.num_inputs);
  spmv_rows(shape, ms, outs, 3,
            [in, ax, n_in](std::uint32_t col) -> const fr& { return col < n_in ? in[col] : ax[col - n_in]; });
}

abc_vectors evaluate_abc(const r1cs_shape& shape, std::span<const fr> w) {
  abc_vectors v;
  v.a.resize(shape.num_constraints);
  v.b.resize(shape.num_constraints);
  v.c.resize(shape.num_constraints);
  evaluate_abc(shape, w, v.a, v.b, v.c);
  return v;
}

}  // namespace cuzk::r1cs
