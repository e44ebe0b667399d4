// SPDX-License-Identifier: Apache-2.0
#pragma once
// SnapDeals (EmptySectorUpdate) vanilla partition proofs in bincode, as
// Curio sends them to a proving engine (SubmitProofRequest.vanilla_proofs:
// one PartitionProof per partition, in partition order) and as
// rust-filecoin-proofs-api deserializes them (bincode 1 defaults, serde derive):
//
//   PartitionProof (storage-proofs-update vanilla.rs)
//     comm_c            32 raw bytes (PoseidonDomain)
//     apex_leafs        Vec<Sha256Domain>: u64 LE length, 32 raw bytes each
//     challenge_proofs  Vec<ChallengeProof>
//   ChallengeProof
//     proof_r_old       MerkleProof of tree R old (Poseidon; tree R's shape:
//                       Single 8-0-0, Sub 8-8-0, Top 8-8-2)
//     proof_d_new       MerkleProof of tree D new (binary SHA-256: Single;
//                       the Poseidon variant: tree R's shape)
//     proof_r_new       MerkleProof of tree R new
//   MerkleProof         as in the PoSt vanilla proofs (post_vanilla.hpp):
//                       u32 LE ProofData tag 0 Single / 1 Sub / 2 Top, paths
//                       of PathElement { hashes Vec<domain>, index u64 }
//
// Decoding checks every length against the bytes left before allocating,
// requires canonical field elements (bellperson would panic), refuses
// trailing bytes, and reports every problem as an io::format_error (kind
// "snap partition proof") naming the field path and byte offset, e.g.
//   snap partition proof file 'vanilla_proofs[3]': challenge_proofs[7].proof_d_new.data
//   at byte offset 9312: unknown ProofData variant tag 9 (0 Single, 1 Sub, 2 Top)
// Shapes (counts, arities, leaf indices) are the circuit's business
// (circuits/empty_sector_update_compound.hpp checks them against the sector size).
//
// Sizes: 2 KiB ~ 10 x 1.3 KB; 32 GiB ~ 86 x 2.7 KB = 230 KB per partition.
// Cost: one pass over the bytes plus a canonical check per domain.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/merkle_proof.hpp>

namespace cuzk::io {

/// vanilla.rs ChallengeProof: one challenge's three openings.
struct snap_challenge_proof {
  merkle_proof proof_r_old, proof_d_new, proof_r_new;
  friend bool operator==(const snap_challenge_proof&, const snap_challenge_proof&) = default;
};

/// vanilla.rs PartitionProof.
struct snap_partition_proof {
  ff::fr comm_c;
  std::vector<ff::fr> apex_leafs;  ///< this partition's row of tree D (sha256 variant)
  std::vector<snap_challenge_proof> challenge_proofs;
  friend bool operator==(const snap_partition_proof&, const snap_partition_proof&) = default;
};

/// Decodes one bincode PartitionProof occupying all of |bytes|; |label|
/// names the source in error messages.
snap_partition_proof read_snap_partition_proof(std::span<const std::uint8_t> bytes,
                                               std::string_view label = "<memory>");

/// Bincode encoding (the exact inverse of the reader).
std::vector<std::uint8_t> write_snap_partition_proof(const snap_partition_proof& p);

/// The vanilla file of the reference cuzk-bench (gen-vanilla snap-prove,
/// single --vanilla): a JSON array of standard base64 strings, one bincode
/// PartitionProof each (Go's json.Marshal of [][]byte). Errors are
/// io::format_error (kind "snap vanilla json") naming the array element.
std::vector<std::vector<std::uint8_t>> parse_snap_vanilla_json(std::string_view text,
                                                               std::string_view label = "<memory>");
/// The inverse of parse_snap_vanilla_json.
std::string write_snap_vanilla_json(std::span<const std::vector<std::uint8_t>> partitions);

}  // namespace cuzk::io
