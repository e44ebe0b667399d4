// SPDX-License-Identifier: Apache-2.0
// Groth16 proof bytes: round trips of proofs from the seeded setup and the
// CPU prover, length and infinity rejection, tampering (the partition and
// element are named), and the real PoRep proofs of rust-fil-proofs'
// regression records, which must decode with subgroup checks and re-encode
// byte for byte.

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <cuzk/ec/serialization.hpp>
#include <cuzk/groth16/prover.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/proof_io.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using bytes = std::vector<std::uint8_t>;
using ff::fr;

/// Four proofs of the cubic circuit (x = 3..6) under seeded parameters.
std::vector<groth16::proof> sample_proofs(std::uint64_t seed) {
  const auto shape = r1cs::make_shape(r1cs::examples::cubic_circuit{});
  static const auto params = groth16::generate_parameters(shape, 42);
  std::mt19937_64 rng(seed);
  std::vector<groth16::proof> out;
  for (std::uint64_t x = 3; x < 7; ++x) {
    auto cs = r1cs::make_witness(r1cs::examples::cubic_circuit{fr::from_uint(x)});
    groth16::witness w;
    w.inputs.assign(cs.inputs().begin(), cs.inputs().end());
    w.aux.assign(cs.aux().begin(), cs.aux().end());
    out.push_back(groth16::prove(params, shape, w, fr::random(rng), fr::random(rng)));
  }
  return out;
}

std::string proof_error(std::span<const std::uint8_t> b, std::size_t count) {
  try {
    (void)io::read_proofs(b, count);
  } catch (const io::format_error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(proof_io, round_trip) {
  const auto proofs = sample_proofs(test::test_seed("proof_io-round-trip"));
  const bytes b = io::write_proofs(proofs);
  ASSERT_EQ(b.size(), proofs.size() * io::proof_size);
  for (std::size_t k = 0; k < proofs.size(); ++k) {
    const auto one = io::write_proof(proofs[k]);
    EXPECT_TRUE(std::equal(one.begin(), one.end(), b.begin() + std::ptrdiff_t(k * 192)));
    // layout: compressed A | B | C
    const auto a = ec::encode_g1_compressed(proofs[k].a);
    const auto bb = ec::encode_g2_compressed(proofs[k].b);
    const auto c = ec::encode_g1_compressed(proofs[k].c);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), one.begin()));
    EXPECT_TRUE(std::equal(bb.begin(), bb.end(), one.begin() + 48));
    EXPECT_TRUE(std::equal(c.begin(), c.end(), one.begin() + 144));
    EXPECT_EQ(io::read_proof(one), proofs[k]);
  }
  EXPECT_EQ(io::read_proofs(b, proofs.size()), proofs);
  EXPECT_EQ(io::write_proofs(io::read_proofs(b, proofs.size())), b);
  EXPECT_TRUE(io::read_proofs({}, 0).empty());
}

TEST(proof_io, wrong_lengths) {
  const bytes b = io::write_proofs(sample_proofs(1));  // 4 proofs
  for (std::size_t len : {0, 1, 191, 193, 383, 384, 767, 769}) {
    if (len >= b.size()) continue;
    const std::string msg = proof_error(std::span(b).first(len), 4);
    EXPECT_TRUE(contains(msg, "expected 4 proof(s)")) << msg;
    EXPECT_TRUE(contains(msg, "got " + std::to_string(len) + " bytes")) << msg;
  }
  EXPECT_TRUE(contains(proof_error(b, 3), "expected 3 proof(s) of 192 bytes (576 bytes), got 768"));
  EXPECT_TRUE(contains(proof_error(b, 5), "got 768 bytes"));
  EXPECT_FALSE(proof_error(b, SIZE_MAX).empty());
  EXPECT_THROW((void)io::read_proof(std::span(b).first(191)), io::format_error);
}

TEST(proof_io, infinity_rejected) {
  auto proofs = sample_proofs(2);
  proofs[1].b = ec::g2_affine::identity();
  proofs[3].a = ec::g1_affine::identity();
  bytes b = io::write_proofs(proofs);
  // compressed infinity encodings as bellperson writes them
  EXPECT_EQ(b[192 + 48], 0xc0);
  const std::string msg = proof_error(b, 4);
  EXPECT_TRUE(contains(msg, "partition 1, element B at byte offset 240")) << msg;
  EXPECT_TRUE(contains(msg, "infinity")) << msg;
  proofs[1] = sample_proofs(2)[1];
  b = io::write_proofs(proofs);
  EXPECT_TRUE(contains(proof_error(b, 4), "partition 3, element A at byte offset 576"));
  proofs[3] = sample_proofs(2)[3];
  proofs[0].c = ec::g1_affine::identity();
  b = io::write_proofs(proofs);
  EXPECT_TRUE(contains(proof_error(b, 4), "partition 0, element C at byte offset 144"));
}

TEST(proof_io, tampering_names_partition_and_element) {
  std::mt19937_64 rng(test::test_seed("proof_io-tamper"));
  const bytes good = io::write_proofs(sample_proofs(rng()));
  struct target {
    std::size_t start;
    std::size_t size;
    char name;
  };
  const target elements[] = {{0, 48, 'A'}, {48, 96, 'B'}, {144, 48, 'C'}};
  for (int trial = 0; trial < 24; ++trial) {
    const std::size_t k = rng() % 4;
    const auto& el = elements[rng() % 3];
    // a byte of the x coordinate below the flag bits
    const std::size_t byte = 1 + rng() % (el.size - 1);
    bytes b = good;
    b[k * 192 + el.start + byte] ^= std::uint8_t(1u << (rng() % 8));
    // the rule the point breaks, according to the single-point decoder
    const auto piece = std::span(b).subspan(k * 192 + el.start, el.size);
    const ec::decode_error why =
        el.name == 'B' ? ec::decode_g2_compressed(piece).error : ec::decode_g1_compressed(piece).error;
    ASSERT_NE(why, ec::decode_error::none);
    const std::string msg = proof_error(b, 4);
    SCOPED_TRACE(msg);
    EXPECT_TRUE(contains(msg, "partition " + std::to_string(k) + ", element " + el.name + " at byte offset " +
                                  std::to_string(k * 192 + el.start)));
    EXPECT_TRUE(contains(msg, std::string(ec::decode_error_message(why))));
  }
  // flag bits: uncompressed flag, sign flag on infinity
  bytes b = good;
  b[2 * 192 + 48] &= 0x7f;
  EXPECT_TRUE(contains(proof_error(b, 4), "partition 2, element B"));
  EXPECT_TRUE(
      contains(proof_error(b, 4), std::string(ec::decode_error_message(ec::decode_error::compression_flag_mismatch))));
  // the lowest bad partition is reported
  b = good;
  b[3 * 192 + 10] ^= 1;
  b[1 * 192 + 150] ^= 1;
  for (int r = 0; r < 3; ++r) EXPECT_TRUE(contains(proof_error(b, 4), "partition 1, element C"));
}

TEST(proof_io, proofs_verify_after_round_trip) {
  const auto shape = r1cs::make_shape(r1cs::examples::cubic_circuit{});
  const auto params = groth16::generate_parameters(shape, 42);
  const auto pvk = groth16::prepare_verifying_key(params.vk);
  const auto proofs = io::read_proofs(io::write_proofs(sample_proofs(5)), 4);
  for (std::uint64_t x = 3; x < 7; ++x)
    EXPECT_TRUE(groth16::verify(pvk, proofs[x - 3],
                                std::vector<fr>{r1cs::examples::cubic_circuit::evaluate(fr::from_uint(x))}));
}

TEST(proof_io, real_filecoin_porep_proofs) {
  const auto path = std::filesystem::path(test::shared_dir()) / "filecoin-fixtures" / "rust-fil-proofs" /
                    "seal_regression_records-v16.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no fixture " << path;
  std::ifstream in(path);
  std::string line;
  std::size_t records = 0, small = 0, large = 0, partitions = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::size_t index = records++;
    const auto j = nlohmann::json::parse(line);
    const auto& arr = j.at("proof");
    const std::size_t n = arr.size();
    if (index >= 50 && n != 1920) continue;
    bytes b;
    b.reserve(n);
    for (const auto& v : arr) b.push_back(v.get<std::uint8_t>());
    const auto sector = j.at("porep_config").at("sector_size").get<std::uint64_t>();
    const std::size_t count = sector >= (std::uint64_t(32) << 30) ? 10 : 1;
    ASSERT_EQ(n, count * io::proof_size) << "record " << index;
    const auto proofs = io::read_proofs(b, count, "record " + std::to_string(index));
    EXPECT_EQ(io::write_proofs(proofs), b) << "record " << index;
    (count == 10 ? large : small) += 1;
    partitions += count;
  }
  EXPECT_EQ(records, 448u);
  EXPECT_EQ(small, 50u);
  EXPECT_EQ(large, 6u);
  EXPECT_EQ(partitions, 110u);
}

}  // namespace
