// SPDX-License-Identifier: Apache-2.0
#pragma once
// A Groth16 proof (A in G1, B in G2, C in G1). Its wire form is 192 bytes:
// compressed A (48) || compressed B (96) || compressed C (48); proofs of
// several partitions are concatenated in partition order (io/proof_io.hpp).

#include <cuzk/ec/bls12_381.hpp>

namespace cuzk::groth16 {

struct proof {
  ec::g1_affine a;
  ec::g2_affine b;
  ec::g1_affine c;
  friend bool operator==(const proof&, const proof&) = default;
};

}  // namespace cuzk::groth16
