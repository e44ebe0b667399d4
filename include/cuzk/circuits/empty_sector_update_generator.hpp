// SPDX-License-Identifier: Apache-2.0
#pragma once
// Synthetic SnapDeals vanilla proofs (one PartitionProof per partition) for
// every sector size, in about a second, and the native vanilla verifier
// (storage-proofs-update vanilla.rs EmptySectorUpdate::verify) that checks
// them the way the circuit will.
//
// Why the trees are implicit, not sparse: the challenges are derived from
// comm_r_new, which commits to tree R new, whose leaves depend on rho and so
// on comm_r_old; a tree that is real only at the opened leaves cannot exist
// before the challenges are known. Instead every tree is fully defined and
// cheap to evaluate anywhere:
//   * data (tree D new leaves) and the old replica (tree R old leaves)
//     repeat a block of |period| (64) random leaves across the sector;
//   * new replica leaf i = old_i + data_i * rho(i >> (log2 nodes - h)), so
//     within one rho segment tree R new repeats as well;
//   * a node's value depends only on (level, segment, position in the
//     period) while it lies inside one segment, so nodes are memoized by
//     that key and only nodes spanning several segments are distinct
//     (32 GiB: ~14 K arity-8 Poseidon hashes in all, < 1 s).
// Everything random (the two blocks, comm_c) comes from a ChaCha20 stream
// keyed by SHA256("cuzk synthetic snap" || u64le(seed)). comm_r_old =
// Poseidon2(comm_c, root R old), comm_r_new = Poseidon2(comm_c, root R new),
// as after a real seal and update with the same comm_c.
// The Poseidon variant (one partition, Poseidon tree D of tree R's shape)
// is generated the same way.
//
// Checker: phi, rho, the challenges (re-derived from comm_r_new), every
// opening's leaf index, root and path, comm_r_old / comm_r_new from comm_c,
// the new replica leaf's encoding, the apex leaves against tree D and the
// partition path shared by all challenges; returns the problems found, each
// naming its place ("partition 1 challenge 3 (node 70123): proof_d_new: ...").

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuzk/circuits/empty_sector_update_params.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/io/snap_vanilla.hpp>

namespace cuzk::circuits {

/// The public values of one SnapDeals proof (vanilla.rs PublicInputs without k).
struct snap_public {
  ff::fr comm_r_old, comm_d_new, comm_r_new;
  std::size_t h = 0;  ///< high bits per rho (h_default for production)
};

/// A generated update: its public values and one partition proof per partition.
struct synthetic_snap {
  snap_params params;
  snap_public pub;
  std::vector<io::snap_partition_proof> partitions;
};

/// Generates a consistent update for |params| (any allowed size, either
/// variant) with h = |h| (0: h_default).
synthetic_snap generate_synthetic_snap(const snap_params& params, std::uint64_t seed, std::size_t h = 0);

/// vanilla.rs verify of partition |k|; an empty result means valid.
std::vector<std::string> check_snap_partition(const snap_params& params, const snap_public& pub, std::size_t k,
                                              const io::snap_partition_proof& proof);

}  // namespace cuzk::circuits
