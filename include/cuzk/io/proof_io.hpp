// SPDX-License-Identifier: Apache-2.0
#pragma once
// Groth16 proof bytes as bellperson writes them (Proof::write / read_many;
// docs/FORMATS.md §2):
//   one proof   compressed A (G1, 48 B) | compressed B (G2, 96 B)
//               | compressed C (G1, 48 B)                        = 192 B
//   P proofs    the proofs of partitions 0..P-1 concatenated      = 192 P B
// (a 32 GiB PoRep proof is 10 partitions, 1920 bytes).
//
// Reading requires exactly expected_count * 192 bytes, decompresses every
// point with the full checks of ec/serialization.hpp (flags, canonical x, x
// on the curve, prime-order subgroup) and rejects the point at infinity for
// A, B and C, as bellperson does. Failures throw io::format_error (kind
// "proof") naming the partition, the element and the decode rule, e.g.
//   proof file '<memory>': partition 3, element B at byte offset 624:
//   not in the prime-order subgroup
//
// Cost: decoding is dominated by the square roots and subgroup checks, about
// 0.1 ms for G1 and 0.5 ms for G2 per core; partitions decode in parallel.
// Encoding is three from-Montgomery conversions and two sign comparisons.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <cuzk/groth16/proof.hpp>
#include <cuzk/io/format_error.hpp>

namespace cuzk::io {

/// Bytes of one proof (bellperson SINGLE_PARTITION_PROOF_LEN).
inline constexpr std::size_t proof_size = 192;

/// Compressed A || B || C.
std::array<std::uint8_t, proof_size> write_proof(const groth16::proof& p);
/// The proofs concatenated in order.
std::vector<std::uint8_t> write_proofs(std::span<const groth16::proof> proofs);

/// Decodes exactly |expected_count| proofs from |bytes| (which must be
/// expected_count * 192 bytes long). |label| names the source in messages.
std::vector<groth16::proof> read_proofs(std::span<const std::uint8_t> bytes, std::size_t expected_count,
                                        std::string_view label = "<memory>");
/// One proof from exactly 192 bytes.
groth16::proof read_proof(std::span<const std::uint8_t> bytes, std::string_view label = "<memory>");

}  // namespace cuzk::io
