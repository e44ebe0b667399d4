// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test-parameter setup: a Groth16 key pair for any circuit shape from a
// seeded RNG (tau, alpha, beta, gamma, delta drawn in that order), so the
// same seed gives the same parameters byte for byte. NOT a trusted setup:
// whoever knows the seed can forge proofs. Production Filecoin parameters
// come from the published files.
//
// Method (bellperson generator.rs): Lagrange coefficients L_j(tau) by an
// inverse NTT of tau^0..tau^(m-1); u_i, v_i, w_i(tau) by one pass over the
// A, B, C matrices; then every query point by fixed-base multiplication
// (G1 and G2 tables, parallel) and one batch normalization per query.
// Points whose variable is absent from A (or B), per the shape's density
// masks, are left out of a, b_g1, b_g2 exactly as the prover expects.
// Cost: ~32 mixed additions per G1 point (G2: the same in Fp2), for
// |a| + |b_g1| + |ic| + |l| + (m - 1) G1 points and |b_g2| G2 points.

#include <cstdint>

#include <cuzk/groth16/keys.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::groth16 {

/// The toxic waste, exposed for tests that check the keys algebraically.
struct toxic_waste {
  ff::fr tau, alpha, beta, gamma, delta;
};

toxic_waste toxic_waste_from_seed(std::uint64_t seed);

/// Parameters for |shape| (which must already include the input constraints,
/// as r1cs::synthesize_groth16 produces). Throws std::invalid_argument when
/// an aux variable is unconstrained (its L point would be infinity).
parameters generate_parameters(const r1cs::r1cs_shape& shape, std::uint64_t seed);
parameters generate_parameters(const r1cs::r1cs_shape& shape, const toxic_waste& t);

}  // namespace cuzk::groth16
