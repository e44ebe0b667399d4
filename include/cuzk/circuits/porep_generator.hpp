// SPDX-License-Identifier: Apache-2.0
#pragma once
// Synthetic PoRep C1 outputs (vanilla proofs) for any sector size, in
// seconds, and a native checker that re-verifies a C1 the way the
// StackedDRG circuit will (the vanilla verifier's checks).
//
// Generator (interactive PoRep; seal proofs whose feature is none):
//   * everything random comes from a ChaCha20 stream keyed by
//     SHA256("cuzk synthetic porep" || u64le(seed)): prover_id (an actor id,
//     LEB128 like a real miner address payload), sector_id, ticket, seed;
//   * tree D (binary SHA-256) is a real tree over PERIODIC data: one block
//     of min(nodes, 1024) random Fr32 leaves repeated over the sector, so
//     comm_d exists before the challenges (which depend on it through
//     replica_id) and any leaf's path costs ~log2(nodes) lookups;
//   * replica_id and the challenges are derived properly (porep_challenges);
//   * columns: every challenged node and each of its 14 parents has one
//     column (the same wherever it is used). Challenged nodes carry their
//     real labels, computed layer by layer in increasing node order from the
//     parent columns (label_l(c) = SHA256(replica_id || u32be(l) || u64be(c)
//     || 20 zero bytes || 37 parent labels), top two bits cleared; parents:
//     layer 1 the 6 DRG parents at layer 1 repeated to 37, layer l > 1 the 6
//     DRG parents at l and the 8 expander parents at l - 1, as 14 + 14 + 9);
//     every other column is random;
//   * trees C (leaf = Poseidon(column), arity = layers) and R_last (leaf =
//     last label + data leaf) are sparse: only the opened leaves are real and
//     every other subtree is a random node, so all paths meet at one root;
//     comm_r = Poseidon2(comm_c, comm_r_last);
//   * labeling_proofs / encoding_proof hold what the Rust prover puts there
//     (stacked/vanilla/proof.rs prove_layers_generate).
// SyntheticPoRep and NI-PoRep challenges depend on comm_r, which depends on
// the opened columns: a consistent C1 for them needs a real seal, so the
// generator rejects those proofs (std::invalid_argument).
//
// Checker: challenges re-derived (by feature), every Merkle path recomputed
// (shape, leaf index = node, root = commitment), column hashes, every
// label, labeling/encoding proofs, the R_last leaf, comm_r; it returns the
// problems found, each naming its place ("partition 0 challenge 1 (node 17):
// drg_parents[2]: ...").
//
// Costs: the generator does ~15 column hashes and (layers x 20) SHA-256
// blocks per challenge plus the parents (~10 us each); 32 GiB (180
// challenges) takes well under a second of hashing. The checker hashes
// every label again (layers x 20 SHA-256 blocks per challenge), so it checks
// partitions in parallel: measured (vanilla-check-bench) 1.2 s on 2 cores at
// 32 GiB (4 s on one loaded core), 12 ms at 512 MiB, 3 ms at 2 KiB.

#include <cstdint>
#include <string>
#include <vector>

#include <cuzk/io/porep_c1.hpp>

namespace cuzk::circuits {

/// A generated C1 and the sector identity its replica_id commits to.
struct synthetic_porep {
  io::c1_output c1;
  /// The miner (actor id) behind prover_id: a client proving this C1 through
  /// the daemon names it and sector_id (the replica_id check at submit).
  std::uint64_t miner_id = 0;
  io::bytes32 prover_id{};
  std::uint64_t sector_id = 0;
};

/// Generates an internally consistent C1 for |info| (interactive PoRep only).
synthetic_porep generate_synthetic_porep(const io::seal_proof_info& info, std::uint64_t seed);

/// Re-verifies |c1| natively; an empty result means consistent. The caller
/// vouches for c1.replica_id (the C1 holds no prover/sector id).
std::vector<std::string> check_porep_c1(const io::c1_output& c1);

}  // namespace cuzk::circuits
