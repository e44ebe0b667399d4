// SPDX-License-Identifier: Apache-2.0
// Merkle inclusion proofs (see include/cuzk/io/merkle_proof.hpp).
#include <cuzk/io/merkle_proof.hpp>

namespace cuzk::io {

std::uint64_t merkle_proof::leaf_index() const {
  std::uint64_t index = 0, scale = 1;
  for (const auto* part : {&base, &sub, &top}) {
    for (const merkle_path_element& e : *part) {
      index += e.index * scale;
      scale *= e.hashes.size() + 1;
    }
  }
  return index;
}

}  // namespace cuzk::io
