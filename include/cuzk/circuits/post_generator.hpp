// SPDX-License-Identifier: Apache-2.0
#pragma once
// Synthetic 2 KiB PoSt sectors and their vanilla proofs (WindowPoSt and
// WinningPoSt test inputs): `cuzk-bench gen-post`, the daemon tests and the
// PoSt circuit tests draw from the same generator.
//
// A sector: tree R_last (arity 8, Poseidon) built in full over random leaves,
// a random comm_c and comm_r = Poseidon2(comm_c, root), as after a real seal.
// Its vanilla proof for a list of challenged leaves is what the Rust prover
// sends (FallbackPoStSectorProof with one SectorProof of Single inclusion
// proofs, io/post_vanilla.hpp). The sector size is fixed at 2 KiB because the
// whole tree is held in memory; the challenges, the circuit and the bincode
// are those of every size.
//
// Randomness: the caller's std::mt19937_64, drawn in a fixed order (the 64
// leaves, then comm_c), so a seed gives the same sector everywhere.
// Cost: 9 arity-8 Poseidon hashes per sector; a path is 2 levels.

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/io/post_vanilla.hpp>

namespace cuzk::circuits {

/// Bytes of the sectors the generator makes.
inline constexpr std::uint64_t synthetic_post_sector_size = 2048;

/// A random sector (see the top of the file).
struct synthetic_post_sector {
  std::uint64_t id = 0;
  gadgets::merkle_tree tree;  ///< tree R_last; its root is comm_r_last
  ff::fr comm_c, comm_r;
};

/// Draws the leaves, then comm_c, from |rng|.
synthetic_post_sector make_synthetic_post_sector(std::mt19937_64& rng, std::uint64_t id);

/// The SectorProof of |s| for the challenged leaves |challenges|: one Single
/// inclusion proof each, in that order.
io::post_sector_proof synthetic_post_sector_proof(const synthetic_post_sector& s,
                                                  std::span<const std::uint64_t> challenges);

/// The vanilla proof of |s| as sector |index| of a partition under |params|
/// and |randomness| (its params.challenge_count leaf challenges).
io::fallback_post_sector_proof synthetic_fallback_post_vanilla(const synthetic_post_sector& s,
                                                               const fallback_post_params& params,
                                                               const std::array<std::uint8_t, 32>& randomness,
                                                               std::size_t index);

}  // namespace cuzk::circuits
