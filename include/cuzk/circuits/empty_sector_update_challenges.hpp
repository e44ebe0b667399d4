// SPDX-License-Identifier: Apache-2.0
#pragma once
// SnapDeals randomness and challenges, natively (what the vanilla prover
// and verifier compute), after rust-fil-proofs storage-proofs-update
// `src/challenges.rs` (Challenges::new / new_poseidon) and `src/vanilla.rs`
// (phi, rho, Rhos):
//   phi       = Poseidon_custom(comm_d_new, comm_r_old)
//   rho(high) = Poseidon_custom(phi, high), high = the h high bits of a node index
//   digest_j  = Poseidon_custom(comm_r_new, j), j counted across partitions
//               (partition k starts at k * digests_per_partition)
//   challenge = the next |random bits| bits of the digest's 255 LE bits,
//               with k appended as the most significant bits
// where Poseidon_custom is arity 2 with the Custom(Arbitrary(1)) domain tag
// (2^40). The circuit derives the same values (empty_sector_update.hpp);
// tests/unit/snap_challenges_test.cpp checks challenges.rs' hard-coded
// vectors.
//
// Costs: one arity-2 Poseidon (~14 us) per digest (9 to 15 challenges) and
// per rho.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuzk/circuits/empty_sector_update_params.hpp>
#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::circuits {

/// vanilla.rs phi(comm_d_new, comm_r_old).
ff::fr snap_phi(const ff::fr& comm_d_new, const ff::fr& comm_r_old);
/// vanilla.rs rho(phi, high).
ff::fr snap_rho(const ff::fr& phi, std::uint64_t high);
/// The h high bits of |node| in a sector of |p.sector_nodes| nodes.
inline std::uint64_t snap_high_bits(const snap_params& p, std::uint64_t node, std::size_t h) {
  return node >> (p.challenge_bit_len - h);
}

/// challenges.rs Challenges::new(sector_nodes, comm_r_new, k) (sha256 variant)
/// or Challenges::new_poseidon (poseidon variant, k must be 0): the
/// challenge_count challenges of partition |k|, in order.
std::vector<std::uint64_t> snap_challenges(const snap_params& p, const ff::fr& comm_r_new, std::size_t k);

}  // namespace cuzk::circuits
