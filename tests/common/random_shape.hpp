// SPDX-License-Identifier: Apache-2.0
#pragma once
// A random R1CS shape for setup tests (no witness: the parameters of a shape
// do not need one), built directly in CSR form with the cases the GPU setup
// must get right: a column (ONE) with more non-zeros than one thread sums
// (setup_plan_gpu.hpp long_column), inputs absent from B, aux absent from A
// or B (density gaps), coefficients +1, -1, small and random (dictionary
// ids), an input count that is not a multiple of 64 (the unified density
// shifts the aux words). Every aux is constrained (each appears in C of
// some row), as generate_parameters requires.

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include <cuzk/r1cs/shape.hpp>

namespace cuzk::test {

inline r1cs::r1cs_shape random_shape(std::uint64_t seed, std::size_t num_inputs, std::size_t num_aux,
                                     std::size_t rows) {
  using ff::fr;
  std::mt19937_64 rng(seed);
  r1cs::r1cs_shape s;
  s.num_inputs = num_inputs;
  s.num_aux = num_aux;
  s.num_constraints = rows;
  s.coeffs = {fr::one(), -fr::one()};
  for (int k = 0; k < 6; ++k) s.coeffs.push_back(fr::random(rng));
  const std::size_t nv = num_inputs + num_aux;
  auto coeff_id = [&] {
    const auto r = rng() % 8;
    if (r < 4) return std::uint32_t(0);
    if (r < 6) return std::uint32_t(1);
    return std::uint32_t(2 + rng() % (s.coeffs.size() - 2));
  };
  // inputs with an odd index never appear in B; aux j % 5 == 1 never in A,
  // j % 7 == 2 never in B
  auto allowed = [&](int matrix, std::size_t col) {
    if (col < num_inputs) return !(matrix == 1 && col % 2 == 1);
    const std::size_t j = col - num_inputs;
    if (matrix == 0) return j % 5 != 1;
    if (matrix == 1) return j % 7 != 2;
    return true;
  };
  r1cs::csr_matrix* mats[3] = {&s.a, &s.b, &s.c};
  for (std::size_t row = 0; row < rows; ++row) {
    for (int mi = 0; mi < 3; ++mi) {
      std::map<std::uint32_t, std::uint32_t> terms;  // column -> id, sorted, unique
      const std::size_t n_terms = rng() % 4;
      for (std::size_t k = 0; k < n_terms; ++k) {
        const std::size_t col = rng() % nv;
        if (allowed(mi, col)) terms[std::uint32_t(col)] = coeff_id();
      }
      if (mi == 0) terms[0] = coeff_id();  // ONE in every row of A: a long column
      if (mi == 2 && num_aux) terms[std::uint32_t(num_inputs + row % num_aux)] = coeff_id();
      for (const auto& [col, id] : terms) {
        mats[mi]->cols.push_back(col);
        mats[mi]->coeff_ids.push_back(id);
      }
      mats[mi]->row_ptr.push_back(mats[mi]->cols.size());
    }
  }
  s.a_aux_density = r1cs::density_mask(num_aux);
  s.b_aux_density = r1cs::density_mask(num_aux);
  s.b_input_density = r1cs::density_mask(num_inputs);
  for (std::uint32_t col : s.a.cols)
    if (col >= num_inputs) s.a_aux_density.set(col - num_inputs);
  for (std::uint32_t col : s.b.cols) {
    if (col >= num_inputs) s.b_aux_density.set(col - num_inputs);
    else s.b_input_density.set(col);
  }
  return s;
}

}  // namespace cuzk::test
