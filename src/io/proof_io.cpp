// SPDX-License-Identifier: Apache-2.0
// Groth16 proof bytes (see include/cuzk/io/proof_io.hpp). Partitions are
// decoded in parallel; each records its first failure (A, then B, then C) and
// the lowest failing partition is reported, so the message does not depend on
// scheduling.

#include <cuzk/io/proof_io.hpp>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include <tbb/parallel_for.h>

#include <cuzk/ec/serialization.hpp>

namespace cuzk::io {

namespace {

constexpr std::size_t a_offset = 0;
constexpr std::size_t b_offset = ec::g1_compressed_size;
constexpr std::size_t c_offset = ec::g1_compressed_size + ec::g2_compressed_size;
static_assert(c_offset + ec::g1_compressed_size == proof_size);

struct proof_failure {
  char element;        // 'A', 'B' or 'C'
  std::size_t offset;  // within the proof
  std::string detail;
};

/// Decodes one proof into |out|; returns its first failure, if any.
std::optional<proof_failure> decode_one(std::span<const std::uint8_t> in, groth16::proof& out) {
  const ec::decode_options opt{.check_subgroup = true};
  auto check = [](char element, std::size_t offset, ec::decode_error e, bool infinity) -> std::optional<proof_failure> {
    if (e != ec::decode_error::none) return proof_failure{element, offset, std::string(ec::decode_error_message(e))};
    if (infinity) return proof_failure{element, offset, "the point at infinity is not a valid proof element"};
    return std::nullopt;
  };
  const auto a = ec::decode_g1_compressed(in.subspan(a_offset, ec::g1_compressed_size), opt);
  if (auto f = check('A', a_offset, a.error, a.ok() && a.point.is_infinity())) return f;
  const auto b = ec::decode_g2_compressed(in.subspan(b_offset, ec::g2_compressed_size), opt);
  if (auto f = check('B', b_offset, b.error, b.ok() && b.point.is_infinity())) return f;
  const auto c = ec::decode_g1_compressed(in.subspan(c_offset, ec::g1_compressed_size), opt);
  if (auto f = check('C', c_offset, c.error, c.ok() && c.point.is_infinity())) return f;
  out = groth16::proof{a.point, b.point, c.point};
  return std::nullopt;
}

}  // namespace

std::array<std::uint8_t, proof_size> write_proof(const groth16::proof& p) {
  std::array<std::uint8_t, proof_size> out{};
  const auto a = ec::encode_g1_compressed(p.a);
  const auto b = ec::encode_g2_compressed(p.b);
  const auto c = ec::encode_g1_compressed(p.c);
  std::memcpy(out.data() + a_offset, a.data(), a.size());
  std::memcpy(out.data() + b_offset, b.data(), b.size());
  std::memcpy(out.data() + c_offset, c.data(), c.size());
  return out;
}

std::vector<std::uint8_t> write_proofs(std::span<const groth16::proof> proofs) {
  std::vector<std::uint8_t> out(proofs.size() * proof_size);
  for (std::size_t k = 0; k < proofs.size(); ++k) {
    const auto one = write_proof(proofs[k]);
    std::memcpy(out.data() + k * proof_size, one.data(), proof_size);
  }
  return out;
}

std::vector<groth16::proof> read_proofs(std::span<const std::uint8_t> bytes, std::size_t expected_count,
                                        std::string_view label) {
  if (bytes.size() % proof_size != 0 || bytes.size() / proof_size != expected_count) {
    const std::string want = expected_count <= SIZE_MAX / proof_size
                                 ? std::to_string(expected_count * proof_size) + " bytes"
                                 : "more bytes than memory holds";
    throw format_error("proof", std::string(label), "", format_error::no_offset,
                       "expected " + std::to_string(expected_count) + " proof(s) of " + std::to_string(proof_size) +
                           " bytes (" + want + "), got " + std::to_string(bytes.size()) + " bytes");
  }
  std::vector<groth16::proof> out(expected_count);
  std::vector<std::optional<proof_failure>> failures(expected_count);
  tbb::parallel_for(std::size_t(0), expected_count, [&](std::size_t k) {
    failures[k] = decode_one(bytes.subspan(k * proof_size, proof_size), out[k]);
  });
  for (std::size_t k = 0; k < expected_count; ++k) {
    if (!failures[k]) continue;
    const auto& f = *failures[k];
    throw format_error("proof", std::string(label), "partition " + std::to_string(k) + ", element " + f.element,
                       k * proof_size + f.offset, f.detail);
  }
  return out;
}

groth16::proof read_proof(std::span<const std::uint8_t> bytes, std::string_view label) {
  return read_proofs(bytes, 1, label).front();
}

}  // namespace cuzk::io
