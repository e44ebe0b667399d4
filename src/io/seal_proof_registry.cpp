// SPDX-License-Identifier: Apache-2.0
// The registered seal proofs (rust-filecoin-proofs-api registry.rs
// RegisteredSealProof; see include/cuzk/io/seal_proof.hpp): one constexpr row
// per proof, looked up by a linear scan over 20 entries (nanoseconds).
//
// Facts behind the table (read from the public sources, not copied):
//  * names and order: the enum's serde derive (no renames), so the JSON
//    spelling is the variant name; ids: registry.rs REGISTERED_PROOF_IDS
//    (0..19, the same numbers as go-state-types abi.RegisteredSealProof);
//  * api version: V1 -> 1.0.0, V1_1 -> 1.1.0; the SyntheticPoRep variants
//    report 1.2.0 although their names say V1_1 (registry.rs notes the
//    misnomer), NonInteractivePoRep -> 1.2.0;
//  * partitions: filecoin-proofs constants.rs POREP_PARTITIONS (1 below
//    32 GiB, 10 at 32/64 GiB); NI-PoRep get_porep_non_interactive_partitions
//    (13 / 126); challenges per partition = ceil(minimum / partitions):
//    2/1, 176/10 -> 18, NI 26/13 -> 2, 2253/126 -> 18;
//  * layers: constants.rs LAYERS (2 below 32 GiB, 11 at 32/64 GiB);
//  * tree shapes: filecoin-proofs SectorShape* (8-0-0, 8-8-0 at 32 GiB,
//    8-8-2 at 64 GiB).
#include <cuzk/io/seal_proof.hpp>

#include <array>

namespace cuzk::io {

namespace {

constexpr std::uint64_t kib = 1024, mib = kib * 1024, gib = mib * 1024;

struct size_row {
  std::uint64_t bytes;
  std::string_view shape_name;
  std::uint32_t layers, partitions, ni_partitions, challenges, sub_arity, top_arity;
};

constexpr std::array<size_row, 5> sizes{{
    {2 * kib, "StackedDrg2KiBV1", 2, 1, 13, 2, 0, 0},
    {8 * mib, "StackedDrg8MiBV1", 2, 1, 13, 2, 0, 0},
    {512 * mib, "StackedDrg512MiBV1", 2, 1, 13, 2, 0, 0},
    {32 * gib, "StackedDrg32GiBV1", 11, 10, 126, 18, 8, 0},
    {64 * gib, "StackedDrg64GiBV1", 11, 10, 126, 18, 8, 2},
}};

constexpr seal_proof_info make(std::string_view name, std::uint64_t id, const size_row& s, porep_api_version api,
                               porep_feature feature) {
  seal_proof_info p;
  p.name = name;
  p.shape_name = s.shape_name;
  p.id = id;
  p.sector_size = s.bytes;
  p.api = api;
  p.feature = feature;
  p.nodes = s.bytes / 32;
  p.layers = s.layers;
  p.partitions = feature == porep_feature::non_interactive_porep ? s.ni_partitions : s.partitions;
  p.challenges_per_partition = s.challenges;
  p.base_arity = 8;
  p.sub_arity = s.sub_arity;
  p.top_arity = s.top_arity;
  return p;
}

using api = porep_api_version;
using feat = porep_feature;

constexpr std::array<seal_proof_info, 20> registry{{
    make("StackedDrg2KiBV1", 0, sizes[0], api::v1_0_0, feat::none),
    make("StackedDrg8MiBV1", 1, sizes[1], api::v1_0_0, feat::none),
    make("StackedDrg512MiBV1", 2, sizes[2], api::v1_0_0, feat::none),
    make("StackedDrg32GiBV1", 3, sizes[3], api::v1_0_0, feat::none),
    make("StackedDrg64GiBV1", 4, sizes[4], api::v1_0_0, feat::none),
    make("StackedDrg2KiBV1_1", 5, sizes[0], api::v1_1_0, feat::none),
    make("StackedDrg8MiBV1_1", 6, sizes[1], api::v1_1_0, feat::none),
    make("StackedDrg512MiBV1_1", 7, sizes[2], api::v1_1_0, feat::none),
    make("StackedDrg32GiBV1_1", 8, sizes[3], api::v1_1_0, feat::none),
    make("StackedDrg64GiBV1_1", 9, sizes[4], api::v1_1_0, feat::none),
    make("StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 10, sizes[0], api::v1_2_0, feat::synthetic_porep),
    make("StackedDrg8MiBV1_1_Feat_SyntheticPoRep", 11, sizes[1], api::v1_2_0, feat::synthetic_porep),
    make("StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 12, sizes[2], api::v1_2_0, feat::synthetic_porep),
    make("StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 13, sizes[3], api::v1_2_0, feat::synthetic_porep),
    make("StackedDrg64GiBV1_1_Feat_SyntheticPoRep", 14, sizes[4], api::v1_2_0, feat::synthetic_porep),
    make("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 15, sizes[0], api::v1_2_0, feat::non_interactive_porep),
    make("StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", 16, sizes[1], api::v1_2_0, feat::non_interactive_porep),
    make("StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", 17, sizes[2], api::v1_2_0, feat::non_interactive_porep),
    make("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", 18, sizes[3], api::v1_2_0, feat::non_interactive_porep),
    make("StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 19, sizes[4], api::v1_2_0, feat::non_interactive_porep),
}};

constexpr bool ids_are_positions() {
  for (std::size_t i = 0; i < registry.size(); ++i)
    if (registry[i].id != i) return false;
  return true;
}
static_assert(ids_are_positions(), "RegisteredSealProof ids are the enum positions 0..19");

}  // namespace

std::array<std::uint8_t, 32> seal_proof_info::porep_id() const {
  std::array<std::uint8_t, 32> out{};
  for (int i = 0; i < 8; ++i) out[std::size_t(i)] = std::uint8_t(id >> (8 * i));
  // bytes 8..16: the nonce, 0 for every registered proof; the rest stays 0.
  return out;
}

std::uint32_t seal_proof_info::tree_d_levels() const {
  std::uint32_t levels = 0;
  while ((std::uint64_t(1) << levels) < nodes) ++levels;
  return levels;
}

std::uint32_t seal_proof_info::tree_r_base_levels() const {
  std::uint64_t leaves = nodes;
  if (sub_arity != 0) leaves /= sub_arity;
  if (top_arity != 0) leaves /= top_arity;
  std::uint32_t levels = 0;
  for (std::uint64_t n = 1; n < leaves; n *= base_arity) ++levels;
  return levels;
}

const seal_proof_info* find_seal_proof(std::string_view name) {
  for (const seal_proof_info& p : registry)
    if (p.name == name) return &p;
  return nullptr;
}

const seal_proof_info* find_seal_proof_by_size(std::uint64_t sector_size) {
  for (const seal_proof_info& p : registry)
    if (p.sector_size == sector_size && p.api == porep_api_version::v1_1_0 && p.feature == porep_feature::none)
      return &p;
  return nullptr;
}

const seal_proof_info* find_seal_proof_by_id(std::uint64_t id) {
  return id < registry.size() ? &registry[std::size_t(id)] : nullptr;
}

std::span<const seal_proof_info> seal_proofs() { return registry; }

}  // namespace cuzk::io
