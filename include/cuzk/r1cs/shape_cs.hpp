// SPDX-License-Identifier: Apache-2.0
#pragma once
// shape_cs: records the A, B, C matrices of a circuit (no values), the
// counterpart of bellperson's KeypairAssembly (groth16/generator.rs) and of
// the density trackers of its ProvingAssignment (groth16/prover/mod.rs).
//
// Method: each enforce() builds the three LCs, normalizes each (sort by
// variable, add up repeated variables, drop zero coefficients; scratch
// buffer reused, no allocation per row once warm) and appends one CSR row
// per matrix. Columns are provisional while recording: an aux variable is
// stored as its index with bit 31 set, because inputs may still be allocated
// after aux variables have been used (PoRep does this), so the final column
// num_inputs + j is not known yet. finish() rewrites them once the counts
// are final and computes the density masks.
//
// Density rules (bellperson, verified against its source):
//  - prover/mod.rs ProvingAssignment::enforce evaluates A with
//    eval_with_trackers(a, None, Some(a_aux_density)) and B with
//    (Some(b_input_density), Some(b_aux_density)); C has no tracker.
//  - lc.rs eval_with_trackers marks a variable only when its coefficient is
//    non-zero; bellpepper-core's LC has already merged repeated variables, so
//    "present" means "non-zero merged coefficient in at least one row".
//  - Inputs get no A tracker ("full density") because the
//    `input_i * 0 = 0` rows appended after the circuit put every input in A.
//  - generator.rs evaluates each variable's A and B polynomials at tau and
//    drops the points at infinity from the a/b_g1/b_g2 vectors; for a random
//    tau a polynomial is zero exactly when every merged coefficient is zero,
//    so the same masks describe the parameter file.
// Here every stored coefficient is non-zero, so a mask bit is set exactly
// when the variable has an entry in that matrix.
//
// Limits: fewer than 2^31 inputs and 2^31 aux variables, and
// num_inputs + num_aux < 2^32 (PoRep 32 GiB: 328 and 1.3e8).
//
// Costs: per non-zero 8 bytes; per enforce a sort of the (tiny) LCs and a
// dictionary lookup per term other than ±1.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <cuzk/r1cs/constraint_system.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::r1cs {

class shape_cs {
 public:
  static constexpr bool has_values = false;
  static constexpr bool needs_lcs = true;
  static constexpr bool is_witness_generator = false;
  static constexpr bool is_extensible = true;

  shape_cs();

  static constexpr variable one() noexcept { return one_variable; }

  /// New aux variable; |value| is never called.
  template <annotation A, value_function F>
  variable alloc(A&&, F&&) {
    return variable::aux(_num_aux++);
  }
  /// New input variable; |value| is never called.
  template <annotation A, value_function F>
  variable alloc_input(A&&, F&&) {
    return variable::input(_num_inputs++);
  }
  /// Records <a>*<b> = <c> as one row of A, B and C.
  template <annotation A, lc_function LA, lc_function LB, lc_function LC>
  void enforce(A&&, LA&& a, LB&& b, LC&& c) {
    const linear_combination la = std::invoke(a, linear_combination{});
    const linear_combination lb = std::invoke(b, linear_combination{});
    const linear_combination lc = std::invoke(c, linear_combination{});
    record_row(la, lb, lc);
  }
  template <annotation A>
  void push_namespace(A&&) noexcept {}
  void pop_namespace() noexcept {}

  std::size_t num_inputs() const noexcept { return _num_inputs; }
  std::size_t num_aux() const noexcept { return _num_aux; }
  std::size_t num_constraints() const noexcept { return _a.rows(); }

  /// Capacity hints: |constraints| rows and about |nnz_per_row| entries per row.
  void reserve(std::size_t constraints, std::size_t nnz_per_row = 3);

  /// Appends a child synthesized separately (its input 0 is its temporary ONE
  /// and maps onto ours); child.num_inputs() must be at least 1.
  void extend(const shape_cs& child);

  /// Final columns, counts and density masks. Leaves *this empty.
  r1cs_shape finish() &&;

 private:
  void record_row(const linear_combination& a, const linear_combination& b, const linear_combination& c);
  void append_row(csr_matrix& m, const linear_combination& lc);
  std::uint32_t coeff_id(const fr& v);

  struct coeff_hash {
    std::size_t operator()(const std::array<std::uint64_t, 4>& k) const noexcept {
      return std::size_t((k[0] ^ (k[1] * 0x9e3779b97f4a7c15ULL) ^ (k[2] >> 7) ^ (k[3] << 11)) * 0xff51afd7ed558ccdULL);
    }
  };

  std::size_t _num_inputs = 0;
  std::size_t _num_aux = 0;
  csr_matrix _a, _b, _c;
  std::vector<fr> _coeffs;
  std::unordered_map<std::array<std::uint64_t, 4>, std::uint32_t, coeff_hash> _coeff_index;
  std::vector<term> _scratch;
};

static_assert(constraint_system<shape_cs>);
static_assert(extensible_constraint_system<shape_cs>);

}  // namespace cuzk::r1cs
