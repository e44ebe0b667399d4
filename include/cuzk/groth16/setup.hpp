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
// (13-bit window tables of the G1 and G2 generators, batches of points in
// parallel, summed in affine coordinates, so no normalization pass).
// Points whose variable is absent from A (or B), per the shape's density
// masks, are left out of a, b_g1, b_g2 exactly as the prover expects.
// Cost: 19 affine additions per G1 point (~6 M each: batches share one
// inversion per window, ec/fixed_base.hpp; G2: the same in Fp2), for
// |a| + |b_g1| + |ic| + |l| + (m - 1) G1 points and |b_g2| G2 points; the
// 2 KiB PoRep (10.2 M G1 + 0.7 M G2 points) takes ~85 core-s on a Zen 5 VM.

#include <cstdint>

#include <cuzk/groth16/keys.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::groth16 {

/// The toxic waste, exposed for tests that check the keys algebraically.
struct toxic_waste {
  ff::fr tau, alpha, beta, gamma, delta;
};

toxic_waste toxic_waste_from_seed(std::uint64_t seed);

/// Wall-clock milliseconds of each step, for benchmark reports.
struct setup_timings {
  double lagrange_ms = 0;                                         ///< tau powers and the inverse NTT
  double uvw_ms = 0;                                              ///< u, v, w(tau) from the A, B, C matrices
  double scalars_ms = 0;                                          ///< A, B, IC, L, H scalars
  double tables_ms = 0;                                           ///< the G1 and G2 fixed-base tables
  double vk_ms = 0;                                               ///< alpha..delta, IC points
  double h_ms = 0, l_ms = 0, a_ms = 0, b_g1_ms = 0, b_g2_ms = 0;  ///< each query's points
  double total_ms = 0;
};

/// Parameters for |shape| (which must already include the input constraints,
/// as r1cs::synthesize_groth16 produces). Throws std::invalid_argument when
/// an aux variable is unconstrained (its L point would be infinity).
/// |timings|, when given, receives the time of each step.
parameters generate_parameters(const r1cs::r1cs_shape& shape, std::uint64_t seed, setup_timings* timings = nullptr);
parameters generate_parameters(const r1cs::r1cs_shape& shape, const toxic_waste& t, setup_timings* timings = nullptr);

}  // namespace cuzk::groth16
