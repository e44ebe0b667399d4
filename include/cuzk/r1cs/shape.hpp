// SPDX-License-Identifier: Apache-2.0
#pragma once
// r1cs_shape: the A, B, C matrices of one circuit shape, its counts and the
// bellperson density masks; and a = A·w, b = B·w, c = C·w (sparse
// matrix-vector products) over a full assignment.
//
// Column space: one index space, inputs first then aux, column(input i) = i,
// column(aux j) = num_inputs + j. The full assignment w is laid out the same
// way (w[0] = 1), as are the A/B_G1/B_G2/IC+L query vectors of a .params
// file before density compression.
//
// Storage (CSR, per matrix): row_ptr[rows + 1] (u64), then per non-zero a
// column (u32) and a coefficient id (u32) into the shared dictionary
// `coeffs`. Filecoin circuits use few distinct coefficients (±1, powers of
// two, Poseidon constants), so 8 bytes per non-zero instead of 36; ids 0 and 1
// are always 1 and -1 and the product skips the multiplication for them.
// Rows are normalized: columns strictly increasing, no zero coefficients
// (repeated variables of one LC are added up, as bellpepper's LC merges them).
//
// Costs of evaluate_abc: one pass over the three matrices, reading
// 8 bytes per non-zero plus one random 32-byte load of w; a multiplication
// only for coefficients other than ±1. Rows are split over oneTBB workers;
// each output element is written exactly once (no atomics). Measured on the
// 16-core H200 host, 2^24-row chain, 4 non-zeros per row, all ±1, output
// buffers already touched: 3.7 ns/row with all cores, 41 ns/row on one core
// (so ~0.5 s for a 1.3e8-row PoRep partition at that density, more at its
// 5.6 non-zeros/row).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <cuzk/r1cs/density.hpp>
#include <cuzk/r1cs/linear_combination.hpp>

namespace cuzk::r1cs {

/// One sparse matrix in compressed-row form.
struct csr_matrix {
  std::vector<std::uint64_t> row_ptr{0};  ///< rows + 1 offsets into cols/coeff_ids
  std::vector<std::uint32_t> cols;        ///< column in the unified space
  std::vector<std::uint32_t> coeff_ids;   ///< index into r1cs_shape::coeffs

  std::size_t rows() const noexcept { return row_ptr.size() - 1; }
  std::size_t nnz() const noexcept { return cols.size(); }
  std::span<const std::uint32_t> row_cols(std::size_t i) const noexcept {
    return {cols.data() + row_ptr[i], cols.data() + row_ptr[i + 1]};
  }
  std::span<const std::uint32_t> row_coeff_ids(std::size_t i) const noexcept {
    return {coeff_ids.data() + row_ptr[i], coeff_ids.data() + row_ptr[i + 1]};
  }
  friend bool operator==(const csr_matrix&, const csr_matrix&) = default;
};

struct r1cs_shape {
  /// Dictionary ids that are always present.
  static constexpr std::uint32_t coeff_one = 0;
  static constexpr std::uint32_t coeff_minus_one = 1;

  std::size_t num_inputs = 0;  ///< including ONE
  std::size_t num_aux = 0;
  std::size_t num_constraints = 0;  ///< rows of a, b and c
  std::vector<fr> coeffs;           ///< coefficient dictionary, [0] = 1, [1] = -1
  csr_matrix a, b, c;

  /// aux j has a non-zero coefficient in some row of A. (Inputs are all
  /// present in the A query; see shape_cs.hpp.)
  density_mask a_aux_density;
  /// input i has a non-zero coefficient in some row of B.
  density_mask b_input_density;
  /// aux j has a non-zero coefficient in some row of B.
  density_mask b_aux_density;

  std::size_t num_variables() const noexcept { return num_inputs + num_aux; }
  /// Whether a, b and c (and the coefficients) are held; release_matrices
  /// drops them once only device copies are used.
  bool has_matrices() const noexcept {
    return a.rows() == num_constraints && b.rows() == num_constraints && c.rows() == num_constraints;
  }
  std::size_t column(variable v) const noexcept { return std::size_t(v.column(num_inputs)); }

  /// Row |i| of |m| as (column, coefficient) pairs (tests, debugging).
  std::vector<std::pair<std::uint32_t, fr>> row(const csr_matrix& m, std::size_t i) const;

  /// First aux variable that appears in no row of A, B or C; bellperson's
  /// generator refuses such a circuit (UnconstrainedVariable) because its L
  /// point would be the identity.
  std::optional<std::size_t> first_unconstrained_aux() const;
};

/// Frees a, b, c and the coefficient dictionary, keeping the counts and the
/// density masks: what a witness-only synthesis and a prover whose matrices
/// live in device memory still read (for a 32 GiB PoRep partition ~8.9 GiB of
/// host memory against ~50 MB of masks). Afterwards has_matrices() is false
/// and every host product (spmv, evaluate_abc) refuses the shape.
void release_matrices(r1cs_shape& shape);

/// out[i] = (m·w)[i] for every row i. |w| is the full assignment (inputs then
/// aux, num_variables() long); |out| must have at least m.rows() elements,
/// the rest is left untouched (so it can be a zero-padded NTT buffer).
void spmv(const r1cs_shape& shape, const csr_matrix& m, std::span<const fr> w, std::span<fr> out);

/// a = A·w, b = B·w, c = C·w over the full assignment |w| (inputs then aux).
void evaluate_abc(const r1cs_shape& shape, std::span<const fr> w, std::span<fr> a, std::span<fr> b, std::span<fr> c);
/// The same with the assignment given as its two parts (no concatenation).
void evaluate_abc(const r1cs_shape& shape, std::span<const fr> inputs, std::span<const fr> aux, std::span<fr> a,
                  std::span<fr> b, std::span<fr> c);

struct abc_vectors {
  std::vector<fr> a, b, c;
};
/// Allocating form: vectors of num_constraints elements.
abc_vectors evaluate_abc(const r1cs_shape& shape, std::span<const fr> w);

}  // namespace cuzk::r1cs
