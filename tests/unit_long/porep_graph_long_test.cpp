// SPDX-License-Identifier: Apache-2.0
// Long StackedDRG tests (label long): the published parent cache digests of
// the 512 MiB graphs (storage-proofs-porep/parent_cache.json; porep ids 2
// (V1_0) and 7 (V1_1), 2^24 nodes each, ~1-2 CPU minutes per graph), and a
// generated 64 GiB C1 (8-8-2 trees, 10 partitions) accepted by the checker.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/circuits/stacked_graph.hpp>
#include <cuzk/io/hex.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::circuits;

std::string hex(std::span<const std::uint8_t> b) { return cuzk::io::to_hex(b); }

porep_id_bytes porep_id(std::uint64_t id) {
  porep_id_bytes p{};
  for (int i = 0; i < 8; ++i) p[std::size_t(i)] = std::uint8_t(id >> (8 * i));
  return p;
}

TEST(stacked_graph_long, ParentCacheDigest512MiB) {
  const std::uint64_t nodes = (512ull << 20) / 32;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(hex(stacked_graph(nodes, porep_id(2), cuzk::io::porep_api_version::v1_0_0).parent_cache_sha256()),
            "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5");
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_EQ(hex(stacked_graph(nodes, porep_id(7), cuzk::io::porep_api_version::v1_1_0).parent_cache_sha256()),
            "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a");
  std::printf("[timing] 512 MiB parent cache digest: %.1f s (V1_0), %.1f s (V1_1)\n",
              std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
}

TEST(porep_generator_long, Consistent64GiB) {
  const cuzk::io::seal_proof_info* info = cuzk::io::find_seal_proof("StackedDrg64GiBV1_1");
  ASSERT_NE(info, nullptr);
  const synthetic_porep g = generate_synthetic_porep(*info, cuzk::test::test_seed("porep_generator_long.64GiB"));
  for (const std::string& p : check_porep_c1(g.c1)) ADD_FAILURE() << p;
}

}  // namespace
