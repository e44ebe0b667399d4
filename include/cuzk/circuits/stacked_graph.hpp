// SPDX-License-Identifier: Apache-2.0
#pragma once
// The StackedDRG graph: the parents of every node, exactly as rust-fil-proofs
// computes them (storage-proofs-core drgraph.rs BucketGraph, crypto/feistel.rs,
// crypto/mod.rs; storage-proofs-porep stacked/vanilla/graph.rs StackedGraph).
//
// DRG ("base") parents, 6 per node, BucketGraph (DRSample):
//   seed28 = SHA256("Filecoin_DRSample" || porep_id)[0..28].
//   Nodes 0 and 1: all six parents are 0. Node n >= 2: a ChaCha8Rng seeded
//   with seed28 || u32le(n); m' = 5, meta = 5 n, buckets = ceil(log2(meta));
//   five parents, each: b = next_u64 % buckets + 1, hi = min(meta, 2^b),
//   lo = max(2, hi / 2), d = lo + next_u64 % (hi - lo + 1),
//   p = (meta - d) / 5, and p == n becomes n - 1. The immediate predecessor
//   n - 1 is parent 0 (api V1_1_0, V1_2_0: the five random ones are 1..5) or
//   parent 5 (V1_0_0: the random ones are 0..4, then parent 5 is overwritten).
//   Every DRG parent of n >= 1 is < n (node 1's are 0).
// Expander parents, 8 per node, a Feistel permutation of [0, 8 N):
//   keys = SHA256("Filecoin_Feistel" || porep_id) as four u64 LE (only the
//   first three are used: 3 rounds); the domain is the smallest 4^k >= 8 N
//   split into two k-bit halves; round: (L, R) -> (R, L ^ F(R, key)) with
//   F = BLAKE2b-512(u64be(R) || u64be(key))[0..8] as u64 BE, masked to k
//   bits; values >= 8 N are re-encrypted (cycle walking).
//   Parent i of n = permute(8 n + i) / 8 (V1_0_0 first truncates the
//   permuted value to u32, which matters only from 32 GiB on).
// parents(n) = the 6 DRG parents then the 8 expander parents: the order of
// the parent cache (node-major, 14 u32 LE per node) and of the labeling.
//
// Costs: DRG parents: one or two ChaCha8 blocks per node (~0.1 us).
// Expander parents: 3 BLAKE2b compressions per Feistel pass, ~2 passes per
// parent on average for sector sizes 2^(2k+1) x 32 B (the domain is twice
// 8 N), so ~50 compressions per node (~5-10 us). A whole 512 MiB graph
// (2^24 nodes) is ~100-150 CPU seconds, spread over threads by
// for_each_parents / parent_cache_sha256; a challenge's parents are
// microseconds.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include <cuzk/io/porep_c1.hpp>

namespace cuzk::circuits {

inline constexpr std::size_t drg_degree = 6;      ///< BASE_DEGREE
inline constexpr std::size_t exp_degree = 8;      ///< EXP_DEGREE
inline constexpr std::size_t graph_degree = 14;   ///< DEGREE
inline constexpr std::size_t label_parents = 37;  ///< TOTAL_PARENTS

using porep_id_bytes = std::array<std::uint8_t, 32>;

/// SHA256(tag || porep_id) (crypto::derive_porep_domain_seed).
std::array<std::uint8_t, 32> derive_porep_domain_seed(std::string_view tag, const porep_id_bytes& porep_id);

/// StackedBucketGraph<*> for one sector size, porep_id and api version.
class stacked_graph {
 public:
  /// |nodes| is sector_size / 32 (2 .. 2^32 - 1).
  stacked_graph(std::uint64_t nodes, const porep_id_bytes& porep_id, io::porep_api_version api);
  /// The graph of a registered proof (porep_id from its numeric id).
  static stacked_graph for_proof(const io::seal_proof_info& info);

  std::uint64_t nodes() const noexcept { return _nodes; }
  io::porep_api_version api() const noexcept { return _api; }

  /// The 6 DRG parents of |node| (< nodes).
  void drg_parents(std::uint32_t node, std::span<std::uint32_t, drg_degree> out) const;
  /// The 8 expander parents of |node|.
  void exp_parents(std::uint32_t node, std::span<std::uint32_t, exp_degree> out) const;
  /// DRG then expander parents (one parent-cache entry).
  std::array<std::uint32_t, graph_degree> parents(std::uint32_t node) const;

  /// The Feistel permutation of [0, 8 nodes) (tests; permute in feistel.rs).
  std::uint64_t feistel_permute(std::uint64_t index) const;

  /// Calls |fn(node, parents)| for every node in [first, first + count), in
  /// parallel (TBB) over blocks; calls for one block are in node order.
  void for_each_parents(
      std::uint64_t first, std::uint64_t count,
      const std::function<void(std::uint32_t, const std::array<std::uint32_t, graph_degree>&)>& fn) const;

  /// The parent cache entries of [first, first + count): 14 u32 per node
  /// (host order; the file stores them little-endian).
  std::vector<std::uint32_t> parent_cache(std::uint64_t first, std::uint64_t count) const;

  /// SHA-256 of the whole parent cache file (node-major, 14 u32 LE per
  /// node): the digest storage-proofs-porep/parent_cache.json records.
  /// Computed in parallel blocks, hashed in order, |block_nodes| at a time.
  std::array<std::uint8_t, 32> parent_cache_sha256(std::uint64_t block_nodes = 1 << 16) const;

 private:
  std::uint64_t _nodes;
  io::porep_api_version _api;
  std::array<std::uint8_t, 28> _drg_seed{};
  std::array<std::uint64_t, 4> _feistel_keys{};
  std::uint64_t _left_mask = 0, _right_mask = 0, _half_bits = 0;
};

}  // namespace cuzk::circuits
