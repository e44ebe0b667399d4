// SPDX-License-Identifier: Apache-2.0
// check_post_slots (see post_check.hpp).
#include <cuzk/circuits/post_check.hpp>

#include <array>
#include <cstdint>
#include <stdexcept>

#include <tbb/parallel_for.h>

#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/gadgets/poseidon.hpp>

namespace cuzk::circuits {

std::vector<std::string> check_post_slots(const fallback_post_circuit& c,
                                          const std::function<std::string(std::size_t, std::size_t)>& where) {
  const gadgets::merkle_tree_shape shape = c.params.shape();
  // slots are independent: checked in parallel, reported in slot order
  std::vector<std::vector<std::string>> per_slot(c.sectors.size());
  tbb::parallel_for(std::size_t(0), c.sectors.size(), [&](std::size_t slot) {
    std::vector<std::string>& out = per_slot[slot];
    const fallback_post_sector& s = c.sectors[slot];
    if (!s.comm_r || !s.comm_c || !s.comm_r_last) {
      out.push_back(where(slot, SIZE_MAX) + ": no commitments");
      return;
    }
    const std::array<fr, 2> pre{*s.comm_c, *s.comm_r_last};
    if (gadgets::poseidon_hash(std::span<const fr>(pre)) != *s.comm_r)
      out.push_back(where(slot, SIZE_MAX) + ": comm_r is not Poseidon(comm_c, comm_r_last)");
    for (std::size_t j = 0; j < s.paths.size() && j < s.leafs.size(); ++j) {
      try {
        if (gadgets::merkle_root_from_path(shape, s.leafs[j], s.paths[j]) != *s.comm_r_last)
          out.push_back(where(slot, j) + " (leaf " + std::to_string(gadgets::path_leaf_index(shape, s.paths[j])) +
                        "): path does not hash to comm_r_last");
      } catch (const std::invalid_argument& e) {
        out.push_back(where(slot, j) + ": " + e.what());
      }
    }
  });
  std::vector<std::string> out;
  for (auto& v : per_slot)
    for (auto& m : v) out.push_back(std::move(m));
  return out;
}

}  // namespace cuzk::circuits
