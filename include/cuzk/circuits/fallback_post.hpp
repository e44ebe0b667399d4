// SPDX-License-Identifier: Apache-2.0
#pragma once
// The FallbackPoSt circuit (WindowPoSt and WinningPoSt), after rust-fil-proofs
// `storage-proofs-post/src/fallback/circuit.rs` (FallbackPoStCircuit,
// Sector::synthesize), `compound.rs` (generate_public_inputs, circuit),
// `vanilla.rs` / `utils.rs` (leaf challenges) and filecoin-proofs
// `constants.rs`, `parameters.rs` (winning/window_post_setup_params) and
// `api/post_util.rs` (single_partition_vanilla_proofs: padding, WinningPoSt
// unrolling).
//
// Layout, in bellperson's order ("outer namespace/sector_<i>/..."), per sector slot:
//   "comm_r_last/num", "comm_c/num", "comm_r/num"      3 aux (that order)
//   "comm_r_input"                   comm_r inputized: 1 input + 1 constraint
//   "H_comm_c_comm_r_last"           Poseidon arity 2 of (comm_c, comm_r_last): 311
//   "enforce_comm_c_comm_r_last_hash_comm_r"          comm_r * ONE = hash: 1
//   "challenge_inclusion_<j>"        j < challenge_count: a por_circuit (merkle.hpp)
//                                    in tree R_last with root = the comm_r_last
//                                    variable (private), leaf index = 1 public input
// Per slot: 313 + challenge_count * (levels * 530 [8-ary; 314 for a 2-ary
// top level] + 2) constraints and 1 + challenge_count inputs. 32 GiB (8-8-0,
// 10 levels): 53,333 constraints per slot; WindowPoSt 2349 slots =
// 125,279,217 constraints, 25,840 inputs with ONE; WinningPoSt 66
// one-challenge slots = 370,590 constraints, 133 inputs (filecoin-proofs
// constants.rs and docs/FORMATS.md §4.5). These published figures count ONE
// plus the circuit only, NOT the `input_i * 0 = 0` rows synthesize_groth16
// appends (r1cs::synthesize_circuit gives them).
//
// Slots: a partition has params.sector_count slots; the caller's sectors
// fill the first ones and every further slot repeats the LAST sector (the
// Rust prover pads its vanilla proofs and public sectors that way), so the
// circuit stores each sector once. A blank circuit (no sectors) has empty
// values everywhere (shape, setup, counting).
//
// WinningPoSt: 66 challenges on one sector, synthesized as 66 slots of one
// challenge each (winning_post_setup_params), the vanilla proof's inclusion
// proofs unrolled one per slot.
//
// Challenges: leaf = LE-u64(SHA256(randomness || u64le(sector_id) ||
// u64le(n))[0..8]) mod nodes with n = challenge_index(api, sector_index,
// challenge_count, j): j for V1_2_0, sector_index * challenge_count + j for
// V1_0_0 / V1_1_0. WinningPoSt proofs are V1_0_0 (rust-filecoin-proofs-api
// registry.rs), WindowPoSt V1 proofs V1_0_0 and V1_1 proofs V1_2_0.
//
// Costs (Release, loaded 2-core dev host): counting_cs of the blank 32 GiB
// WindowPoSt circuit (125M constraints) 0.3-0.5 s; checking_cs of one
// 32 GiB slot ~0.9 s. Witness generation costs the native Poseidon hashes:
// challenge_count x levels Merkle hashes plus one arity-2 hash per slot
// (32 GiB: 100 arity-8 + 1 arity-2). synthesize() is
// sequential; an engine can split the slots into extensible child systems
// with synthesize_slot() and extend() them in order (bellperson's
// synthesize_extendable), which yields the same variable numbering.

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cuzk/circuits/sector_tree.hpp>
#include <cuzk/gadgets/constraint.hpp>
#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/gadgets/native_sha256.hpp>
#include <cuzk/gadgets/poseidon.hpp>
#include <cuzk/io/post_vanilla.hpp>
#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::circuits {

using gadgets::merkle_path;
using gadgets::merkle_tree_shape;
using r1cs::fr;

/// filecoin-proofs constants.rs.
inline constexpr std::size_t window_post_challenge_count = 10;
inline constexpr std::size_t winning_post_challenge_count = 66;
inline constexpr std::size_t winning_post_sector_count = 1;

enum class post_type : std::uint8_t { window, winning };
/// storage-proofs-core ApiVersion (only the PoSt-relevant difference: challenge indexing).
enum class post_api_version : std::uint8_t { v1_0_0, v1_1_0, v1_2_0 };

/// WindowPoSt sectors per partition (constants.rs WINDOW_POST_SECTOR_COUNT).
inline std::size_t window_post_sector_count(std::uint64_t sector_size) {
  (void)tree_r_shape(sector_size);  // validates the size
  if (sector_size == (32ull << 30)) return 2349;
  if (sector_size == (64ull << 30)) return 2300;
  return 2;
}

/// fallback::PublicParams.
struct fallback_post_params {
  std::uint64_t sector_size = 0;
  std::size_t challenge_count = 0;  ///< challenges per sector slot
  std::size_t sector_count = 0;     ///< sector slots per partition
  post_api_version api_version = post_api_version::v1_2_0;

  std::uint64_t nodes() const noexcept { return sector_size / node_size; }
  merkle_tree_shape shape() const { return tree_r_shape(sector_size); }
};

/// window_post_setup_params: 10 challenges per sector, the size's sectors per partition.
inline fallback_post_params window_post_params(std::uint64_t sector_size,
                                               post_api_version v = post_api_version::v1_2_0) {
  return {sector_size, window_post_challenge_count, window_post_sector_count(sector_size), v};
}

/// winning_post_setup_params: 66 challenges on 1 sector as 66 slots of 1 challenge.
inline fallback_post_params winning_post_params(std::uint64_t sector_size,
                                                post_api_version v = post_api_version::v1_0_0) {
  (void)tree_r_shape(sector_size);
  const std::size_t slots = winning_post_challenge_count / winning_post_sector_count;
  return {sector_size, winning_post_challenge_count / slots, slots, v};
}

/// get_challenge_index (fallback/utils.rs).
inline std::uint64_t challenge_index(post_api_version v, std::uint64_t sector_index, std::uint64_t challenge_count,
                                     std::uint64_t n) {
  return v == post_api_version::v1_2_0 ? n : sector_index * challenge_count + n;
}

/// generate_leaf_challenge: LE-u64(SHA256(randomness || sector_id || index)[0..8]) mod nodes.
inline std::uint64_t generate_leaf_challenge(const std::array<std::uint8_t, 32>& randomness, std::uint64_t sector_id,
                                             std::uint64_t leaf_challenge_index, std::uint64_t nodes) {
  std::uint8_t id[8], idx[8];
  for (int i = 0; i < 8; ++i) {
    id[i] = std::uint8_t(sector_id >> (8 * i));
    idx[i] = std::uint8_t(leaf_challenge_index >> (8 * i));
  }
  const gadgets::native::sha256_digest h =
      gadgets::native::sha256({std::span<const std::uint8_t>(randomness), std::span<const std::uint8_t>(id, 8),
                               std::span<const std::uint8_t>(idx, 8)});
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(h[std::size_t(i)]) << (8 * i);
  return v % nodes;
}

/// A challenged sector as the verifier sees it (fallback::PublicSector).
struct post_public_sector {
  std::uint64_t id = 0;
  fr comm_r;
};

/// The public inputs of partition |partition_index| from that partition's
/// sectors alone (|partition_sectors|, at most sector_count, at least one):
/// per slot comm_r then the challenged leaf indices (their challenge index
/// counts from the partition's first sector, partition_index *
/// sector_count); missing slots repeat the last sector's inputs. Nothing is
/// allocated for earlier partitions, so a large index costs nothing.
inline std::vector<fr> fallback_post_partition_public_inputs(const fallback_post_params& params,
                                                             const std::array<std::uint8_t, 32>& randomness,
                                                             std::span<const post_public_sector> partition_sectors,
                                                             std::size_t partition_index) {
  if (params.sector_count == 0) throw std::invalid_argument("post: sector_count is 0");
  if (partition_sectors.empty() || partition_sectors.size() > params.sector_count)
    throw std::invalid_argument("post: invalid number of sectors/partition index");
  const std::size_t first = partition_index * params.sector_count;
  std::vector<fr> inputs;
  inputs.reserve(params.sector_count * (1 + params.challenge_count));
  for (std::size_t i = 0; i < partition_sectors.size(); ++i) {
    const post_public_sector& s = partition_sectors[i];
    inputs.push_back(s.comm_r);
    for (std::size_t n = 0; n < params.challenge_count; ++n) {
      const std::uint64_t idx = challenge_index(params.api_version, first + i, params.challenge_count, n);
      inputs.push_back(fr::from_uint(generate_leaf_challenge(randomness, s.id, idx, params.nodes())));
    }
  }
  const std::size_t per_sector = 1 + params.challenge_count;
  while (inputs.size() < per_sector * params.sector_count) {
    const std::size_t from = inputs.size() - per_sector;
    for (std::size_t k = 0; k < per_sector; ++k) inputs.push_back(inputs[from + k]);
  }
  return inputs;
}

/// FallbackPoStCompound::generate_public_inputs for partition |partition_index|
/// of |sectors| (all challenged sectors, in order): per slot comm_r then the
/// challenged leaf indices; missing slots repeat the last sector's inputs.
inline std::vector<fr> fallback_post_public_inputs(const fallback_post_params& params,
                                                   const std::array<std::uint8_t, 32>& randomness,
                                                   std::span<const post_public_sector> sectors,
                                                   std::size_t partition_index) {
  if (params.sector_count == 0) throw std::invalid_argument("post: sector_count is 0");
  const std::size_t first = partition_index * params.sector_count;
  if (first >= sectors.size()) throw std::invalid_argument("post: invalid number of sectors/partition index");
  const std::size_t count = std::min(params.sector_count, sectors.size() - first);
  return fallback_post_partition_public_inputs(params, randomness, sectors.subspan(first, count), partition_index);
}

/// WinningPoSt public inputs: the one sector repeated in every slot (verify_winning_post).
inline std::vector<fr> winning_post_public_inputs(const fallback_post_params& params,
                                                  const std::array<std::uint8_t, 32>& randomness,
                                                  const post_public_sector& sector) {
  const std::vector<post_public_sector> sectors(params.sector_count, sector);
  return fallback_post_public_inputs(params, randomness, sectors, 0);
}

/// The leaf challenges of one sector (post_util generate_fallback_sector_challenges
/// for sector |sector_index| of a partition's list).
inline std::vector<std::uint64_t> sector_leaf_challenges(const fallback_post_params& params,
                                                         const std::array<std::uint8_t, 32>& randomness,
                                                         std::uint64_t sector_id, std::size_t sector_index,
                                                         std::size_t challenge_count) {
  std::vector<std::uint64_t> r;
  for (std::size_t n = 0; n < challenge_count; ++n)
    r.push_back(generate_leaf_challenge(
        randomness, sector_id, challenge_index(params.api_version, sector_index, challenge_count, n), params.nodes()));
  return r;
}

/// One sector slot's witness (fallback circuit.rs Sector); all empty = blank.
struct fallback_post_sector {
  std::optional<fr> comm_r, comm_c, comm_r_last;
  std::vector<fr> leafs;           ///< challenge_count leaves of tree R_last
  std::vector<merkle_path> paths;  ///< their authentication paths
};

/// Sector::circuit: a slot from the public comm_r and one vanilla SectorProof.
inline fallback_post_sector make_post_sector(const merkle_tree_shape& shape, const fr& comm_r,
                                             const io::post_sector_proof& proof) {
  fallback_post_sector s;
  s.comm_r = comm_r;
  s.comm_c = proof.comm_c;
  s.comm_r_last = proof.comm_r_last;
  for (const io::merkle_proof& p : proof.inclusion_proofs) {
    s.leafs.push_back(p.leaf);
    s.paths.push_back(merkle_path_from_proof(shape, p));
  }
  return s;
}

/// FallbackPoStCircuit.
struct fallback_post_circuit {
  fallback_post_params params;
  /// The first sector slots; slots past the end repeat the last; empty = blank.
  std::vector<fallback_post_sector> sectors;

  /// The sector filling slot |slot| (nullptr for a blank circuit).
  const fallback_post_sector* sector_for_slot(std::size_t slot) const noexcept {
    if (sectors.empty()) return nullptr;
    return &sectors[std::min(slot, sectors.size() - 1)];
  }

  /// synthesize_default: every slot, in "outer namespace/sector_<i>".
  template <r1cs::constraint_system CS>
  void synthesize(CS& cs) const {
    const merkle_tree_shape shape = params.shape();
    r1cs::namespace_guard ns(cs, "outer namespace");
    for (std::size_t i = 0; i < params.sector_count; ++i) {
      r1cs::namespace_guard ns_i(cs, [i] { return "sector_" + std::to_string(i); });
      synthesize_slot(cs, shape, i);
    }
  }

  /// Sector::synthesize for slot |slot| in the caller's namespace (lets an
  /// engine synthesize chunks of slots into child systems and extend()).
  template <r1cs::constraint_system CS>
  void synthesize_slot(CS& cs, const merkle_tree_shape& shape, std::size_t slot) const {
    using gadgets::allocated_num;
    using gadgets::detail::require_value;
    using r1cs::namespace_guard;
    const fallback_post_sector* s = sector_for_slot(slot);
    static const std::optional<fr> none;
    const std::optional<fr>& comm_r = s ? s->comm_r : none;
    const std::optional<fr>& comm_c = s ? s->comm_c : none;
    const std::optional<fr>& comm_r_last = s ? s->comm_r_last : none;
    if (s && (s->leafs.size() != params.challenge_count || s->paths.size() != params.challenge_count))
      throw std::invalid_argument("post: sector slot " + std::to_string(slot) + " has " +
                                  std::to_string(s->leafs.size()) + " challenges, the circuit " +
                                  std::to_string(params.challenge_count));

    const auto alloc_in = [&](const char* name, const std::optional<fr>& v) {
      namespace_guard ns(cs, name);
      return allocated_num::alloc(cs, [&] { return require_value(v); });
    };
    const allocated_num comm_r_last_num = alloc_in("comm_r_last", comm_r_last);
    const allocated_num comm_c_num = alloc_in("comm_c", comm_c);
    const allocated_num comm_r_num = alloc_in("comm_r", comm_r);
    {
      namespace_guard ns(cs, "comm_r_input");
      comm_r_num.inputize(cs);
    }
    {
      std::optional<allocated_num> hash;
      {
        namespace_guard ns(cs, "H_comm_c_comm_r_last");
        const std::array<allocated_num, 2> preimage{comm_c_num, comm_r_last_num};
        hash = gadgets::poseidon_hash(cs, std::span<const allocated_num>(preimage));
      }
      gadgets::constraint::equal(cs, "enforce_comm_c_comm_r_last_hash_comm_r", comm_r_num, *hash);
    }
    const gadgets::por_root root{comm_r_last_num};
    for (std::size_t j = 0; j < params.challenge_count; ++j) {
      namespace_guard ns(cs, [j] { return "challenge_inclusion_" + std::to_string(j); });
      if (s) gadgets::por_circuit(cs, shape, s->leafs[j], &s->paths[j], root, true);
      else gadgets::por_circuit(cs, shape, std::nullopt, nullptr, root, true);
    }
  }
};

/// A blank circuit for |params| (shape, parameter generation, counting).
inline fallback_post_circuit blank_fallback_post_circuit(const fallback_post_params& params) { return {params, {}}; }

/// WindowPoSt partition circuit from the vanilla proofs of its sectors, in
/// slot order (single_partition_vanilla_proofs + FallbackPoStCompound::circuit):
/// comm_r from each FallbackPoStSectorProof, every SectorProof it holds
/// taking a slot, the last repeated to fill the partition.
inline fallback_post_circuit window_post_circuit(const fallback_post_params& params,
                                                 std::span<const io::fallback_post_sector_proof> proofs) {
  const merkle_tree_shape shape = params.shape();
  fallback_post_circuit c{params, {}};
  for (const io::fallback_post_sector_proof& p : proofs)
    for (const io::post_sector_proof& sp : p.sectors) c.sectors.push_back(make_post_sector(shape, p.comm_r, sp));
  if (c.sectors.empty()) throw std::invalid_argument("post: no sector proofs");
  if (c.sectors.size() > params.sector_count)
    throw std::invalid_argument("post: " + std::to_string(c.sectors.size()) + " sector proofs for " +
                                std::to_string(params.sector_count) + " slots");
  return c;
}

/// WinningPoSt circuit from the one sector's vanilla proof: its inclusion
/// proofs unrolled one per slot (single_partition_vanilla_proofs, Winning).
inline fallback_post_circuit winning_post_circuit(const fallback_post_params& params,
                                                  const io::fallback_post_sector_proof& proof) {
  if (proof.sectors.size() != 1) throw std::invalid_argument("post: a WinningPoSt vanilla proof holds one sector");
  const io::post_sector_proof& sp = proof.sectors[0];
  if (sp.inclusion_proofs.size() != params.sector_count * params.challenge_count)
    throw std::invalid_argument("post: WinningPoSt needs " +
                                std::to_string(params.sector_count * params.challenge_count) +
                                " inclusion proofs, got " + std::to_string(sp.inclusion_proofs.size()));
  const merkle_tree_shape shape = params.shape();
  fallback_post_circuit c{params, {}};
  for (std::size_t i = 0; i < params.sector_count; ++i) {
    io::post_sector_proof one{{}, sp.comm_c, sp.comm_r_last};
    for (std::size_t j = 0; j < params.challenge_count; ++j)
      one.inclusion_proofs.push_back(sp.inclusion_proofs[i * params.challenge_count + j]);
    c.sectors.push_back(make_post_sector(shape, proof.comm_r, one));
  }
  return c;
}

}  // namespace cuzk::circuits
