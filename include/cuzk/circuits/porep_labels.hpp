// SPDX-License-Identifier: Apache-2.0
#pragma once
// One StackedDRG label, as the vanilla prover and the circuit compute it
// (storage-proofs-porep stacked/vanilla/create_label/single.rs,
// labeling_proof.rs, proof.rs "repeat parents"):
//   label_l(n) = SHA256(replica_id || u32be(l) || u64be(n) || 20 zero bytes
//                       || 37 parent labels (32-byte LE reprs)), byte 31 &= 0x3f
// with the 37 parents: layer 1 the 6 DRG parents' layer-1 labels repeated
// (6 x 6 + 1); layer l > 1 the 6 DRG parents' layer-l labels then the 8
// expander parents' layer-(l-1) labels, repeated (14 + 14 + 9). (Node 0's
// real label hashes no parents at all; no challenge is ever node 0.)
// Cost: 20 SHA-256 blocks (1312 bytes) per label.

#include <array>
#include <cstdint>
#include <span>

#include <cuzk/circuits/stacked_graph.hpp>
#include <cuzk/gadgets/native_sha256.hpp>

namespace cuzk::circuits {

/// Repeats |direct| (6 parents for layer 1, 14 above) to the 37 label parents.
inline std::array<ff::fr, label_parents> repeat_label_parents(std::span<const ff::fr> direct) {
  std::array<ff::fr, label_parents> out;
  for (std::size_t i = 0; i < label_parents; ++i) out[i] = direct[i % direct.size()];
  return out;
}

/// label_l(node) over the 37 (already repeated) parent labels.
inline ff::fr porep_label(const std::array<std::uint8_t, 32>& replica_id, std::uint32_t layer, std::uint64_t node,
                          std::span<const ff::fr, label_parents> parents) {
  std::array<std::uint8_t, 32> head{};
  for (int i = 0; i < 4; ++i) head[std::size_t(i)] = std::uint8_t(layer >> (24 - 8 * i));
  for (int i = 0; i < 8; ++i) head[std::size_t(4 + i)] = std::uint8_t(node >> (56 - 8 * i));
  gadgets::native::sha256_hasher h;
  h.update(replica_id).update(head);
  std::uint8_t buf[32];
  for (const ff::fr& p : parents) {
    p.to_bytes_le(buf);
    h.update(std::span<const std::uint8_t>(buf, 32));
  }
  gadgets::native::sha256_digest d = h.finalize();
  gadgets::native::trim_to_fr32(d);
  return gadgets::native::fr_from_fr32(d);
}

}  // namespace cuzk::circuits
