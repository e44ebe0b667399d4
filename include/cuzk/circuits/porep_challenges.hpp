// SPDX-License-Identifier: Apache-2.0
#pragma once
// PoRep replica_id, challenge derivation and the per-partition public-input
// data of the StackedDRG circuit, after rust-fil-proofs
// storage-proofs-porep stacked/vanilla/params.rs (generate_replica_id),
// stacked/vanilla/challenges.rs (InteractiveChallenges, SynthChallenges /
// SynthChallengeGenerator, NiChallenges) and stacked/circuit/proof.rs
// (generate_public_inputs).
//
//   replica_id = SHA256(prover_id || u64be(sector_id) || ticket || comm_d || porep_id),
//                byte 31 &= 0x3f (bytes_into_fr_repr_safe).
//   to_challenge(h) = (LE-integer(h) mod (nodes - 1)) + 1   (never node 0)
//   interactive: c_i = to_challenge(SHA256(replica_id || seed || u32le(j))),
//                j = challenges_per_partition * k + i.
//   NI-PoRep:    c_i = to_challenge(SHA256("filecoin.io|PoRep|1|NonInteractive|1"
//                || replica_id || comm_r || u32le(j))).
//   SyntheticPoRep: N = min(nodes, 2^18) synthetic challenges, synth_i =
//                to_challenge(ChaCha20 keystream bytes [32 i, 32 i + 32)) with
//                key = BLAKE2b-256 keyed "filecoin.io|PoRep|1|Synthetic|1|Generation"
//                over replica_id || comm_r, nonce "synth-porep\0"; the PoRep
//                challenges of partition k select synth indices u32le(keystream
//                bytes [4 j, 4 j + 4)) mod N, j = cpp * k + i, of a second
//                ChaCha20 keyed with "...|Selection" over replica_id || seed.
// Which one a proof uses: porep_feature (none: interactive; synthetic_porep;
// non_interactive_porep). All three are implemented and tested.
//
// Costs: one SHA-256 (interactive, NI) or a 64-byte ChaCha20 block
// (synthetic) per challenge, plus, for derive_porep_partition_inputs, the 14
// parents of each challenge (~10 us each, stacked_graph.hpp).

#include <array>
#include <cstdint>
#include <vector>

#include <cuzk/circuits/stacked_graph.hpp>
#include <cuzk/io/porep_c1.hpp>

namespace cuzk::circuits {

using io::bytes32;

/// The prover_id of miner actor |miner_id| as filecoin-ffi builds it: the
/// ID address payload (unsigned LEB128 of the actor id) zero-padded to 32 bytes.
bytes32 porep_prover_id(std::uint64_t miner_id);

/// generate_replica_id (the porep_id is the record's / registered proof's).
bytes32 porep_replica_id(const bytes32& prover_id, std::uint64_t sector_id, const bytes32& ticket,
                         const bytes32& comm_d, const porep_id_bytes& porep_id);

/// The little-endian 256-bit integer |h| mod (nodes - 1), plus 1 (bigint_to_challenge).
std::uint64_t porep_challenge_from_hash(const std::array<std::uint8_t, 32>& h, std::uint64_t nodes);

/// InteractiveChallenges::derive for partition |k|.
std::vector<std::uint64_t> interactive_porep_challenges(std::uint64_t nodes, const bytes32& replica_id,
                                                        const bytes32& seed, std::uint32_t challenges_per_partition,
                                                        std::uint32_t k);

/// NiChallenges::derive for partition |k|.
std::vector<std::uint64_t> ni_porep_challenges(std::uint64_t nodes, const bytes32& replica_id, const bytes32& comm_r,
                                               std::uint32_t challenges_per_partition, std::uint32_t k);

/// SynthChallengeGenerator::gen_synth_challenge(i) (|num_synth| = 0: the
/// default min(nodes, 2^18); i < num_synth).
std::uint64_t synthetic_challenge(std::uint64_t nodes, const bytes32& replica_id, const bytes32& comm_r,
                                  std::uint64_t i);
/// gen_partition_synth_indexes: the synthetic-challenge indices partition |k| proves.
std::vector<std::uint64_t> synthetic_partition_indexes(std::uint64_t num_synth, const bytes32& replica_id,
                                                       const bytes32& seed, std::uint32_t challenges_per_partition,
                                                       std::uint32_t k);
/// gen_porep_partition_challenges with an explicit synthetic-challenge count
/// (the default is min(nodes, 2^18); the Rust known-answer test uses 21).
std::vector<std::uint64_t> synthetic_porep_challenges(std::uint64_t nodes, const bytes32& replica_id,
                                                      const bytes32& comm_r, const bytes32& seed,
                                                      std::uint32_t challenges_per_partition, std::uint32_t k,
                                                      std::uint64_t num_synth = 0);
/// The default number of synthetic challenges: min(nodes, 2^18).
std::uint64_t default_synthetic_challenge_count(std::uint64_t nodes);

/// The challenges of partition |k| for a registered proof, by its feature.
std::vector<std::uint64_t> porep_partition_challenges(const io::seal_proof_info& info, const bytes32& replica_id,
                                                      const bytes32& comm_r, const bytes32& seed, std::uint32_t k);

/// One challenge and the nodes whose columns the circuit opens for it.
struct porep_challenge_parents {
  std::uint64_t challenge = 0;
  std::array<std::uint32_t, drg_degree> drg{};  ///< DRG parents, labeling order
  std::array<std::uint32_t, exp_degree> exp{};  ///< expander parents, labeling order
  friend bool operator==(const porep_challenge_parents&, const porep_challenge_parents&) = default;
};

/// What the verifier needs to build partition |k|'s public inputs
/// (docs/FORMATS.md §4.4, generate_public_inputs): replica_id, comm_d, comm_r,
/// then per challenge: c, its 6 DRG parents, its 8 expander parents, c, c, c.
struct porep_partition_inputs {
  bytes32 replica_id{}, comm_d{}, comm_r{};
  std::uint32_t k = 0;
  std::vector<porep_challenge_parents> challenges;
};

/// The public-input data of partition |k| of a seal proof (graph from
/// |info|'s porep_id and api version).
porep_partition_inputs derive_porep_partition_inputs(const io::seal_proof_info& info, const bytes32& replica_id,
                                                     const bytes32& comm_d, const bytes32& comm_r, const bytes32& seed,
                                                     std::uint32_t k);
/// The same with a prebuilt graph (which must match |info|).
porep_partition_inputs derive_porep_partition_inputs(const io::seal_proof_info& info, const stacked_graph& graph,
                                                     const bytes32& replica_id, const bytes32& comm_d,
                                                     const bytes32& comm_r, const bytes32& seed, std::uint32_t k);

}  // namespace cuzk::circuits
