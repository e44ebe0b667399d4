// SPDX-License-Identifier: Apache-2.0
// check_post_slots (see post_check.hpp).
#include <cuzk/circuits/post_check.hpp>

#include <array>
#include <cstdint>

#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/gadgets/poseidon.hpp>

namespace cuzk::circuits {

std::vector<std::string> check_post_slots(const fallback_post_circuit& c,
                                          const std::function<std::string(std::size_t, std::size_t)>& where) {
  std::vector<std::string> out;
  const gadgets::merkle_tree_shape shape = c.params.shape();
  for (std::size_t slot = 0; slot < c.sectors.size(); ++slot) {
    const fallback_post_sector& s = c.sectors[slot];
    if (!s.comm_r || !s.comm_c || !s.comm_r_last) {
      out.push_back(where(slot, SIZE_MAX) + ": no commitments");
      continue;
    }
    const std::array<fr, 2> pre{*s.comm_c, *s.comm_r_last};
    if (gadgets::poseidon_hash(std::span<const fr>(pre)) != *s.comm_r)
      out.push_back(where(slot, SIZE_MAX) + ": comm_r is not Poseidon(comm_c, comm_r_last)");
    for (std::size_t j = 0; j < s.paths.size() && j < s.leafs.size(); ++j)
      if (gadgets::merkle_root_from_path(shape, s.leafs[j], s.paths[j]) != *s.comm_r_last)
        out.push_back(where(slot, j) + " (leaf " + std::to_string(gadgets::path_leaf_index(shape, s.paths[j])) +
                      "): path does not hash to comm_r_last");
  }
  return out;
}

}  // namespace cuzk::circuits
