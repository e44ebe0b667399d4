// SPDX-License-Identifier: Apache-2.0
// Proof assembly from the query sums: include/cuzk/groth16/assemble.hpp.
#include <cuzk/groth16/assemble.hpp>

#include <cuzk/ec/scalar_mul.hpp>

namespace cuzk::groth16 {

proof assemble_proof(const proof_points& k, const query_sums& q, const ff::fr& r, const ff::fr& s) {
  using ec::g1_jacobian;
  using ec::g2_jacobian;
  g1_jacobian a = g1_jacobian::from_affine(k.alpha_g1);
  a += q.a;
  a += ec::mul(k.delta_g1, r);
  g1_jacobian b1 = g1_jacobian::from_affine(k.beta_g1);
  b1 += q.b1;
  b1 += ec::mul(k.delta_g1, s);
  g2_jacobian b2 = g2_jacobian::from_affine(k.beta_g2);
  b2 += q.b2;
  b2 += ec::mul(k.delta_g2, s);
  g1_jacobian c = q.l;
  c += q.h;
  c += ec::mul(a, s);
  c += ec::mul(b1, r);
  c += -ec::mul(k.delta_g1, r * s);
  return {a.to_affine(), b2.to_affine(), c.to_affine()};
}

}  // namespace cuzk::groth16
