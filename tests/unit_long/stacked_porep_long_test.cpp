// SPDX-License-Identifier: Apache-2.0
// StackedDRG PoRep circuit in the checking CS (slow: ~40 s per 1.2 M
// constraints on the loaded dev host, hence label long): a consistent
// synthetic partition (tests/common/stacked_sector.hpp) of rust-fil-proofs'
// test shape and of 2 KiB (through the C1 form) is satisfied, its input
// assignment equals stacked_porep_public_inputs, and a corrupted parent
// label, tree D sibling, comm_r or challenge is reported at the constraint
// that checks it; a generated 2 KiB C1 (porep_generator.hpp) in the
// checking CS with tampering; generated 8 MiB, 512 MiB (whole partition) and
// 32 GiB (partition 0 cut to its first 2 challenges) C1s satisfy the
// Groth16 shape with the native witness, with the graph's public inputs.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <cuzk/circuits/porep_challenges.hpp>
#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/circuits/stacked_porep.hpp>
#include <cuzk/circuits/stacked_porep_witness.hpp>
#include <cuzk/r1cs/r1cs.hpp>

#include "common/stacked_sector.hpp"
#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using circuits::stacked_porep_params;
using ff::fr;
using gadgets::merkle_tree_shape;

struct counts {
  std::size_t constraints, inputs, aux;
};

counts count_blank(const stacked_porep_params& p) {
  r1cs::counting_cs cs;
  r1cs::synthesize_circuit(circuits::blank_stacked_porep_circuit(p), cs);
  return {cs.num_constraints(), cs.num_inputs(), cs.num_aux()};
}

// rust-fil-proofs' stacked_circuit.rs shape: 8 nodes, 2 layers, 1 challenge, base 8.
stacked_porep_params test_shape() { return {8, 2, 1, merkle_tree_shape::for_leaves(8, 8)}; }

// Checking CS of a consistent partition, its public inputs and the C1 path.
TEST(stacked_porep_circuit_long, TestShapeSatisfiedAndInputs) {
  std::mt19937_64 rng(test::test_seed("stacked_porep_circuit.TestShapeSatisfiedAndInputs"));
  const stacked_porep_params p = test_shape();
  const test::stacked_sector s = test::make_stacked_sector(p, rng);
  const circuits::stacked_porep_circuit c = s.circuit();
  r1cs::checking_cs cs;
  r1cs::synthesize_circuit(c, cs);
  EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt);
  EXPECT_EQ(cs.num_constraints(), 1'199'620u);
  const std::vector<fr> pub = circuits::stacked_porep_public_inputs(s.replica_id, s.comm_d, s.comm_r, s.parents);
  ASSERT_EQ(pub.size() + 1, cs.num_inputs());
  EXPECT_EQ(cs.inputs()[0], fr::one());
  for (std::size_t i = 0; i < pub.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], pub[i]) << "input " << i + 1;
}

TEST(stacked_porep_circuit_long, Partition2KiBFromC1Satisfied) {
  std::mt19937_64 rng(test::test_seed("stacked_porep_circuit.Partition2KiBFromC1Satisfied"));
  const stacked_porep_params p = circuits::stacked_porep_params_for_size(2ull << 10);
  const test::stacked_sector s = test::make_stacked_sector(p, rng);
  const io::c1_output c1 = s.c1();
  const circuits::stacked_porep_circuit c = circuits::stacked_porep_circuit_from_c1(p, c1, 0);
  r1cs::checking_cs cs;
  r1cs::synthesize_circuit(c, cs);
  EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt);
  const counts blank = count_blank(p);
  EXPECT_EQ(cs.num_constraints(), blank.constraints);
  EXPECT_EQ(cs.num_aux(), blank.aux);
  const std::vector<fr> pub = circuits::stacked_porep_public_inputs(s.replica_id, s.comm_d, s.comm_r, s.parents);
  ASSERT_EQ(pub.size() + 1, cs.num_inputs());
  for (std::size_t i = 0; i < pub.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], pub[i]) << "input " << i + 1;
}

// A corrupted input is reported at the constraint that checks it.
TEST(stacked_porep_circuit_long, TamperedPartitionsFail) {
  std::mt19937_64 rng(test::test_seed("stacked_porep_circuit.TamperedPartitionsFail"));
  const stacked_porep_params p = test_shape();
  const test::stacked_sector s = test::make_stacked_sector(p, rng);
  const auto failing = [](const circuits::stacked_porep_circuit& c) {
    r1cs::checking_cs cs;
    r1cs::synthesize_circuit(c, cs);
    return cs.which_is_unsatisfied().value_or("<satisfied>");
  };
  {  // a parent's label (row 2 of DRG parent 3): its column hash is not in tree C
    circuits::stacked_porep_circuit c = s.circuit();
    c.proofs[0].drg_parents[3].rows[1] += fr::one();
    EXPECT_EQ(failing(c), "challenge_0/drg_parent_3_inclusion/enforce root is correct");
  }
  {  // a sibling of the tree D path
    circuits::stacked_porep_circuit c = s.circuit();
    c.proofs[0].comm_d_path.siblings[1] += fr::one();
    EXPECT_EQ(failing(c), "challenge_0/comm_d_inclusion/enforce root is correct");
  }
  {  // comm_r
    circuits::stacked_porep_circuit c = s.circuit();
    *c.comm_r += fr::one();
    EXPECT_EQ(failing(c), "enforce comm_r = H(comm_c || comm_r_last)");
  }
  {  // the challenge: the labels change, so the encoded node is not in tree R_last
    circuits::stacked_porep_circuit c = s.circuit();
    c.proofs[0].challenge ^= 1;
    EXPECT_EQ(failing(c), "challenge_0/comm_r_last_data_inclusion/enforce root is correct");
  }
}

TEST(stacked_porep_circuit_long, Generated2KiBCheckingCs) {
  const std::uint64_t seed = test::test_seed("stacked_porep_circuit_long.Generated2KiBCheckingCs");
  const io::seal_proof_info* info = io::find_seal_proof("StackedDrg2KiBV1_1");
  ASSERT_NE(info, nullptr);
  const stacked_porep_params p = circuits::stacked_porep_params_for(*info);
  const circuits::synthetic_porep g = circuits::generate_synthetic_porep(*info, seed);
  const auto failing = [&](const io::c1_output& c1) {
    r1cs::checking_cs cs;
    r1cs::synthesize_circuit(circuits::stacked_porep_circuit_from_c1(p, c1, 0), cs);
    return cs.which_is_unsatisfied().value_or("<satisfied>");
  };
  EXPECT_EQ(failing(g.c1), "<satisfied>");
  {  // a label of an expander parent's column
    io::c1_output c1 = g.c1;
    c1.partitions[0][1].exp_parents[4].rows[0] += fr::one();
    EXPECT_EQ(failing(c1), "challenge_1/exp_parent_4_inclusion/enforce root is correct");
  }
  {  // a tree C sibling of the challenge's own column
    io::c1_output c1 = g.c1;
    c1.partitions[0][0].c_x.inclusion_proof.base[1].hashes[2] += fr::one();
    EXPECT_EQ(failing(c1), "challenge_0/c_x_inclusion/enforce root is correct");
  }
  {  // comm_r
    io::c1_output c1 = g.c1;
    c1.comm_r[0] ^= 1;
    EXPECT_EQ(failing(c1), "enforce comm_r = H(comm_c || comm_r_last)");
  }
}

// Partition 0 of a generated C1, cut to its first |challenges| challenges,
// against the Groth16 shape; public inputs from the graph.
void check_generated_shape(const char* proof_name, std::uint64_t seed, std::size_t challenges) {
  const io::seal_proof_info* info = io::find_seal_proof(proof_name);
  ASSERT_NE(info, nullptr) << proof_name;
  stacked_porep_params p = circuits::stacked_porep_params_for(*info);
  io::c1_output c1 = circuits::generate_synthetic_porep(*info, seed).c1;
  const std::vector<fr> pub = circuits::stacked_porep_public_inputs(
      circuits::derive_porep_partition_inputs(*info, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, 0));
  c1.partitions.resize(1);
  c1.partitions[0].resize(challenges);
  p.challenges = challenges;
  const circuits::stacked_porep_circuit c = circuits::stacked_porep_circuit_from_c1(p, c1, 0);
  const r1cs::r1cs_shape shape = r1cs::make_shape(circuits::blank_stacked_porep_circuit(p));
  const circuits::stacked_witness w = circuits::stacked_porep_witness(c, 2);
  std::vector<fr> a(shape.num_constraints), b(shape.num_constraints), cc(shape.num_constraints);
  r1cs::evaluate_abc(shape, w.inputs, w.aux, a, b, cc);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) bad += a[i] * b[i] != cc[i];
  EXPECT_EQ(bad, 0u) << proof_name;
  ASSERT_GE(pub.size(), 3 + 18 * challenges);
  ASSERT_EQ(w.inputs.size(), 1 + 3 + 18 * challenges);
  EXPECT_TRUE(std::equal(w.inputs.begin() + 1, w.inputs.end(), pub.begin())) << proof_name;
}

TEST(stacked_porep_circuit_long, Generated8MiBPartitionSatisfiesShape) {
  check_generated_shape("StackedDrg8MiBV1_1", test::test_seed("stacked_porep_circuit_long.Generated8MiB"), 2);
}

TEST(stacked_porep_circuit_long, Generated512MiBPartitionSatisfiesShape) {
  check_generated_shape("StackedDrg512MiBV1_1", test::test_seed("stacked_porep_circuit_long.Generated512MiB"), 2);
}

TEST(stacked_porep_circuit_long, Generated32GiBChallengesSatisfyShape) {
  check_generated_shape("StackedDrg32GiBV1_1", test::test_seed("stacked_porep_circuit_long.Generated32GiB"), 2);
}

}  // namespace

namespace {

// Every challenge of a whole 32 GiB partition, checked against the Groth16
// shape of a 2-challenge circuit: the partition circuit is the globals block
// followed by identical per-challenge blocks, so checking challenges
// (2j, 2j+1) for j = 0..8 with the same globals covers every constraint of
// the 18-challenge circuit with its real data, in ~1/9 of the memory. The
// public inputs of each pair must equal the matching slice of the inputs the
// verifier derives for the whole partition. Returns the number of
// unsatisfied constraints over all pairs.
std::size_t check_whole_partition_in_pairs(const io::c1_output& c1, const std::vector<fr>& pub) {
  const io::seal_proof_info& info = *c1.proof;
  stacked_porep_params p = circuits::stacked_porep_params_for(info);
  const std::size_t total = p.challenges;
  p.challenges = 2;
  const r1cs::r1cs_shape shape = r1cs::make_shape(circuits::blank_stacked_porep_circuit(p));
  std::vector<fr> a(shape.num_constraints), b(shape.num_constraints), cc(shape.num_constraints);
  std::size_t bad = 0;
  for (std::size_t j = 0; j + 1 < total; j += 2) {
    io::c1_output pair = c1;
    pair.partitions.resize(1);
    pair.partitions[0].assign(c1.partitions[0].begin() + std::ptrdiff_t(j),
                              c1.partitions[0].begin() + std::ptrdiff_t(j + 2));
    const circuits::stacked_porep_circuit c = circuits::stacked_porep_circuit_from_c1(p, pair, 0);
    const circuits::stacked_witness w = circuits::stacked_porep_witness(c, 2);
    r1cs::evaluate_abc(shape, w.inputs, w.aux, a, b, cc);
    for (std::size_t i = 0; i < a.size(); ++i) bad += a[i] * b[i] != cc[i];
    EXPECT_TRUE(std::equal(w.inputs.begin() + 1, w.inputs.begin() + 4, pub.begin())) << "pair " << j;
    EXPECT_TRUE(std::equal(w.inputs.begin() + 4, w.inputs.end(), pub.begin() + std::ptrdiff_t(3 + 18 * j)))
        << "pair " << j;
  }
  return bad;
}

TEST(stacked_porep_circuit_long, Generated32GiBWholePartitionSatisfiesShape) {
  const io::seal_proof_info* info = io::find_seal_proof("StackedDrg32GiBV1_1");
  ASSERT_NE(info, nullptr);
  io::c1_output c1 =
      circuits::generate_synthetic_porep(*info, test::test_seed("stacked_porep_circuit_long.Whole32GiB")).c1;
  const std::vector<fr> pub = circuits::stacked_porep_public_inputs(
      circuits::derive_porep_partition_inputs(*info, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, 0));
  ASSERT_EQ(pub.size(), 3u + 18u * 18u);
  EXPECT_EQ(check_whole_partition_in_pairs(c1, pub), 0u);
  // A label of the last challenge's expander parent changed: its labeling fails.
  c1.partitions[0][17].exp_parents[3].rows[4] += fr::one();
  EXPECT_GT(check_whole_partition_in_pairs(c1, pub), 0u);
}

}  // namespace
