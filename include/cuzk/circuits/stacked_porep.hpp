// SPDX-License-Identifier: Apache-2.0
#pragma once
// The StackedDRG PoRep circuit (one partition of a PoRep C2), after
// rust-fil-proofs storage-proofs-porep `src/stacked/circuit/` (proof.rs
// StackedCircuit::synthesize and generate_public_inputs, params.rs
// Proof::synthesize, column.rs, column_proof.rs, hash.rs
// hash_single_column, create_label.rs create_label_circuit) and
// storage-proofs-core `src/gadgets/` (por.rs PoRCircuit with Root::Var
// leaf and root, encode.rs, constraint.rs, uint64.rs).
//
// Layout, in bellperson's order (the parameter layout):
//   "replica_id/num", "replica_id_input" (inputize: 1 input + 1 constraint),
//   "replica_id_bits" (to_bits_le: 255 aux + 256 constraints; the bits are
//   reversed per byte for SHA-256), "comm_d/num" + "comm_d_input",
//   "comm_r/num" + "comm_r_input", "comm_r_last/num", "comm_c/num",
//   "H_comm_c_comm_r_last" (Poseidon arity 2: 311),
//   "enforce comm_r = H(comm_c || comm_r_last)" (1)        -> 829 constraints, 3 inputs
// then per challenge i, in "challenge_<i>":
//   "data_leaf/num"
//   "comm_d_inclusion"      por over tree D (binary SHA-256, leaf and root
//                           are existing variables): 1 packed-index input
//   per DRG parent j < 6:   "drg_parent_j_num/column/column_num_row_<l>/num"
//                           (layers aux), "drg_parent_j_constraint" (column
//                           hash: Poseidon arity = layers), "drg_parent_j_inclusion"
//                           (por in tree C, root comm_c): 1 input
//   per expander parent j < 8: the same with "exp_parent_j_..."
//   "challenge"             UInt64::alloc (64 bits), "challenge input" (1 input)
//   per layer l = 1..layers, "labeling_<l>":
//     "drg_parent_<k>_bits" (k < 6) and, for l > 1, "exp_parent_<k>_bits"
//     (k = 6..13): to_bits_le of the parent's row l (expander: row l - 1);
//     "create_label/hash": SHA-256 of replica_id || u32be(l) || u64be(c) ||
//     zeros || 37 parents (1248 bytes, 20 blocks; constant bits fold as in
//     bellperson), "create_label/result_num": the first 254 LE bits packed
//   "encode_node"           key (last label) + data_leaf (1 aux, 1 constraint)
//   "comm_r_last_data_inclusion"  por in tree R_last: 1 input
//   "c_x_column_hash"       Poseidon of the challenge's labels
//   "c_x_inclusion"         por in tree C: 1 input
// 18 inputs per challenge. Counts (tests/unit/stacked_porep_test.cpp,
// ONE included, without the input*0 rows): 32 GiB (11 layers, 18
// challenges, 8-8-0) 130,278,541 constraints / 328 inputs; rust-fil-proofs'
// test shape (8 nodes, 2 layers, 1 challenge, base 8) 1,199,620 / 22.
//
// Public inputs (stacked_porep_public_inputs): replica_id, comm_d, comm_r,
// then per challenge c: c (tree D index), the 6 DRG parents, the 8
// expander parents, c (the UInt64), c (tree R_last), c (tree C). The
// challenges and parents come from porep_challenges.hpp
// (derive_porep_partition_inputs) or are passed in.
//
// Witness: synthesize() into r1cs::witness_cs is the reference path. The
// fast path (stacked_porep_witness in stacked_porep_witness.hpp) fills
// every challenge's fixed-size block of the assignment in parallel.
//
// Costs (Release, loaded 2-core dev host): counting the blank 32 GiB
// circuit 0.14 s (counting_cs; SHA-256 counted by the native path of
// sha256_witness.hpp); shape_cs + evaluation of the 1.2 M-constraint test
// shape ~6 s; the checking CS ~40 s per 1.2 M constraints (tests only);
// witness: see stacked_porep_witness.hpp.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/circuits/porep_challenges.hpp>
#include <cuzk/circuits/sector_tree.hpp>
#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/gadgets/constraint.hpp>
#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/gadgets/multipack.hpp>
#include <cuzk/gadgets/num.hpp>
#include <cuzk/gadgets/poseidon.hpp>
#include <cuzk/gadgets/sha256.hpp>
#include <cuzk/gadgets/uint32.hpp>
#include <cuzk/gadgets/uint64.hpp>
#include <cuzk/io/porep_c1.hpp>
#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::circuits {

using r1cs::fr;

/// storage-proofs-porep stacked/vanilla TOTAL_PARENTS, BASE_DEGREE, EXP_DEGREE.
inline constexpr std::size_t stacked_total_parents = 37;
inline constexpr std::size_t stacked_drg_degree = drg_degree;  // stacked_graph.hpp
inline constexpr std::size_t stacked_exp_degree = exp_degree;
static_assert(stacked_drg_degree == 6 && stacked_exp_degree == 8);

/// The shape of one partition circuit (stacked PublicParams as the circuit sees it).
struct stacked_porep_params {
  std::uint64_t nodes = 0;       ///< sector_size / 32; a power of two
  std::uint32_t layers = 0;      ///< 2 or 11 (the column hash arity)
  std::size_t challenges = 0;    ///< per partition
  merkle_tree_shape tree_shape;  ///< trees R_last and C (Poseidon)

  /// Tree D: binary SHA-256 over the nodes.
  merkle_tree_shape tree_d_shape() const {
    return merkle_tree_shape::for_leaves(nodes, 2, 0, 0, gadgets::merkle_hasher::sha256);
  }
  /// Throws std::invalid_argument when the shape cannot be synthesized.
  void validate() const {
    if (layers != 2 && layers != 11)
      throw std::invalid_argument("porep: " + std::to_string(layers) + " layers (the column hash needs 2 or 11)");
    if (challenges == 0) throw std::invalid_argument("porep: no challenges");
    if (tree_shape.leaves() != nodes)
      throw std::invalid_argument("porep: tree R/C shape has " + std::to_string(tree_shape.leaves()) +
                                  " leaves, the sector " + std::to_string(nodes) + " nodes");
    (void)tree_d_shape();
  }
};

/// The parameters of a production sector size (2 KiB, 8 MiB, 512 MiB: 2
/// layers, 2 challenges; 32 GiB, 64 GiB: 11 layers, 18 challenges; the tree
/// shapes of tree_r_shape); throws std::invalid_argument for other sizes.
inline stacked_porep_params stacked_porep_params_for_size(std::uint64_t sector_size) {
  const bool big = sector_size == (32ull << 30) || sector_size == (64ull << 30);
  const bool small = sector_size == (2ull << 10) || sector_size == (8ull << 20) || sector_size == (512ull << 20);
  if (!big && !small) throw std::invalid_argument("porep: unsupported sector size " + std::to_string(sector_size));
  stacked_porep_params p{sector_size / node_size, big ? 11u : 2u, big ? 18u : 2u, tree_r_shape(sector_size)};
  p.validate();
  return p;
}

/// The parameters of a registered seal proof (nodes, layers, challenges per
/// partition, tree arities).
inline stacked_porep_params stacked_porep_params_for(const io::seal_proof_info& info) {
  stacked_porep_params p{info.nodes, info.layers, info.challenges_per_partition,
                         merkle_tree_shape::for_leaves(info.nodes, info.base_arity, info.sub_arity, info.top_arity)};
  p.validate();
  return p;
}

/// One column opening (ColumnProof): the labels of a node in every layer and
/// the path of its column hash in tree C.
struct stacked_column_witness {
  std::vector<fr> rows;  ///< layers values, layer 1 first
  merkle_path path;
};

/// One challenge's private inputs (params.rs Proof).
struct stacked_challenge_witness {
  std::uint64_t challenge = 0;
  fr data_leaf;
  merkle_path comm_d_path;                          ///< tree D
  merkle_path comm_r_last_path;                     ///< tree R_last (leaf: the encoded node)
  merkle_path comm_c_path;                          ///< tree C (leaf: the challenge's column hash)
  std::vector<stacked_column_witness> drg_parents;  ///< 6
  std::vector<stacked_column_witness> exp_parents;  ///< 8
};

/// The allocated values every challenge refers to.
struct stacked_porep_globals {
  std::vector<gadgets::boolean> replica_id_bits;  ///< 256, per byte MSB first
  std::optional<gadgets::allocated_num> comm_d, comm_c, comm_r_last;
};

/// StackedCircuit: a partition (all values set) or blank (none).
struct stacked_porep_circuit {
  stacked_porep_params params;
  std::optional<fr> replica_id, comm_d, comm_r, comm_r_last, comm_c;
  std::vector<stacked_challenge_witness> proofs;  ///< empty = blank

  bool is_blank() const noexcept { return proofs.empty(); }

  template <r1cs::constraint_system CS>
  void synthesize(CS& cs) const {
    check();
    const stacked_porep_globals g = synthesize_globals(cs);
    for (std::size_t i = 0; i < params.challenges; ++i) {
      r1cs::namespace_guard ns(cs, [i] { return "challenge_" + std::to_string(i); });
      synthesize_challenge(cs, g, i);
    }
  }

  /// Throws std::invalid_argument when a non-blank circuit's witness does not fit params.
  void check() const;

  /// StackedCircuit::synthesize up to the challenge loop.
  template <r1cs::constraint_system CS>
  stacked_porep_globals synthesize_globals(CS& cs) const {
    using gadgets::allocated_num;
    using gadgets::detail::require_value;
    using r1cs::namespace_guard;
    const auto alloc = [&](const char* name, const std::optional<fr>& v) {
      namespace_guard ns(cs, name);
      return allocated_num::alloc(cs, [&] { return require_value(v); });
    };
    const auto inputize = [&](const char* name, const allocated_num& n) {
      namespace_guard ns(cs, name);
      n.inputize(cs);
    };
    stacked_porep_globals g;
    const allocated_num rid = alloc("replica_id", replica_id);
    inputize("replica_id_input", rid);
    {
      namespace_guard ns(cs, "replica_id_bits");
      g.replica_id_bits = gadgets::reverse_bit_numbering(rid.to_bits_le(cs));
    }
    g.comm_d = alloc("comm_d", comm_d);
    inputize("comm_d_input", *g.comm_d);
    const allocated_num comm_r_num = alloc("comm_r", comm_r);
    inputize("comm_r_input", comm_r_num);
    g.comm_r_last = alloc("comm_r_last", comm_r_last);
    g.comm_c = alloc("comm_c", comm_c);
    std::optional<allocated_num> hash;
    {
      namespace_guard ns(cs, "H_comm_c_comm_r_last");
      const std::array<allocated_num, 2> preimage{*g.comm_c, *g.comm_r_last};
      hash = gadgets::poseidon_hash(cs, std::span<const allocated_num>(preimage));
    }
    gadgets::constraint::equal(cs, "enforce comm_r = H(comm_c || comm_r_last)", comm_r_num, *hash);
    return g;
  }

  /// Proof::synthesize for challenge |i| in the caller's namespace.
  template <r1cs::constraint_system CS>
  void synthesize_challenge(CS& cs, const stacked_porep_globals& g, std::size_t i) const {
    using gadgets::allocated_num;
    using gadgets::boolean;
    using gadgets::detail::require_value;
    using r1cs::namespace_guard;
    const stacked_challenge_witness* w = proofs.empty() ? nullptr : &proofs.at(i);
    const std::size_t layers = params.layers;
    const merkle_tree_shape d_shape = params.tree_d_shape();

    std::optional<allocated_num> data_leaf;
    {
      namespace_guard ns(cs, "data_leaf");
      data_leaf = allocated_num::alloc(cs, [&] {
        if (!w) throw r1cs::synthesis_error(r1cs::synthesis_errc::assignment_missing);
        return w->data_leaf;
      });
    }
    {
      namespace_guard ns(cs, "comm_d_inclusion");
      enforce_inclusion(cs, d_shape, w ? &w->comm_d_path : nullptr, *g.comm_d, *data_leaf);
    }

    // column openings of the parents
    const auto open_columns = [&](const char* kind, std::size_t count,
                                  const std::vector<stacked_column_witness>* cols) {
      std::vector<std::vector<allocated_num>> out;
      out.reserve(count);
      for (std::size_t j = 0; j < count; ++j) {
        const stacked_column_witness* col = cols ? &(*cols)[j] : nullptr;
        std::vector<allocated_num> rows;
        rows.reserve(layers);
        {
          namespace_guard ns(cs, [&] { return std::string(kind) + "_" + std::to_string(j) + "_num"; });
          namespace_guard ns2(cs, "column");
          for (std::size_t l = 0; l < layers; ++l) {
            namespace_guard ns3(cs, [l] { return "column_num_row_" + std::to_string(l); });
            rows.push_back(allocated_num::alloc(cs, [&] {
              if (!col) throw r1cs::synthesis_error(r1cs::synthesis_errc::assignment_missing);
              return col->rows[l];
            }));
          }
        }
        std::optional<allocated_num> hash;
        {
          namespace_guard ns(cs, [&] { return std::string(kind) + "_" + std::to_string(j) + "_constraint"; });
          hash = gadgets::poseidon_hash(cs, std::span<const allocated_num>(rows));
        }
        {
          namespace_guard ns(cs, [&] { return std::string(kind) + "_" + std::to_string(j) + "_inclusion"; });
          enforce_inclusion(cs, params.tree_shape, col ? &col->path : nullptr, *g.comm_c, *hash);
        }
        out.push_back(std::move(rows));
      }
      return out;
    };
    const std::vector<std::vector<allocated_num>> drg =
        open_columns("drg_parent", stacked_drg_degree, w ? &w->drg_parents : nullptr);
    const std::vector<std::vector<allocated_num>> exp =
        open_columns("exp_parent", stacked_exp_degree, w ? &w->exp_parents : nullptr);

    // the challenge as a public UInt64
    std::optional<gadgets::uint64> challenge;
    {
      namespace_guard ns(cs, "challenge");
      challenge = gadgets::uint64::alloc(cs, w ? std::optional<std::uint64_t>(w->challenge) : std::nullopt);
    }
    {
      namespace_guard ns(cs, "challenge input");
      challenge->pack_into_input(cs);
    }

    // labels of the challenged node, layer by layer
    std::vector<allocated_num> labels;
    labels.reserve(layers);
    std::vector<std::vector<boolean>> parents;
    for (std::size_t layer = 1; layer <= layers; ++layer) {
      namespace_guard ns(cs, [layer] { return "labeling_" + std::to_string(layer); });
      parents.clear();
      for (const std::vector<allocated_num>& col : drg) {
        const std::size_t k = parents.size();
        namespace_guard nb(cs, [k] { return "drg_parent_" + std::to_string(k) + "_bits"; });
        parents.push_back(gadgets::reverse_bit_numbering(col[layer - 1].to_bits_le(cs)));
      }
      if (layer > 1) {
        for (const std::vector<allocated_num>& col : exp) {
          const std::size_t k = parents.size();
          namespace_guard nb(cs, [k] { return "exp_parent_" + std::to_string(k) + "_bits"; });
          parents.push_back(gadgets::reverse_bit_numbering(col[layer - 2].to_bits_le(cs)));
        }
      }
      namespace_guard nl(cs, "create_label");
      labels.push_back(create_label(cs, g.replica_id_bits, parents, std::uint32_t(layer), *challenge));
    }

    // the encoded node in tree R_last
    {
      std::optional<allocated_num> encoded;
      {
        namespace_guard ns(cs, "encode_node");
        namespace_guard ns2(cs, "encode_add");
        encoded = gadgets::constraint::add(cs, labels.back(), *data_leaf);
      }
      namespace_guard ns(cs, "comm_r_last_data_inclusion");
      enforce_inclusion(cs, params.tree_shape, w ? &w->comm_r_last_path : nullptr, *g.comm_r_last, *encoded);
    }
    // the challenge's column hash in tree C
    {
      std::optional<allocated_num> column_hash;
      {
        namespace_guard ns(cs, "c_x_column_hash");
        column_hash = gadgets::poseidon_hash(cs, std::span<const allocated_num>(labels));
      }
      namespace_guard ns(cs, "c_x_inclusion");
      enforce_inclusion(cs, params.tree_shape, w ? &w->comm_c_path : nullptr, *g.comm_c, *column_hash);
    }
  }

  /// create_label_circuit: SHA-256 of replica_id || u32be(layer) || u64be(node)
  /// || zeros to 64 bytes || the 37 expanded parents (32 bytes each), the
  /// first 254 LE bits of the digest packed into one number.
  template <r1cs::constraint_system CS>
  static gadgets::allocated_num create_label(CS& cs, std::span<const gadgets::boolean> replica_id,
                                             const std::vector<std::vector<gadgets::boolean>>& parents,
                                             std::uint32_t layer, const gadgets::uint64& node) {
    using gadgets::boolean;
    // expanded parents: layer 1 (6 DRG) 6 x 6 + 1; else (14) 14 + 14 + 9
    std::vector<const std::vector<boolean>*> expanded;
    expanded.reserve(stacked_total_parents);
    while (expanded.size() < stacked_total_parents)
      for (const std::vector<boolean>& p : parents) {
        if (expanded.size() == stacked_total_parents) break;
        expanded.push_back(&p);
      }
    std::vector<boolean> msg;
    msg.reserve((2 + stacked_total_parents) * 256);
    msg.assign(replica_id.begin(), replica_id.end());
    while (msg.size() < 256) msg.push_back(boolean::constant(false));
    const gadgets::uint32::bits_type layer_bits = gadgets::uint32::constant(layer).into_bits_be();
    msg.insert(msg.end(), layer_bits.begin(), layer_bits.end());
    const gadgets::uint64::bits_type node_bits = node.to_bits_be();
    msg.insert(msg.end(), node_bits.begin(), node_bits.end());
    while (msg.size() < 512) msg.push_back(boolean::constant(false));
    for (const std::vector<boolean>* p : expanded) {
      msg.insert(msg.end(), p->begin(), p->end());
      while (msg.size() % 256 != 0) msg.push_back(boolean::constant(false));
    }
    if (msg.size() != (2 + stacked_total_parents) * 256)
      throw std::logic_error("porep: label preimage has the wrong size");
    std::vector<boolean> digest;
    {
      r1cs::namespace_guard ns(cs, "hash");
      digest = gadgets::sha256(cs, std::span<const boolean>(msg));
    }
    digest = gadgets::reverse_bit_numbering(std::move(digest));
    r1cs::namespace_guard ns(cs, "result_num");
    return gadgets::pack_bits(cs, std::span<const boolean>(digest).first(gadgets::fr_capacity));
  }

  /// enforce_inclusion (params.rs): PoRCircuit with Root::Var leaf and root,
  /// private root: the path from |leaf|, its index bits as one input, and
  /// computed root == |root|.
  template <r1cs::constraint_system CS>
  static void enforce_inclusion(CS& cs, const merkle_tree_shape& shape, const merkle_path* path,
                                const gadgets::allocated_num& root, const gadgets::allocated_num& leaf) {
    std::vector<gadgets::boolean> bits;
    bits.reserve(shape.index_bits());
    const gadgets::allocated_num computed = gadgets::merkle_auth_path(cs, shape, leaf, path, bits);
    {
      r1cs::namespace_guard ns(cs, "path");
      gadgets::pack_into_inputs(cs, std::span<const gadgets::boolean>(bits));
    }
    gadgets::constraint::equal(cs, "enforce root is correct", computed, root);
  }
};

inline void stacked_porep_circuit::check() const {
  params.validate();
  if (proofs.empty()) return;
  if (!replica_id || !comm_d || !comm_r || !comm_r_last || !comm_c)
    throw std::invalid_argument("porep: a partition circuit needs replica_id, comm_d, comm_r, comm_r_last and comm_c");
  if (proofs.size() != params.challenges)
    throw std::invalid_argument("porep: " + std::to_string(proofs.size()) + " challenge proofs, the partition has " +
                                std::to_string(params.challenges) + " challenges");
  const merkle_tree_shape d_shape = params.tree_d_shape();
  for (std::size_t i = 0; i < proofs.size(); ++i) {
    const stacked_challenge_witness& w = proofs[i];
    const std::string at = "porep: challenge " + std::to_string(i) + ": ";
    try {
      gadgets::check_path(d_shape, w.comm_d_path);
      gadgets::check_path(params.tree_shape, w.comm_r_last_path);
      gadgets::check_path(params.tree_shape, w.comm_c_path);
      if (w.drg_parents.size() != stacked_drg_degree || w.exp_parents.size() != stacked_exp_degree)
        throw std::invalid_argument("expected 6 DRG and 8 expander parent columns");
      for (const auto* cols : {&w.drg_parents, &w.exp_parents})
        for (const stacked_column_witness& c : *cols) {
          if (c.rows.size() != params.layers)
            throw std::invalid_argument("a parent column has " + std::to_string(c.rows.size()) + " rows, expected " +
                                        std::to_string(params.layers));
          gadgets::check_path(params.tree_shape, c.path);
        }
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(at + e.what());
    }
  }
}

/// A blank circuit (shape, parameter generation, counting).
inline stacked_porep_circuit blank_stacked_porep_circuit(const stacked_porep_params& params) {
  params.validate();
  return {params, {}, {}, {}, {}, {}, {}};
}

/// One challenge's public data: the challenged node and its parents.
struct stacked_challenge_parents {
  std::uint64_t challenge = 0;
  std::array<std::uint64_t, stacked_drg_degree> drg{};
  std::array<std::uint64_t, stacked_exp_degree> exp{};
};

/// StackedCompound::generate_public_inputs (ONE excluded): replica_id,
/// comm_d, comm_r, then per challenge c: c, the DRG parents, the expander
/// parents, c, c, c (each inclusion's packed index; the UInt64 challenge).
inline std::vector<fr> stacked_porep_public_inputs(const fr& replica_id, const fr& comm_d, const fr& comm_r,
                                                   std::span<const stacked_challenge_parents> challenges) {
  std::vector<fr> r;
  r.reserve(3 + 18 * challenges.size());
  r.push_back(replica_id);
  r.push_back(comm_d);
  r.push_back(comm_r);
  for (const stacked_challenge_parents& c : challenges) {
    const fr x = fr::from_uint(c.challenge);
    r.push_back(x);
    for (std::uint64_t p : c.drg) r.push_back(fr::from_uint(p));
    for (std::uint64_t p : c.exp) r.push_back(fr::from_uint(p));
    r.push_back(x);
    r.push_back(x);
    r.push_back(x);
  }
  return r;
}

/// The canonical Fr whose 32 little-endian bytes are |b|; throws
/// std::invalid_argument naming |what| when it is not canonical.
inline fr fr_from_c1_bytes(const io::bytes32& b, const char* what);

/// The same from the graph helper's partition data
/// (derive_porep_partition_inputs: challenges and parents from the graph).
inline std::vector<fr> stacked_porep_public_inputs(const porep_partition_inputs& in) {
  std::vector<stacked_challenge_parents> cs;
  cs.reserve(in.challenges.size());
  for (const porep_challenge_parents& c : in.challenges) {
    stacked_challenge_parents x;
    x.challenge = c.challenge;
    std::copy(c.drg.begin(), c.drg.end(), x.drg.begin());
    std::copy(c.exp.begin(), c.exp.end(), x.exp.begin());
    cs.push_back(x);
  }
  return stacked_porep_public_inputs(fr_from_c1_bytes(in.replica_id, "replica_id"),
                                     fr_from_c1_bytes(in.comm_d, "comm_d"), fr_from_c1_bytes(in.comm_r, "comm_r"), cs);
}

/// The canonical Fr whose 32 little-endian bytes are |b|; throws
/// std::invalid_argument naming |what| when it is not canonical.
inline fr fr_from_c1_bytes(const io::bytes32& b, const char* what) {
  const std::optional<fr> x = fr::from_bytes_le(b.data());
  if (!x) throw std::invalid_argument(std::string("porep: ") + what + " is not a canonical field element");
  return *x;
}

/// StackedCompound::circuit for partition |k| of a C1 output: the circuit
/// witness from the vanilla proofs (paths, parent columns, data leaf,
/// challenge = labeling_proofs[0].node), comm_r_last and comm_c from the
/// first challenge's comm_r_last / c_x inclusion roots (all must agree).
inline stacked_porep_circuit stacked_porep_circuit_from_c1(const stacked_porep_params& params, const io::c1_output& c1,
                                                           std::size_t k) {
  params.validate();
  if (k >= c1.partitions.size())
    throw std::invalid_argument("porep: partition " + std::to_string(k) + " of " +
                                std::to_string(c1.partitions.size()));
  const std::vector<io::porep_challenge_proof>& vp = c1.partitions[k];
  if (vp.empty()) throw std::invalid_argument("porep: cannot create a circuit with no vanilla proofs");
  stacked_porep_circuit c{params,
                          fr_from_c1_bytes(c1.replica_id, "replica_id"),
                          fr_from_c1_bytes(c1.comm_d, "comm_d"),
                          fr_from_c1_bytes(c1.comm_r, "comm_r"),
                          vp[0].comm_r_last_proof.root,
                          vp[0].c_x.inclusion_proof.root,
                          {}};
  const merkle_tree_shape d_shape = params.tree_d_shape();
  for (std::size_t i = 0; i < vp.size(); ++i) {
    const io::porep_challenge_proof& p = vp[i];
    const std::string at = "porep: partition " + std::to_string(k) + " challenge " + std::to_string(i) + ": ";
    if (p.comm_r_last_proof.root != *c.comm_r_last) throw std::invalid_argument(at + "inconsistent comm_r_lasts");
    if (p.c_x.inclusion_proof.root != *c.comm_c) throw std::invalid_argument(at + "inconsistent comm_cs");
    if (p.labeling_proofs.empty()) throw std::invalid_argument(at + "no labeling proofs");
    try {
      stacked_challenge_witness w;
      w.challenge = p.challenge();
      w.data_leaf = p.comm_d_proof.leaf;
      w.comm_d_path = merkle_path_from_proof(d_shape, p.comm_d_proof);
      w.comm_r_last_path = merkle_path_from_proof(params.tree_shape, p.comm_r_last_proof);
      w.comm_c_path = merkle_path_from_proof(params.tree_shape, p.c_x.inclusion_proof);
      for (const auto& [src, dst] :
           {std::pair{&p.drg_parents, &w.drg_parents}, std::pair{&p.exp_parents, &w.exp_parents}})
        for (const io::porep_column_proof& col : *src)
          dst->push_back({col.rows, merkle_path_from_proof(params.tree_shape, col.inclusion_proof)});
      c.proofs.push_back(std::move(w));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(at + e.what());
    }
  }
  c.check();
  return c;
}

}  // namespace cuzk::circuits
