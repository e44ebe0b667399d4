// SPDX-License-Identifier: Apache-2.0
// Synthetic, internally consistent PoRep C1 outputs; the method and its
// costs are described in porep_generator.hpp.
#include <cuzk/circuits/porep_generator.hpp>

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include <cuzk/circuits/porep_challenges.hpp>
#include <cuzk/circuits/porep_hashes.hpp>
#include <cuzk/circuits/porep_labels.hpp>
#include <cuzk/circuits/stacked_graph.hpp>
#include <cuzk/circuits/detail/generator_random.hpp>
#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/gadgets/native_sha256.hpp>
#include <cuzk/gadgets/poseidon.hpp>

namespace cuzk::circuits {
namespace {

using ff::fr;
using gadgets::merkle_hasher;
using gadgets::merkle_tree_shape;

constexpr std::uint64_t data_block_leaves = 1024;

// Random bytes and field elements for one generated sector.
class random_source : public detail::generator_random {
 public:
  explicit random_source(std::uint64_t seed) : generator_random("cuzk synthetic porep", seed) {}
};

io::bytes32 to_bytes(const fr& x) {
  io::bytes32 b;
  x.to_bytes_le(b.data());
  return b;
}

// Tree D over a block of random leaves repeated across the sector.
class periodic_tree_d {
 public:
  periodic_tree_d(std::uint64_t nodes, random_source& rnd) : _levels(std::size_t(std::countr_zero(nodes))) {
    const std::uint64_t block = std::min(nodes, data_block_leaves);
    std::vector<fr> level(block);
    for (fr& x : level) x = rnd.element();
    _block.push_back(level);
    while (level.size() > 1) {
      std::vector<fr> up(level.size() / 2);
      for (std::size_t i = 0; i < up.size(); ++i)
        up[i] = gadgets::merkle_hash_children(merkle_hasher::sha256, std::span<const fr>(&level[2 * i], 2));
      _block.push_back(up);
      level = std::move(up);
    }
    _root = level[0];
    for (std::size_t l = _block.size() - 1; l < _levels; ++l) {
      _above.push_back(_root);  // the sibling at this level is an identical subtree
      const fr two[2] = {_root, _root};
      _root = gadgets::merkle_hash_children(merkle_hasher::sha256, two);
    }
  }
  const fr& root() const { return _root; }
  const fr& leaf(std::uint64_t node) const { return _block[0][node % _block[0].size()]; }

  io::merkle_proof proof(std::uint64_t node) const {
    io::merkle_proof p;
    p.kind = io::merkle_proof_kind::single;
    p.leaf = leaf(node);
    p.root = _root;
    for (std::size_t l = 0; l < _levels; ++l) {
      const std::uint64_t pos = node >> l;
      io::merkle_path_element e;
      e.index = pos & 1;
      if (l + 1 < _block.size()) e.hashes.push_back(_block[l][(pos ^ 1) % _block[l].size()]);
      else e.hashes.push_back(_above[l - (_block.size() - 1)]);
      p.base.push_back(std::move(e));
    }
    return p;
  }

 private:
  std::size_t _levels;
  std::vector<std::vector<fr>> _block;  // block levels, leaves first
  std::vector<fr> _above;               // node value at each level above the block
  fr _root;
};

// A Merkle tree in which only some leaves are known; every missing sibling
// subtree is a random node, so all paths share one root.
class sparse_tree {
 public:
  sparse_tree(const merkle_tree_shape& shape, const std::map<std::uint64_t, fr>& leaves, random_source& rnd)
      : _shape(shape) {
    _levels.push_back(leaves);
    for (std::size_t l = 0; l < shape.levels(); ++l) {
      const std::uint64_t a = shape.arity(l);
      std::map<std::uint64_t, fr>& below = _levels.back();
      std::set<std::uint64_t> groups;
      for (const auto& kv : below) groups.insert(kv.first / a);
      std::map<std::uint64_t, fr> up;
      std::vector<fr> children(a);
      for (std::uint64_t g : groups) {
        for (std::uint64_t j = 0; j < a; ++j) {
          auto it = below.find(g * a + j);
          if (it == below.end()) it = below.emplace(g * a + j, rnd.element()).first;
          children[j] = it->second;
        }
        up.emplace(g, gadgets::merkle_hash_children(shape.hasher, children));
      }
      _levels.push_back(std::move(up));
    }
    if (_levels.back().size() != 1) throw std::logic_error("sparse tree: no single root");
  }
  const fr& root() const { return _levels.back().begin()->second; }

  io::merkle_proof proof(std::uint64_t leaf) const {
    io::merkle_proof p;
    p.kind = _shape.top_arity   ? io::merkle_proof_kind::top
             : _shape.sub_arity ? io::merkle_proof_kind::sub
                                : io::merkle_proof_kind::single;
    p.leaf = _levels[0].at(leaf);
    p.root = root();
    std::uint64_t pos = leaf;
    for (std::size_t l = 0; l < _shape.levels(); ++l) {
      const std::uint64_t a = _shape.arity(l);
      io::merkle_path_element e;
      e.index = pos % a;
      for (std::uint64_t j = pos - pos % a; j < pos - pos % a + a; ++j)
        if (j != pos) e.hashes.push_back(_levels[l].at(j));
      if (l < _shape.base_levels) p.base.push_back(std::move(e));
      else if (l == _shape.base_levels && _shape.sub_arity) p.sub.push_back(std::move(e));
      else p.top.push_back(std::move(e));
      pos /= a;
    }
    return p;
  }

 private:
  merkle_tree_shape _shape;
  std::vector<std::map<std::uint64_t, fr>> _levels;
};

}  // namespace

synthetic_porep generate_synthetic_porep(const io::seal_proof_info& info, std::uint64_t seed) {
  if (info.feature != io::porep_feature::none)
    throw std::invalid_argument("porep generator: " + std::string(info.name) +
                                ": SyntheticPoRep / NI-PoRep challenges depend on comm_r; only interactive "
                                "PoRep can be generated without sealing");
  if (info.nodes < 2 || (info.nodes & (info.nodes - 1)) != 0 || info.layers < 1 || info.partitions < 1)
    throw std::invalid_argument("porep generator: " + std::string(info.name) + ": bad sector shape");
  const stacked_graph graph = stacked_graph::for_proof(info);
  const merkle_tree_shape shape =
      merkle_tree_shape::for_leaves(info.nodes, info.base_arity, info.sub_arity, info.top_arity);
  random_source rnd(seed);

  synthetic_porep out;
  out.miner_id = 1000 + rnd.u64() % 1'000'000;
  out.prover_id = porep_prover_id(out.miner_id);
  out.sector_id = rnd.u64() % (std::uint64_t(1) << 32);
  io::c1_output& c1 = out.c1;
  c1.proof = &info;
  c1.ticket = rnd.bytes();
  c1.seed = rnd.bytes();

  const periodic_tree_d tree_d(info.nodes, rnd);
  c1.comm_d = to_bytes(tree_d.root());
  c1.replica_id = porep_replica_id(out.prover_id, out.sector_id, c1.ticket, c1.comm_d, info.porep_id());

  // Challenges and the columns they open.
  std::vector<std::vector<std::uint64_t>> challenges(info.partitions);
  std::map<std::uint32_t, std::array<std::uint32_t, graph_degree>> parents;
  for (std::uint32_t k = 0; k < info.partitions; ++k) {
    challenges[k] = interactive_porep_challenges(info.nodes, c1.replica_id, c1.seed, info.challenges_per_partition, k);
    for (std::uint64_t c : challenges[k]) parents.emplace(std::uint32_t(c), graph.parents(std::uint32_t(c)));
  }
  std::set<std::uint32_t> opened;
  for (const auto& [c, p] : parents) {
    opened.insert(c);
    opened.insert(p.begin(), p.end());
  }
  const std::uint32_t layers = info.layers;
  std::map<std::uint32_t, std::vector<fr>> columns;
  for (std::uint32_t n : opened) {
    std::vector<fr>& col = columns[n];
    col.resize(layers);
    if (!parents.contains(n))
      for (fr& x : col) x = rnd.element();
  }
  // Real labels of the challenged nodes, layer by layer, increasing node order.
  std::map<std::uint32_t, std::vector<std::array<fr, label_parents>>> label_inputs;
  for (std::uint32_t l = 1; l <= layers; ++l) {
    for (const auto& [c, p] : parents) {
      std::array<fr, graph_degree> direct;
      for (std::size_t i = 0; i < drg_degree; ++i) direct[i] = columns.at(p[i])[l - 1];
      for (std::size_t i = drg_degree; l > 1 && i < graph_degree; ++i) direct[i] = columns.at(p[i])[l - 2];
      const std::array<fr, label_parents> rep =
          repeat_label_parents(std::span<const fr>(direct.data(), l == 1 ? drg_degree : graph_degree));
      columns.at(c)[l - 1] = porep_label(c1.replica_id, l, c, rep);
      label_inputs[c].push_back(rep);
    }
  }

  // Trees C and R_last.
  std::map<std::uint64_t, fr> c_leaves, r_leaves;
  for (const auto& [n, col] : columns) c_leaves.emplace(n, gadgets::poseidon_hash(col));
  for (const auto& [c, p] : parents) r_leaves.emplace(c, columns.at(c)[layers - 1] + tree_d.leaf(c));
  const sparse_tree tree_c(shape, c_leaves, rnd);
  const sparse_tree tree_r(shape, r_leaves, rnd);
  const fr comm_pair[2] = {tree_c.root(), tree_r.root()};
  c1.comm_r = to_bytes(gadgets::poseidon_hash(comm_pair));

  const auto column_proof = [&](std::uint32_t n) {
    io::porep_column_proof cp;
    cp.index = n;
    cp.rows = columns.at(n);
    cp.inclusion_proof = tree_c.proof(n);
    return cp;
  };
  c1.partitions.resize(info.partitions);
  for (std::uint32_t k = 0; k < info.partitions; ++k) {
    for (std::uint64_t c64 : challenges[k]) {
      const std::uint32_t c = std::uint32_t(c64);
      const auto& p = parents.at(c);
      io::porep_challenge_proof proof;
      proof.comm_d_proof = tree_d.proof(c);
      proof.comm_r_last_proof = tree_r.proof(c);
      proof.c_x = column_proof(c);
      for (std::size_t i = 0; i < drg_degree; ++i) proof.drg_parents.push_back(column_proof(p[i]));
      for (std::size_t i = drg_degree; i < graph_degree; ++i) proof.exp_parents.push_back(column_proof(p[i]));
      for (std::uint32_t l = 1; l <= layers; ++l) {
        const auto& rep = label_inputs.at(c)[l - 1];
        proof.labeling_proofs.push_back({std::vector<fr>(rep.begin(), rep.end()), l, c});
      }
      proof.encoding_proof = proof.labeling_proofs.back();
      c1.partitions[k].push_back(std::move(proof));
    }
  }
  return out;
}

}  // namespace cuzk::circuits
