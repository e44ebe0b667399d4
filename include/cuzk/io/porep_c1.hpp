// SPDX-License-Identifier: Apache-2.0
#pragma once
// PoRep Commit-Phase-1 output ("C1", rust-filecoin-proofs-api
// SealCommitPhase1Output as filecoin-ffi serializes it with serde_json) and
// the registered seal proofs it names. This header is the one in-memory form
// that the JSON reader/writer, the synthetic generator, the public-input
// derivation and the StackedDRG circuit share.
//
// JSON (fields in this order; formats notes §4):
//   registered_proof  "StackedDrg2KiBV1_1", ... (see seal_proof_info)
//   vanilla_proofs    { "<StackedDrg{size}V1>": [ partition [ challenge proof ... ] ... ] }
//   comm_r, comm_d, replica_id, seed, ticket   [32 numbers 0..255]
// Per challenge proof (storage-proofs-porep stacked/vanilla/params.rs Proof):
//   comm_d_proofs, comm_r_last_proof           MerkleProof (ProofData Single/Sub/Top)
//   replica_column_proofs { c_x, drg_parents[6], exp_parents[8] }  ColumnProof
//   labeling_proofs [ {parents[37], layer_index, node} per layer ], encoding_proof
// Merkle proofs reuse io::post_merkle_proof (the same ProofData as the PoSt
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
#include <cuzk/io/post_vanilla.hpp>

namespace cuzk::io {

/// storage-proofs-core api_version::ApiVersion.
enum class porep_api_version : std::uint8_t { v1_0_0, v1_1_0, v1_2_0 };

/// What the registered proof enables beyond the api version.
enum class porep_feature : std::uint8_t { none, synthetic_porep, non_interactive_porep };

/// Static facts about one RegisteredSealProof (filecoin-proofs constants.rs,
/// rust-filecoin-proofs-api registry.rs; formats notes §4 and §5.1).
struct seal_proof_info {
  std::string_view name;          ///< "StackedDrg32GiBV1_1"
  std::string_view shape_name;    ///< vanilla_proofs key: "StackedDrg32GiBV1"
  std::uint64_t id = 0;           ///< numeric RegisteredSealProof id (porep_id[0..8] LE)
  std::uint64_t sector_size = 0;  ///< bytes
  porep_api_version api = porep_api_version::v1_1_0;
  porep_feature feature = porep_feature::none;
  std::uint64_t nodes = 0;        ///< sector_size / 32
  std::uint32_t layers = 0;       ///< 2 (test sizes) or 11
  std::uint32_t partitions = 0;   ///< per proof (1 or 10; NI-PoRep: 13 or 126)
  std::uint32_t challenges_per_partition = 0;  ///< 2 or 18
  std::uint32_t base_arity = 8, sub_arity = 0, top_arity = 0;  ///< tree R / C shape

  /// porep_id: id as u64 LE in bytes 0..8, nonce 0 in 8..16, zeros after.
  std::array<std::uint8_t, 32> porep_id() const;
  /// Levels of the binary tree D: log2(nodes) (6 for 2 KiB, 30 for 32 GiB).
  std::uint32_t tree_d_levels() const;
  /// Base (arity-8) levels of tree R_last / tree C below the sub/top levels
  /// (2 for 2 KiB, 9 for 32/64 GiB).
  std::uint32_t tree_r_base_levels() const;
};

/// Looks up a registered proof by its JSON name; nullptr when unknown.
const seal_proof_info* find_seal_proof(std::string_view name);
/// Looks up by sector size (bytes) for the newest interactive api (V1_1);
/// nullptr when no PoRep has that size.
const seal_proof_info* find_seal_proof_by_size(std::uint64_t sector_size);
/// Looks up by numeric RegisteredSealProof id (0..19); nullptr when unknown.
const seal_proof_info* find_seal_proof_by_id(std::uint64_t id);
/// Every registered proof, in id order.
std::span<const seal_proof_info> seal_proofs();

/// storage-proofs-porep stacked/vanilla/column_proof.rs ColumnProof.
struct porep_column_proof {
  std::uint32_t index = 0;           ///< column.index: the node
  std::vector<ff::fr> rows;          ///< column.rows: one label per layer
  post_merkle_proof inclusion_proof; ///< in tree C (leaf = column hash)
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
  post_merkle_proof comm_d_proof;       ///< "comm_d_proofs": tree D (binary SHA-256, Single)
  post_merkle_proof comm_r_last_proof;  ///< tree R_last (Poseidon, base/sub/top)
  porep_column_proof c_x;               ///< column of the challenged node
  std::vector<porep_column_proof> drg_parents;  ///< 6
  std::vector<porep_column_proof> exp_parents;  ///< 8
  std::vector<porep_labeling_proof> labeling_proofs;  ///< one per layer
  porep_labeling_proof encoding_proof;

  /// The challenged node (labeling_proofs[0].node).
  std::uint64_t challenge() const { return labeling_proofs.empty() ? 0 : labeling_proofs[0].node; }
  friend bool operator==(const porep_challenge_proof&, const porep_challenge_proof&) = default;
};

using bytes32 = std::array<std::uint8_t, 32>;

/// SealCommitPhase1Output.
struct c1_output {
  const seal_proof_info* proof = nullptr;                    ///< registered_proof
  std::vector<std::vector<porep_challenge_proof>> partitions;  ///< vanilla_proofs[shape]
  bytes32 comm_r{}, comm_d{}, replica_id{}, seed{}, ticket{};
  friend bool operator==(const c1_output& a, const c1_output& b) {
    return a.proof == b.proof && a.partitions == b.partitions && a.comm_r == b.comm_r &&
           a.comm_d == b.comm_d && a.replica_id == b.replica_id && a.seed == b.seed &&
           a.ticket == b.ticket;
  }
};

/// Inputs above this size are refused before parsing (a 64 GiB C1 is ~40 MB,
/// its lotus-bench wrapper ~55 MB).
inline constexpr std::uint64_t c1_json_max_bytes = std::uint64_t(1) << 30;

/// Parses the C1 JSON (or the lotus-bench / curio wrapper
/// {"SectorNum", "Phase1Out": base64(C1 JSON), "SectorSize"}). Every problem
/// is an io::format_error (kind "c1 json") naming the JSON path, e.g.
/// "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3].column.rows[1]".
c1_output parse_c1_json(std::string_view text, std::string_view label = "<memory>");
/// Reads and parses a file (same errors; kind "c1 json", path = |path|).
c1_output read_c1_file(const std::string& path);
/// serde_json-compatible encoding (the inverse of parse_c1_json for the bare form).
std::string write_c1_json(const c1_output& c1);

}  // namespace cuzk::io
