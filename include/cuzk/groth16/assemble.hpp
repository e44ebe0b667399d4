// SPDX-License-Identifier: Apache-2.0
#pragma once
// The last step of every Groth16 prover here (CPU: prover.cpp, GPU:
// src/cuda/groth16/prover.cu, circom zkeys: src/circom/prover.cpp), written once:
// the proof from the sums of its queries and the randomizers r, s,
//   A = α + ΣA + rδ,   B = β + ΣB + sδ (in G2; B₁ the same in G1),
//   C = ΣL + ΣH + sA + rB₁ − rsδ
// (ΣL is a circom zkey's C-query sum). The sums are exact group elements,
// so the proof's bytes do not depend on how a prover formed them: GPU and
// CPU proofs are equal for the same r, s.
// Cost: four G1 and one G2 scalar multiplications by 255-bit scalars and
// three conversions to affine (one inversion each): small next to the
// MSMs. The G2 one (sδ) runs on a regular schedule (ec::mul_gls,
// scalar_mul.hpp); the G1 ones use the variable-time wNAF.

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/proof.hpp>

namespace cuzk::groth16 {

/// The key points the proof equations use.
struct proof_points {
  ec::g1_affine alpha_g1, beta_g1, delta_g1;
  ec::g2_affine beta_g2, delta_g2;
  static proof_points of(const verifying_key& vk) {
    return {vk.alpha_g1, vk.beta_g1, vk.delta_g1, vk.beta_g2, vk.delta_g2};
  }
};

/// Σ a_i A_i, Σ b_i B_i (G1 and G2), Σ aux_j L_j, Σ h_k H_k of one proof.
/// |b1| only enters C as r B₁, so a prover with r = 0 may leave it at
/// infinity.
struct query_sums {
  ec::g1_jacobian a, b1, l, h;
  ec::g2_jacobian b2;
};

proof assemble_proof(const proof_points& k, const query_sums& q, const ff::fr& r, const ff::fr& s);

}  // namespace cuzk::groth16
