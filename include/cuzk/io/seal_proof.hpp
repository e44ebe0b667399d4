// SPDX-License-Identifier: Apache-2.0
#pragma once
// The registered seal proofs (RegisteredSealProof): the static facts of each
// (sector size, api version, partitions, challenges, layers, tree shape) that
// the C1 reader, the PoRep circuit, its challenges and the engine look up by
// name, sector size or numeric id. The table: src/io/seal_proof_registry.cpp
// (20 rows, a linear scan).

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace cuzk::io {

/// storage-proofs-core api_version::ApiVersion.
enum class porep_api_version : std::uint8_t { v1_0_0, v1_1_0, v1_2_0 };

/// What the registered proof enables beyond the api version. Note: the
/// *_V1_1_Feat_SyntheticPoRep proofs run at api 1.2.0 despite their names
/// (rust-filecoin-proofs-api registry.rs version()).
enum class porep_feature : std::uint8_t { none, synthetic_porep, non_interactive_porep };

/// Static facts about one RegisteredSealProof (filecoin-proofs constants.rs,
/// rust-filecoin-proofs-api registry.rs; docs/FORMATS.md §4.3).
struct seal_proof_info {
  std::string_view name;          ///< "StackedDrg32GiBV1_1"
  std::string_view shape_name;    ///< vanilla_proofs key: "StackedDrg32GiBV1"
  std::uint64_t id = 0;           ///< numeric RegisteredSealProof id (porep_id[0..8] LE)
  std::uint64_t sector_size = 0;  ///< bytes
  porep_api_version api = porep_api_version::v1_1_0;
  porep_feature feature = porep_feature::none;
  std::uint64_t nodes = 0;                                     ///< sector_size / 32
  std::uint32_t layers = 0;                                    ///< 2 (test sizes) or 11
  std::uint32_t partitions = 0;                                ///< per proof (1 or 10; NI-PoRep: 13 or 126)
  std::uint32_t challenges_per_partition = 0;                  ///< 2 or 18
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

}  // namespace cuzk::io
