// SPDX-License-Identifier: Apache-2.0
#pragma once
// Readers for the circom/snarkjs binary files on BLS12-381: the constraint
// system (.r1cs, version 1), the witness (.wtns, version 2) and the snarkjs
// Groth16 proving key (.zkey, version 1). Formats:
// docs/FORMATS.md §5.
//
// Method. All three are iden3 containers: magic[4] | u32 version |
// u32 n_sections | n_sections x (u32 id, u64 size, size bytes). The reader
// maps the file read-only, builds an id -> (offset, size) table (sections
// come in any order; duplicates of a known id, sections overrunning the file
// and bytes after the last section are errors), then decodes each section by
// id with a bounds-checked cursor. Every count read from the file is checked
// against the bytes that remain before anything is allocated, so a hostile
// header cannot make the reader allocate more than the file's size allows.
//
// Field encodings (converted to cuzk's Montgomery types here):
//   r1cs coefficients, wtns values    canonical LE, must be < r
//   zkey Fq coordinates               LE Montgomery with R = 2^384, must be < q
//                                     (the same bytes as cuzk::ff::fp)
//   zkey section-4 values             coef * 2^512 mod r (Montgomery form of
//                                     coef * R, R = 2^256), must be < r;
//                                     stored here decoded, as the element coef
//   points                            affine, all-zero bytes = infinity, which
//                                     is cuzk's x = y = 0
//
// Invariants of the returned objects: every field element is fully reduced
// Montgomery; every wire/signal index is < the number of wires/variables;
// every zkey row is < domain_size; zkey points are on their curve (and in
// the prime-order subgroup when zkey_options::check_subgroup is set).
//
// Errors. Any malformed input throws format_error (a std::runtime_error)
// whose message names the file kind, the path, the section and the byte
// offset in the file where decoding stopped, e.g.
//   zkey file 'c.zkey': section 9 (H) at byte offset 4242: truncated: ...
// No input makes the reader read out of bounds or crash.
//
// Cost: one pass over the file; point validation (on-curve: ~3 Fp mul per
// G1 point, ~10 Fp2 mul per G2 point) runs on all cores through oneTBB.
// Measured: the 49 MB 2^16 zkey reads in ~0.5 s wall on two busy cores;
// memory is the decoded key (about the file's size). The subgroup check
// costs ~30x the rest and is therefore optional.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/io/format_error.hpp>

namespace cuzk::io {

// ---- .r1cs -------------------------------------------------------------

struct r1cs_term {
  std::uint32_t wire;
  ff::fr coef;
};

/// A circom constraint system: sum_A * sum_B - sum_C = 0 per constraint.
/// Wire 0 is the constant 1, then n_pub_out outputs, n_pub_in public
/// inputs, n_prv_in private inputs, then internal wires.
struct r1cs_file {
  std::uint32_t n_wires = 0;
  std::uint32_t n_pub_out = 0;
  std::uint32_t n_pub_in = 0;
  std::uint32_t n_prv_in = 0;
  std::uint64_t n_labels = 0;
  std::uint32_t n_constraints = 0;
  /// All terms, constraint by constraint, A then B then C.
  std::vector<r1cs_term> terms;
  /// 3 n_constraints + 1 offsets into |terms|: LC m (0 = A, 1 = B, 2 = C) of
  /// constraint c is terms[lc_start[3c + m], lc_start[3c + m + 1]).
  std::vector<std::uint64_t> lc_start;
  /// Section 3, wire -> label id; empty when the file has no section 3.
  std::vector<std::uint64_t> wire_labels;

  std::uint32_t n_public() const { return n_pub_out + n_pub_in; }
  std::span<const r1cs_term> lc(std::size_t constraint, unsigned matrix) const {
    const std::size_t k = 3 * constraint + matrix;
    return {terms.data() + lc_start[k], terms.data() + lc_start[k + 1]};
  }
};

/// Parses a .r1cs image; |path| only labels error messages.
r1cs_file parse_r1cs(std::span<const std::uint8_t> bytes, std::string_view path = "<memory>");
r1cs_file read_r1cs(const std::filesystem::path& path);

// ---- .wtns -------------------------------------------------------------

struct wtns_file {
  /// w[0] = 1, then the wires in r1cs order.
  std::vector<ff::fr> values;
};

wtns_file parse_wtns(std::span<const std::uint8_t> bytes, std::string_view path = "<memory>");
wtns_file read_wtns(const std::filesystem::path& path);

// ---- .zkey (Groth16) ---------------------------------------------------

/// One entry of section 4: |coef| * w[signal] is added to row |row| of the
/// A (matrix 0) or B (matrix 1) evaluations.
struct zkey_coef {
  std::uint32_t matrix;
  std::uint32_t row;
  std::uint32_t signal;
  ff::fr coef;  ///< the decoded coefficient (not snarkjs's coef * R form)
};

struct zkey_file {
  std::uint32_t n_vars = 0;
  std::uint32_t n_public = 0;
  std::uint32_t domain_size = 0;  ///< a power of two
  ec::g1_affine alpha1, beta1, delta1;
  ec::g2_affine beta2, gamma2, delta2;
  std::vector<ec::g1_affine> ic;  ///< n_public + 1
  std::vector<zkey_coef> coefs;
  std::vector<ec::g1_affine> a;   ///< n_vars: [u_i(tau)]_1
  std::vector<ec::g1_affine> b1;  ///< n_vars: [v_i(tau)]_1
  std::vector<ec::g2_affine> b2;  ///< n_vars: [v_i(tau)]_2
  std::vector<ec::g1_affine> c;   ///< n_vars - n_public - 1, for i > n_public
  std::vector<ec::g1_affine> h;   ///< domain_size: odd-coset Lagrange basis / delta

  unsigned lg_domain_size() const;
};

struct zkey_options {
  /// Reject points that are not on the curve (cheap; keep it on).
  bool check_on_curve = true;
  /// Reject points outside the prime-order subgroups (expensive).
  bool check_subgroup = false;
};

/// Largest zkey domain the prover supports (cuzk::ntt's 2^28).
inline constexpr unsigned lg_max_zkey_domain = 28;

zkey_file parse_zkey(std::span<const std::uint8_t> bytes, std::string_view path = "<memory>",
                     const zkey_options& options = {});
zkey_file read_zkey(const std::filesystem::path& path, const zkey_options& options = {});

// ---- consistency -------------------------------------------------------

/// Index of the first constraint that |w| violates, nullopt when it satisfies
/// them all. Throws std::invalid_argument when w.size() != n_wires.
std::optional<std::size_t> first_unsatisfied_constraint(const r1cs_file& cs, std::span<const ff::fr> w);

/// Checks that |zk| was set up for |cs| the way snarkjs does (sizes, domain,
/// and section 4 equal to the A and B matrices plus the public-input rows).
/// Returns a description of the first difference, nullopt when they agree.
std::optional<std::string> zkey_mismatch(const r1cs_file& cs, const zkey_file& zk);

}  // namespace cuzk::io
