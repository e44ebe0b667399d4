// SPDX-License-Identifier: Apache-2.0
// StackedDRG graph tests. Known answers: the SHA-256 digests of whole parent
// cache files that rust-fil-proofs publishes in storage-proofs-porep/
// parent_cache.json (2 KiB and 8 MiB here, 512 MiB in unit_long), for the
// V1_0 (porep ids 0, 1) and V1_1 (ids 5, 6) graphs (the manifest keys were
// matched to those porep ids by recomputing cache_path's SHA-256 of the
// hasher name, graph identifier and Feistel keys). Also the primitives'
// published vectors (RFC 7693 BLAKE2b-512 "abc", RFC 8439 2.3.2 ChaCha20
// block), BLAKE2b against OpenSSL on random inputs, and the graph properties
// rust-fil-proofs tests (drgraph.rs graph_bucket: no self reference,
// predecessor position per api version) plus determinism and range checks.
#include <gtest/gtest.h>

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <cuzk/circuits/porep_hashes.hpp>
#include <cuzk/circuits/stacked_graph.hpp>
#include <cuzk/io/hex.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::circuits;
using cuzk::io::porep_api_version;

std::string hex(std::span<const std::uint8_t> b) { return cuzk::io::to_hex(b); }

porep_id_bytes porep_id(std::uint64_t id) {
  porep_id_bytes p{};
  for (int i = 0; i < 8; ++i) p[std::size_t(i)] = std::uint8_t(id >> (8 * i));
  return p;
}

TEST(porep_hashes, Blake2bKnownAnswerAndOpenssl) {
  const std::string abc = "abc";
  const auto d = blake2b::hash512({reinterpret_cast<const std::uint8_t*>(abc.data()), abc.size()});
  EXPECT_EQ(hex(d),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
  std::mt19937_64 rng(cuzk::test::test_seed("porep_hashes.Blake2b"));
  for (std::size_t len : {0, 1, 16, 127, 128, 129, 255, 256, 257, 1000}) {
    std::vector<std::uint8_t> msg(len);
    for (auto& b : msg) b = std::uint8_t(rng());
    std::array<std::uint8_t, 64> want{};
    unsigned int n = 0;
    ASSERT_EQ(EVP_Digest(msg.data(), msg.size(), want.data(), &n, EVP_blake2b512(), nullptr), 1);
    // one update, and byte-by-byte updates
    EXPECT_EQ(blake2b::hash512(msg), want) << "len " << len;
    blake2b h(64);
    for (std::uint8_t b : msg) h.update(std::span<const std::uint8_t>(&b, 1));
    std::array<std::uint8_t, 64> got{};
    h.finalize(got.data());
    EXPECT_EQ(got, want) << "len " << len;
  }
}

TEST(porep_hashes, ChaCha20Rfc8439Block) {
  std::array<std::uint8_t, 32> key;
  for (int i = 0; i < 32; ++i) key[std::size_t(i)] = std::uint8_t(i);
  const std::array<std::uint8_t, 12> nonce = {0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  chacha_stream s = chacha_stream::ietf(key, nonce);
  s.seek(64);  // block counter 1
  std::array<std::uint8_t, 64> out;
  s.keystream(out);
  EXPECT_EQ(hex(out),
            "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
            "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
  // byte-granular reads and seeks agree with one long read
  chacha_stream a = chacha_stream::ietf(key, nonce), b = chacha_stream::ietf(key, nonce);
  std::array<std::uint8_t, 200> all;
  a.keystream(all);
  b.seek(77);
  std::array<std::uint8_t, 50> part;
  b.keystream(part);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), all.begin() + 77));
}

TEST(stacked_graph, ParentCacheDigest2KiB) {
  EXPECT_EQ(hex(stacked_graph(64, porep_id(0), porep_api_version::v1_0_0).parent_cache_sha256()),
            "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d");
  EXPECT_EQ(hex(stacked_graph(64, porep_id(5), porep_api_version::v1_1_0).parent_cache_sha256()),
            "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97");
}

TEST(stacked_graph, ParentCacheDigest8MiB) {
  const std::uint64_t nodes = (8ull << 20) / 32;
  EXPECT_EQ(hex(stacked_graph(nodes, porep_id(1), porep_api_version::v1_0_0).parent_cache_sha256()),
            "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce");
  EXPECT_EQ(hex(stacked_graph(nodes, porep_id(6), porep_api_version::v1_1_0).parent_cache_sha256()),
            "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab");
}

// drgraph.rs graph_bucket_aux, on the same sizes, plus range checks.
TEST(stacked_graph, BucketGraphProperties) {
  for (auto [id, api] : {std::pair{0, porep_api_version::v1_0_0}, std::pair{5, porep_api_version::v1_2_0},
                         std::pair{5, porep_api_version::v1_1_0}}) {
    for (std::uint64_t size : {4u, 16u, 256u, 2048u}) {
      const stacked_graph g(size, porep_id(std::uint64_t(id)), api);
      std::array<std::uint32_t, drg_degree> p{};
      for (std::uint32_t n : {0u, 1u}) {
        g.drg_parents(n, p);
        for (std::uint32_t x : p) EXPECT_EQ(x, 0u);
      }
      for (std::uint32_t n = 2; n < size; ++n) {
        g.drg_parents(n, p);
        for (std::uint32_t x : p) {
          EXPECT_NE(x, n);
          EXPECT_LT(x, n);
        }
        EXPECT_EQ(p[api == porep_api_version::v1_0_0 ? drg_degree - 1 : 0], n - 1);
        std::array<std::uint32_t, drg_degree> q{};
        g.drg_parents(n, q);
        EXPECT_EQ(p, q);
        std::array<std::uint32_t, exp_degree> e{};
        g.exp_parents(n, e);
        for (std::uint32_t x : e) EXPECT_LT(x, size);
      }
    }
  }
}

TEST(stacked_graph, FeistelIsAPermutation) {
  for (std::uint64_t nodes : {64u, 128u, 1000u}) {  // domains 512 (4^5 / 2), 1024 (= 4^5), 8000
    const stacked_graph g(nodes, porep_id(7), porep_api_version::v1_1_0);
    std::set<std::uint64_t> seen;
    for (std::uint64_t i = 0; i < nodes * exp_degree; ++i) {
      const std::uint64_t v = g.feistel_permute(i);
      EXPECT_LT(v, nodes * exp_degree);
      seen.insert(v);
    }
    EXPECT_EQ(seen.size(), nodes * exp_degree);
  }
}

TEST(stacked_graph, ApiVersionsAndPorepIdsDiffer) {
  const std::uint64_t nodes = (32ull << 30) / 32;
  const stacked_graph v10(nodes, porep_id(3), porep_api_version::v1_0_0);
  const stacked_graph v11(nodes, porep_id(3), porep_api_version::v1_1_0);
  const stacked_graph other(nodes, porep_id(8), porep_api_version::v1_1_0);
  std::mt19937_64 rng(cuzk::test::test_seed("stacked_graph.ApiVersions"));
  int exp_differ = 0;
  for (int t = 0; t < 50; ++t) {
    const std::uint32_t n = std::uint32_t(2 + rng() % (nodes - 2));
    const auto a = v10.parents(n), b = v11.parents(n), c = other.parents(n);
    // the same five random DRG parents, rotated: V1_0 puts n - 1 last, V1_1 first
    EXPECT_TRUE(std::equal(a.begin(), a.begin() + 5, b.begin() + 1)) << n;
    EXPECT_EQ(a[5], n - 1);
    EXPECT_EQ(b[0], n - 1);
    // V1_0 truncates the permuted index to u32 (8 N = 2^33 here)
    for (std::size_t i = drg_degree; i < graph_degree; ++i) {
      EXPECT_EQ(a[i], b[i] & 0x1fffffffu);  // (t mod 2^32) / 8 = (t / 8) mod 2^29
      if (a[i] != b[i]) ++exp_differ;
      EXPECT_LT(b[i], nodes);
    }
    EXPECT_NE(b, c);
  }
  EXPECT_GT(exp_differ, 0);
}

TEST(stacked_graph, ParallelCacheMatchesSingleNodeCalls) {
  const stacked_graph g(1 << 12, porep_id(6), porep_api_version::v1_1_0);
  const std::vector<std::uint32_t> cache = g.parent_cache(100, 300);
  ASSERT_EQ(cache.size(), 300 * graph_degree);
  for (std::uint32_t n = 100; n < 400; ++n) {
    const auto p = g.parents(n);
    EXPECT_TRUE(std::equal(p.begin(), p.end(), cache.begin() + std::ptrdiff_t((n - 100) * graph_degree))) << n;
  }
  EXPECT_THROW(g.parents(1 << 12), std::out_of_range);
  EXPECT_THROW(stacked_graph(1, porep_id(6), porep_api_version::v1_1_0), std::invalid_argument);
}

}  // namespace
