// SPDX-License-Identifier: Apache-2.0
#pragma once
// Merkle inclusion proofs in the circuit (proof of retrievability), after
// rust-fil-proofs `storage-proofs-core/src/gadgets/por.rs` (PoRCircuit::
// synthesize, AuthPath/SubPath::synthesize), plus the native tree and path
// computations the vanilla prover uses (`merkle/proof.rs` InclusionPath::
// root, MerkleProofTrait::path_index).
//
// Tree shapes are Filecoin's compound trees: `base_levels` levels of
// `base_arity`, then optionally one level of `sub_arity` (sub tree of base
// trees) and one of `top_arity` (top tree of sub trees); e.g. 8-0-0 (2 KiB,
// 8 MiB, 512 MiB), 8-8-0 (32 GiB), 8-8-2 (64 GiB). Natively this is one
// layered tree whose level l groups arity(l) consecutive nodes, and the
// leaf index is the little-endian concatenation of the level positions
// (log2(arity) bits each).
//
// Circuit (por_circuit), in bellperson's order, under the caller's namespace:
//   "value/num"                       the leaf (1 aux)
//   "base" | "sub" | "top"            one namespace per part, each with
//     "merkle tree hash i"            per level i (counted within the part):
//       "index bit j/boolean"         log2(arity) bits, LE (1 aux + 1 constraint each)
//       "path element j/num"          arity - 1 siblings (1 aux each)
//       insert(...)                   the running hash put among the siblings at
//                                     the bits' position (insertion.hpp: 2 / 8 /
//                                     22 constraints for arity 2 / 4 / 8)
//       "computation of commitment hash"  Poseidon(arity) (505 constraints at 8,
//                                     311 at 2) or SHA-256 of the children
//   "path/input 0", "path/packing constraint 0"   ALL index bits packed LE into
//                                     one public input (multipack::pack_into_inputs,
//                                     254 bits per input, so one for every sector
//                                     size): the challenged leaf index
//   "root_value/num"                  the expected root (only when given as a value)
//   "enforce root is correct"         computed * ONE = root
//   "root/input variable", "root/enforce input is correct"   inputize, only
//                                     when the root is public (!private_root)
// Constraints per Poseidon level: log2(a) + insert(a) + hash(a) = 530 for
// a = 8, 314 for a = 2; a path adds 1 (packing) + 1 (root) [+ 1 (public root)].
// Checked against rust-fil-proofs' own counts (storage-proofs-core tests/
// por_circuit.rs: poseidon base 8 1063, sub 8-8 1593, top 8-8-2 1907,
// sha256 base 2 272295, ...) in tests/unit/merkle_test.cpp.
//
// Costs: the circuit is dominated by the hashes (Poseidon ~50 us native per
// arity-8 hash in witness_cs; SHA-256 ~45K constraints per binary level).
// checking_cs of a 10-level 32 GiB path (5302 constraints) takes ~0.1 s.
//
// Invariants: every arity is a power of two >= 2; top requires sub; the
// path's per-level index is < arity(level). A blank path (no values; shape
// and counting modes) is passed as nullptr.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/gadgets/constraint.hpp>
#include <cuzk/gadgets/insertion.hpp>
#include <cuzk/gadgets/multipack.hpp>
#include <cuzk/gadgets/native_sha256.hpp>
#include <cuzk/gadgets/num.hpp>
#include <cuzk/gadgets/poseidon.hpp>
#include <cuzk/gadgets/sha256.hpp>

namespace cuzk::gadgets {

/// The hash of a tree's nodes (filecoin-hashers PoseidonHasher / Sha256Hasher).
enum class merkle_hasher : std::uint8_t { poseidon, sha256 };

/// A Filecoin (compound) Merkle tree shape: base levels, then optional sub and top levels.
struct merkle_tree_shape {
  std::size_t base_arity = 8;
  std::size_t sub_arity = 0;  ///< 0: no sub level
  std::size_t top_arity = 0;  ///< 0: no top level (needs sub_arity > 0 otherwise)
  std::size_t base_levels = 0;
  merkle_hasher hasher = merkle_hasher::poseidon;

  /// The shape with |leaves| leaves (base_path_length of merkle/proof.rs);
  /// throws std::invalid_argument unless leaves / sub / top is a power of base_arity.
  static merkle_tree_shape for_leaves(std::uint64_t leaves, std::size_t base_arity, std::size_t sub_arity = 0,
                                      std::size_t top_arity = 0, merkle_hasher hasher = merkle_hasher::poseidon) {
    merkle_tree_shape s{base_arity, sub_arity, top_arity, 0, hasher};
    s.validate_arities();
    std::uint64_t base_leaves = leaves;
    for (std::size_t a : {sub_arity, top_arity}) {
      if (a == 0) continue;
      if (base_leaves % a != 0) throw std::invalid_argument("merkle: leaves not divisible by sub/top arity");
      base_leaves /= a;
    }
    while (base_leaves > 1) {
      if (base_leaves % base_arity != 0)
        throw std::invalid_argument("merkle: base tree leaves are not a power of the base arity");
      base_leaves /= base_arity;
      ++s.base_levels;
    }
    if (base_leaves != 1) throw std::invalid_argument("merkle: empty tree");
    return s;
  }

  /// Throws std::invalid_argument when an arity is not a power of two >= 2
  /// (0 allowed for sub/top) or top is set without sub.
  void validate_arities() const {
    const auto pow2 = [](std::size_t a) { return a >= 2 && a <= 64 && (a & (a - 1)) == 0; };
    if (!pow2(base_arity)) throw std::invalid_argument("merkle: base arity must be a power of two");
    if (sub_arity != 0 && !pow2(sub_arity)) throw std::invalid_argument("merkle: sub arity must be a power of two");
    if (top_arity != 0 && !pow2(top_arity)) throw std::invalid_argument("merkle: top arity must be a power of two");
    if (top_arity != 0 && sub_arity == 0) throw std::invalid_argument("merkle: a top level needs a sub level");
  }

  /// Path length: base levels plus one per sub/top level.
  std::size_t levels() const noexcept { return base_levels + (sub_arity != 0 ? 1 : 0) + (top_arity != 0 ? 1 : 0); }
  /// Arity of path level |level| (0 = just above the leaves).
  std::size_t arity(std::size_t level) const {
    if (level < base_levels) return base_arity;
    if (level == base_levels && sub_arity != 0) return sub_arity;
    if (level == base_levels + 1 && top_arity != 0) return top_arity;
    throw std::out_of_range("merkle: level beyond the tree");
  }
  /// Number of leaves.
  std::uint64_t leaves() const {
    std::uint64_t n = 1;
    for (std::size_t l = 0; l < levels(); ++l) n *= arity(l);
    return n;
  }
  /// Index bits of one path (log2 of leaves).
  std::size_t index_bits() const {
    std::size_t b = 0;
    for (std::size_t l = 0; l < levels(); ++l) b += std::size_t(std::countr_zero(arity(l)));
    return b;
  }
  /// Siblings of one path (sum of arity - 1 over the levels).
  std::size_t sibling_count() const {
    std::size_t n = 0;
    for (std::size_t l = 0; l < levels(); ++l) n += arity(l) - 1;
    return n;
  }
  friend bool operator==(const merkle_tree_shape&, const merkle_tree_shape&) = default;
};

/// The witness of one authentication path (MerkleProofTrait::path flattened).
struct merkle_path {
  std::vector<fr> siblings;            ///< level by level, arity(level) - 1 each, in order
  std::vector<std::uint32_t> indices;  ///< the running hash's position at each level
};

/// Throws std::invalid_argument unless |path| fits |shape| (sizes, index < arity).
inline void check_path(const merkle_tree_shape& shape, const merkle_path& path) {
  if (path.indices.size() != shape.levels())
    throw std::invalid_argument("merkle: path has " + std::to_string(path.indices.size()) + " levels, the tree " +
                                std::to_string(shape.levels()));
  if (path.siblings.size() != shape.sibling_count())
    throw std::invalid_argument("merkle: path has " + std::to_string(path.siblings.size()) +
                                " siblings, the tree needs " + std::to_string(shape.sibling_count()));
  for (std::size_t l = 0; l < shape.levels(); ++l)
    if (path.indices[l] >= shape.arity(l))
      throw std::invalid_argument("merkle: index " + std::to_string(path.indices[l]) + " at level " +
                                  std::to_string(l) + " is not below the arity");
}

/// The leaf index a path proves (little-endian concatenation of the level positions).
inline std::uint64_t path_leaf_index(const merkle_tree_shape& shape, const merkle_path& path) {
  std::uint64_t index = 0;
  std::size_t shift = 0;
  for (std::size_t l = 0; l < path.indices.size(); ++l) {
    index |= std::uint64_t(path.indices[l]) << shift;
    shift += std::size_t(std::countr_zero(shape.arity(l)));
  }
  return index;
}

// ---- native ------------------------------------------------------------------------

/// The hash of one node's children (PoseidonFunction / Sha256Function multi_node).
inline fr merkle_hash_children(merkle_hasher h, std::span<const fr> children) {
  if (h == merkle_hasher::poseidon) return poseidon_hash(children);
  native::sha256_hasher hasher;
  std::uint8_t buf[32];
  for (const fr& c : children) {
    c.to_bytes_le(buf);
    hasher.update(std::span<const std::uint8_t>(buf, 32));
  }
  native::sha256_digest d = hasher.finalize();
  native::trim_to_fr32(d);
  return native::fr_from_fr32(d);
}

/// The root |leaf| and |path| commit to (InclusionPath::root over every part).
inline fr merkle_root_from_path(const merkle_tree_shape& shape, const fr& leaf, const merkle_path& path) {
  check_path(shape, path);
  fr cur = leaf;
  std::vector<fr> nodes;
  std::size_t s = 0;
  for (std::size_t l = 0; l < shape.levels(); ++l) {
    const std::size_t a = shape.arity(l);
    nodes.assign(path.siblings.begin() + std::ptrdiff_t(s), path.siblings.begin() + std::ptrdiff_t(s + a - 1));
    nodes.insert(nodes.begin() + path.indices[l], cur);
    cur = merkle_hash_children(shape.hasher, nodes);
    s += a - 1;
  }
  return cur;
}

/// A whole tree held in memory, layer by layer (tests, synthetic sectors).
class merkle_tree {
 public:
  merkle_tree(const merkle_tree_shape& shape, std::vector<fr> leaves) : _shape(shape) {
    if (leaves.size() != shape.leaves()) throw std::invalid_argument("merkle: wrong number of leaves");
    _layers.push_back(std::move(leaves));
    for (std::size_t l = 0; l < shape.levels(); ++l) {
      const std::size_t a = shape.arity(l);
      const std::vector<fr>& below = _layers.back();
      std::vector<fr> above(below.size() / a);
      for (std::size_t i = 0; i < above.size(); ++i)
        above[i] = merkle_hash_children(shape.hasher, std::span<const fr>(below.data() + i * a, a));
      _layers.push_back(std::move(above));
    }
  }

  const merkle_tree_shape& shape() const noexcept { return _shape; }
  const fr& root() const { return _layers.back().at(0); }
  const fr& leaf(std::uint64_t i) const { return _layers.front().at(i); }

  /// The authentication path of leaf |leaf_index|.
  merkle_path path(std::uint64_t leaf_index) const {
    if (leaf_index >= _layers.front().size()) throw std::out_of_range("merkle: leaf index out of range");
    merkle_path p;
    std::uint64_t pos = leaf_index;
    for (std::size_t l = 0; l < _shape.levels(); ++l) {
      const std::size_t a = _shape.arity(l);
      const std::uint64_t first = pos - pos % a;
      p.indices.push_back(std::uint32_t(pos % a));
      for (std::uint64_t j = first; j < first + a; ++j)
        if (j != pos) p.siblings.push_back(_layers[l][j]);
      pos /= a;
    }
    return p;
  }

 private:
  merkle_tree_shape _shape;
  std::vector<std::vector<fr>> _layers;
};

// ---- circuit -----------------------------------------------------------------------

/// The root of a por: an already allocated number (Root::Var) or a value to
/// allocate (Root::Val; empty in blank circuits).
using por_root = std::variant<allocated_num, std::optional<fr>>;

namespace detail {

// One part of the path (SubPath::synthesize): levels [first, first + count)
// of arity |arity|, in the caller's namespace ("base"/"sub"/"top").
template <constraint_system CS>
allocated_num merkle_sub_path(CS& cs, merkle_hasher hasher, std::size_t arity, std::size_t first, std::size_t count,
                              allocated_num cur, const merkle_path* path, std::size_t sibling_offset,
                              std::vector<boolean>& bits_out) {
  const std::size_t bit_count = std::size_t(std::countr_zero(arity));
  std::vector<boolean> index_bits;
  std::vector<allocated_num> siblings;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t level = first + i;
    namespace_guard ns(cs, [i] { return detail::indexed("merkle tree hash ", i); });
    index_bits.clear();
    for (std::size_t j = 0; j < bit_count; ++j) {
      std::optional<bool> v;
      if (path) v = ((path->indices[level] >> j) & 1) == 1;
      namespace_guard nb(cs, [j] { return detail::indexed("index bit ", j); });
      index_bits.emplace_back(allocated_bit::alloc(cs, v));
    }
    bits_out.insert(bits_out.end(), index_bits.begin(), index_bits.end());
    siblings.clear();
    for (std::size_t j = 0; j + 1 < arity; ++j) {
      namespace_guard ne(cs, [j] { return detail::indexed("path element ", j); });
      siblings.push_back(allocated_num::alloc(cs, [&] {
        if (!path) throw synthesis_error(synthesis_errc::assignment_missing);
        return path->siblings[sibling_offset + (level - first) * (arity - 1) + j];
      }));
    }
    const std::vector<allocated_num> inserted =
        insert(cs, cur, std::span<const boolean>(index_bits), std::span<const allocated_num>(siblings));
    namespace_guard nh(cs, "computation of commitment hash");
    if (hasher == merkle_hasher::poseidon) cur = poseidon_hash(cs, std::span<const allocated_num>(inserted));
    else cur = sha256_hasher::hash_multi_leaf_circuit(cs, std::span<const allocated_num>(inserted));
  }
  return cur;
}

}  // namespace detail

/// The authentication path from |leaf| up (AuthPath: "base", "sub" and "top"
/// parts): returns the computed root and appends the index bits (LE) to |bits|.
/// |path| is nullptr for a blank circuit.
template <constraint_system CS>
allocated_num merkle_auth_path(CS& cs, const merkle_tree_shape& shape, const allocated_num& leaf,
                               const merkle_path* path, std::vector<boolean>& bits) {
  if (path) check_path(shape, *path);
  allocated_num cur = leaf;
  {
    namespace_guard ns(cs, "base");
    cur = detail::merkle_sub_path(cs, shape.hasher, shape.base_arity, 0, shape.base_levels, cur, path, 0, bits);
  }
  const std::size_t base_siblings = shape.base_levels * (shape.base_arity - 1);
  {
    namespace_guard ns(cs, "sub");
    if (shape.sub_arity != 0)
      cur = detail::merkle_sub_path(cs, shape.hasher, shape.sub_arity, shape.base_levels, 1, cur, path, base_siblings,
                                    bits);
  }
  {
    namespace_guard ns(cs, "top");
    if (shape.top_arity != 0)
      cur = detail::merkle_sub_path(cs, shape.hasher, shape.top_arity, shape.base_levels + 1, 1, cur, path,
                                    base_siblings + shape.sub_arity - 1, bits);
  }
  return cur;
}

/// PoRCircuit::synthesize: |leaf| (allocated as "value"), its path up to the
/// root, the index bits as one packed public input ("path"), computed root ==
/// |root|, and the root exposed as a public input unless |private_root|.
template <constraint_system CS>
void por_circuit(CS& cs, const merkle_tree_shape& shape, const std::optional<fr>& leaf, const merkle_path* path,
                 const por_root& root, bool private_root) {
  std::optional<allocated_num> value;
  {
    namespace_guard ns(cs, "value");
    value = allocated_num::alloc(cs, [&] { return detail::require_value(leaf); });
  }
  std::vector<boolean> bits;
  bits.reserve(shape.index_bits());
  const allocated_num computed = merkle_auth_path(cs, shape, *value, path, bits);
  {
    namespace_guard ns(cs, "path");
    pack_into_inputs(cs, std::span<const boolean>(bits));
  }
  std::optional<allocated_num> rt;
  {
    namespace_guard ns(cs, "root_value");
    if (const auto* var = std::get_if<allocated_num>(&root)) rt = *var;
    else rt = allocated_num::alloc(cs, [&] { return detail::require_value(std::get<std::optional<fr>>(root)); });
  }
  constraint::equal(cs, "enforce root is correct", computed, *rt);
  if (!private_root) {
    namespace_guard ns(cs, "root");
    rt->inputize(cs);
  }
}

/// The public inputs por_circuit exposes (PoRCompound::generate_public_inputs):
/// the leaf index, then the root when it is public.
inline std::vector<fr> por_public_inputs(std::uint64_t leaf_index, const std::optional<fr>& public_root) {
  std::vector<fr> r{fr::from_uint(leaf_index)};
  if (public_root) r.push_back(*public_root);
  return r;
}

}  // namespace cuzk::gadgets
