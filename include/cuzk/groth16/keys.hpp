// SPDX-License-Identifier: Apache-2.0
#pragma once
// Groth16 keys in bellperson's layout (see docs and the .params/.vk readers
// in include/cuzk/io/).
//
// verifying_key: alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 and
// ic (one G1 point per input, ic[0] for ONE).
// parameters (the proving key): the verifying key plus the queries
//   h     m - 1 points  tau^i * Z(tau) / delta          (m = domain size)
//   l     one per aux   (beta*u_j + alpha*v_j + w_j) / delta
//   a     every input, then the aux variables present in A (a_aux_density)
//   b_g1  inputs present in B (b_input_density), then aux present in B
//   b_g2  the same points in G2
// All points are affine, Montgomery form, infinity as x = y = 0.

#include <cstddef>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>

namespace cuzk::groth16 {

struct verifying_key {
  ec::g1_affine alpha_g1, beta_g1;
  ec::g2_affine beta_g2, gamma_g2;
  ec::g1_affine delta_g1;
  ec::g2_affine delta_g2;
  std::vector<ec::g1_affine> ic;

  std::size_t num_inputs() const { return ic.size(); }
  friend bool operator==(const verifying_key&, const verifying_key&) = default;
};

struct parameters {
  verifying_key vk;
  std::vector<ec::g1_affine> h, l, a, b_g1;
  std::vector<ec::g2_affine> b_g2;

  friend bool operator==(const parameters&, const parameters&) = default;
};

}  // namespace cuzk::groth16
