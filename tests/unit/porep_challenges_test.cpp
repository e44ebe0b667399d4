// SPDX-License-Identifier: Apache-2.0
// replica_id and PoRep challenge derivation tests.
// Known answers:
//   * the real seal regression records (rust-fil-proofs filecoin-proofs/tests/
//     seal_regression_records-v16/v18.json): for every 2 KiB, 32 GiB and
//     64 GiB interactive record, replica_id and every partition's challenges
//     equal derived/seal_regression_2kib_32gib_64gib_hex.json (an independent
//     Python derivation); the derived file's inputs are first checked against
//     the raw record line they cite;
//   * rust-fil-proofs challenges.rs test_synth_challenges_against_hardcoded
//     (2^10 nodes, replica_id = 55, comm_r = 101, rand = [1; 32], 21
//     synthetic challenges, 10 PoRep challenges).
// Properties: range [1, nodes), partitions differ, NI depends on comm_r,
// the public-input helper returns the graph's parents of each challenge.
#include <gtest/gtest.h>

#include <fstream>
#include <algorithm>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <cuzk/circuits/porep_challenges.hpp>
#include <cuzk/io/hex.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::circuits;
using cuzk::io::porep_api_version;
using cuzk::io::porep_feature;
using json = nlohmann::json;

bytes32 from_hex(const std::string& h) {
  std::vector<std::uint8_t> v;
  if (const auto e = cuzk::io::decode_hex(h, v)) throw std::invalid_argument("hex: " + e->reason);
  if (v.size() != 32) throw std::invalid_argument("hex: want 64 digits");
  bytes32 b{};
  std::copy(v.begin(), v.end(), b.begin());
  return b;
}

bytes32 from_array(const json& a) {
  bytes32 b{};
  if (a.size() != 32) throw std::invalid_argument("want 32 numbers");
  for (std::size_t i = 0; i < 32; ++i) b[i] = a[i].get<std::uint8_t>();
  return b;
}

bytes32 fr_bytes(std::uint64_t v) {  // Fr::from(v).to_repr()
  bytes32 b{};
  for (int i = 0; i < 8; ++i) b[std::size_t(i)] = std::uint8_t(v >> (8 * i));
  return b;
}

std::string fixtures() { return cuzk::test::shared_dir() + "/filecoin-fixtures"; }

std::vector<json> raw_lines(const std::string& name) {
  std::ifstream f(fixtures() + "/rust-fil-proofs/" + name);
  if (!f) throw std::runtime_error("cannot open " + name);
  std::vector<json> out;
  std::string line;
  while (std::getline(f, line))
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

TEST(porep_challenges, RegressionRecordsReplicaIdAndInteractiveChallenges) {
  std::ifstream f(fixtures() + "/derived/seal_regression_2kib_32gib_64gib_hex.json");
  ASSERT_TRUE(f) << "missing derived regression file";
  const json derived = json::parse(f);
  std::map<std::string, std::vector<json>> raw;
  raw["seal_regression_records-v16.json"] = raw_lines("seal_regression_records-v16.json");
  raw["seal_regression_records-v18.json"] = raw_lines("seal_regression_records-v18.json");

  std::map<std::uint64_t, int> checked;  // sector size -> records
  for (const json& r : derived["records"]) {
    if (!r.contains("interactive_challenges_derived")) continue;
    const json& line = raw.at(r["source"].get<std::string>()).at(r["line"].get<std::size_t>() - 1);
    // the derived file's inputs are the raw record's
    const bytes32 prover_id = from_hex(r["prover_id"]), ticket = from_hex(r["ticket"]), comm_d = from_hex(r["comm_d"]),
                  seed = from_hex(r["seed"]), porep = from_hex(r["porep_id"]);
    ASSERT_EQ(prover_id, from_array(line["prover_id"]));
    ASSERT_EQ(ticket, from_array(line["ticket"]));
    ASSERT_EQ(comm_d, from_array(line["comm_d"]));
    ASSERT_EQ(seed, from_array(line["seed"]));
    ASSERT_EQ(porep, from_array(line["porep_config"]["porep_id"]));
    const std::uint64_t sector_id = line["sector_id"].get<std::uint64_t>();
    ASSERT_EQ(sector_id, r["sector_id"].get<std::uint64_t>());
    const std::uint64_t size = line["porep_config"]["sector_size"].get<std::uint64_t>();

    const bytes32 replica_id = porep_replica_id(prover_id, sector_id, ticket, comm_d, porep);
    EXPECT_EQ(replica_id, from_hex(r["replica_id_derived"])) << r["source"] << ":" << r["line"];
    const json& parts = r["interactive_challenges_derived"];
    ASSERT_EQ(parts.size(), line["porep_config"]["partitions"].get<std::size_t>());
    for (std::uint32_t k = 0; k < parts.size(); ++k) {
      const std::vector<std::uint64_t> want = parts[k].get<std::vector<std::uint64_t>>();
      const std::vector<std::uint64_t> got =
          interactive_porep_challenges(size / 32, replica_id, seed, std::uint32_t(want.size()), k);
      EXPECT_EQ(got, want) << r["source"] << ":" << r["line"] << " partition " << k;
    }
    ++checked[size];
  }
  EXPECT_EQ(checked[2048], 93);  // 31 each of V1_0, V1_1, V1_2
  EXPECT_EQ(checked[32ull << 30], 4);
  EXPECT_EQ(checked[64ull << 30], 2);
}

TEST(porep_challenges, SyntheticKnownAnswer) {
  const std::uint64_t nodes = 1 << 10;
  const bytes32 replica_id = fr_bytes(55), comm_r = fr_bytes(101);
  bytes32 rand;
  rand.fill(1);
  const std::vector<std::uint64_t> synth_want = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                                 801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
  for (std::uint64_t i = 0; i < synth_want.size(); ++i)
    EXPECT_EQ(synthetic_challenge(nodes, replica_id, comm_r, i), synth_want[i]) << i;
  const std::vector<std::uint64_t> porep_want = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
  EXPECT_EQ(synthetic_porep_challenges(nodes, replica_id, comm_r, rand, 10, 0, 21), porep_want);
  // partition k is the k-th slice of one long selection
  const auto all = synthetic_partition_indexes(21, replica_id, rand, 10, 0);
  const auto second = synthetic_partition_indexes(21, replica_id, rand, 5, 1);
  EXPECT_TRUE(std::equal(second.begin(), second.end(), all.begin() + 5));
  EXPECT_EQ(default_synthetic_challenge_count(64), 64u);
  EXPECT_EQ(default_synthetic_challenge_count(1ull << 30), 1u << 18);
}

TEST(porep_challenges, RangesAndDependencies) {
  std::mt19937_64 rng(cuzk::test::test_seed("porep_challenges.Ranges"));
  bytes32 replica_id, seed, comm_r, comm_r2;
  for (auto* b : {&replica_id, &seed, &comm_r, &comm_r2})
    for (auto& x : *b) x = std::uint8_t(rng());
  for (std::uint64_t nodes : {64ull, 1ull << 18, 1ull << 30, 1ull << 31}) {
    const auto k0 = interactive_porep_challenges(nodes, replica_id, seed, 18, 0);
    const auto k1 = interactive_porep_challenges(nodes, replica_id, seed, 18, 1);
    const auto n0 = ni_porep_challenges(nodes, replica_id, comm_r, 18, 0);
    const auto n0b = ni_porep_challenges(nodes, replica_id, comm_r2, 18, 0);
    for (const auto* v : {&k0, &k1, &n0, &n0b})
      for (std::uint64_t c : *v) {
        EXPECT_GE(c, 1u);
        EXPECT_LT(c, nodes);
      }
    EXPECT_NE(k0, k1);
    EXPECT_NE(n0, n0b);
    // partition 1 of 9 per partition = the second half of partition 0 of 18
    const auto h = interactive_porep_challenges(nodes, replica_id, seed, 9, 1);
    EXPECT_TRUE(std::equal(h.begin(), h.end(), k0.begin() + 9));
  }
  bytes32 all_ff;
  all_ff.fill(0xff);
  // (2^256 - 1) mod 63 + 1: 2^256 = (2^6)^42 * 2^4 = 16 mod 63 -> 15 + 1
  EXPECT_EQ(porep_challenge_from_hash(all_ff, 64), 16u);
}

TEST(porep_challenges, PartitionInputsCarryTheGraphParents) {
  cuzk::io::seal_proof_info info;
  info.name = "StackedDrg32GiBV1_1";
  info.shape_name = "StackedDrg32GiBV1";
  info.id = 8;
  info.sector_size = 32ull << 30;
  info.nodes = info.sector_size / 32;
  info.layers = 11;
  info.partitions = 10;
  info.challenges_per_partition = 18;
  info.sub_arity = 8;
  std::mt19937_64 rng(cuzk::test::test_seed("porep_challenges.PartitionInputs"));
  bytes32 replica_id, comm_d, comm_r, seed;
  for (auto* b : {&replica_id, &comm_d, &comm_r, &seed})
    for (auto& x : *b) x = std::uint8_t(rng());
  const porep_partition_inputs in = derive_porep_partition_inputs(info, replica_id, comm_d, comm_r, seed, 3);
  EXPECT_EQ(in.k, 3u);
  EXPECT_EQ(in.replica_id, replica_id);
  ASSERT_EQ(in.challenges.size(), 18u);
  const auto want = interactive_porep_challenges(info.nodes, replica_id, seed, 18, 3);
  const stacked_graph g = stacked_graph::for_proof(info);
  for (std::size_t i = 0; i < 18; ++i) {
    EXPECT_EQ(in.challenges[i].challenge, want[i]);
    const auto p = g.parents(std::uint32_t(want[i]));
    EXPECT_TRUE(std::equal(in.challenges[i].drg.begin(), in.challenges[i].drg.end(), p.begin()));
    EXPECT_TRUE(std::equal(in.challenges[i].exp.begin(), in.challenges[i].exp.end(), p.begin() + 6));
  }
  EXPECT_THROW(derive_porep_partition_inputs(info, replica_id, comm_d, comm_r, seed, 10), std::out_of_range);
}

}  // namespace
