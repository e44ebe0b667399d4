// SPDX-License-Identifier: Apache-2.0
// SnapDeals (EmptySectorUpdate) circuit, quick tests: the constraint and
// input counts rust-fil-proofs publishes for both variants (32 GiB and the
// small test sizes), the gadget counts of storage-proofs-update gadgets.rs'
// own tests, and the public parameters per sector size (partitions,
// challenges, h values, tree shapes).
#include <gtest/gtest.h>

#include <cstdint>

#include <cuzk/circuits/empty_sector_update.hpp>
#include <cuzk/r1cs/counting_cs.hpp>
#include <cuzk/r1cs/synthesize.hpp>

namespace {

using namespace cuzk;
using circuits::snap_params;
using circuits::snap_variant;

struct counts {
  std::size_t constraints, inputs, aux;
};

counts count_blank(std::uint64_t sector_size, snap_variant v) {
  r1cs::counting_cs cs;
  r1cs::synthesize_circuit(circuits::blank_snap_circuit(circuits::snap_params_for(sector_size, v)), cs);
  return {cs.num_constraints(), cs.num_inputs(), cs.num_aux()};
}

// storage-proofs-update tests/circuit.rs test_empty_sector_update_constraints_32gib
// (BenchCS, blank circuit, TreeR 8-8-0): 81,049,499.
TEST(snap_circuit, Published32GiBSha256) {
  const counts c = count_blank(32ull << 30, snap_variant::sha256);
  EXPECT_EQ(c.constraints, 81'049'499u);
  EXPECT_EQ(c.inputs, 5u);  // ONE, k_and_h_select, comm_r_old, comm_d_new, comm_r_new
}

// storage-proofs-update tests/circuit_poseidon.rs test_empty_sector_update_constraints_32gib: 22,305,906.
TEST(snap_circuit, Published32GiBPoseidon) {
  const counts c = count_blank(32ull << 30, snap_variant::poseidon);
  EXPECT_EQ(c.constraints, 22'305'906u);
  EXPECT_EQ(c.inputs, 5u);
}

// tests/circuit.rs test_empty_sector_update_circuit_{1,2,4,8,16,32}kib
// (TestConstraintSystem over a real sector; tree R shapes from validate_tree_r_shape).
TEST(snap_circuit, PublishedSmallSizesSha256) {
  EXPECT_EQ(count_blank(1ull << 10, snap_variant::sha256).constraints, 1'248'389u);
  EXPECT_EQ(count_blank(2ull << 10, snap_variant::sha256).constraints, 1'705'039u);
  EXPECT_EQ(count_blank(4ull << 10, snap_variant::sha256).constraints, 2'165'109u);
  EXPECT_EQ(count_blank(8ull << 10, snap_variant::sha256).constraints, 2'620'359u);
  EXPECT_EQ(count_blank(16ull << 10, snap_variant::sha256).constraints, 6'300'021u);
  EXPECT_EQ(count_blank(32ull << 10, snap_variant::sha256).constraints, 6'760'091u);
}

// tests/circuit_poseidon.rs test_empty_sector_update_circuit_{1,8}kib.
TEST(snap_circuit, PublishedSmallSizesPoseidon) {
  EXPECT_EQ(count_blank(1ull << 10, snap_variant::poseidon).constraints, 32'164u);
  EXPECT_EQ(count_blank(8ull << 10, snap_variant::poseidon).constraints, 47'974u);
}

// gadgets.rs test_gen_challenge_bits_gadget: constraints of gen_challenge_bits
// per allowed sector size (1 KiB .. 64 GiB).
TEST(snap_circuit, GenChallengeBitsGadgetCounts) {
  const std::uint64_t nodes[] = {1u << 5,  1u << 6,  1u << 7,  1u << 8,  1u << 9,   1u << 10,
                                 1u << 18, 1u << 19, 1u << 24, 1u << 30, 1ull << 31};
  const std::size_t expected[] = {568, 568, 568, 568, 568, 568, 568, 568, 4544, 5680, 5680};
  for (std::size_t i = 0; i < std::size(nodes); ++i) {
    const snap_params p = circuits::snap_params_for(nodes[i] * 32);
    r1cs::counting_cs cs;
    const gadgets::allocated_num comm = gadgets::allocated_num::alloc(cs, [] { return r1cs::fr::zero(); });
    const gadgets::allocated_num k = gadgets::allocated_num::alloc(cs, [] { return r1cs::fr::zero(); });
    const std::size_t before = cs.num_constraints();
    const auto bits =
        circuits::snap_gadgets::gen_challenge_bits(cs, comm, k, p.challenge_count, p.random_bits_per_challenge());
    EXPECT_EQ(cs.num_constraints() - before, expected[i]) << nodes[i] << " nodes";
    ASSERT_EQ(bits.size(), p.challenge_count);
    for (const auto& b : bits) EXPECT_EQ(b.size(), p.random_bits_per_challenge());
  }
}

// gadgets.rs test_apex_por_gadget_small_sector_sizes / _16kib_4_8_partitions.
TEST(snap_circuit, ApexPorGadgetCounts) {
  const auto apex_count = [](std::size_t leaves, std::size_t partition_bits) {
    r1cs::counting_cs cs;
    const auto num = [&] { return gadgets::allocated_num::alloc(cs, [] { return r1cs::fr::zero(); }); };
    const gadgets::allocated_num comm_d = num();
    std::vector<gadgets::allocated_bit> bits;
    for (std::size_t i = 0; i < partition_bits; ++i) bits.push_back(gadgets::allocated_bit::alloc(cs, false));
    std::vector<gadgets::allocated_num> apex;
    for (std::size_t i = 0; i < leaves; ++i) apex.push_back(num());
    std::vector<std::vector<gadgets::allocated_num>> path(partition_bits);
    for (auto& p : path) p.push_back(num());
    const std::size_t before = cs.num_constraints();
    circuits::snap_gadgets::apex_por(cs, apex, bits, path, comm_d);
    return cs.num_constraints() - before;
  };
  EXPECT_EQ(apex_count(8, 0), 317'654u);      // 1 .. 8 KiB
  EXPECT_EQ(apex_count(128, 1), 5'808'515u);  // 16 / 32 KiB
  EXPECT_EQ(apex_count(16, 2), 771'448u);     // 16 KiB, 4 partitions x 16 apex leaves
  EXPECT_EQ(apex_count(8, 3), 453'797u);      // 16 KiB, 8 partitions x 8 apex leaves
}

TEST(snap_circuit, PublicParamsPerSize) {
  const snap_params p2k = circuits::snap_params_for(2ull << 10);
  EXPECT_EQ(p2k.partition_count, 1u);
  EXPECT_EQ(p2k.challenge_count, 10u);
  EXPECT_EQ(p2k.apex_leaf_count, 8u);
  EXPECT_EQ(p2k.h_default(), 1u);
  EXPECT_EQ(circuits::snap_k_and_h_select(p2k, 0, 1), 1u);
  const snap_params p8m = circuits::snap_params_for(8ull << 20);
  EXPECT_EQ(p8m.partition_count, 4u);
  EXPECT_EQ(p8m.challenge_count, 10u);
  EXPECT_EQ(p8m.apex_leaf_count, 128u);
  EXPECT_EQ(p8m.h_default(), 10u);
  EXPECT_EQ(circuits::snap_k_and_h_select(p8m, 3, 10), 3u | (8u << 2));
  const snap_params p32g = circuits::snap_params_for(32ull << 30);
  EXPECT_EQ(p32g.partition_count, 16u);
  EXPECT_EQ(p32g.challenge_count, 86u);
  EXPECT_EQ(p32g.apex_leafs_height(), 30u - 4u - 7u);
  EXPECT_EQ(p32g.tree_r_shape.sub_arity, 8u);
  EXPECT_EQ(circuits::snap_params_for(64ull << 30).tree_r_shape.top_arity, 2u);
  const snap_params pp = circuits::snap_params_for(32ull << 30, snap_variant::poseidon);
  EXPECT_EQ(pp.partition_count, 1u);
  EXPECT_EQ(pp.challenge_count, 86u * 16u);
  EXPECT_THROW(circuits::snap_params_for(4ull << 20), std::invalid_argument);
  EXPECT_THROW(circuits::snap_k_and_h_select(p8m, 4, 10), std::invalid_argument);
  EXPECT_THROW(circuits::snap_h_select(1u << 18, 1), std::invalid_argument);
}

}  // namespace
