// SPDX-License-Identifier: Apache-2.0
#pragma once
// snarkjs's JSON files on BLS12-381: proof.json, public.json and
// verification_key.json (format: docs/FORMATS.md §5.6).
//
// Encoding. Every number is a decimal string of a canonical (non-Montgomery)
// value. G1 is [x, y, "1"], G2 is [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]
// (real part first); infinity is ["0", "1", "0"] and
// [["0", "0"], ["1", "0"], ["0", "0"]]. The writers reproduce snarkjs's text
// byte for byte: keys in snarkjs's order, JSON.stringify(x, null, 1)
// indentation (one space per level), no trailing newline.
//
// Parsing is strict: numbers must be decimal strings (public inputs may also
// be JSON integers) below their modulus, points must be on the curve, z must
// be 1 (or 0 with the infinity encoding). Subgroup membership is the
// verifier's job. Errors are io::format_error naming the file kind and the
// JSON path of the offending value (e.g. "pi_b[1][0]").
//
// Cost: decimal conversion is quadratic in the limb count (a few microseconds
// per number); everything here is negligible next to proving.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/proof.hpp>
#include <cuzk/io/circom.hpp>

namespace cuzk::io {

/// Decimal digits of a little-endian multi-limb integer ("0" for zero).
std::string to_decimal(std::span<const std::uint64_t> le_limbs);
std::string to_decimal(const ff::fr& a);  ///< canonical value of |a|
std::string to_decimal(const ff::fp& a);  ///< canonical value of |a|

/// proof.json text: {pi_a, pi_b, pi_c, protocol: "groth16", curve: "bls12381"}.
std::string proof_to_json(const groth16::proof& p);
/// public.json text: ["w1", ..., "wk"].
std::string public_to_json(std::span<const ff::fr> inputs);

/// A snarkjs verifying key. vk.json has no beta_g1 / delta_g1: those two
/// fields of groth16::verifying_key are left at infinity.
struct snarkjs_vk {
  std::uint32_t n_public = 0;
  groth16::verifying_key vk;  ///< ic.size() == n_public + 1
};

groth16::proof proof_from_json(std::string_view text, std::string_view path = "<memory>");
std::vector<ff::fr> public_from_json(std::string_view text, std::string_view path = "<memory>");
snarkjs_vk vk_from_json(std::string_view text, std::string_view path = "<memory>");

/// The verifying key of a zkey as snarkjs's `zkey export verificationkey`
/// writes it, vk_alphabeta_12 = e(alpha1, beta2) included (one pairing).
std::string vk_to_json(const zkey_file& zk);

/// Whole-file helpers; failures throw format_error (section "open"/"write").
std::string read_text_file(const std::filesystem::path& path, const char* kind);
void write_text_file(const std::filesystem::path& path, std::string_view text, const char* kind);

}  // namespace cuzk::io
