// SPDX-License-Identifier: Apache-2.0
#pragma once
// Poseidon constants exactly as Filecoin gets them from neptune
// (`PoseidonConstants::new()` = Strength::Standard, HashType::MerkleTree),
// computed here from the definitions, never typed in as tables.
//
// What each part mirrors (argumentcomputer/neptune @86377d0b, unchanged in the
// v11 that rust-fil-proofs pins):
//   round numbers     round_numbers.rs calc_round_numbers(t, true): the Poseidon
//                     security inequalities for a 256-bit field, M = 128, in f32
//                     arithmetic as neptune does, then R_F + 2 and R_P * 1.075
//                     rounded up. R_F = 8 for every width; R_P = 55 (t=3),
//                     56 (t=5), 57 (t=9, 12), 59 (t=17, 25), 60 (t=37).
//   round constants   round_constants.rs generate_constants(1, 1, 255, t, R_F, R_P):
//                     the Grain LFSR in self-shrinking mode, 80-bit seed
//                     field(2)=1 | sbox(4)=1 | n(12)=255 | t(12) | R_F(10) | R_P(10) |
//                     thirty ones, taps 0/13/23/38/51/62, 160 warm-up bits;
//                     each constant is 255 output bits read MSB first,
//                     rejected when >= r. (R_F + R_P) * t constants.
//   MDS               mds.rs generate_mds: Cauchy M[i][j] = 1 / (i + (t + j)),
//                     symmetric, so neptune's `state * M` and `M * state` agree.
//   optimized form    preprocessing.rs compress_round_constants (with every partial
//                     round preprocessed) and mds.rs factor_to_sparse_matrixes(M^T,
//                     R_P): the "pre-sparse" matrix for the last initial full round
//                     and one sparse matrix M'' per partial round, each given by its
//                     first column |w_hat| (t) and the rest of its first row
//                     |v_rest| (t - 1); the inner block is the identity.
//   domain tags       hash_type.rs: MerkleTree -> 2^arity - 1;
//                     Custom(CType::Arbitrary(id)), 1 <= id <= 256 -> id * 2^40.
//
// Layout: matrices are dense row-major vectors of ff::fr (Montgomery form),
// entry (i, j) at [i * width + j], as neptune's Vec<Vec<F>> indexes m[i][j].
// The supraseal dumps (curio extern/supraseal/poseidon/constants) store the
// same numbers in this order: compressed constants, MDS, pre-sparse, then
// per partial round w_hat followed by v_rest.
//
// Costs: poseidon_constants_for(arity) builds an arity's constants once per
// process (CPU time, -O3: arity 2 ~4 ms, 8 ~11 ms, 11 ~16 ms, 36 ~0.19 s,
// mostly the R_P sparse factorizations) and then returns the cached object;
// later calls are one std::call_once check. Thread-safe.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::gadgets {

/// Largest arity neptune defines (U1..U36); widths go up to 37.
inline constexpr std::size_t poseidon_max_arity = 36;

/// Full and partial round numbers.
struct poseidon_round_numbers {
  std::size_t full_rounds = 0;
  std::size_t partial_rounds = 0;
};

/// neptune's Strength::Standard round numbers for width |t| (>= 2):
/// calc_round_numbers(t, security_margin = true).
poseidon_round_numbers poseidon_standard_round_numbers(std::size_t t);

/// The Grain LFSR round constants for a prime field of 255 bits with the x^5
/// S-box (neptune generate_constants(1, 1, 255, t, r_f, r_p)), in round order:
/// (r_f + r_p) * t elements.
std::vector<ff::fr> poseidon_grain_round_constants(std::size_t t, std::size_t r_f, std::size_t r_p);

/// neptune's Cauchy MDS matrix for width |t|: M[i][j] = 1 / (i + t + j), row-major.
std::vector<ff::fr> poseidon_cauchy_mds(std::size_t t);

/// Everything one arity needs, for the plain and the optimized permutation.
struct poseidon_constants {
  std::size_t arity = 0;
  std::size_t width = 0;  ///< t = arity + 1
  std::size_t full_rounds = 0;
  std::size_t half_full_rounds = 0;
  std::size_t partial_rounds = 0;
  /// Grain constants, (full_rounds + partial_rounds) * width, round r at [r * width].
  std::vector<ff::fr> round_constants;
  /// M, width x width, row-major.
  std::vector<ff::fr> mds;
  /// M^-1, width x width, row-major.
  std::vector<ff::fr> mds_inverse;
  /// neptune's compressed_round_constants: full_rounds * width + partial_rounds.
  std::vector<ff::fr> compressed_round_constants;
  /// neptune's pre_sparse_matrix, width x width, row-major (not symmetric).
  std::vector<ff::fr> pre_sparse_matrix;
  /// neptune's sparse_matrixes, in the order the partial rounds use them:
  /// partial_rounds blocks of (2 * width - 1): w_hat (width), then v_rest (width - 1).
  std::vector<ff::fr> sparse_matrices;

  const ff::fr& mds_at(std::size_t i, std::size_t j) const { return mds[i * width + j]; }
  const ff::fr& pre_sparse_at(std::size_t i, std::size_t j) const { return pre_sparse_matrix[i * width + j]; }
  /// First column of the sparse matrix of partial round |k|.
  std::span<const ff::fr> w_hat(std::size_t k) const { return {sparse_matrices.data() + k * (2 * width - 1), width}; }
  /// First row of the sparse matrix of partial round |k|, without its first entry.
  std::span<const ff::fr> v_rest(std::size_t k) const {
    return {sparse_matrices.data() + k * (2 * width - 1) + width, width - 1};
  }
};

/// Builds the constants of |arity| (1..poseidon_max_arity) from scratch.
poseidon_constants make_poseidon_constants(std::size_t arity);

/// The constants of |arity| (1..poseidon_max_arity), built on first use and
/// cached for the life of the process; throws std::invalid_argument for other arities.
const poseidon_constants& poseidon_constants_for(std::size_t arity);

/// neptune's HashType, restricted to the kinds Filecoin uses: it only selects
/// the domain tag, the first element of the initial state.
class poseidon_hash_type {
 public:
  /// HashType::MerkleTree: tag 2^arity - 1 (tree R/C/D nodes, column hashes, comm_r).
  static constexpr poseidon_hash_type merkle_tree() noexcept { return poseidon_hash_type(0); }
  /// HashType::Custom(CType::Arbitrary(id)) with 1 <= |id| <= 256: tag id * 2^40
  /// (SnapDeals' HASH_TYPE_GEN_RANDOMNESS is custom(1) at arity 2); throws
  /// std::invalid_argument outside that range, as neptune panics.
  static poseidon_hash_type custom(std::uint64_t id);

  bool is_merkle_tree() const noexcept { return _custom_id == 0; }
  /// The custom identifier (0 for MerkleTree).
  std::uint64_t custom_id() const noexcept { return _custom_id; }
  /// The domain tag for |arity|.
  ff::fr domain_tag(std::size_t arity) const;

  friend constexpr bool operator==(poseidon_hash_type, poseidon_hash_type) = default;

 private:
  constexpr explicit poseidon_hash_type(std::uint64_t id) noexcept : _custom_id(id) {}
  std::uint64_t _custom_id;
};

}  // namespace cuzk::gadgets
