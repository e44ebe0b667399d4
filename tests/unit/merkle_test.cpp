// SPDX-License-Identifier: Apache-2.0
// Merkle inclusion (por) gadget: constraint and input counts against
// rust-fil-proofs' own figures (storage-proofs-core tests/por_circuit.rs,
// trees of 64 leaves per base tree, TestConstraintSystem = ONE + circuit),
// satisfaction on random trees built natively for the shapes Filecoin uses
// (8-0-0, 8-8-0, 8-8-2, SHA-256 binary), the public inputs (packed leaf
// index, root), blank vs witness shapes, and failures with their paths.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <cuzk/gadgets/merkle.hpp>
#include <cuzk/r1cs/r1cs.hpp>

#include "common/test_seed.hpp"

namespace {

using cuzk::ff::fr;
using cuzk::gadgets::merkle_hasher;
using cuzk::gadgets::merkle_path;
using cuzk::gadgets::merkle_tree;
using cuzk::gadgets::merkle_tree_shape;
using cuzk::gadgets::por_root;

struct por_under_test {
  const merkle_tree_shape* shape;
  std::optional<fr> leaf;
  const merkle_path* path;
  por_root root;
  bool private_root;
  template <cuzk::r1cs::constraint_system CS>
  void synthesize(CS& cs) const {
    cuzk::gadgets::por_circuit(cs, *shape, leaf, path, root, private_root);
  }
};

struct counts {
  std::size_t constraints, inputs;
};

counts count_blank(const merkle_tree_shape& shape, bool private_root) {
  cuzk::r1cs::counting_cs cs;
  cuzk::r1cs::synthesize_circuit(por_under_test{&shape, std::nullopt, nullptr, std::optional<fr>{}, private_root}, cs);
  return {cs.num_constraints(), cs.num_inputs()};
}

std::vector<fr> random_leaves(std::mt19937_64& rng, std::uint64_t n) {
  std::vector<fr> v(n);
  for (auto& x : v) x = fr::random(rng);
  return v;
}

TEST(merkle, shapes_and_leaf_counts) {
  const auto s32 = merkle_tree_shape::for_leaves(std::uint64_t(1) << 30, 8, 8);
  EXPECT_EQ(s32.base_levels, 9u);
  EXPECT_EQ(s32.levels(), 10u);
  EXPECT_EQ(s32.index_bits(), 30u);
  EXPECT_EQ(s32.leaves(), std::uint64_t(1) << 30);
  const auto s64 = merkle_tree_shape::for_leaves(std::uint64_t(1) << 31, 8, 8, 2);
  EXPECT_EQ(s64.base_levels, 9u);
  EXPECT_EQ(s64.levels(), 11u);
  EXPECT_EQ(s64.arity(10), 2u);
  EXPECT_EQ(merkle_tree_shape::for_leaves(64, 8).base_levels, 2u);
  EXPECT_THROW(merkle_tree_shape::for_leaves(96, 8), std::invalid_argument);
  EXPECT_THROW(merkle_tree_shape::for_leaves(64, 6), std::invalid_argument);
  EXPECT_THROW(merkle_tree_shape::for_leaves(128, 8, 0, 2), std::invalid_argument);
}

// storage-proofs-core tests/por_circuit.rs: test_por_circuit::<Tree>(3, N)
// with leaves = 64 * base tree count, public root.
TEST(merkle, constraint_counts_match_rust_fil_proofs) {
  struct row {
    std::uint64_t leaves;
    std::size_t base, sub, top;
    merkle_hasher h;
    std::size_t constraints;
  };
  const row rows[] = {
      {64, 2, 0, 0, merkle_hasher::poseidon, 1887},   {64, 4, 0, 0, merkle_hasher::poseidon, 1164},
      {64, 8, 0, 0, merkle_hasher::poseidon, 1063},   {128, 8, 2, 0, merkle_hasher::poseidon, 1377},
      {512, 8, 4, 2, merkle_hasher::poseidon, 1764},  {512, 8, 8, 0, merkle_hasher::poseidon, 1593},
      {1024, 8, 8, 2, merkle_hasher::poseidon, 1907}, {512, 8, 2, 4, merkle_hasher::poseidon, 1764},
      {64, 2, 0, 0, merkle_hasher::sha256, 272295},   {64, 4, 0, 0, merkle_hasher::sha256, 216258},
      {64, 8, 0, 0, merkle_hasher::sha256, 250987},
  };
  for (const row& r : rows) {
    const auto shape = merkle_tree_shape::for_leaves(r.leaves, r.base, r.sub, r.top, r.h);
    const counts c = count_blank(shape, false);
    EXPECT_EQ(c.constraints, r.constraints)
        << r.base << "-" << r.sub << "-" << r.top << (r.h == merkle_hasher::sha256 ? " sha256" : " poseidon");
    EXPECT_EQ(c.inputs, 3u);  // ONE, packed path, root
  }
  // test_por_circuit_private_root: one input (the path) besides ONE
  EXPECT_EQ(count_blank(merkle_tree_shape::for_leaves(64, 2), true).constraints, 1886u);
  EXPECT_EQ(count_blank(merkle_tree_shape::for_leaves(64, 4), true).constraints, 1163u);
  const counts p8 = count_blank(merkle_tree_shape::for_leaves(64, 8), true);
  EXPECT_EQ(p8.constraints, 1062u);
  EXPECT_EQ(p8.inputs, 2u);
  // 32 GiB tree R: 10 levels of 530 + packing + root equality
  EXPECT_EQ(count_blank(merkle_tree_shape::for_leaves(std::uint64_t(1) << 30, 8, 8), true).constraints, 5302u);
}

void check_satisfied_paths(const merkle_tree_shape& shape, std::mt19937_64& rng, int samples) {
  const merkle_tree tree(shape, random_leaves(rng, shape.leaves()));
  for (int k = 0; k < samples; ++k) {
    const std::uint64_t idx = k == 0 ? 0 : k == 1 ? shape.leaves() - 1 : rng() % shape.leaves();
    const merkle_path path = tree.path(idx);
    ASSERT_EQ(cuzk::gadgets::path_leaf_index(shape, path), idx);
    ASSERT_EQ(cuzk::gadgets::merkle_root_from_path(shape, tree.leaf(idx), path), tree.root());

    cuzk::r1cs::checking_cs cs;
    cuzk::r1cs::synthesize_circuit(por_under_test{&shape, tree.leaf(idx), &path, std::optional<fr>(tree.root()), false},
                                   cs);
    ASSERT_TRUE(cs.is_satisfied()) << "leaf " << idx << ": " << cs.which_is_unsatisfied().value_or("");
    // public inputs: ONE, packed leaf index, root (PoRCompound::generate_public_inputs)
    const auto expected = cuzk::gadgets::por_public_inputs(idx, tree.root());
    ASSERT_EQ(cs.num_inputs(), 1 + expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(cs.inputs()[1 + i], expected[i]);
    EXPECT_EQ(cs.get("root_value/num"), tree.root());

    // the same counts as the blank circuit (no value-dependent structure)
    const counts blank = count_blank(shape, false);
    EXPECT_EQ(cs.num_constraints(), blank.constraints);
    EXPECT_EQ(cs.num_inputs(), blank.inputs);
  }
}

TEST(merkle, satisfied_on_random_trees_8_0_0_8_8_0_8_8_2) {
  std::mt19937_64 rng(cuzk::test::test_seed("merkle-satisfied"));
  check_satisfied_paths(merkle_tree_shape::for_leaves(64, 8), rng, 4);
  check_satisfied_paths(merkle_tree_shape::for_leaves(512, 8, 8), rng, 3);
  check_satisfied_paths(merkle_tree_shape::for_leaves(1024, 8, 8, 2), rng, 3);
  check_satisfied_paths(merkle_tree_shape::for_leaves(128, 8, 2), rng, 2);
}

TEST(merkle, satisfied_sha256_binary) {
  std::mt19937_64 rng(cuzk::test::test_seed("merkle-sha256"));
  check_satisfied_paths(merkle_tree_shape::for_leaves(4, 2, 0, 0, merkle_hasher::sha256), rng, 2);
}

TEST(merkle, blank_and_witness_shapes_are_identical) {
  std::mt19937_64 rng(cuzk::test::test_seed("merkle-shape"));
  const auto shape = merkle_tree_shape::for_leaves(128, 8, 2);
  const merkle_tree tree(shape, random_leaves(rng, shape.leaves()));
  const merkle_path path = tree.path(rng() % shape.leaves());
  const auto blank = cuzk::r1cs::make_shape(por_under_test{&shape, std::nullopt, nullptr, std::optional<fr>{}, true});
  const auto full =
      cuzk::r1cs::make_shape(por_under_test{&shape, tree.leaf(0), &path, std::optional<fr>(tree.root()), true});
  EXPECT_EQ(blank.num_inputs, full.num_inputs);
  EXPECT_EQ(blank.num_aux, full.num_aux);
  EXPECT_EQ(blank.num_constraints, full.num_constraints);
  EXPECT_EQ(blank.coeffs, full.coeffs);
  EXPECT_TRUE(blank.a == full.a && blank.b == full.b && blank.c == full.c);
  // witness mode computes the same assignment as the checking mode
  const por_under_test c{&shape, tree.leaf(5), &(path), std::optional<fr>(tree.root()), true};
  const merkle_path p5 = tree.path(5);
  const por_under_test c5{&shape, tree.leaf(5), &p5, std::optional<fr>(tree.root()), true};
  const auto w = cuzk::r1cs::make_witness(c5);
  cuzk::r1cs::checking_cs cs;
  cuzk::r1cs::synthesize_groth16(c5, cs);
  ASSERT_TRUE(cs.is_satisfied());
  ASSERT_EQ(w.inputs().size(), cs.inputs().size());
  ASSERT_EQ(w.aux().size(), cs.aux().size());
  EXPECT_TRUE(std::equal(w.inputs().begin(), w.inputs().end(), cs.inputs().begin()));
  EXPECT_TRUE(std::equal(w.aux().begin(), w.aux().end(), cs.aux().begin()));
  (void)c;
}

TEST(merkle, wrong_sibling_index_or_root_is_unsatisfied) {
  std::mt19937_64 rng(cuzk::test::test_seed("merkle-tamper"));
  const auto shape = merkle_tree_shape::for_leaves(512, 8, 8);
  const merkle_tree tree(shape, random_leaves(rng, shape.leaves()));
  const std::uint64_t idx = rng() % shape.leaves();
  const merkle_path good = tree.path(idx);
  const auto run = [&](const fr& leaf, const merkle_path& path, const fr& root) {
    cuzk::r1cs::checking_cs cs;
    cuzk::r1cs::synthesize_circuit(por_under_test{&shape, leaf, &path, std::optional<fr>(root), true}, cs);
    return cs.which_is_unsatisfied();
  };
  EXPECT_EQ(run(tree.leaf(idx), good, tree.root()), std::nullopt);

  // a wrong sibling at any level: the hashes are consistent, the root is not
  for (std::size_t s : {std::size_t(0), std::size_t(10), good.siblings.size() - 1}) {
    merkle_path bad = good;
    bad.siblings[s] += fr::one();
    EXPECT_EQ(run(tree.leaf(idx), bad, tree.root()), "enforce root is correct") << "sibling " << s;
  }
  // a wrong position at level 1 proves another leaf
  merkle_path bad = good;
  bad.indices[1] = (bad.indices[1] + 1) % 8;
  EXPECT_EQ(run(tree.leaf(idx), bad, tree.root()), "enforce root is correct");
  // a wrong leaf, a wrong root
  EXPECT_EQ(run(tree.leaf(idx) + fr::one(), good, tree.root()), "enforce root is correct");
  EXPECT_EQ(run(tree.leaf(idx), good, tree.root() + fr::one()), "enforce root is correct");

  // a sibling variable changed after synthesis: the first failing constraint
  // is the pick that reads it, named by its full namespace path
  cuzk::r1cs::checking_cs cs;
  cuzk::r1cs::synthesize_circuit(por_under_test{&shape, tree.leaf(idx), &good, std::optional<fr>(tree.root()), true},
                                 cs);
  ASSERT_TRUE(cs.is_satisfied());
  cs.set("base/merkle tree hash 1/path element 0/num", fr::from_uint(12345));
  const auto where = cs.which_is_unsatisfied();
  ASSERT_TRUE(where.has_value());
  EXPECT_EQ(where->rfind("base/merkle tree hash 1/", 0), 0u) << *where;
  // an index bit set to 2 breaks its boolean constraint
  cuzk::r1cs::checking_cs cs2;
  cuzk::r1cs::synthesize_circuit(por_under_test{&shape, tree.leaf(idx), &good, std::optional<fr>(tree.root()), true},
                                 cs2);
  cs2.set("sub/merkle tree hash 0/index bit 2/boolean", fr::from_uint(2));
  EXPECT_EQ(cs2.which_is_unsatisfied(), "sub/merkle tree hash 0/index bit 2/boolean constraint");
}

TEST(merkle, bad_paths_are_rejected) {
  const auto shape = merkle_tree_shape::for_leaves(64, 8);
  merkle_path p{std::vector<fr>(14, fr::one()), {0, 8}};
  EXPECT_THROW(cuzk::gadgets::check_path(shape, p), std::invalid_argument);
  p.indices = {0};
  EXPECT_THROW(cuzk::gadgets::check_path(shape, p), std::invalid_argument);
  p.indices = {1, 7};
  p.siblings.resize(13);
  EXPECT_THROW(cuzk::gadgets::check_path(shape, p), std::invalid_argument);
  cuzk::r1cs::counting_cs cs;
  EXPECT_THROW(
      cuzk::r1cs::synthesize_circuit(por_under_test{&shape, fr::one(), &p, std::optional<fr>(fr::one()), true}, cs),
      std::invalid_argument);
}

}  // namespace
