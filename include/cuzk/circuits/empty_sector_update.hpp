// SPDX-License-Identifier: Apache-2.0
#pragma once
// The SnapDeals (EmptySectorUpdate) partition circuit, both published
// variants, after rust-fil-proofs storage-proofs-update `src/circuit.rs`
// (EmptySectorUpdateCircuit::synthesize, SHA-256 tree D) and
// `src/poseidon/circuit.rs` (the Poseidon tree D variant), with the gadgets
// of empty_sector_update_gadgets.hpp.
//
// Layout (sha256 variant), in bellperson's order:
//   "k_and_h_select" num, inputized; its partition_bit_len + 6 low bits
//   ("k_and_h_select_bit_i") and "k_and_h_select binary decomp";
//   "pack partition bits" (the partition index k as one number);
//   "comm_r_old", "comm_d_new", "comm_r_new": each a num, inputized;
//   "phi" = Poseidon_custom(comm_d_new, comm_r_old);
//   "comm_c", "root_r_old", "root_r_new", "apex_leaf_i", "partition_path_sibling_i";
//   "comm_r_old_calc" = Poseidon2(comm_c, root_r_old) == comm_r_old (and new);
//   "apex_gadget": the apex tree of this partition's apex leaves and its
//   path to comm_d_new; "gen_challenge_bits" from comm_r_new and k;
//   per challenge c (random bits ++ partition bits, LE):
//     c_high (the h high bits, h picked by h_select), rho = Poseidon_custom(phi, c_high),
//     "leaf_r_old", "leaf_d_new", leaf_r_new = leaf_r_old + leaf_d_new * rho,
//     tree R old path to root_r_old, tree R new path to root_r_new (Poseidon,
//     tree R's shape, positions = c's bits), the apex leaf selected by c's
//     apex bits, and c's tree D path (binary SHA-256) up to that apex leaf.
// Public inputs (ONE excluded): k_and_h_select = k | h_select << partition_bit_len,
// comm_r_old, comm_d_new, comm_r_new (compound.rs generate_public_inputs).
// Poseidon variant: public "h_select" (6 bits), no partition bits, no apex
// tree; the challenge bits come from an unconstrained zero "partition"; each
// challenge's tree D path is a Poseidon path of tree R's shape to comm_d_new.
//
// Published counts (ONE + circuit, no input*0 rows; storage-proofs-update
// tests/circuit.rs and tests/circuit_poseidon.rs): 32 GiB 81,049,499
// (sha256) and 22,305,906 (poseidon); 2 KiB 1,705,039 (sha256).
//
// Witness paths: each challenge's merkle_path holds the siblings level by
// level (indices are not used by the circuit: positions come from the
// challenge bits, which the circuit derives itself; a path opened at
// another leaf fails the root check). Blank circuit: no proofs.
//
// Costs: counting the 32 GiB circuit takes well under a second; the
// constraints are dominated by SHA-256 (tree D: 86 challenges x 19 levels
// plus the 127-node apex tree at 32 GiB, ~45 K constraints each). The
// witness costs the native hashes (sha256_witness.hpp fast path).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/circuits/empty_sector_update_gadgets.hpp>
#include <cuzk/circuits/empty_sector_update_params.hpp>
#include <cuzk/gadgets/insertion.hpp>
#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::circuits {

/// One challenge's openings (circuit.rs ChallengeProof).
struct snap_challenge_witness {
  r1cs::fr leaf_r_old, leaf_d_new, leaf_r_new;
  gadgets::merkle_path path_r_old, path_d_new, path_r_new;
};

/// EmptySectorUpdateCircuit for one partition (all values set) or blank (none).
struct snap_circuit {
  snap_params params;
  /// sha256: k_and_h_select; poseidon: h_select.
  std::optional<r1cs::fr> k_and_h_select, comm_r_old, comm_d_new, comm_r_new;
  std::optional<r1cs::fr> comm_c, root_r_old, root_r_new;
  std::vector<r1cs::fr> apex_leafs;            ///< sha256 variant: this partition's apex leaves
  std::vector<snap_challenge_witness> proofs;  ///< empty = blank

  bool is_blank() const noexcept { return proofs.empty(); }

  /// Throws std::invalid_argument when a non-blank circuit does not fit its
  /// params (counts, path shapes, k and h_select, apex leaves), as the Rust
  /// circuit's asserts would panic.
  void check() const;

  template <r1cs::constraint_system CS>
  void synthesize(CS& cs) const {
    check();
    if (params.variant == snap_variant::sha256) synthesize_sha256(cs);
    else synthesize_poseidon(cs);
  }

 private:
  using allocated_bit = gadgets::allocated_bit;
  using allocated_num = gadgets::allocated_num;
  using fr = r1cs::fr;
  using paths = std::vector<std::vector<allocated_num>>;

  // Sibling j of level l of |path| in |shape|, or nothing in a blank circuit.
  static std::optional<fr> sibling(const gadgets::merkle_path* path, const gadgets::merkle_tree_shape& shape,
                                   std::size_t level, std::size_t j) {
    if (!path) return std::nullopt;
    std::size_t off = 0;
    for (std::size_t l = 0; l < level; ++l) off += shape.arity(l) - 1;
    return path->siblings.at(off + j);
  }

  // The k_and_h_select / h_select bits: |n| low bits, "<name>_bit_i", "<name> binary decomp".
  template <r1cs::constraint_system CS>
  static std::vector<allocated_bit> decompose(CS& cs, const allocated_num& x, std::size_t n, const char* name) {
    std::optional<fr::limbs> limbs;
    if (x.get_value()) limbs = x.get_value()->to_canonical();
    std::vector<allocated_bit> bits;
    bits.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::optional<bool> b;
      if (limbs) b = (((*limbs)[i / 64] >> (i % 64)) & 1) == 1;
      r1cs::namespace_guard ns(cs, [name, i] { return std::string(name) + "_bit_" + std::to_string(i); });
      bits.push_back(allocated_bit::alloc(cs, b));
    }
    const r1cs::variable vx = x.get_variable();
    cs.enforce([name] { return std::string(name) + " binary decomp"; },
               [&](r1cs::linear_combination lc) {
                 fr pow2 = fr::one();
                 for (const allocated_bit& b : bits) {
                   lc.add(pow2, b.get_variable());
                   pow2 = pow2.dbl();
                 }
                 return lc;
               },
               [](r1cs::linear_combination lc) { return lc + CS::one(); },
               [&](r1cs::linear_combination lc) { return lc + vx; });
    return bits;
  }

  template <r1cs::constraint_system CS>
  static allocated_num alloc_public(CS& cs, const char* name, const char* input_name, const std::optional<fr>& v) {
    const allocated_num n = snap_gadgets::alloc_num(cs, name, v);
    r1cs::namespace_guard ns(cs, input_name);
    n.inputize(cs);
    return n;
  }

  // The part both variants allocate alike, in bellperson's order: the three
  // public commitments, phi = Poseidon(comm_d_new, comm_r_old) with the
  // randomness domain tag, then comm_c and the two tree R roots.
  struct commitments {
    allocated_num comm_r_old, comm_d_new, comm_r_new, phi, comm_c, root_r_old, root_r_new;
  };
  template <r1cs::constraint_system CS>
  commitments alloc_commitments(CS& cs) const {
    const allocated_num r_old = alloc_public(cs, "comm_r_old", "comm_r_old_input", comm_r_old);
    const allocated_num d_new = alloc_public(cs, "comm_d_new", "comm_d_new_input", comm_d_new);
    const allocated_num r_new = alloc_public(cs, "comm_r_new", "comm_r_new_input", comm_r_new);
    std::optional<allocated_num> phi;
    {
      r1cs::namespace_guard ns(cs, "phi");
      const allocated_num pre[2] = {d_new, r_old};
      phi =
          gadgets::poseidon_hash(cs, std::span<const allocated_num>(pre, 2), snap_gadgets::gen_randomness_hash_type());
    }
    const allocated_num c = snap_gadgets::alloc_num(cs, "comm_c", comm_c);
    const allocated_num root_old = snap_gadgets::alloc_num(cs, "root_r_old", root_r_old);
    const allocated_num root_new = snap_gadgets::alloc_num(cs, "root_r_new", root_r_new);
    return {r_old, d_new, r_new, *phi, c, root_old, root_new};
  }

  // comm_r_{old,new}_calc = Poseidon2(comm_c, root) == comm_r.
  template <r1cs::constraint_system CS>
  static void enforce_comm_r(CS& cs, const char* calc_name, const char* enforce_name, const allocated_num& comm_c,
                             const allocated_num& root, const allocated_num& comm_r) {
    std::optional<allocated_num> calc;
    {
      r1cs::namespace_guard ns(cs, calc_name);
      const allocated_num pre[2] = {comm_c, root};
      calc = gadgets::poseidon_hash(cs, std::span<const allocated_num>(pre, 2));
    }
    gadgets::constraint::equal(cs, enforce_name, *calc, comm_r);
  }

  // The siblings of |shape|'s levels [first, first + count) of |path| as
  // "<what> sibling (c_index=C, tree_row=R, sibling_index=J)" nums (the
  // tree D path omits sibling_index: "path_to_apex_leaf sibling (c_index=C, tree_row=R)").
  template <r1cs::constraint_system CS>
  static paths alloc_path(CS& cs, const char* what, std::size_t c_index, const gadgets::merkle_tree_shape& shape,
                          const gadgets::merkle_path* path, std::size_t count, bool with_sibling_index) {
    paths out(count);
    for (std::size_t row = 0; row < count; ++row) {
      for (std::size_t j = 0; j + 1 < shape.arity(row); ++j) {
        out[row].push_back(snap_gadgets::alloc_num(
            cs,
            [&] {
              std::string s = std::string(what) + " sibling (c_index=" + std::to_string(c_index) +
                              ", tree_row=" + std::to_string(row);
              if (with_sibling_index) s += ", sibling_index=" + std::to_string(j);
              return s + ")";
            },
            sibling(path, shape, row, j)));
      }
    }
    return out;
  }

  // The per-challenge part shared by both variants up to leaf_r_new and the
  // two tree R paths; returns leaf_d_new.
  template <r1cs::constraint_system CS>
  allocated_num synthesize_challenge_r(CS& cs, std::size_t c_index, std::span<const allocated_bit> c_bits,
                                       std::span<const allocated_bit> h_select_bits, const allocated_num& phi,
                                       const allocated_num& root_r_old_n, const allocated_num& root_r_new_n) const {
    using r1cs::namespace_guard;
    const snap_challenge_witness* w = proofs.empty() ? nullptr : &proofs[c_index];
    const auto hs = snap_hs(params.sector_nodes);
    const auto name = [c_index](const char* what) {
      return std::string(what) + " (c_index=" + std::to_string(c_index) + ")";
    };
    std::optional<allocated_num> c_high;
    {
      namespace_guard ns(cs, [&] { return name("get_challenge_high_bits"); });
      c_high = snap_gadgets::get_challenge_high_bits(cs, c_bits, h_select_bits, std::span<const std::size_t>(hs));
    }
    std::optional<allocated_num> rho;
    {
      namespace_guard ns(cs, [&] { return name("rho"); });
      const allocated_num pre[2] = {phi, *c_high};
      rho =
          gadgets::poseidon_hash(cs, std::span<const allocated_num>(pre, 2), snap_gadgets::gen_randomness_hash_type());
    }
    const allocated_num leaf_r_old = snap_gadgets::alloc_num(
        cs, [&] { return name("leaf_r_old"); }, w ? std::optional<fr>(w->leaf_r_old) : std::nullopt);
    const allocated_num leaf_d_new = snap_gadgets::alloc_num(
        cs, [&] { return name("leaf_d_new"); }, w ? std::optional<fr>(w->leaf_d_new) : std::nullopt);
    std::optional<allocated_num> leaf_r_new;
    {
      namespace_guard ns(cs, [&] { return name("leaf_r_new"); });
      leaf_r_new = snap_gadgets::label_r_new(cs, leaf_r_old, leaf_d_new, *rho);
    }
    const gadgets::merkle_tree_shape& rs = params.tree_r_shape;
    const paths path_r_old = alloc_path(cs, "path_r_old", c_index, rs, w ? &w->path_r_old : nullptr, rs.levels(), true);
    {
      namespace_guard ns(cs, [&] { return name("por tree_r_old"); });
      snap_gadgets::por_no_challenge_input(cs, rs, c_bits, leaf_r_old, path_r_old, root_r_old_n);
    }
    const paths path_r_new = alloc_path(cs, "path_r_new", c_index, rs, w ? &w->path_r_new : nullptr, rs.levels(), true);
    {
      namespace_guard ns(cs, [&] { return name("por tree_r_new"); });
      snap_gadgets::por_no_challenge_input(cs, rs, c_bits, *leaf_r_new, path_r_new, root_r_new_n);
    }
    return leaf_d_new;
  }

  template <r1cs::constraint_system CS>
  void synthesize_sha256(CS& cs) const;
  template <r1cs::constraint_system CS>
  void synthesize_poseidon(CS& cs) const;
};

template <r1cs::constraint_system CS>
void snap_circuit::synthesize_sha256(CS& cs) const {
  using r1cs::namespace_guard;
  using snap_gadgets::alloc_num;
  const snap_params& p = params;
  const gadgets::merkle_tree_shape d_shape = p.tree_d_shape();
  const snap_challenge_witness* w0 = proofs.empty() ? nullptr : &proofs[0];

  const allocated_num kh = alloc_public(cs, "k_and_h_select", "k_and_h_select (public input)", k_and_h_select);
  const std::vector<allocated_bit> kh_bits = decompose(cs, kh, p.partition_bit_len + snap_h_count, "k_and_h_select");
  const std::span<const allocated_bit> partition_bits(kh_bits.data(), p.partition_bit_len);
  const std::span<const allocated_bit> h_select_bits(kh_bits.data() + p.partition_bit_len, snap_h_count);
  std::optional<allocated_num> partition;
  {
    namespace_guard ns(cs, "pack partition bits");
    const std::vector<gadgets::boolean> pb(partition_bits.begin(), partition_bits.end());
    partition = gadgets::pack_bits(cs, std::span<const gadgets::boolean>(pb));
  }
  const commitments cm = alloc_commitments(cs);
  const allocated_num &comm_r_old_n = cm.comm_r_old, &comm_d_new_n = cm.comm_d_new, &comm_r_new_n = cm.comm_r_new;
  const allocated_num &comm_c_n = cm.comm_c, &root_r_old_n = cm.root_r_old, &root_r_new_n = cm.root_r_new;
  const std::optional<allocated_num> phi = cm.phi;
  std::vector<allocated_num> apex;
  apex.reserve(p.apex_leaf_count);
  for (std::size_t i = 0; i < p.apex_leaf_count; ++i)
    apex.push_back(alloc_num(
        cs, [i] { return "apex_leaf_" + std::to_string(i); },
        apex_leafs.empty() ? std::nullopt : std::optional<fr>(apex_leafs[i])));
  paths partition_path(p.partition_bit_len);
  for (std::size_t i = 0; i < p.partition_bit_len; ++i)
    partition_path[i].push_back(alloc_num(
        cs, [i] { return "partition_path_sibling_" + std::to_string(i); },
        sibling(w0 ? &w0->path_d_new : nullptr, d_shape, p.challenge_bit_len - p.partition_bit_len + i, 0)));
  enforce_comm_r(cs, "comm_r_old_calc", "enforce comm_r_old_calc == comm_r_old", comm_c_n, root_r_old_n, comm_r_old_n);
  enforce_comm_r(cs, "comm_r_new_calc", "enforce comm_r_new_calc == comm_r_new", comm_c_n, root_r_new_n, comm_r_new_n);
  {
    namespace_guard ns(cs, "apex_gadget");
    snap_gadgets::apex_por(cs, apex, partition_bits, partition_path, comm_d_new_n);
  }
  std::vector<std::vector<allocated_bit>> generated;
  {
    namespace_guard ns(cs, "gen_challenge_bits");
    generated = snap_gadgets::gen_challenge_bits(cs, comm_r_new_n, *partition, p.challenge_count,
                                                 p.random_bits_per_challenge());
  }
  const std::size_t to_apex = p.apex_leafs_height();
  for (std::size_t c_index = 0; c_index < generated.size(); ++c_index) {
    std::vector<allocated_bit> c_bits = std::move(generated[c_index]);
    c_bits.insert(c_bits.end(), partition_bits.begin(), partition_bits.end());
    const allocated_num leaf_d_new_n =
        synthesize_challenge_r(cs, c_index, c_bits, h_select_bits, *phi, root_r_old_n, root_r_new_n);
    std::vector<gadgets::boolean> apex_bits(c_bits.begin() + std::ptrdiff_t(to_apex),
                                            c_bits.begin() + std::ptrdiff_t(to_apex + p.apex_leaf_bit_len));
    std::optional<allocated_num> apex_leaf;
    {
      namespace_guard ns(cs, [c_index] { return "select_apex_leaf (c_index=" + std::to_string(c_index) + ")"; });
      apex_leaf =
          gadgets::select(cs, std::span<const allocated_num>(apex), std::span<const gadgets::boolean>(apex_bits));
    }
    const snap_challenge_witness* w = proofs.empty() ? nullptr : &proofs[c_index];
    const paths path_to_apex =
        alloc_path(cs, "path_to_apex_leaf", c_index, d_shape, w ? &w->path_d_new : nullptr, to_apex, false);
    namespace_guard ns(cs, [c_index] { return "por to_apex_leaf (c_index=" + std::to_string(c_index) + ")"; });
    snap_gadgets::por_no_challenge_input(cs, gadgets::merkle_hasher::sha256, 2, 0, 0,
                                         std::span<const allocated_bit>(c_bits.data(), to_apex), leaf_d_new_n,
                                         path_to_apex, *apex_leaf);
  }
}

template <r1cs::constraint_system CS>
void snap_circuit::synthesize_poseidon(CS& cs) const {
  using r1cs::namespace_guard;
  using snap_gadgets::alloc_num;
  const snap_params& p = params;
  const gadgets::merkle_tree_shape d_shape = p.tree_d_shape();

  const allocated_num hsel = alloc_public(cs, "h_select", "h_select (public input)", k_and_h_select);
  const std::vector<allocated_bit> h_select_bits = decompose(cs, hsel, snap_h_count, "h_select");
  const commitments cm = alloc_commitments(cs);
  const allocated_num &comm_r_old_n = cm.comm_r_old, &comm_d_new_n = cm.comm_d_new, &comm_r_new_n = cm.comm_r_new;
  const allocated_num &comm_c_n = cm.comm_c, &root_r_old_n = cm.root_r_old, &root_r_new_n = cm.root_r_new;
  const std::optional<allocated_num> phi = cm.phi;
  enforce_comm_r(cs, "comm_r_old_calc", "enforce comm_r_old_calc == comm_r_old", comm_c_n, root_r_old_n, comm_r_old_n);
  enforce_comm_r(cs, "comm_r_new_calc", "enforce comm_r_new_calc == comm_r_new", comm_c_n, root_r_new_n, comm_r_new_n);
  const allocated_num partition = alloc_num(cs, "gen_challenge_bits partition zero", std::optional<fr>(fr::zero()));
  std::vector<std::vector<allocated_bit>> generated;
  {
    namespace_guard ns(cs, "gen_challenge_bits");
    generated = snap_gadgets::gen_challenge_bits(cs, comm_r_new_n, partition, p.challenge_count, p.challenge_bit_len);
  }
  for (std::size_t c_index = 0; c_index < generated.size(); ++c_index) {
    const std::vector<allocated_bit>& c_bits = generated[c_index];
    const allocated_num leaf_d_new_n =
        synthesize_challenge_r(cs, c_index, c_bits, h_select_bits, *phi, root_r_old_n, root_r_new_n);
    const snap_challenge_witness* w = proofs.empty() ? nullptr : &proofs[c_index];
    const paths path_d =
        alloc_path(cs, "path_d_new", c_index, d_shape, w ? &w->path_d_new : nullptr, d_shape.levels(), true);
    namespace_guard ns(cs, [c_index] { return "por tree_d_new (c_index=" + std::to_string(c_index) + ")"; });
    snap_gadgets::por_no_challenge_input(cs, d_shape, std::span<const allocated_bit>(c_bits), leaf_d_new_n, path_d,
                                         comm_d_new_n);
  }
}

inline void snap_circuit::check() const {
  const snap_params& p = params;
  if (p.sector_nodes == 0 || p.challenge_count == 0) throw std::invalid_argument("snap: empty params");
  if (p.variant == snap_variant::sha256 &&
      p.apex_leafs_height() + p.apex_leaf_bit_len + p.partition_bit_len != p.challenge_bit_len)
    throw std::invalid_argument("snap: inconsistent params");
  if (proofs.empty()) return;
  if (!k_and_h_select || !comm_r_old || !comm_d_new || !comm_r_new || !comm_c || !root_r_old || !root_r_new)
    throw std::invalid_argument("snap: a partition circuit needs every public input, comm_c and both tree R roots");
  if (proofs.size() != p.challenge_count)
    throw std::invalid_argument("snap: " + std::to_string(proofs.size()) + " challenge proofs, the partition has " +
                                std::to_string(p.challenge_count));
  if (p.variant == snap_variant::sha256 && apex_leafs.size() != p.apex_leaf_count)
    throw std::invalid_argument("snap: " + std::to_string(apex_leafs.size()) + " apex leaves, expected " +
                                std::to_string(p.apex_leaf_count));
  // k_and_h_select: k < partitions, exactly one h_select bit, nothing above.
  const fr::limbs l = k_and_h_select->to_canonical();
  for (std::size_t i = 1; i < l.size(); ++i)
    if (l[i] != 0) throw std::invalid_argument("snap: k_and_h_select has high bits set");
  const std::uint64_t v = l[0];
  const std::uint64_t k = v & ((std::uint64_t(1) << p.partition_bit_len) - 1);
  const std::uint64_t hsel = v >> p.partition_bit_len;
  if (k >= p.partition_count) throw std::invalid_argument("snap: partition index exceeds the partition count");
  if (hsel == 0 || hsel >= (std::uint64_t(1) << snap_h_count) || (hsel & (hsel - 1)) != 0)
    throw std::invalid_argument("snap: h_select does not have exactly one of its 6 bits set");
  const gadgets::merkle_tree_shape d_shape = p.tree_d_shape();
  for (std::size_t i = 0; i < proofs.size(); ++i) {
    const snap_challenge_witness& w = proofs[i];
    try {
      gadgets::check_path(p.tree_r_shape, w.path_r_old);
      gadgets::check_path(p.tree_r_shape, w.path_r_new);
      gadgets::check_path(d_shape, w.path_d_new);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("snap: challenge " + std::to_string(i) + ": " + e.what());
    }
    if (p.variant == snap_variant::sha256 && i > 0)
      for (std::size_t lvl = p.challenge_bit_len - p.partition_bit_len; lvl < p.challenge_bit_len; ++lvl)
        if (w.path_d_new.siblings[lvl] != proofs[0].path_d_new.siblings[lvl])
          throw std::invalid_argument("snap: challenge " + std::to_string(i) +
                                      ": tree D partition path differs from challenge 0's");
  }
}

/// A blank circuit (shape, parameter generation, counting).
inline snap_circuit blank_snap_circuit(const snap_params& params) {
  snap_circuit c;
  c.params = params;
  return c;
}

}  // namespace cuzk::circuits
