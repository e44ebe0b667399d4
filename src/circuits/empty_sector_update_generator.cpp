// SPDX-License-Identifier: Apache-2.0
// Synthetic SnapDeals partition proofs and the native vanilla verifier; the
// method (implicit periodic trees) and its costs are described in
// empty_sector_update_generator.hpp.
#include <cuzk/circuits/empty_sector_update_generator.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

#include <cuzk/circuits/empty_sector_update_challenges.hpp>
#include <cuzk/circuits/sector_tree.hpp>
#include <cuzk/circuits/porep_hashes.hpp>
#include <cuzk/circuits/detail/generator_random.hpp>
#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/gadgets/native_sha256.hpp>
#include <cuzk/gadgets/poseidon.hpp>

namespace cuzk::circuits {
namespace {

using ff::fr;
using gadgets::merkle_tree_shape;

constexpr std::uint64_t block_period = 64;

class random_source : public detail::generator_random {
 public:
  explicit random_source(std::uint64_t seed) : generator_random("cuzk synthetic snap", seed) {}
};

// A fully defined tree whose leaves repeat with |period| inside segments of
// 2^|segment_bits| leaves (segment_bits >= 64: one segment). Nodes are
// memoized by (level, segment, position in the period) while they lie in
// one segment, by (level, position) above that.
class implicit_tree {
 public:
  implicit_tree(const merkle_tree_shape& shape, std::uint64_t period, std::size_t segment_bits,
                std::function<fr(std::uint64_t)> leaf)
      : _shape(shape), _period(period), _segment_bits(segment_bits), _leaf(std::move(leaf)) {
    std::uint64_t span = 1;
    for (std::size_t l = 0; l <= shape.levels(); ++l) {
      _span.push_back(span);
      if (l < shape.levels()) span *= shape.arity(l);
    }
  }

  fr node(std::size_t level, std::uint64_t pos) const {
    if (level == 0) return _leaf(pos);
    const std::uint64_t span = _span[level];
    const std::uint64_t first = pos * span;
    std::tuple<std::size_t, std::uint64_t, std::uint64_t> key;
    if (_segment_bits < 64 && span > (std::uint64_t(1) << _segment_bits)) {
      key = {level, pos, ~std::uint64_t(0)};
    } else {
      const std::uint64_t seg = _segment_bits < 64 ? first >> _segment_bits : 0;
      key = {level, seg, span < _period ? (first % _period) / span : 0};
    }
    if (const auto it = _memo.find(key); it != _memo.end()) return it->second;
    const std::size_t a = _shape.arity(level - 1);
    std::vector<fr> children(a);
    for (std::size_t j = 0; j < a; ++j) children[j] = node(level - 1, pos * a + j);
    const fr v = gadgets::merkle_hash_children(_shape.hasher, children);
    _memo.emplace(key, v);
    return v;
  }
  fr root() const { return node(_shape.levels(), 0); }

  io::merkle_proof proof(std::uint64_t leaf) const {
    io::merkle_proof p;
    p.kind = _shape.top_arity   ? io::merkle_proof_kind::top
             : _shape.sub_arity ? io::merkle_proof_kind::sub
                                : io::merkle_proof_kind::single;
    p.leaf = node(0, leaf);
    p.root = root();
    std::uint64_t pos = leaf;
    for (std::size_t l = 0; l < _shape.levels(); ++l) {
      const std::uint64_t a = _shape.arity(l);
      io::merkle_path_element e;
      e.index = pos % a;
      for (std::uint64_t j = pos - pos % a; j < pos - pos % a + a; ++j)
        if (j != pos) e.hashes.push_back(node(l, j));
      if (l < _shape.base_levels) p.base.push_back(std::move(e));
      else if (l == _shape.base_levels && _shape.sub_arity) p.sub.push_back(std::move(e));
      else p.top.push_back(std::move(e));
      pos /= a;
    }
    return p;
  }

 private:
  merkle_tree_shape _shape;
  std::uint64_t _period;
  std::size_t _segment_bits;
  std::function<fr(std::uint64_t)> _leaf;
  std::vector<std::uint64_t> _span;
  mutable std::map<std::tuple<std::size_t, std::uint64_t, std::uint64_t>, fr> _memo;
};

fr poseidon2(const fr& a, const fr& b) {
  const fr pre[2] = {a, b};
  return gadgets::poseidon_hash(std::span<const fr>(pre, 2));
}

std::size_t resolve_h(const snap_params& p, std::size_t h) {
  if (h == 0) h = p.h_default();
  (void)snap_h_select(p.sector_nodes, h);  // throws for an h the size does not allow
  return h;
}

}  // namespace

synthetic_snap generate_synthetic_snap(const snap_params& p, std::uint64_t seed, std::size_t h) {
  h = resolve_h(p, h);
  random_source rnd(seed);
  const std::uint64_t period = std::min(block_period, p.sector_nodes);
  std::vector<fr> data(period), old_replica(period);
  for (fr& x : data) x = rnd.element();
  for (fr& x : old_replica) x = rnd.element();
  const fr comm_c = rnd.element();

  const merkle_tree_shape d_shape = p.tree_d_shape();
  const implicit_tree tree_d(d_shape, period, 64, [&](std::uint64_t i) { return data[i % period]; });
  const implicit_tree tree_r_old(p.tree_r_shape, period, 64, [&](std::uint64_t i) { return old_replica[i % period]; });
  synthetic_snap out;
  out.params = p;
  out.pub.h = h;
  out.pub.comm_d_new = tree_d.root();
  out.pub.comm_r_old = poseidon2(comm_c, tree_r_old.root());
  const fr phi = snap_phi(out.pub.comm_d_new, out.pub.comm_r_old);
  const std::size_t shr = p.challenge_bit_len - h;
  std::map<std::uint64_t, fr> rhos;
  const auto rho = [&](std::uint64_t high) {
    auto it = rhos.find(high);
    if (it == rhos.end()) it = rhos.emplace(high, snap_rho(phi, high)).first;
    return it->second;
  };
  const implicit_tree tree_r_new(p.tree_r_shape, period, shr, [&](std::uint64_t i) {
    return old_replica[i % period] + data[i % period] * rho(i >> shr);
  });
  out.pub.comm_r_new = poseidon2(comm_c, tree_r_new.root());

  for (std::size_t k = 0; k < p.partition_count; ++k) {
    io::snap_partition_proof part;
    part.comm_c = comm_c;
    for (std::size_t i = 0; i < p.apex_leaf_count; ++i)
      part.apex_leafs.push_back(tree_d.node(p.apex_leafs_height(), k * p.apex_leaf_count + i));
    for (std::uint64_t c : snap_challenges(p, out.pub.comm_r_new, k))
      part.challenge_proofs.push_back({tree_r_old.proof(c), tree_d.proof(c), tree_r_new.proof(c)});
    out.partitions.push_back(std::move(part));
  }
  return out;
}

std::vector<std::string> check_snap_partition(const snap_params& p, const snap_public& pub, std::size_t k,
                                              const io::snap_partition_proof& proof) {
  std::vector<std::string> problems;
  const std::string at = "partition " + std::to_string(k) + ": ";
  if (k >= p.partition_count) return {at + "beyond the partition count " + std::to_string(p.partition_count)};
  const auto hs = snap_hs(p.sector_nodes);
  if (std::find(hs.begin(), hs.end(), pub.h) == hs.end())
    return {at + "h = " + std::to_string(pub.h) + " is not allowed"};
  if (proof.apex_leafs.size() != p.apex_leaf_count)
    problems.push_back(at + std::to_string(proof.apex_leafs.size()) + " apex leaves, expected " +
                       std::to_string(p.apex_leaf_count));
  if (proof.challenge_proofs.size() != p.challenge_count)
    problems.push_back(at + std::to_string(proof.challenge_proofs.size()) + " challenge proofs, expected " +
                       std::to_string(p.challenge_count));
  if (!problems.empty()) return problems;

  // The apex tree; its root is the tree D node of partition k at height
  // challenge_bit_len - partition_bit_len.
  std::vector<std::vector<fr>> apex{proof.apex_leafs};
  while (apex.back().size() > 1) {
    std::vector<fr> up(apex.back().size() / 2);
    for (std::size_t i = 0; i < up.size(); ++i)
      up[i] =
          gadgets::merkle_hash_children(gadgets::merkle_hasher::sha256, std::span<const fr>(&apex.back()[2 * i], 2));
    apex.push_back(std::move(up));
  }
  const fr root_r_old = proof.challenge_proofs[0].proof_r_old.root;
  const fr root_r_new = proof.challenge_proofs[0].proof_r_new.root;
  if (poseidon2(proof.comm_c, root_r_old) != pub.comm_r_old)
    problems.push_back(at + "comm_r_old != H(comm_c, root_r_old)");
  if (poseidon2(proof.comm_c, root_r_new) != pub.comm_r_new)
    problems.push_back(at + "comm_r_new != H(comm_c, root_r_new)");

  const merkle_tree_shape d_shape = p.tree_d_shape();
  const fr phi = snap_phi(pub.comm_d_new, pub.comm_r_old);
  const std::vector<std::uint64_t> challenges = snap_challenges(p, pub.comm_r_new, k);
  const std::size_t apex_height = p.apex_leafs_height();
  for (std::size_t i = 0; i < challenges.size(); ++i) {
    const std::uint64_t c = challenges[i];
    const io::snap_challenge_proof& cp = proof.challenge_proofs[i];
    const std::string here = at + "challenge " + std::to_string(i) + " (node " + std::to_string(c) + "): ";
    const auto check_opening = [&](const char* name, const merkle_tree_shape& shape, const io::merkle_proof& mp,
                                   const fr& root) {
      try {
        const gadgets::merkle_path path = merkle_path_from_proof(shape, mp);
        if (gadgets::path_leaf_index(shape, path) != c)
          problems.push_back(here + name + ": opens leaf " + std::to_string(gadgets::path_leaf_index(shape, path)));
        else if (mp.root != root) problems.push_back(here + name + ": root differs from the partition's");
        else if (gadgets::merkle_root_from_path(shape, mp.leaf, path) != mp.root)
          problems.push_back(here + name + ": path does not hash to its root");
      } catch (const std::invalid_argument& e) {
        problems.push_back(here + name + ": " + e.what());
      }
    };
    check_opening("proof_r_old", p.tree_r_shape, cp.proof_r_old, root_r_old);
    check_opening("proof_d_new", d_shape, cp.proof_d_new, pub.comm_d_new);
    check_opening("proof_r_new", p.tree_r_shape, cp.proof_r_new, root_r_new);
    const fr rho = snap_rho(phi, snap_high_bits(p, c, pub.h));
    if (cp.proof_r_old.leaf + cp.proof_d_new.leaf * rho != cp.proof_r_new.leaf)
      problems.push_back(here + "new replica leaf != old leaf + data leaf * rho");
    if (p.variant != snap_variant::sha256 || cp.proof_d_new.base.size() != p.challenge_bit_len) continue;
    // The tree D node at the apex height must be this partition's apex leaf,
    // and the path above the apex tree must be challenge 0's.
    // (and the apex tree's root).
    fr cur = cp.proof_d_new.leaf;
    const std::uint64_t apex_index = (c >> apex_height) & (p.apex_leaf_count - 1);
    for (std::size_t l = 0; l < apex_height + p.apex_leaf_bit_len; ++l) {
      if (l == apex_height && cur != proof.apex_leafs[apex_index]) {
        problems.push_back(here + "tree D path does not pass through apex leaf " + std::to_string(apex_index));
        break;
      }
      const io::merkle_path_element& e = cp.proof_d_new.base[l];
      if (e.hashes.size() != 1) break;
      const fr two[2] = {e.index ? e.hashes[0] : cur, e.index ? cur : e.hashes[0]};
      cur = gadgets::merkle_hash_children(gadgets::merkle_hasher::sha256, two);
      if (l + 1 == apex_height + p.apex_leaf_bit_len && cur != apex.back()[0])
        problems.push_back(here + "tree D path does not pass through the apex tree's root");
    }
    for (std::size_t l = p.challenge_bit_len - p.partition_bit_len; l < p.challenge_bit_len; ++l)
      if (cp.proof_d_new.base[l].hashes != proof.challenge_proofs[0].proof_d_new.base[l].hashes) {
        problems.push_back(here + "tree D partition path differs from challenge 0's");
        break;
      }
  }
  return problems;
}

}  // namespace cuzk::circuits
