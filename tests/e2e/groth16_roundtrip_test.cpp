// SPDX-License-Identifier: Apache-2.0
// Groth16 on the CPU end to end: seeded setup, prove, verify, batch verify,
// and tamper tests that must fail.
#include <gtest/gtest.h>

#include <random>

#include <cuzk/groth16/prover.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using ff::fr;

using r1cs::examples::chain_circuit;

template <class C>
groth16::witness make_witness(const C& circuit) {
  auto cs = r1cs::make_witness(circuit);
  groth16::witness w;
  w.inputs.assign(cs.inputs().begin(), cs.inputs().end());
  w.aux.assign(cs.aux().begin(), cs.aux().end());
  return w;
}

std::vector<fr> public_inputs(const groth16::witness& w) { return {w.inputs.begin() + 1, w.inputs.end()}; }

TEST(groth16, cubic_round_trip_and_tampering) {
  const auto shape = r1cs::make_shape(r1cs::examples::cubic_circuit{});
  const auto params = groth16::generate_parameters(shape, 42);
  EXPECT_EQ(params, groth16::generate_parameters(shape, 42)) << "setup must be deterministic";
  const auto pvk = groth16::prepare_verifying_key(params.vk);

  std::mt19937_64 rng(test::test_seed("groth16-cubic"));
  const auto w = make_witness(r1cs::examples::cubic_circuit{fr::from_uint(3)});
  ASSERT_EQ(w.inputs[1], fr::from_uint(35));
  const auto proof = groth16::prove(params, shape, w, fr::random(rng), fr::random(rng));
  const std::vector<fr> x{fr::from_uint(35)};
  EXPECT_TRUE(groth16::verify(pvk, proof, x));

  // deterministic entry point: r = s = 0 still verifies, and is reproducible
  const auto p0 = groth16::prove(params, shape, w, fr::zero(), fr::zero());
  EXPECT_TRUE(groth16::verify(pvk, p0, x));
  EXPECT_EQ(p0, groth16::prove(params, shape, w, fr::zero(), fr::zero()));

  // tampering
  EXPECT_FALSE(groth16::verify(pvk, proof, std::vector<fr>{fr::from_uint(36)}));
  const auto g1 = ec::g1_jacobian::generator();
  auto bad = proof;
  bad.a = (ec::g1_jacobian::from_affine(bad.a) + g1).to_affine();
  EXPECT_FALSE(groth16::verify(pvk, bad, x));
  bad = proof;
  bad.b = (ec::g2_jacobian::from_affine(bad.b) + ec::g2_jacobian::generator()).to_affine();
  EXPECT_FALSE(groth16::verify(pvk, bad, x));
  bad = proof;
  bad.c = (ec::g1_jacobian::from_affine(bad.c) + g1).to_affine();
  EXPECT_FALSE(groth16::verify(pvk, bad, x));
  // a proof from other parameters does not verify
  const auto other = groth16::generate_parameters(shape, 43);
  EXPECT_FALSE(groth16::verify(pvk, groth16::prove(other, shape, w, fr::one(), fr::one()), x));
  // wrong number of public inputs is an error, not a silent false
  EXPECT_THROW(groth16::verify(pvk, proof, std::vector<fr>{}), std::invalid_argument);
}

TEST(groth16, partitions_and_batch_verification) {
  const auto shape = r1cs::make_shape(chain_circuit{64, std::nullopt});
  const auto params = groth16::generate_parameters(shape, 7);
  const auto pvk = groth16::prepare_verifying_key(params.vk);
  std::mt19937_64 rng(test::test_seed("groth16-partitions"));
  std::vector<groth16::witness> ws;
  for (int k = 0; k < 4; ++k) ws.push_back(make_witness(chain_circuit{64, fr::from_uint(k + 2)}));
  const auto proofs = groth16::prove_many(params, shape, std::span(ws), rng);
  std::vector<std::vector<fr>> inputs;
  for (std::size_t k = 0; k < ws.size(); ++k) {
    inputs.push_back(public_inputs(ws[k]));
    EXPECT_TRUE(groth16::verify(pvk, proofs[k], inputs[k])) << "partition " << k;
  }
  EXPECT_TRUE(groth16::verify_batch(pvk, proofs, inputs, rng()));
  // one bad input in the batch makes the whole batch fail
  inputs[2][1] += fr::one();
  EXPECT_FALSE(groth16::verify_batch(pvk, proofs, inputs, rng()));
  inputs[2][1] -= fr::one();
  auto swapped = proofs;
  std::swap(swapped[0], swapped[1]);
  EXPECT_FALSE(groth16::verify_batch(pvk, swapped, inputs, rng()));
}

TEST(groth16, witness_size_mismatch_is_rejected) {
  const auto shape = r1cs::make_shape(r1cs::examples::cubic_circuit{});
  const auto params = groth16::generate_parameters(shape, 1);
  auto w = make_witness(r1cs::examples::cubic_circuit{fr::from_uint(2)});
  w.aux.pop_back();
  EXPECT_THROW(groth16::prove(params, shape, w, fr::one(), fr::one()), std::invalid_argument);
}

TEST(groth16, more_than_2_16_constraints) {
  // 2 * 33000 + 4 constraints: a 2^17 domain
  const chain_circuit blank{33000, std::nullopt};
  const auto shape = r1cs::make_shape(blank);
  ASSERT_GT(shape.num_constraints, std::size_t(1) << 16);
  const auto params = groth16::generate_parameters(shape, 2024);
  const auto pvk = groth16::prepare_verifying_key(params.vk);
  std::mt19937_64 rng(test::test_seed("groth16-large"));
  const auto w = make_witness(chain_circuit{33000, fr::from_uint(5)});
  const auto proof = groth16::prove(params, shape, w, fr::random(rng), fr::random(rng));
  auto x = public_inputs(w);
  EXPECT_TRUE(groth16::verify(pvk, proof, x));
  x[1] += fr::one();
  EXPECT_FALSE(groth16::verify(pvk, proof, x));
}

}  // namespace
