// SPDX-License-Identifier: Apache-2.0
// StackedDRG PoRep circuit, quick tests: the published constraint and input
// counts (32 GiB circuitinfo, rust-fil-proofs' stacked_circuit.rs test
// shapes, the 2 KiB .vk's 40 IC points); a consistent synthetic sector
// (tests/common/stacked_sector.hpp) satisfies the Groth16 shape with the
// gadget witness, and a tampered one does not; public inputs equal the
// witness's input assignment; the native SHA-256 witness
// (gadgets/sha256_witness.hpp) equals the gadget's on random messages of
// mixed constant, allocated and negated bits; the parallel witness equals
// the sequential gadget witness on 2 KiB (through the C1 form) and on a
// two-challenge 32 GiB partition; a C1 from the synthetic generator
// (porep_generator.hpp, real graph and challenges) satisfies the 2 KiB
// shape (api 1.0 and 1.1 graphs) and its public inputs equal
// derive_porep_partition_inputs' (8 MiB and larger: unit_long);
// C1 conversion errors. The checking-CS runs that name the
// failing constraint are in tests/unit_long/stacked_porep_long_test.cpp
// (a checking CS of 1.2 M constraints takes ~40 s on the loaded dev host).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
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

// rust-fil-proofs storage-proofs-porep tests/stacked_circuit.rs: 8 nodes per
// base tree, 2 layers, 1 interactive challenge.
stacked_porep_params test_shape(std::size_t base, std::size_t sub, std::size_t top) {
  std::uint64_t nodes = 8;
  if (sub) nodes *= sub;
  if (top) nodes *= top;
  return {nodes, 2, 1, merkle_tree_shape::for_leaves(nodes, base, sub, top)};
}

TEST(stacked_porep_circuit, RustTestShapeCounts) {
  // test_stacked_porep_circuit::<DiskTree<PoseidonHasher, U, V, W>>(22, n)
  EXPECT_EQ(count_blank(test_shape(8, 0, 0)).constraints, 1'199'620u);
  EXPECT_EQ(count_blank(test_shape(8, 0, 0)).inputs, 22u);
  EXPECT_EQ(count_blank(test_shape(2, 0, 0)).constraints, 1'206'212u);
  EXPECT_EQ(count_blank(test_shape(8, 4, 0)).constraints, 1'296'576u);
  EXPECT_EQ(count_blank(test_shape(8, 4, 2)).constraints, 1'346'982u);
  EXPECT_EQ(count_blank(test_shape(8, 4, 2)).inputs, 22u);
}

TEST(stacked_porep_circuit, Counts32GiB) {
  const auto t0 = std::chrono::steady_clock::now();
  const counts c = count_blank(circuits::stacked_porep_params_for_size(32ull << 30));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("32 GiB partition: %zu constraints, %zu inputs, %zu aux, counted in %.2f s\n", c.constraints, c.inputs,
              c.aux, s);
  EXPECT_EQ(c.constraints, 130'278'541u);  // rust-fil-proofs circuitinfo (PR #1325)
  EXPECT_EQ(c.inputs, 328u);
}

TEST(stacked_porep_circuit, Inputs2KiBMatchVk) {
  // the real 2 KiB PoRep .vk has 40 IC points: ONE + 39 inputs
  const counts c = count_blank(circuits::stacked_porep_params_for_size(2ull << 10));
  EXPECT_EQ(c.inputs, 40u);
  EXPECT_EQ(c.inputs, 4 + 18 * 2 + 0u);
}

TEST(stacked_porep_circuit, ParamsValidation) {
  EXPECT_THROW(circuits::stacked_porep_params_for_size(4096), std::invalid_argument);
  stacked_porep_params p = circuits::stacked_porep_params_for_size(2ull << 10);
  p.layers = 3;
  EXPECT_THROW(p.validate(), std::invalid_argument);
  p.layers = 2;
  p.nodes = 128;
  EXPECT_THROW(p.validate(), std::invalid_argument);
}

// Every row of A w * B w = C w over the Groth16 shape (index of the first failing row).
std::optional<std::size_t> first_failing_row(const r1cs::r1cs_shape& shape, const r1cs::witness_cs& w) {
  std::vector<fr> a(shape.num_constraints), b(shape.num_constraints), c(shape.num_constraints);
  r1cs::evaluate_abc(shape, w.inputs(), w.aux(), a, b, c);
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] * b[i] != c[i]) return i;
  return std::nullopt;
}

TEST(stacked_porep_circuit, TestShapeSatisfiedInShape) {
  std::mt19937_64 rng(test::test_seed("stacked_porep_circuit.TestShapeSatisfiedInShape"));
  const stacked_porep_params p = test_shape(8, 0, 0);
  const test::stacked_sector s = test::make_stacked_sector(p, rng);
  const r1cs::r1cs_shape shape = r1cs::make_shape(circuits::blank_stacked_porep_circuit(p));
  EXPECT_EQ(shape.num_constraints, 1'199'620u + 22u);  // + the input * 0 rows
  EXPECT_EQ(shape.first_unconstrained_aux(), std::nullopt);
  const r1cs::witness_cs w = r1cs::make_witness(s.circuit());
  EXPECT_EQ(first_failing_row(shape, w), std::nullopt);
  const std::vector<fr> pub = circuits::stacked_porep_public_inputs(s.replica_id, s.comm_d, s.comm_r, s.parents);
  ASSERT_EQ(pub.size() + 1, w.num_inputs());
  EXPECT_EQ(w.inputs()[0], fr::one());
  for (std::size_t i = 0; i < pub.size(); ++i) EXPECT_EQ(w.inputs()[i + 1], pub[i]) << "input " << i + 1;

  circuits::stacked_porep_circuit bad = s.circuit();
  bad.proofs[0].exp_parents[5].rows[0] += fr::one();
  EXPECT_NE(first_failing_row(shape, r1cs::make_witness(bad)), std::nullopt);
}

// A random partition of |p|'s shape (not satisfying; enough for witness equality).
circuits::stacked_porep_circuit random_partition(const stacked_porep_params& p, std::mt19937_64& rng) {
  const auto path = [&](const merkle_tree_shape& shape) {
    gadgets::merkle_path r;
    for (std::size_t l = 0; l < shape.levels(); ++l) {
      r.indices.push_back(std::uint32_t(rng() % shape.arity(l)));
      for (std::size_t j = 0; j + 1 < shape.arity(l); ++j) r.siblings.push_back(test::random_fr(rng));
    }
    return r;
  };
  circuits::stacked_porep_circuit c{
      p, test::random_fr(rng), test::random_fr(rng), test::random_fr(rng), test::random_fr(rng), test::random_fr(rng),
      {}};
  for (std::size_t i = 0; i < p.challenges; ++i) {
    circuits::stacked_challenge_witness w;
    w.challenge = rng() % p.nodes;
    w.data_leaf = test::random_fr(rng);
    w.comm_d_path = path(p.tree_d_shape());
    w.comm_r_last_path = path(p.tree_shape);
    w.comm_c_path = path(p.tree_shape);
    for (std::size_t j = 0; j < circuits::stacked_drg_degree + circuits::stacked_exp_degree; ++j) {
      circuits::stacked_column_witness col;
      for (std::size_t l = 0; l < p.layers; ++l) col.rows.push_back(test::random_fr(rng));
      col.path = path(p.tree_shape);
      (j < circuits::stacked_drg_degree ? w.drg_parents : w.exp_parents).push_back(std::move(col));
    }
    c.proofs.push_back(std::move(w));
  }
  return c;
}

// witness_cs that is not a "witness generator", so sha256() keeps the gadget path.
struct gadget_witness_cs : r1cs::witness_cs {
  static constexpr bool is_witness_generator = false;
};
static_assert(r1cs::constraint_system<gadget_witness_cs>);

// The gadget witness against the native sequential one (witness_cs) and the
// parallel one.
void expect_same_witness(const circuits::stacked_porep_circuit& c, unsigned threads) {
  gadget_witness_cs w;
  r1cs::synthesize_groth16(c, w);
  const r1cs::witness_cs native = r1cs::make_witness(c);
  EXPECT_EQ(native.num_constraints(), w.num_constraints());
  EXPECT_TRUE(std::ranges::equal(native.aux(), w.aux()));
  const circuits::stacked_witness fast = circuits::stacked_porep_witness(c, threads);
  EXPECT_TRUE(std::ranges::equal(fast.inputs, w.inputs()));
  ASSERT_EQ(fast.aux.size(), w.num_aux());
  const auto [it, _] = std::ranges::mismatch(fast.aux, w.aux());
  EXPECT_EQ(it, fast.aux.end()) << "first differing aux " << (it - fast.aux.begin());
}

// sha256 of messages mixing constants, allocated and negated bits: the
// native witness path against the gadget (aux, constraint count, digest).
TEST(stacked_porep_circuit, NativeSha256WitnessMatchesGadget) {
  std::mt19937_64 rng(test::test_seed("stacked_porep_circuit.NativeSha256WitnessMatchesGadget"));
  for (int round = 0; round < 24; ++round) {
    const std::size_t bytes = std::size_t(rng() % 150);
    const unsigned const_pct = unsigned(rng() % 101), neg_pct = unsigned(rng() % 101);
    gadget_witness_cs g;
    r1cs::witness_cs n;
    r1cs::counting_cs k;  // blank bits, the native counting path
    std::vector<gadgets::boolean> bg, bn, bk;
    for (std::size_t i = 0; i < 8 * bytes; ++i) {
      const bool v = (rng() & 1) != 0;
      if (rng() % 100 < const_pct) {
        bg.push_back(gadgets::boolean::constant(v));
        bn.push_back(gadgets::boolean::constant(v));
        bk.push_back(gadgets::boolean::constant(v));
        continue;
      }
      const bool neg = rng() % 100 < neg_pct;
      gadgets::boolean x = gadgets::allocated_bit::alloc(g, neg ? !v : v);
      gadgets::boolean y = gadgets::allocated_bit::alloc(n, neg ? !v : v);
      gadgets::boolean z = gadgets::allocated_bit::alloc(k, std::nullopt);
      bg.push_back(neg ? x.not_() : x);
      bn.push_back(neg ? y.not_() : y);
      bk.push_back(neg ? z.not_() : z);
    }
    const std::vector<gadgets::boolean> dg = gadgets::sha256(g, std::span<const gadgets::boolean>(bg));
    const std::vector<gadgets::boolean> dn = gadgets::sha256(n, std::span<const gadgets::boolean>(bn));
    (void)gadgets::sha256(k, std::span<const gadgets::boolean>(bk));
    EXPECT_EQ(k.num_aux(), g.num_aux()) << "round " << round;
    EXPECT_EQ(k.num_constraints(), g.num_constraints()) << "round " << round;
    ASSERT_EQ(g.num_aux(), n.num_aux()) << "round " << round << ", " << bytes << " bytes";
    EXPECT_TRUE(std::ranges::equal(g.aux(), n.aux())) << "round " << round;
    EXPECT_EQ(g.num_constraints(), n.num_constraints()) << "round " << round;
    ASSERT_EQ(dg.size(), dn.size());
    for (std::size_t i = 0; i < dg.size(); ++i) {
      EXPECT_EQ(dg[i].get_value(), dn[i].get_value()) << "digest bit " << i;
      EXPECT_EQ(dg[i].get_kind(), dn[i].get_kind()) << "digest bit " << i;
    }
  }
}

TEST(stacked_porep_circuit, FastWitness2KiBFromC1) {
  std::mt19937_64 rng(test::test_seed("stacked_porep_circuit.FastWitness2KiBFromC1"));
  const stacked_porep_params p = circuits::stacked_porep_params_for_size(2ull << 10);
  const test::stacked_sector s = test::make_stacked_sector(p, rng);
  const circuits::stacked_porep_circuit c = circuits::stacked_porep_circuit_from_c1(p, s.c1(), 0);
  const circuits::stacked_witness fast = circuits::stacked_porep_witness(c, 2);
  const std::vector<fr> pub = circuits::stacked_porep_public_inputs(s.replica_id, s.comm_d, s.comm_r, s.parents);
  ASSERT_EQ(fast.inputs.size(), pub.size() + 1);
  EXPECT_TRUE(std::equal(pub.begin(), pub.end(), fast.inputs.begin() + 1));
  expect_same_witness(c, 2);
  expect_same_witness(c, 1);
}

TEST(stacked_porep_circuit, FastWitnessReduced32GiB) {
  std::mt19937_64 rng(test::test_seed("stacked_porep_circuit.FastWitnessReduced32GiB"));
  stacked_porep_params p = circuits::stacked_porep_params_for_size(32ull << 30);
  p.challenges = 2;
  const circuits::stacked_witness_layout l = circuits::stacked_witness_layout_for(p);
  EXPECT_EQ(l.challenge_inputs, 18u);
  EXPECT_EQ(l.global_inputs, 4u);
  expect_same_witness(random_partition(p, rng), 2);
}

// A generated C1 (real replica_id, challenges and DRG/expander parents).
void check_generated(const char* proof_name, std::uint64_t seed) {
  const io::seal_proof_info* info = io::find_seal_proof(proof_name);
  ASSERT_NE(info, nullptr) << proof_name;
  const stacked_porep_params p = circuits::stacked_porep_params_for(*info);
  const stacked_porep_params by_size = circuits::stacked_porep_params_for_size(info->sector_size);
  EXPECT_EQ(p.nodes, by_size.nodes);
  EXPECT_EQ(p.layers, by_size.layers);
  EXPECT_EQ(p.challenges, by_size.challenges);
  EXPECT_EQ(p.tree_shape, by_size.tree_shape);
  const circuits::synthetic_porep g = circuits::generate_synthetic_porep(*info, seed);
  const circuits::stacked_porep_circuit c = circuits::stacked_porep_circuit_from_c1(p, g.c1, 0);
  const r1cs::r1cs_shape shape = r1cs::make_shape(circuits::blank_stacked_porep_circuit(p));
  const r1cs::witness_cs w = r1cs::make_witness(c, shape.num_inputs, shape.num_aux);
  EXPECT_EQ(first_failing_row(shape, w), std::nullopt) << proof_name;
  const std::vector<fr> pub = circuits::stacked_porep_public_inputs(
      circuits::derive_porep_partition_inputs(*info, g.c1.replica_id, g.c1.comm_d, g.c1.comm_r, g.c1.seed, 0));
  ASSERT_EQ(pub.size() + 1, w.num_inputs());
  EXPECT_TRUE(std::equal(pub.begin(), pub.end(), w.inputs().begin() + 1)) << proof_name;
  // the fast witness too, and a corrupted tree R_last sibling fails
  const circuits::stacked_witness fast = circuits::stacked_porep_witness(c, 2);
  EXPECT_TRUE(std::ranges::equal(fast.aux, w.aux()));
  circuits::stacked_porep_circuit bad = c;
  bad.proofs[1].comm_r_last_path.siblings[0] += fr::one();
  EXPECT_NE(first_failing_row(shape, r1cs::make_witness(bad)), std::nullopt);
}

TEST(stacked_porep_circuit, GeneratedC1Satisfies2KiB) {
  const std::uint64_t seed = test::test_seed("stacked_porep_circuit.GeneratedC1Satisfies2KiB");
  check_generated("StackedDrg2KiBV1_1", seed);
  check_generated("StackedDrg2KiBV1", seed);  // api 1.0 graph
}

TEST(stacked_porep_circuit, C1ConversionRejectsBadInput) {
  std::mt19937_64 rng(test::test_seed("stacked_porep_circuit.C1ConversionRejectsBadInput"));
  const stacked_porep_params p = circuits::stacked_porep_params_for_size(2ull << 10);
  const test::stacked_sector s = test::make_stacked_sector(p, rng);
  {
    io::c1_output c1 = s.c1();
    c1.partitions[0][1].exp_parents.pop_back();
    EXPECT_THROW(circuits::stacked_porep_circuit_from_c1(p, c1, 0), std::invalid_argument);
  }
  {
    io::c1_output c1 = s.c1();
    c1.partitions[0][1].c_x.inclusion_proof.root += fr::one();
    EXPECT_THROW(circuits::stacked_porep_circuit_from_c1(p, c1, 0), std::invalid_argument);
  }
  {
    io::c1_output c1 = s.c1();
    c1.comm_d.fill(0xff);  // not canonical
    EXPECT_THROW(circuits::stacked_porep_circuit_from_c1(p, c1, 0), std::invalid_argument);
  }
  EXPECT_THROW(circuits::stacked_porep_circuit_from_c1(p, s.c1(), 1), std::invalid_argument);
}

}  // namespace
