// SPDX-License-Identifier: Apache-2.0
#pragma once
// PoRep Commit-Phase-1 output ("C1", rust-filecoin-proofs-api
// SealCommitPhase1Output as filecoin-ffi serializes it with serde_json) and
// the registered seal proof it names (io/seal_proof.hpp). This header is the one in-memory form
// that the JSON reader/writer, the synthetic generator, the public-input
// derivation and the StackedDRG circuit share.
//
// JSON (fields in this order; docs/FORMATS.md §4.2):
//   registered_proof  "StackedDrg2KiBV1_1", ... (see seal_proof_info)
//   vanilla_proofs    { "<StackedDrg{size}V1>": [ partition [ challenge proof ... ] ... ] }
//   comm_r, comm_d, replica_id, seed, ticket   [32 numbers 0..255]
// Per challenge proof (storage-proofs-porep stacked/vanilla/params.rs Proof):
//   comm_d_proofs, comm_r_last_proof           MerkleProof (ProofData Single/Sub/Top)
//   replica_column_proofs { c_x, drg_parents[6], exp_parents[8] }  ColumnProof
//   labeling_proofs [ {parents[37], layer_index, node} per layer ], encoding_proof
// Merkle proofs reuse io::merkle_proof (the same ProofData as the PoSt
// vanilla proofs; path elements leaf -> root).
//
// Every domain is kept as an Fr (canonical; a non-canonical value is a format
// error, bellperson would panic on it). Tree D domains are SHA-256 outputs
// truncated to 254 bits, so they are canonical too.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/merkle_proof.hpp>
#include <cuzk/io/seal_proof.hpp>

namespace cuzk::io {

/// storage-proofs-porep stacked/vanilla/column_proof.rs ColumnProof.
struct porep_column_proof {
  std::uint32_t index = 0;       ///< column.index: the node
  std::vector<ff::fr> rows;      ///< column.rows: one label per layer
  merkle_proof inclusion_proof;  ///< in tree C (leaf = column hash)
  friend bool operator==(const porep_column_proof&, const porep_column_proof&) = default;
};

/// stacked/vanilla/labeling_proof.rs / encoding_proof.rs (redundant in the
/// circuit, kept for byte-exact re-encoding and for checks).
struct porep_labeling_proof {
  std::vector<ff::fr> parents;  ///< 37 parent labels
  std::uint32_t layer_index = 0;
  std::uint64_t node = 0;
  friend bool operator==(const porep_labeling_proof&, const porep_labeling_proof&) = default;
};

/// One challenge's vanilla proof (stacked/vanilla/params.rs Proof).
struct porep_challenge_proof {
  merkle_proof comm_d_proof;                          ///< "comm_d_proofs": tree D (binary SHA-256, Single)
  merkle_proof comm_r_last_proof;                     ///< tree R_last (Poseidon, base/sub/top)
  porep_column_proof c_x;                             ///< column of the challenged node
  std::vector<porep_column_proof> drg_parents;        ///< 6
  std::vector<porep_column_proof> exp_parents;        ///< 8
  std::vector<porep_labeling_proof> labeling_proofs;  ///< one per layer
  porep_labeling_proof encoding_proof;

  /// The challenged node (labeling_proofs[0].node).
  std::uint64_t challenge() const { return labeling_proofs.empty() ? 0 : labeling_proofs[0].node; }
  friend bool operator==(const porep_challenge_proof&, const porep_challenge_proof&) = default;
};

using bytes32 = std::array<std::uint8_t, 32>;

/// SealCommitPhase1Output.
struct c1_output {
  const seal_proof_info* proof = nullptr;                      ///< registered_proof
  std::vector<std::vector<porep_challenge_proof>> partitions;  ///< vanilla_proofs[shape]
  bytes32 comm_r{}, comm_d{}, replica_id{}, seed{}, ticket{};
  friend bool operator==(const c1_output& a, const c1_output& b) {
    return a.proof == b.proof && a.partitions == b.partitions && a.comm_r == b.comm_r && a.comm_d == b.comm_d &&
           a.replica_id == b.replica_id && a.seed == b.seed && a.ticket == b.ticket;
  }
};

/// Inputs above this size are refused before parsing. Measured sizes: a
/// 32/64 GiB C1 is ~39 MB (~52 MB as a base64 wrapper); an NI-PoRep one
/// (126 partitions) ~490 MB.
inline constexpr std::uint64_t c1_json_max_bytes = std::uint64_t(1) << 30;

/// Parses the C1 JSON (or the lotus-bench / curio wrapper
/// {"SectorNum", "Phase1Out": base64(C1 JSON), "SectorSize"}). Every problem
/// is an io::format_error (kind "c1 json") naming the JSON path, e.g.
/// "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3].column.rows[1]".
/// Beyond serde's own checks it refuses unknown keys, non-canonical domains
/// (also comm_r, comm_d, replica_id; seed and ticket are plain bytes), counts
/// and Merkle shapes other than the registered proof's, path indices >= the
/// arity, labeling layer_index other than 1..layers (encoding: layers), nodes
/// >= the sector's, and challenge nodes that differ between the labeling /
/// encoding proofs and c_x. Keys may come in any order.
c1_output parse_c1_json(std::string_view text, std::string_view label = "<memory>");
/// Reads and parses a file (same errors; kind "c1 json", path = |path|).
c1_output read_c1_file(const std::string& path);
/// serde_json-compatible encoding (the inverse of parse_c1_json for the bare form).
std::string write_c1_json(const c1_output& c1);

}  // namespace cuzk::io
