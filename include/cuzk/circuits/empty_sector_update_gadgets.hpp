// SPDX-License-Identifier: Apache-2.0
#pragma once
// The gadgets of the SnapDeals (EmptySectorUpdate) circuit, after
// rust-fil-proofs storage-proofs-update `src/gadgets.rs`
// (allocated_num_to_allocated_bits, apex_por, gen_challenge_bits,
// get_challenge_high_bits, label_r_new) and storage-proofs-core
// `src/gadgets/por.rs` por_no_challenge_input. Allocation and constraint
// order, names and counts are bellperson's; gadgets.rs' own tests fix the
// counts checked in tests/unit/snap_circuit_test.cpp:
//   gen_challenge_bits   per digest: 1 (digest index) + 311 (Poseidon, custom
//                        tag) + 256 (255 bits + packing) = 568 constraints;
//                        2 KiB / 8 MiB 1 digest, 512 MiB 8, 32 GiB 10
//   apex_por             (apex leaves - 1) SHA-256 hash2 + the partition path
//                        (2 KiB: 317,654; 16 KiB with 4 x 16 leaves: 771,448)
//   get_challenge_high_bits  per h: pack (1) + product (1), then 1: 13
//   label_r_new          2 (a product and a sum)
//   por_no_challenge_input   per level: insert + hash; then root == computed (1).
//                        The index bits are existing bits (the challenge's),
//                        nothing is inputized.
// Costs: dominated by the hashes (SHA-256 ~45 K constraints per binary
// level, Poseidon 530 per 8-ary level); see empty_sector_update.hpp.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/gadgets/insertion.hpp>
#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/gadgets/multipack.hpp>
#include <cuzk/gadgets/num.hpp>
#include <cuzk/gadgets/poseidon.hpp>
#include <cuzk/gadgets/sha256.hpp>
#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::circuits::snap_gadgets {

using gadgets::allocated_bit;
using gadgets::allocated_num;
using gadgets::boolean;
using gadgets::merkle_hasher;
using r1cs::constraint_system;
using r1cs::fr;
using r1cs::linear_combination;
using r1cs::namespace_guard;
using r1cs::variable;

/// constants.rs HASH_TYPE_GEN_RANDOMNESS: Poseidon arity 2, Custom(Arbitrary(1)).
inline gadgets::poseidon_hash_type gen_randomness_hash_type() { return gadgets::poseidon_hash_type::custom(1); }

/// A missing value in a non-blank circuit.
inline const fr& value_of(const std::optional<fr>& v) { return gadgets::detail::require_value(v); }

/// New aux number (AllocatedNum::alloc) in namespace |name|.
template <constraint_system CS, r1cs::annotation A>
allocated_num alloc_num(CS& cs, A&& name, const std::optional<fr>& v) {
  namespace_guard ns(cs, std::forward<A>(name));
  return allocated_num::alloc(cs, [&] { return value_of(v); });
}

/// allocated_num_to_allocated_bits: 255 LE bits ("bit i") and "binary decomp":
/// (sum 2^i bits[i]) * 1 = num.
template <constraint_system CS>
std::vector<allocated_bit> allocated_num_to_allocated_bits(CS& cs, const allocated_num& num) {
  std::vector<allocated_bit> bits = gadgets::field_into_allocated_bits_le(cs, num.get_value());
  const variable n = num.get_variable();
  cs.enforce(
      "binary decomp",
      [&](linear_combination lc) {
        fr pow2 = fr::one();
        for (const allocated_bit& b : bits) {
          lc.add(pow2, b.get_variable());
          pow2 = pow2.dbl();
        }
        return lc;
      },
      [](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + n; });
  return bits;
}

/// The hash of one Merkle node's children: Poseidon (MerkleTree tag, arity =
/// children) or Filecoin's SHA-256 hash_multi_leaf_circuit.
template <constraint_system CS>
allocated_num hash_children(CS& cs, merkle_hasher h, std::span<const allocated_num> children) {
  if (h == merkle_hasher::poseidon) return gadgets::poseidon_hash(cs, children);
  return gadgets::sha256_hasher::hash_multi_leaf_circuit(cs, children);
}

/// por.rs por_no_challenge_input: the path from |leaf| through
/// |path_values| (one sibling list per level: base levels, then the sub and
/// top levels when the arities are non-zero) with insertion positions taken
/// from |challenge_bits| (little-endian, all of them used), then
/// "calculated root == provided root". Nothing is inputized.
template <constraint_system CS>
void por_no_challenge_input(CS& cs, merkle_hasher hasher, std::size_t base_arity, std::size_t sub_arity,
                            std::size_t top_arity, std::span<const allocated_bit> challenge_bits,
                            const allocated_num& leaf, const std::vector<std::vector<allocated_num>>& path_values,
                            const allocated_num& root) {
  const std::size_t extra = (sub_arity ? 1 : 0) + (top_arity ? 1 : 0);
  if (path_values.size() < extra) throw std::invalid_argument("snap: Merkle path shorter than its sub/top levels");
  const std::size_t base_path_len = path_values.size() - extra;
  allocated_num cur = leaf;
  std::size_t bit = 0;
  std::vector<boolean> index;
  for (std::size_t height = 0; height < path_values.size(); ++height) {
    const std::size_t arity = height < base_path_len                 ? base_arity
                              : height == base_path_len && sub_arity ? sub_arity
                                                                     : top_arity;
    const std::vector<allocated_num>& siblings = path_values[height];
    if (siblings.size() + 1 != arity)
      throw std::invalid_argument("snap: path element has the wrong number of siblings");
    const std::size_t nbits = std::size_t(std::countr_zero(arity));
    if (bit + nbits > challenge_bits.size())
      throw std::invalid_argument("snap: not enough challenge bits for the path");
    index.assign(challenge_bits.begin() + std::ptrdiff_t(bit), challenge_bits.begin() + std::ptrdiff_t(bit + nbits));
    bit += nbits;
    std::vector<allocated_num> preimage;
    {
      namespace_guard ns(cs, [height] { return "merkle proof insert (height=" + std::to_string(height) + ")"; });
      preimage = gadgets::insert(cs, cur, std::span<const boolean>(index), std::span<const allocated_num>(siblings));
    }
    namespace_guard ns(cs, [height] { return "merkle proof hash (height=" + std::to_string(height) + ")"; });
    cur = hash_children(cs, hasher, std::span<const allocated_num>(preimage));
  }
  if (bit != challenge_bits.size()) throw std::invalid_argument("snap: challenge bit length and tree arity disagree");
  const variable vc = cur.get_variable(), vr = root.get_variable();
  cs.enforce(
      "calculated root == provided root", [&](linear_combination lc) { return lc + vc; },
      [](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + vr; });
}

/// por_no_challenge_input over a tree |shape| (its arities and hasher).
template <constraint_system CS>
void por_no_challenge_input(CS& cs, const gadgets::merkle_tree_shape& shape,
                            std::span<const allocated_bit> challenge_bits, const allocated_num& leaf,
                            const std::vector<std::vector<allocated_num>>& path_values, const allocated_num& root) {
  por_no_challenge_input(cs, shape.hasher, shape.base_arity, shape.sub_arity, shape.top_arity, challenge_bits, leaf,
                         path_values, root);
}

/// gadgets.rs apex_por: the apex tree over |apex_leafs| (SHA-256 hash2, row
/// by row, "apex_tree generation hash (tree_row=r, siblings=i)"), then its
/// root's path |partition_path| (binary SHA-256) to |comm_d| with the
/// partition bits as positions ("partition-tree por").
template <constraint_system CS>
void apex_por(CS& cs, const std::vector<allocated_num>& apex_leafs, std::span<const allocated_bit> partition_bits,
              const std::vector<std::vector<allocated_num>>& partition_path, const allocated_num& comm_d) {
  std::vector<allocated_num> row = apex_leafs;
  for (std::size_t r = 0; row.size() > 1; ++r) {
    std::vector<allocated_num> up;
    up.reserve(row.size() / 2);
    for (std::size_t i = 0; i < row.size() / 2; ++i) {
      namespace_guard ns(cs, [r, i] {
        return "apex_tree generation hash (tree_row=" + std::to_string(r) + ", siblings=" + std::to_string(i) + ")";
      });
      up.push_back(gadgets::sha256_hasher::hash2_circuit(cs, row[2 * i], row[2 * i + 1]));
    }
    row = std::move(up);
  }
  namespace_guard ns(cs, "partition-tree por");
  por_no_challenge_input(cs, merkle_hasher::sha256, 2, 0, 0, partition_bits, row.at(0), partition_path, comm_d);
}

/// Challenges derived from one digest: Fr::CAPACITY / bits per challenge.
constexpr std::size_t challenges_per_digest(std::size_t bits_per_challenge) {
  return gadgets::fr_capacity / bits_per_challenge;
}
/// Digests per partition: ceil(challenges / challenges_per_digest).
constexpr std::size_t digests_per_partition(std::size_t challenges, std::size_t bits_per_challenge) {
  const std::size_t per = challenges_per_digest(bits_per_challenge);
  return (challenges + per - 1) / per;
}

/// gadgets.rs gen_challenge_bits: for j < digests per partition,
/// "digest_index_j" = k * digests_per_partition + j (one constraint),
/// "digest_j" = Poseidon_custom(comm_r_new, digest_index), "digest_j_bits"
/// its 255 bits; each challenge takes |bits_per_challenge| consecutive bits.
template <constraint_system CS>
std::vector<std::vector<allocated_bit>> gen_challenge_bits(CS& cs, const allocated_num& comm_r_new,
                                                           const allocated_num& partition, std::size_t challenges,
                                                           std::size_t bits_per_challenge) {
  const std::size_t per = challenges_per_digest(bits_per_challenge);
  const std::size_t digests = digests_per_partition(challenges, bits_per_challenge);
  const fr dpp = fr::from_uint(digests);
  std::vector<std::vector<allocated_bit>> out;
  out.reserve(challenges);
  for (std::size_t j = 0; j < digests; ++j) {
    const allocated_num digest_index = alloc_num(
        cs, [j] { return "digest_index_" + std::to_string(j); },
        partition.get_value() ? std::optional<fr>(*partition.get_value() * dpp + fr::from_uint(j)) : std::nullopt);
    const variable vk = partition.get_variable(), vd = digest_index.get_variable();
    cs.enforce(
        [j] { return "digest_index_" + std::to_string(j) + " == k * digests_per_partition + " + std::to_string(j); },
        [&](linear_combination lc) {
          lc.add(dpp, vk);
          lc.add(fr::from_uint(j), CS::one());
          return lc;
        },
        [](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + vd; });
    std::optional<allocated_num> digest;
    {
      namespace_guard ns(cs, [j] { return "digest_" + std::to_string(j); });
      const allocated_num pre[2] = {comm_r_new, digest_index};
      digest = gadgets::poseidon_hash(cs, std::span<const allocated_num>(pre, 2), gen_randomness_hash_type());
    }
    std::vector<allocated_bit> bits;
    {
      namespace_guard ns(cs, [j] { return "digest_" + std::to_string(j) + "_bits"; });
      bits = allocated_num_to_allocated_bits(cs, *digest);
    }
    const std::size_t take = j + 1 == digests ? challenges - out.size() : per;
    for (std::size_t c = 0; c < take; ++c)
      out.emplace_back(bits.begin() + std::ptrdiff_t(c * bits_per_challenge),
                       bits.begin() + std::ptrdiff_t((c + 1) * bits_per_challenge));
  }
  return out;
}

/// gadgets.rs get_challenge_high_bits: for each (k, h) pack the h high bits
/// of |c_bits| ("c_high (h=H, k=K)"), multiply by h_select bit k
/// ("c_high_or_zero"), then "c_high_selected" = their sum.
template <constraint_system CS>
allocated_num get_challenge_high_bits(CS& cs, std::span<const allocated_bit> c_bits,
                                      std::span<const allocated_bit> h_select_bits, std::span<const std::size_t> hs) {
  if (h_select_bits.size() != hs.size()) throw std::invalid_argument("snap: h_select bits and hs differ in length");
  const std::size_t bit_len = c_bits.size();
  std::vector<allocated_num> terms;
  terms.reserve(hs.size());
  for (std::size_t k = 0; k < hs.size(); ++k) {
    const std::size_t h = hs[k];
    if (h > bit_len) throw std::invalid_argument("snap: h exceeds the challenge bits");
    std::vector<boolean> high(c_bits.begin() + std::ptrdiff_t(bit_len - h), c_bits.end());
    const auto label = [h, k](const char* what) {
      return std::string(what) + " (h=" + std::to_string(h) + ", k=" + std::to_string(k) + ")";
    };
    std::optional<allocated_num> c_high;
    {
      namespace_guard ns(cs, [&] { return label("c_high"); });
      c_high = gadgets::pack_bits(cs, std::span<const boolean>(high));
    }
    const allocated_bit& sel = h_select_bits[k];
    std::optional<fr> v;
    if (sel.get_value() && c_high->get_value()) v = *sel.get_value() ? *c_high->get_value() : fr::zero();
    const allocated_num term = alloc_num(
        cs, [&] { return label("c_high_or_zero"); }, v);
    const variable vh = c_high->get_variable(), vs = sel.get_variable(), vt = term.get_variable();
    cs.enforce([&] { return label("c_high_or_zero == c_high * h_select_bit"); },
               [&](linear_combination lc) { return lc + vh; }, [&](linear_combination lc) { return lc + vs; },
               [&](linear_combination lc) { return lc + vt; });
    terms.push_back(term);
  }
  std::optional<fr> sum = fr::zero();
  for (const allocated_num& t : terms)
    sum = t.get_value() && sum ? std::optional<fr>(*sum + *t.get_value()) : std::nullopt;
  const allocated_num selected = alloc_num(cs, "c_high_selected", sum);
  const variable vsel = selected.get_variable();
  cs.enforce(
      "c_high_selected == dot(c_highs, h_select_bits)",
      [&](linear_combination lc) {
        for (const allocated_num& t : terms) lc = lc + t.get_variable();
        return lc;
      },
      [](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + vsel; });
  return selected;
}

/// gadgets.rs label_r_new: label_r_old + label_d_new * rho ("label_d_new *
/// rho" product, "label_r_new" sum).
template <constraint_system CS>
allocated_num label_r_new(CS& cs, const allocated_num& label_r_old, const allocated_num& label_d_new,
                          const allocated_num& rho) {
  std::optional<allocated_num> prod;
  {
    namespace_guard ns(cs, "label_d_new * rho");
    prod = label_d_new.mul(cs, rho);
  }
  std::optional<fr> v;
  if (label_r_old.get_value() && prod->get_value()) v = *label_r_old.get_value() + *prod->get_value();
  const allocated_num out = alloc_num(cs, "label_r_new", v);
  const variable vo = label_r_old.get_variable(), vp = prod->get_variable(), vn = out.get_variable();
  cs.enforce(
      "label_r_new == label_r_old + label_d_new * rho", [&](linear_combination lc) { return lc + vo + vp; },
      [](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + vn; });
  return out;
}

}  // namespace cuzk::circuits::snap_gadgets
