// SPDX-License-Identifier: Apache-2.0
// Synthetic 2 KiB PoSt sectors and vanilla proofs (see
// include/cuzk/circuits/post_generator.hpp).
#include <cuzk/circuits/post_generator.hpp>

#include <utility>
#include <vector>

#include <cuzk/circuits/sector_tree.hpp>
#include <cuzk/gadgets/poseidon.hpp>

namespace cuzk::circuits {

using ff::fr;

synthetic_post_sector make_synthetic_post_sector(std::mt19937_64& rng, std::uint64_t id) {
  const auto shape = tree_r_shape(synthetic_post_sector_size);
  std::vector<fr> leaves(shape.leaves());
  for (auto& x : leaves) x = fr::random(rng);
  gadgets::merkle_tree tree(shape, std::move(leaves));
  const fr comm_c = fr::random(rng);
  const std::array<fr, 2> pre{comm_c, tree.root()};
  const fr comm_r = gadgets::poseidon_hash(std::span<const fr>(pre));
  return {id, std::move(tree), comm_c, comm_r};
}

io::post_sector_proof synthetic_post_sector_proof(const synthetic_post_sector& s,
                                                  std::span<const std::uint64_t> challenges) {
  const auto shape = tree_r_shape(synthetic_post_sector_size);
  io::post_sector_proof sp{{}, s.comm_c, s.tree.root()};
  for (std::uint64_t c : challenges) {
    const gadgets::merkle_path p = s.tree.path(c);
    io::merkle_proof m{io::merkle_proof_kind::single, {}, {}, {}, s.tree.root(), s.tree.leaf(c)};
    std::size_t first = 0;  // the level's siblings start here in the flat list
    for (std::size_t l = 0; l < shape.levels(); ++l) {
      const std::size_t siblings = shape.arity(l) - 1;
      m.base.push_back({std::vector<fr>(p.siblings.begin() + std::ptrdiff_t(first),
                                        p.siblings.begin() + std::ptrdiff_t(first + siblings)),
                        p.indices[l]});
      first += siblings;
    }
    sp.inclusion_proofs.push_back(std::move(m));
  }
  return sp;
}

io::fallback_post_sector_proof synthetic_fallback_post_vanilla(const synthetic_post_sector& s,
                                                               const fallback_post_params& params,
                                                               const std::array<std::uint8_t, 32>& randomness,
                                                               std::size_t index) {
  const auto challenges = sector_leaf_challenges(params, randomness, s.id, index, params.challenge_count);
  return {s.id, s.comm_r, {synthetic_post_sector_proof(s, challenges)}};
}

}  // namespace cuzk::circuits
