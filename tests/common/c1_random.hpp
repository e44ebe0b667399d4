// SPDX-License-Identifier: Apache-2.0
#pragma once
// Seeded random io::c1_output of the exact shape a registered proof demands
// (partitions, challenges, layers, parents, tree D / R / C path shapes), with
// consistent challenge nodes and layer indices. The values are random, not a
// valid proof: enough for the reader/writer tests and the fuzzers. Cost: one
// fr::random per domain (~330 k for a 32 GiB C1, tens of milliseconds).

#include <cstdint>
#include <random>

#include <cuzk/io/porep_c1.hpp>

namespace cuzk::test {

inline std::vector<io::merkle_path_element> random_path(std::mt19937_64& rng, std::uint32_t arity,
                                                        std::uint32_t levels) {
  std::vector<io::merkle_path_element> path(levels);
  for (io::merkle_path_element& e : path) {
    for (std::uint32_t j = 0; j + 1 < arity; ++j) e.hashes.push_back(ff::fr::random(rng));
    e.index = rng() % arity;
  }
  return path;
}

inline io::merkle_proof random_tree_r_proof(std::mt19937_64& rng, const io::seal_proof_info& p) {
  io::merkle_proof m;
  m.kind = p.sub_arity == 0   ? io::merkle_proof_kind::single
           : p.top_arity == 0 ? io::merkle_proof_kind::sub
                              : io::merkle_proof_kind::top;
  m.base = random_path(rng, p.base_arity, p.tree_r_base_levels());
  if (p.sub_arity) m.sub = random_path(rng, p.sub_arity, 1);
  if (p.top_arity) m.top = random_path(rng, p.top_arity, 1);
  m.root = ff::fr::random(rng);
  m.leaf = ff::fr::random(rng);
  return m;
}

inline io::porep_column_proof random_column(std::mt19937_64& rng, const io::seal_proof_info& p, std::uint32_t index) {
  io::porep_column_proof c;
  c.index = index;
  for (std::uint32_t l = 0; l < p.layers; ++l) c.rows.push_back(ff::fr::random(rng));
  c.inclusion_proof = random_tree_r_proof(rng, p);
  return c;
}

inline io::porep_labeling_proof random_labeling(std::mt19937_64& rng, std::uint32_t layer, std::uint64_t node) {
  io::porep_labeling_proof l;
  for (int i = 0; i < 37; ++i) l.parents.push_back(ff::fr::random(rng));
  l.layer_index = layer;
  l.node = node;
  return l;
}

inline io::porep_challenge_proof random_challenge(std::mt19937_64& rng, const io::seal_proof_info& p) {
  io::porep_challenge_proof c;
  const std::uint64_t node = rng() % p.nodes;
  c.comm_d_proof.kind = io::merkle_proof_kind::single;
  c.comm_d_proof.base = random_path(rng, 2, p.tree_d_levels());
  c.comm_d_proof.root = ff::fr::random(rng);
  c.comm_d_proof.leaf = ff::fr::random(rng);
  c.comm_r_last_proof = random_tree_r_proof(rng, p);
  c.c_x = random_column(rng, p, std::uint32_t(node));
  for (int i = 0; i < 6; ++i) c.drg_parents.push_back(random_column(rng, p, std::uint32_t(rng() % p.nodes)));
  for (int i = 0; i < 8; ++i) c.exp_parents.push_back(random_column(rng, p, std::uint32_t(rng() % p.nodes)));
  for (std::uint32_t l = 1; l <= p.layers; ++l) c.labeling_proofs.push_back(random_labeling(rng, l, node));
  c.encoding_proof = random_labeling(rng, p.layers, node);
  return c;
}

inline io::bytes32 random_bytes(std::mt19937_64& rng) {
  io::bytes32 b;
  for (auto& x : b) x = std::uint8_t(rng());
  return b;
}

inline io::bytes32 random_domain_bytes(std::mt19937_64& rng) {
  io::bytes32 b;
  ff::fr::random(rng).to_bytes_le(b.data());
  return b;
}

/// |partitions| = 0 means the registered count.
inline io::c1_output random_c1(std::mt19937_64& rng, const io::seal_proof_info& p, std::uint32_t partitions = 0) {
  io::c1_output c1;
  c1.proof = &p;
  c1.partitions.resize(partitions ? partitions : p.partitions);
  for (auto& part : c1.partitions)
    for (std::uint32_t i = 0; i < p.challenges_per_partition; ++i) part.push_back(random_challenge(rng, p));
  c1.comm_r = random_domain_bytes(rng);
  c1.comm_d = random_domain_bytes(rng);
  c1.replica_id = random_domain_bytes(rng);
  c1.seed = random_bytes(rng);
  c1.ticket = random_bytes(rng);
  return c1;
}

}  // namespace cuzk::test
