// SPDX-License-Identifier: Apache-2.0
#pragma once
// A small consistent StackedDRG sector for circuit tests, independent of the
// real graph (the circuit checks labels against the parents it is given, not
// the graph's parent choice): random data and random labels for every node,
// except that each challenged node's labels are computed natively
// (SHA-256 of replica_id || u32be(layer) || u64be(node) || 20 zero bytes ||
// 37 parent labels, trimmed to 254 bits) from parents drawn among the
// unchallenged nodes; tree C over the column hashes, tree R_last over the
// encoded last layer, tree D (binary SHA-256) over the data, and
// comm_r = Poseidon2(comm_c, comm_r_last). Small sizes only (whole trees in
// memory). Costs: one Poseidon per node and tree node, 2 KiB in milliseconds.

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include <cuzk/circuits/stacked_porep.hpp>
#include <cuzk/gadgets/native_sha256.hpp>

namespace cuzk::test {

inline ff::fr random_fr(std::mt19937_64& rng) {
  std::uint64_t l[4] = {rng(), rng(), rng(), rng() & 0x0fffffffffffffffull};
  std::uint8_t b[32];
  for (int i = 0; i < 32; ++i) b[i] = std::uint8_t(l[i / 8] >> (8 * (i % 8)));
  return *ff::fr::from_bytes_le(b);
}

/// The label of |node| in |layer| (1-based) from its 37 expanded parents.
inline ff::fr native_label(const ff::fr& replica_id, std::uint32_t layer, std::uint64_t node,
                           const std::vector<ff::fr>& parents) {
  std::vector<std::uint8_t> msg(64, 0);
  replica_id.to_bytes_le(msg.data());
  for (int i = 0; i < 4; ++i) msg[32 + i] = std::uint8_t(layer >> (24 - 8 * i));
  for (int i = 0; i < 8; ++i) msg[36 + i] = std::uint8_t(node >> (56 - 8 * i));
  for (std::size_t k = 0; k < circuits::stacked_total_parents; ++k) {
    std::uint8_t b[32];
    parents[k % parents.size()].to_bytes_le(b);
    msg.insert(msg.end(), b, b + 32);
  }
  gadgets::native::sha256_digest d = gadgets::native::sha256(std::span<const std::uint8_t>(msg));
  gadgets::native::trim_to_fr32(d);
  return gadgets::native::fr_from_fr32(d);
}

/// A merkle_path as the C1 MerkleProof (Single / Sub / Top by |shape|).
inline io::merkle_proof to_c1_proof(const gadgets::merkle_tree_shape& shape, const gadgets::merkle_path& path,
                                    const ff::fr& leaf, const ff::fr& root) {
  io::merkle_proof p;
  p.kind = shape.top_arity   ? io::merkle_proof_kind::top
           : shape.sub_arity ? io::merkle_proof_kind::sub
                             : io::merkle_proof_kind::single;
  p.leaf = leaf;
  p.root = root;
  std::size_t s = 0;
  for (std::size_t l = 0; l < shape.levels(); ++l) {
    const std::size_t a = shape.arity(l);
    io::merkle_path_element e{
        {path.siblings.begin() + std::ptrdiff_t(s), path.siblings.begin() + std::ptrdiff_t(s + a - 1)},
        path.indices[l]};
    s += a - 1;
    (l < shape.base_levels                       ? p.base
     : l == shape.base_levels && shape.sub_arity ? p.sub
                                                 : p.top)
        .push_back(std::move(e));
  }
  return p;
}

struct stacked_sector {
  circuits::stacked_porep_params params;
  ff::fr replica_id, comm_d, comm_r, comm_c, comm_r_last;
  std::vector<ff::fr> data;
  std::vector<std::vector<ff::fr>> labels;  // [layer - 1][node]
  std::vector<circuits::stacked_challenge_parents> parents;
  std::vector<gadgets::merkle_tree> trees;  // D, C, R_last

  circuits::stacked_column_witness column(std::uint64_t node) const {
    circuits::stacked_column_witness c;
    for (const auto& layer : labels) c.rows.push_back(layer[node]);
    c.path = trees[1].path(node);
    return c;
  }

  circuits::stacked_porep_circuit circuit() const {
    circuits::stacked_porep_circuit c{params, replica_id, comm_d, comm_r, comm_r_last, comm_c, {}};
    for (const circuits::stacked_challenge_parents& cp : parents) {
      circuits::stacked_challenge_witness w;
      w.challenge = cp.challenge;
      w.data_leaf = data[cp.challenge];
      w.comm_d_path = trees[0].path(cp.challenge);
      w.comm_r_last_path = trees[2].path(cp.challenge);
      w.comm_c_path = trees[1].path(cp.challenge);
      for (std::uint64_t q : cp.drg) w.drg_parents.push_back(column(q));
      for (std::uint64_t q : cp.exp) w.exp_parents.push_back(column(q));
      c.proofs.push_back(std::move(w));
    }
    return c;
  }

  io::porep_column_proof c1_column(std::uint64_t node) const {
    const circuits::stacked_column_witness c = column(node);
    return {std::uint32_t(node), c.rows, to_c1_proof(params.tree_shape, c.path, trees[1].leaf(node), comm_c)};
  }

  /// The C1 output of a one-partition sector (labeling proofs carry only the node).
  io::c1_output c1() const {
    io::c1_output out;
    replica_id.to_bytes_le(out.replica_id.data());
    comm_d.to_bytes_le(out.comm_d.data());
    comm_r.to_bytes_le(out.comm_r.data());
    out.partitions.emplace_back();
    for (const circuits::stacked_challenge_parents& cp : parents) {
      io::porep_challenge_proof p;
      const std::uint64_t c = cp.challenge;
      p.comm_d_proof = to_c1_proof(params.tree_d_shape(), trees[0].path(c), data[c], comm_d);
      p.comm_r_last_proof = to_c1_proof(params.tree_shape, trees[2].path(c), trees[2].leaf(c), comm_r_last);
      p.c_x = c1_column(c);
      for (std::uint64_t q : cp.drg) p.drg_parents.push_back(c1_column(q));
      for (std::uint64_t q : cp.exp) p.exp_parents.push_back(c1_column(q));
      for (std::uint32_t l = 1; l <= params.layers; ++l) p.labeling_proofs.push_back({{}, l, c});
      p.encoding_proof = {{}, params.layers, c};
      out.partitions[0].push_back(std::move(p));
    }
    return out;
  }
};

/// A consistent sector of |p|.nodes nodes with p.challenges distinct challenges.
inline stacked_sector make_stacked_sector(const circuits::stacked_porep_params& p, std::mt19937_64& rng) {
  if (p.nodes < p.challenges + 2) throw std::invalid_argument("stacked_sector: too few nodes");
  stacked_sector s;
  s.params = p;
  s.replica_id = random_fr(rng);
  for (std::uint64_t i = 0; i < p.nodes; ++i) s.data.push_back(random_fr(rng));
  s.labels.assign(p.layers, {});
  for (auto& layer : s.labels)
    for (std::uint64_t i = 0; i < p.nodes; ++i) layer.push_back(random_fr(rng));

  std::set<std::uint64_t> challenged;
  while (challenged.size() < p.challenges) challenged.insert(1 + rng() % (p.nodes - 1));
  std::vector<std::uint64_t> others;
  for (std::uint64_t i = 0; i < p.nodes; ++i)
    if (!challenged.count(i)) others.push_back(i);
  std::vector<std::uint64_t> order(challenged.begin(), challenged.end());
  std::shuffle(order.begin(), order.end(), rng);
  for (std::uint64_t c : order) {
    circuits::stacked_challenge_parents cp;
    cp.challenge = c;
    for (auto& q : cp.drg) q = others[rng() % others.size()];
    for (auto& q : cp.exp) q = others[rng() % others.size()];
    for (std::uint32_t layer = 1; layer <= p.layers; ++layer) {
      std::vector<ff::fr> par;
      for (std::uint64_t q : cp.drg) par.push_back(s.labels[layer - 1][q]);
      if (layer > 1)
        for (std::uint64_t q : cp.exp) par.push_back(s.labels[layer - 2][q]);
      s.labels[layer - 1][c] = native_label(s.replica_id, layer, c, par);
    }
    s.parents.push_back(cp);
  }

  std::vector<ff::fr> col_hashes, encoded;
  for (std::uint64_t i = 0; i < p.nodes; ++i) {
    std::vector<ff::fr> rows;
    for (const auto& layer : s.labels) rows.push_back(layer[i]);
    col_hashes.push_back(gadgets::poseidon_hash(std::span<const ff::fr>(rows)));
    encoded.push_back(s.labels.back()[i] + s.data[i]);
  }
  s.trees.emplace_back(p.tree_d_shape(), s.data);
  s.trees.emplace_back(p.tree_shape, std::move(col_hashes));
  s.trees.emplace_back(p.tree_shape, std::move(encoded));
  s.comm_d = s.trees[0].root();
  s.comm_c = s.trees[1].root();
  s.comm_r_last = s.trees[2].root();
  const std::array<ff::fr, 2> cr{s.comm_c, s.comm_r_last};
  s.comm_r = gadgets::poseidon_hash(std::span<const ff::fr>(cr));
  return s;
}

}  // namespace cuzk::test
