// SPDX-License-Identifier: Apache-2.0
// check_porep_c1: the vanilla verifier's checks on a C1 output, natively
// (see porep_generator.hpp). Every problem found is reported with its place;
// nothing stops at the first one.
#include <cuzk/circuits/porep_generator.hpp>

#include <algorithm>
#include <bit>
#include <optional>
#include <sstream>
#include <string>

#include <tbb/parallel_for.h>

#include <cuzk/circuits/porep_challenges.hpp>
#include <cuzk/circuits/porep_labels.hpp>
#include <cuzk/circuits/stacked_graph.hpp>
#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/gadgets/poseidon.hpp>

namespace cuzk::circuits {
namespace {

using ff::fr;
using gadgets::merkle_hasher;
using gadgets::merkle_tree_shape;

class problems {
 public:
  explicit problems(std::vector<std::string>& out) : _out(out) {}
  void add(const std::string& where, const std::string& what) { _out.push_back(where + ": " + what); }

 private:
  std::vector<std::string>& _out;
};

// Recomputes the root of |p| and checks its shape, leaf index and root.
void check_merkle(problems& pr, const std::string& where, const io::merkle_proof& p, const merkle_tree_shape& shape,
                  std::uint64_t index, const fr& root) {
  const io::merkle_proof_kind kind = shape.top_arity   ? io::merkle_proof_kind::top
                                     : shape.sub_arity ? io::merkle_proof_kind::sub
                                                       : io::merkle_proof_kind::single;
  if (p.kind != kind) pr.add(where, "wrong ProofData variant");
  std::vector<const io::merkle_path_element*> levels;
  for (const auto* part : {&p.base, &p.sub, &p.top})
    for (const auto& e : *part) levels.push_back(&e);
  if (levels.size() != shape.levels() || p.base.size() != shape.base_levels) {
    pr.add(where, "path has " + std::to_string(levels.size()) + " levels, the tree " + std::to_string(shape.levels()));
    return;
  }
  fr cur = p.leaf;
  std::uint64_t leaf_index = 0, mult = 1;
  std::vector<fr> children;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const std::size_t a = shape.arity(l);
    const io::merkle_path_element& e = *levels[l];
    if (e.hashes.size() != a - 1 || e.index >= a) {
      pr.add(where, "level " + std::to_string(l) + " does not fit arity " + std::to_string(a));
      return;
    }
    children.assign(e.hashes.begin(), e.hashes.end());
    children.insert(children.begin() + std::ptrdiff_t(e.index), cur);
    cur = gadgets::merkle_hash_children(shape.hasher, children);
    leaf_index += e.index * mult;
    mult *= a;
  }
  if (leaf_index != index)
    pr.add(where, "proves leaf " + std::to_string(leaf_index) + ", not " + std::to_string(index));
  if (cur != p.root) pr.add(where, "path does not hash to its root");
  if (p.root != root) pr.add(where, "root is not the commitment");
}

std::optional<fr> fr_of(const io::bytes32& b) { return fr::from_bytes_le(b.data()); }

}  // namespace

std::vector<std::string> check_porep_c1(const io::c1_output& c1) {
  std::vector<std::string> out;
  problems top(out);
  if (!c1.proof) {
    top.add("c1", "no registered proof");
    return out;
  }
  const io::seal_proof_info& info = *c1.proof;
  const stacked_graph graph = stacked_graph::for_proof(info);
  const merkle_tree_shape shape_c =
      merkle_tree_shape::for_leaves(info.nodes, info.base_arity, info.sub_arity, info.top_arity);
  const merkle_tree_shape shape_d = merkle_tree_shape::for_leaves(info.nodes, 2, 0, 0, merkle_hasher::sha256);
  const std::optional<fr> comm_d = fr_of(c1.comm_d), comm_r = fr_of(c1.comm_r), rid = fr_of(c1.replica_id);
  if (!comm_d || !comm_r || !rid) {
    top.add("c1", "comm_d, comm_r or replica_id is not a canonical Fr");
    return out;
  }
  if (c1.partitions.size() != info.partitions)
    top.add("c1", std::to_string(c1.partitions.size()) + " partitions, want " + std::to_string(info.partitions));

  // Every path must meet the same tree C and R_last roots: the first
  // challenge's stand for them (comm_r below ties them to the commitment).
  std::optional<fr> comm_c, comm_r_last;
  for (const auto& part : c1.partitions)
    if (!part.empty()) {
      comm_c = part[0].c_x.inclusion_proof.root;
      comm_r_last = part[0].comm_r_last_proof.root;
      break;
    }
  // Partitions are independent: checked in parallel (32 GiB: 10 of them,
  // ~0.4 s of one core each), reported in partition order.
  const std::uint32_t nparts = std::uint32_t(std::min<std::size_t>(c1.partitions.size(), info.partitions));
  std::vector<std::vector<std::string>> per_part(nparts);
  tbb::parallel_for(std::uint32_t(0), nparts, [&](std::uint32_t k) {
    problems pr(per_part[k]);
    const std::vector<std::uint64_t> want = porep_partition_challenges(info, c1.replica_id, c1.comm_r, c1.seed, k);
    const auto& part = c1.partitions[k];
    if (part.size() != want.size())
      pr.add("partition " + std::to_string(k),
             std::to_string(part.size()) + " challenges, want " + std::to_string(want.size()));
    for (std::size_t i = 0; i < part.size() && i < want.size(); ++i) {
      const io::porep_challenge_proof& p = part[i];
      const std::uint64_t c = want[i];
      const std::string at =
          "partition " + std::to_string(k) + " challenge " + std::to_string(i) + " (node " + std::to_string(c) + ")";
      if (p.labeling_proofs.size() != info.layers) {
        pr.add(at, "labeling_proofs has " + std::to_string(p.labeling_proofs.size()) + " layers");
        continue;
      }
      if (p.challenge() != c) pr.add(at, "labeling_proofs[0].node is " + std::to_string(p.challenge()));
      if (p.drg_parents.size() != drg_degree || p.exp_parents.size() != exp_degree) {
        pr.add(at, "wrong number of parent columns");
        continue;
      }

      check_merkle(pr, at + ": comm_d_proofs", p.comm_d_proof, shape_d, c, *comm_d);
      const auto parents = graph.parents(std::uint32_t(c));
      const auto check_column = [&](const std::string& where, const io::porep_column_proof& col, std::uint64_t node) {
        if (col.index != node)
          pr.add(where, "column of node " + std::to_string(col.index) + ", want " + std::to_string(node));
        if (col.rows.size() != info.layers) {
          pr.add(where, "column has " + std::to_string(col.rows.size()) + " rows");
          return false;
        }
        if (gadgets::poseidon_hash(col.rows) != col.inclusion_proof.leaf) pr.add(where, "leaf is not the column hash");
        check_merkle(pr, where + ".inclusion_proof", col.inclusion_proof, shape_c, node, *comm_c);
        return true;
      };
      bool columns_ok = check_column(at + ": c_x", p.c_x, c);
      for (std::size_t j = 0; j < drg_degree; ++j)
        columns_ok &= check_column(at + ": drg_parents[" + std::to_string(j) + "]", p.drg_parents[j], parents[j]);
      for (std::size_t j = 0; j < exp_degree; ++j)
        columns_ok &=
            check_column(at + ": exp_parents[" + std::to_string(j) + "]", p.exp_parents[j], parents[drg_degree + j]);
      if (!columns_ok) continue;

      for (std::uint32_t l = 1; l <= info.layers; ++l) {
        std::array<fr, graph_degree> direct;
        for (std::size_t j = 0; j < drg_degree; ++j) direct[j] = p.drg_parents[j].rows[l - 1];
        for (std::size_t j = 0; l > 1 && j < exp_degree; ++j) direct[drg_degree + j] = p.exp_parents[j].rows[l - 2];
        const auto rep = repeat_label_parents(std::span<const fr>(direct.data(), l == 1 ? drg_degree : graph_degree));
        const std::string lat = at + ": layer " + std::to_string(l);
        if (porep_label(c1.replica_id, l, c, rep) != p.c_x.rows[l - 1]) pr.add(lat, "label does not match c_x");
        const io::porep_labeling_proof& lp = p.labeling_proofs[l - 1];
        if (lp.layer_index != l || lp.node != c ||
            !std::equal(rep.begin(), rep.end(), lp.parents.begin(), lp.parents.end()))
          pr.add(lat, "labeling proof differs from the columns");
      }
      const io::porep_labeling_proof& last = p.labeling_proofs.back();
      if (p.encoding_proof != last) pr.add(at, "encoding_proof differs from the last labeling proof");
      if (p.comm_r_last_proof.leaf != p.c_x.rows.back() + p.comm_d_proof.leaf)
        pr.add(at + ": comm_r_last_proof", "leaf is not last label + data leaf");
      check_merkle(pr, at + ": comm_r_last_proof", p.comm_r_last_proof, shape_c, c, *comm_r_last);
    }
  });
  for (auto& v : per_part)
    for (auto& m : v) out.push_back(std::move(m));
  if (comm_c && comm_r_last) {
    const fr pair[2] = {*comm_c, *comm_r_last};
    if (gadgets::poseidon_hash(pair) != *comm_r) top.add("c1", "comm_r is not Poseidon(comm_c, comm_r_last)");
  }
  return out;
}

}  // namespace cuzk::circuits
