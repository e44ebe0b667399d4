// SPDX-License-Identifier: Apache-2.0
#pragma once
// Groth16 verification (bellperson verifier.rs semantics).
//
// A proof (A, B, C) for public inputs x_1..x_k (ONE excluded) is valid iff
//   e(A, B) = e(alpha, beta) · e(acc, gamma) · e(C, delta),
//   acc = ic[0] + sum_i x_i ic[i].
// The prepared key stores e(alpha, beta) and the Miller-loop lines of -gamma
// and -delta, so one check is a 3-term multi-Miller loop, one final
// exponentiation and a small MSM over the inputs.
//
// Batch verification of n proofs draws random z_i and checks
//   prod e(z_i A_i, B_i) · e(-sum z_i alpha, beta) · e(sum z_i acc_i, -gamma)
//     · e(sum z_i C_i, -delta) = 1
// with one (n+3)-term Miller loop and one final exponentiation; a false
// batch passes with probability about 1/r.
// Proof points are assumed decoded with subgroup checks (io/proof_io.hpp).

#include <random>
#include <span>
#include <vector>

#include <cuzk/ec/pairing.hpp>
#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/proof.hpp>

namespace cuzk::groth16 {

struct prepared_verifying_key {
  ec::gt alpha_beta;
  ec::g1_affine alpha_g1;
  ec::g2_prepared beta, neg_gamma, neg_delta;
  std::vector<ec::g1_affine> ic;
};

prepared_verifying_key prepare_verifying_key(const verifying_key& vk);

/// Throws std::invalid_argument when the number of public inputs is not
/// ic.size() - 1.
bool verify(const prepared_verifying_key& pvk, const proof& pi, std::span<const ff::fr> public_inputs);

/// All proofs valid (random linear combination, seeded from |seed|).
bool verify_batch(const prepared_verifying_key& pvk, std::span<const proof> proofs,
                  std::span<const std::vector<ff::fr>> public_inputs, std::uint64_t seed);

}  // namespace cuzk::groth16
