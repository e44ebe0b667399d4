// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the PoRep, PoSt and SnapDeals circuits share about a sector's trees:
// the node size, sector sizes as text, the shape of tree R_last per sector
// size, and a vanilla inclusion proof (io::merkle_proof, the same
// encoding in all three) turned into a circuit Merkle path. Header only; the
// path conversion copies the siblings once (arity - 1 hashes per level).

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/io/merkle_proof.hpp>

namespace cuzk::circuits {

using gadgets::merkle_path;
using gadgets::merkle_tree_shape;

/// Bytes per tree node (storage-proofs-core util::NODE_SIZE).
inline constexpr std::uint64_t node_size = 32;
/// "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" (any <n>KiB/MiB/GiB, or plain bytes) -> bytes.
inline std::optional<std::uint64_t> parse_sector_size(std::string_view s) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || n == 0) return std::nullopt;
  const std::string_view unit(end, std::size_t(s.data() + s.size() - end));
  unsigned shift = 0;
  if (unit == "KiB") shift = 10;
  else if (unit == "MiB") shift = 20;
  else if (unit == "GiB") shift = 30;
  else if (!unit.empty()) return std::nullopt;
  if (n > (~std::uint64_t(0) >> shift)) return std::nullopt;
  return n << shift;
}

/// The shape of tree R_last for a supported sector size (constants.rs
/// SectorShape*: 8-0-0 for 2 KiB/8 MiB/512 MiB, 8-2-0 for 4 KiB/16 MiB/1 GiB,
/// 8-8-0 for 16 KiB/32 GiB, 8-8-2 for 32 KiB/64 GiB); throws invalid_argument.
inline merkle_tree_shape tree_r_shape(std::uint64_t sector_size) {
  const std::uint64_t nodes = sector_size / node_size;
  switch (sector_size) {
    case 2ull << 10:
    case 8ull << 20:
    case 512ull << 20: return merkle_tree_shape::for_leaves(nodes, 8);
    case 4ull << 10:
    case 16ull << 20:
    case 1ull << 30: return merkle_tree_shape::for_leaves(nodes, 8, 2);
    case 16ull << 10:
    case 32ull << 30: return merkle_tree_shape::for_leaves(nodes, 8, 8);
    case 32ull << 10:
    case 64ull << 30: return merkle_tree_shape::for_leaves(nodes, 8, 8, 2);
    default: throw std::invalid_argument("unsupported sector size " + std::to_string(sector_size));
  }
}

/// The inclusion proof |p| as a path of |shape| (as_options); throws
/// invalid_argument when the proof's variant, levels or arities do not match.
inline merkle_path merkle_path_from_proof(const merkle_tree_shape& shape, const io::merkle_proof& p) {
  const io::merkle_proof_kind want = shape.top_arity != 0   ? io::merkle_proof_kind::top
                                     : shape.sub_arity != 0 ? io::merkle_proof_kind::sub
                                                            : io::merkle_proof_kind::single;
  if (p.kind != want)
    throw std::invalid_argument("inclusion proof variant " + std::to_string(unsigned(p.kind)) +
                                " does not match the tree shape (expected " + std::to_string(unsigned(want)) + ")");
  merkle_path path;
  std::size_t level = 0;
  for (const auto* part : {&p.base, &p.sub, &p.top}) {
    for (const io::merkle_path_element& e : *part) {
      if (level >= shape.levels()) throw std::invalid_argument("inclusion proof has too many levels");
      const std::size_t a = shape.arity(level);
      if (e.hashes.size() + 1 != a)
        throw std::invalid_argument("inclusion proof level " + std::to_string(level) + " has " +
                                    std::to_string(e.hashes.size()) + " siblings, arity is " + std::to_string(a));
      if (e.index >= a)
        throw std::invalid_argument("inclusion proof level " + std::to_string(level) + " index " +
                                    std::to_string(e.index) + " is not below the arity");
      path.siblings.insert(path.siblings.end(), e.hashes.begin(), e.hashes.end());
      path.indices.push_back(std::uint32_t(e.index));
      ++level;
    }
  }
  if (level != shape.levels())
    throw std::invalid_argument("inclusion proof has " + std::to_string(level) + " levels, the tree " +
                                std::to_string(shape.levels()));
  if (p.base.size() != shape.base_levels || p.sub.size() != (shape.sub_arity != 0 ? 1u : 0u) ||
      p.top.size() != (shape.top_arity != 0 ? 1u : 0u))
    throw std::invalid_argument("inclusion proof parts do not match the tree shape (base " +
                                std::to_string(p.base.size()) + ", sub " + std::to_string(p.sub.size()) + ", top " +
                                std::to_string(p.top.size()) + " levels)");
  return path;
}

}  // namespace cuzk::circuits
