// SPDX-License-Identifier: Apache-2.0
#pragma once
// SnapDeals (EmptySectorUpdate) public parameters, after rust-fil-proofs
// storage-proofs-update `src/constants.rs` (partition_count,
// challenge_count, hs, h_default, h_select, apex_leaf_count,
// validate_tree_r_shape) and `src/vanilla.rs` PublicParams
// (from_sector_size, from_sector_size_poseidon). Pure arithmetic, no cost.
//
// Two published circuits share these numbers:
//   sha256     the update circuit with a binary SHA-256 tree D (comm_d_new is
//              a piece commitment): partitions 1 (<= 8 KiB), 2 (<= 32 KiB),
//              4 (<= 16 MiB), 16 (larger); 10 challenges per partition up to
//              16 MiB, 86 above; apex trees of 8 (<= 8 KiB) or 128 leaves.
//   poseidon   EmptySectorUpdate-Poseidon: tree D has tree R's shape and
//              Poseidon nodes; one partition holding every challenge
//              (challenge_count x partition_count), no apex tree.
// h: the number of high bits of a node index that select its rho; the
// circuit takes h_select = 2^i for h = hs[i] (a public input); production
// uses h_default = hs[3] (10 for production sizes, 1 for <= 32 KiB).
// Tree R (old and new) shape per sector size (validate_tree_r_shape):
// 2 KiB / 8 MiB / 512 MiB 8-0-0, 32 GiB 8-8-0, 64 GiB 8-8-2 (plus test sizes).

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuzk/gadgets/merkle.hpp>

namespace cuzk::circuits {

/// Which published EmptySectorUpdate circuit.
enum class snap_variant : std::uint8_t { sha256, poseidon };

/// constants.rs sector sizes in nodes.
inline constexpr std::uint64_t snap_nodes_8kib = 1ull << 8;
inline constexpr std::uint64_t snap_nodes_32kib = 1ull << 10;
inline constexpr std::uint64_t snap_nodes_16mib = 1ull << 19;

/// Number of h values (and h_select bits).
inline constexpr std::size_t snap_h_count = 6;

/// constants.rs partition_count(sector_nodes).
constexpr std::size_t snap_partition_count(std::uint64_t nodes) {
  return nodes <= snap_nodes_8kib ? 1 : nodes <= snap_nodes_32kib ? 2 : nodes <= snap_nodes_16mib ? 4 : 16;
}
/// constants.rs challenge_count(sector_nodes): per partition.
constexpr std::size_t snap_challenge_count(std::uint64_t nodes) { return nodes <= snap_nodes_16mib ? 10 : 86; }
/// constants.rs apex_leaf_count(sector_nodes).
constexpr std::size_t snap_apex_leaf_count(std::uint64_t nodes) { return nodes <= snap_nodes_8kib ? 8 : 128; }
/// constants.rs hs(sector_nodes).
constexpr std::array<std::size_t, snap_h_count> snap_hs(std::uint64_t nodes) {
  if (nodes <= snap_nodes_32kib) return {1, 1, 1, 1, 1, 1};
  return {7, 8, 9, 10, 11, 12};
}
/// constants.rs h_default: hs[3].
constexpr std::size_t snap_h_default(std::uint64_t nodes) { return snap_hs(nodes)[3]; }
/// constants.rs h_select: 2^(index of the first hs entry equal to |h|);
/// throws std::invalid_argument for an h the sector size does not allow.
inline std::uint64_t snap_h_select(std::uint64_t nodes, std::size_t h) {
  const auto hs = snap_hs(nodes);
  for (std::size_t i = 0; i < hs.size(); ++i)
    if (hs[i] == h) return std::uint64_t(1) << i;
  throw std::invalid_argument("snap: h = " + std::to_string(h) + " is not allowed for " + std::to_string(nodes) +
                              " nodes");
}

/// Tree R's shape for |nodes| (validate_tree_r_shape, every allowed size).
inline gadgets::merkle_tree_shape snap_tree_r_shape(std::uint64_t nodes) {
  std::size_t sub = 0, top = 0;
  // clang-format off
  switch (nodes) {
    case 1ull << 5: sub = 4; break;                // 1 KiB
    case 1ull << 6: break;                         // 2 KiB
    case 1ull << 7: sub = 2; break;                // 4 KiB
    case 1ull << 8: sub = 4; break;                // 8 KiB
    case 1ull << 9: sub = 8; break;                // 16 KiB
    case 1ull << 10: sub = 8; top = 2; break;      // 32 KiB
    case 1ull << 18: break;                        // 8 MiB
    case 1ull << 19: sub = 2; break;               // 16 MiB
    case 1ull << 24: break;                        // 512 MiB
    case 1ull << 30: sub = 8; break;               // 32 GiB
    case 1ull << 31: sub = 8; top = 2; break;      // 64 GiB
    default:
      throw std::invalid_argument("snap: " + std::to_string(nodes) + " nodes is not an allowed sector size");
  }
  // clang-format on
  return gadgets::merkle_tree_shape::for_leaves(nodes, 8, sub, top);
}

/// vanilla.rs PublicParams plus the tree shapes the circuit uses.
struct snap_params {
  snap_variant variant = snap_variant::sha256;
  std::uint64_t sector_nodes = 0;
  std::size_t challenge_count = 0;    ///< per partition
  std::size_t challenge_bit_len = 0;  ///< log2(sector_nodes): tree D's height
  std::size_t partition_count = 0;
  std::size_t partition_bit_len = 0;
  std::size_t apex_leaf_count = 0;  ///< 0 in the Poseidon variant
  std::size_t apex_leaf_bit_len = 0;
  gadgets::merkle_tree_shape tree_r_shape;  ///< trees R old and R new (and D in the Poseidon variant)

  std::uint64_t sector_size() const noexcept { return sector_nodes * 32; }
  /// Tree D new: binary SHA-256 (sha256 variant) or tree R's shape with Poseidon.
  gadgets::merkle_tree_shape tree_d_shape() const {
    if (variant == snap_variant::poseidon) return tree_r_shape;
    return gadgets::merkle_tree_shape::for_leaves(sector_nodes, 2, 0, 0, gadgets::merkle_hasher::sha256);
  }
  /// The height of the apex leaves in tree D: challenge_bit_len - partition_bit_len - apex_leaf_bit_len.
  std::size_t apex_leafs_height() const noexcept { return challenge_bit_len - partition_bit_len - apex_leaf_bit_len; }
  /// Random bits per challenge (challenge_bit_len - partition_bit_len).
  std::size_t random_bits_per_challenge() const noexcept { return challenge_bit_len - partition_bit_len; }
  /// The production h (h_default).
  std::size_t h_default() const noexcept { return snap_h_default(sector_nodes); }
};

/// PublicParams::from_sector_size (sha256) / from_sector_size_poseidon;
/// throws std::invalid_argument for a size that is not allowed.
inline snap_params snap_params_for(std::uint64_t sector_size, snap_variant variant = snap_variant::sha256) {
  if (sector_size % 32 != 0) throw std::invalid_argument("snap: sector size is not a multiple of 32 bytes");
  const std::uint64_t nodes = sector_size / 32;
  snap_params p;
  p.variant = variant;
  p.sector_nodes = nodes;
  p.tree_r_shape = snap_tree_r_shape(nodes);  // validates the size
  p.challenge_bit_len = std::size_t(std::countr_zero(nodes));
  if (variant == snap_variant::sha256) {
    p.challenge_count = snap_challenge_count(nodes);
    p.partition_count = snap_partition_count(nodes);
    p.partition_bit_len = std::size_t(std::countr_zero(p.partition_count));
    p.apex_leaf_count = snap_apex_leaf_count(nodes);
    p.apex_leaf_bit_len = std::size_t(std::countr_zero(p.apex_leaf_count));
  } else {
    p.challenge_count = snap_challenge_count(nodes) * snap_partition_count(nodes);
    p.partition_count = 1;
  }
  return p;
}

/// The k_and_h_select public input of partition |k| (circuit.rs
/// PublicInputs::new): k | h_select << partition_bit_len; the Poseidon
/// variant's h_select input is the same with k = 0 and no partition bits.
inline std::uint64_t snap_k_and_h_select(const snap_params& p, std::size_t k, std::size_t h) {
  if (k >= p.partition_count)
    throw std::invalid_argument("snap: partition " + std::to_string(k) + " of " + std::to_string(p.partition_count));
  return std::uint64_t(k) | (snap_h_select(p.sector_nodes, h) << p.partition_bit_len);
}

}  // namespace cuzk::circuits
