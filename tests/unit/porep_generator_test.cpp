// SPDX-License-Identifier: Apache-2.0
// Synthetic PoRep C1 generator tests: for 2 KiB (V1_0 and V1_1), 8 MiB,
// 512 MiB and 32 GiB (all partitions) the native checker accepts the
// generated C1 (every Merkle path, column hash, label, labeling/encoding
// proof, R_last leaf, comm_r and the re-derived challenges); replica_id
// re-derives from the returned prover/sector id; corrupting a label, a
// parent label, a tree D sibling, a tree C sibling, comm_r, or a labeling
// proof makes the checker report it; generation is deterministic in the
// seed; SyntheticPoRep / NI-PoRep are rejected. (64 GiB is in unit_long.)
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <cuzk/circuits/porep_challenges.hpp>
#include <cuzk/circuits/porep_generator.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::circuits;
using cuzk::io::porep_api_version;
using cuzk::io::seal_proof_info;

// The registered interactive proof of |sector_size| (io registry).
const seal_proof_info& make_info(std::uint64_t sector_size, bool v1_1 = true) {
  for (const char* size : {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"}) {
    const seal_proof_info* p = cuzk::io::find_seal_proof(std::string("StackedDrg") + size + (v1_1 ? "V1_1" : "V1"));
    if (p && p->sector_size == sector_size) return *p;
  }
  throw std::invalid_argument("no seal proof for that size");
}

void generate_and_check(const seal_proof_info& info, std::uint64_t seed) {
  const auto t0 = std::chrono::steady_clock::now();
  const synthetic_porep g = generate_synthetic_porep(info, seed);
  const auto t1 = std::chrono::steady_clock::now();
  const std::vector<std::string> problems = check_porep_c1(g.c1);
  const auto t2 = std::chrono::steady_clock::now();
  for (const std::string& p : problems) ADD_FAILURE() << p;
  EXPECT_EQ(g.c1.replica_id, porep_replica_id(g.prover_id, g.sector_id, g.c1.ticket, g.c1.comm_d, info.porep_id()));
  ASSERT_EQ(g.c1.partitions.size(), info.partitions);
  for (const auto& part : g.c1.partitions) ASSERT_EQ(part.size(), info.challenges_per_partition);
  std::printf("[timing] %llu bytes: generate %.3f s, check %.3f s\n", static_cast<unsigned long long>(info.sector_size),
              std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count());
}

TEST(porep_generator, Consistent2KiB) {
  const std::uint64_t seed = cuzk::test::test_seed("porep_generator.Consistent2KiB");
  generate_and_check(make_info(2048, true), seed);
  generate_and_check(make_info(2048, false), seed);
}

TEST(porep_generator, Consistent8MiBAnd512MiB) {
  const std::uint64_t seed = cuzk::test::test_seed("porep_generator.Consistent8MiBAnd512MiB");
  generate_and_check(make_info(8ull << 20), seed);
  generate_and_check(make_info(512ull << 20), seed);
}

TEST(porep_generator, Consistent32GiB) {
  generate_and_check(make_info(32ull << 30), cuzk::test::test_seed("porep_generator.Consistent32GiB"));
}

TEST(porep_generator, DeterministicInTheSeed) {
  const seal_proof_info& info = make_info(2048);
  const synthetic_porep a = generate_synthetic_porep(info, 7), b = generate_synthetic_porep(info, 7),
                        c = generate_synthetic_porep(info, 8);
  EXPECT_TRUE(a.c1 == b.c1);
  EXPECT_FALSE(a.c1 == c.c1);
}

TEST(porep_generator, CheckerCatchesCorruption) {
  const seal_proof_info& info = make_info(8ull << 20);
  const synthetic_porep g = generate_synthetic_porep(info, cuzk::test::test_seed("porep_generator.Corruption"));
  ASSERT_TRUE(check_porep_c1(g.c1).empty());
  const cuzk::ff::fr one = cuzk::ff::fr::one();
  const auto expect_caught = [&](const char* what, auto&& corrupt) {
    cuzk::io::c1_output c = g.c1;
    corrupt(c);
    EXPECT_FALSE(check_porep_c1(c).empty()) << what;
  };
  expect_caught("label", [&](auto& c) { c.partitions[0][0].c_x.rows[0] += one; });
  expect_caught("parent label", [&](auto& c) { c.partitions[0][1].drg_parents[3].rows[1] += one; });
  expect_caught("expander parent label", [&](auto& c) { c.partitions[0][1].exp_parents[5].rows[0] += one; });
  expect_caught("tree D sibling", [&](auto& c) { c.partitions[0][0].comm_d_proof.base[4].hashes[0] += one; });
  expect_caught("data leaf", [&](auto& c) { c.partitions[0][0].comm_d_proof.leaf += one; });
  expect_caught("tree C sibling", [&](auto& c) { c.partitions[0][1].c_x.inclusion_proof.base[2].hashes[6] += one; });
  expect_caught("tree R sibling", [&](auto& c) { c.partitions[0][0].comm_r_last_proof.base[0].hashes[0] += one; });
  expect_caught("path index", [&](auto& c) {
    auto& e = c.partitions[0][0].comm_r_last_proof.base[1];
    e.index = (e.index + 1) % 8;
  });
  expect_caught("comm_r", [&](auto& c) { c.comm_r[0] ^= 1; });
  expect_caught("comm_d", [&](auto& c) { c.comm_d[0] ^= 1; });
  expect_caught("seed", [&](auto& c) { c.seed[0] ^= 1; });
  expect_caught("labeling proof", [&](auto& c) { c.partitions[0][0].labeling_proofs[1].parents[36] += one; });
  expect_caught("encoding proof", [&](auto& c) { c.partitions[0][0].encoding_proof.node += 1; });
  expect_caught("parent column index", [&](auto& c) { c.partitions[0][0].exp_parents[0].index ^= 1; });
  expect_caught("missing challenge", [&](auto& c) { c.partitions[0].pop_back(); });
}

// The generated C1 survives the C1 JSON writer and reader (io/porep_c1.hpp).
TEST(porep_generator, JsonRoundTrip) {
  const synthetic_porep g = generate_synthetic_porep(make_info(2048), 11);
  const cuzk::io::c1_output back = cuzk::io::parse_c1_json(cuzk::io::write_c1_json(g.c1));
  EXPECT_TRUE(back == g.c1);
  EXPECT_TRUE(check_porep_c1(back).empty());
}

TEST(porep_generator, RejectsSyntheticAndNonInteractive) {
  EXPECT_THROW(generate_synthetic_porep(*cuzk::io::find_seal_proof("StackedDrg2KiBV1_1_Feat_SyntheticPoRep"), 1),
               std::invalid_argument);
  EXPECT_THROW(generate_synthetic_porep(*cuzk::io::find_seal_proof("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"), 1),
               std::invalid_argument);
}

}  // namespace
