// SPDX-License-Identifier: Apache-2.0
#pragma once
// One Merkle inclusion proof as rust-fil-proofs writes it (storage-proofs-core
// merkle/proof.rs MerkleProof { data: ProofData }): the same structure in
// PoRep C1 (JSON, io/porep_c1.hpp), PoSt vanilla proofs and SnapDeals
// partition proofs (bincode, io/post_vanilla.hpp, io/snap_vanilla.hpp), so it
// belongs to none of them. The readers and writers of each format live with
// the format; circuits turn a proof into a circuit path
// (circuits/sector_tree.hpp).

#include <cstdint>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::io {

/// One level of an inclusion path (merkle/proof.rs PathElement).
struct merkle_path_element {
  std::vector<ff::fr> hashes;  ///< the arity - 1 siblings
  std::uint64_t index = 0;     ///< position of the running hash among the arity children
  friend bool operator==(const merkle_path_element&, const merkle_path_element&) = default;
};

/// ProofData's variant.
enum class merkle_proof_kind : std::uint32_t { single = 0, sub = 1, top = 2 };

/// One Merkle inclusion proof (MerkleProof / ProofData).
struct merkle_proof {
  merkle_proof_kind kind = merkle_proof_kind::single;
  std::vector<merkle_path_element> base;  ///< base tree levels (Single: the whole path)
  std::vector<merkle_path_element> sub;   ///< Sub/Top only
  std::vector<merkle_path_element> top;   ///< Top only
  ff::fr root;
  ff::fr leaf;

  /// The challenged leaf index (MerkleProofTrait::path_index): the level
  /// indices in mixed radix, arity = hashes.size() + 1 at each level.
  std::uint64_t leaf_index() const;
  friend bool operator==(const merkle_proof&, const merkle_proof&) = default;
};

}  // namespace cuzk::io
