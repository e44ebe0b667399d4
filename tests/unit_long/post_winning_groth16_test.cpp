// SPDX-License-Identifier: Apache-2.0
// WinningPoSt at 2 KiB through the Groth16 layer: a synthetic sector (random
// tree R_last built natively), its vanilla proof through the bincode layer,
// our own seeded parameters (generate_parameters), prove, verify against the
// public inputs a verifier derives (winning_post_public_inputs), and tamper
// tests that must fail. Label `long`: the circuit has 90,750 constraints
// (+ 133 input rows, domain 2^17); setup ~12 s and each proof ~7 s on the
// loaded 2-core dev host.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/post_generator.hpp>
#include <cuzk/groth16/prover.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/post_vanilla.hpp>
#include <cuzk/r1cs/r1cs.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using ff::fr;

groth16::witness witness_of(const circuits::fallback_post_circuit& c, const r1cs::r1cs_shape& shape) {
  const auto cs = r1cs::make_witness(c, shape.num_inputs, shape.num_aux);
  return {{cs.inputs().begin(), cs.inputs().end()}, {cs.aux().begin(), cs.aux().end()}};
}

TEST(post_circuit_long, winning_post_2kib_groth16_round_trip_and_tampering) {
  const std::uint64_t seed = test::test_seed("winning-post-2kib-groth16");
  std::mt19937_64 rng(seed);
  const auto params = circuits::winning_post_params(2048);

  // synthetic sector
  circuits::synthetic_post_sector sector = circuits::make_synthetic_post_sector(rng, 0);
  const std::uint64_t sector_id = sector.id = rng() % 1000000;
  const fr comm_r = sector.comm_r;
  std::array<std::uint8_t, 32> randomness{};
  fr::random(rng).to_bytes_le(randomness.data());

  // its vanilla proof: 66 challenges on 1 sector
  auto config = params;
  config.sector_count = 1;
  config.challenge_count = 66;
  const io::fallback_post_sector_proof vanilla =
      circuits::synthetic_fallback_post_vanilla(sector, config, randomness, 0);
  const auto decoded = io::read_fallback_post_sector_proof(io::write_fallback_post_sector_proof(vanilla));
  const auto circuit = circuits::winning_post_circuit(params, decoded);

  const auto t0 = std::chrono::steady_clock::now();
  const auto r1 = r1cs::make_shape(circuits::blank_fallback_post_circuit(params));
  ASSERT_EQ(r1.num_constraints, 90750u + 133u);
  const auto keys = groth16::generate_parameters(r1, seed);
  const auto t1 = std::chrono::steady_clock::now();
  const auto pvk = groth16::prepare_verifying_key(keys.vk);
  const groth16::witness w = witness_of(circuit, r1);
  const auto inputs = circuits::winning_post_public_inputs(params, randomness, {sector_id, comm_r});
  ASSERT_EQ(inputs.size(), 132u);
  ASSERT_TRUE(std::equal(inputs.begin(), inputs.end(), w.inputs.begin() + 1));

  const auto proof = groth16::prove(keys, r1, w, fr::random(rng), fr::random(rng));
  const auto t2 = std::chrono::steady_clock::now();
  EXPECT_TRUE(groth16::verify(pvk, proof, inputs));
  const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("[time] 2 KiB WinningPoSt: shape + setup %.0f ms, witness + prove %.0f ms\n", ms(t0, t1), ms(t1, t2));

  // tampering: a challenge, comm_r, the randomness, a proof point
  auto bad = inputs;
  bad[1 + 2 * 7] += fr::one();
  EXPECT_FALSE(groth16::verify(pvk, proof, bad));
  bad = inputs;
  bad[0] += fr::one();
  EXPECT_FALSE(groth16::verify(pvk, proof, bad));
  auto other_rand = randomness;
  other_rand[0] ^= 1;
  EXPECT_FALSE(
      groth16::verify(pvk, proof, circuits::winning_post_public_inputs(params, other_rand, {sector_id, comm_r})));
  auto bad_proof = proof;
  bad_proof.c = (ec::g1_jacobian::from_affine(bad_proof.c) + ec::g1_jacobian::generator()).to_affine();
  EXPECT_FALSE(groth16::verify(pvk, bad_proof, inputs));
  // a wrong sibling: an unsatisfied witness, whose proof does not verify
  auto broken = decoded;
  broken.sectors[0].inclusion_proofs[5].base[0].hashes[2] += fr::one();
  const groth16::witness w2 = witness_of(circuits::winning_post_circuit(params, broken), r1);
  EXPECT_FALSE(groth16::verify(pvk, groth16::prove(keys, r1, w2, fr::one(), fr::one()), inputs));
}

}  // namespace
