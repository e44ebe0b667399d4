// SPDX-License-Identifier: Apache-2.0
// The PoRep witness synthesized straight into the coded form
// (circuits/stacked_porep_coded.hpp, porep_compound.hpp porep_coded_witness):
// for every partition of a generated 2 KiB C1 (porep_generator.hpp: real
// graph, replica_id and challenges; api 1.1 and 1.0) and for a consistent
// 2 KiB sector with 9 challenges (tests/common/stacked_sector.hpp, so that
// several threads share the challenges), on 1, 3 and all threads, it equals
// encode_witness of the plain witness (porep_witness) in every field, and
// decode_witness of it is the plain witness; the others bound is exact (at
// the plain witness's count a value, one less or a tiny bound nullopt); the
// coding CS keeps the layout's counts (overflow is a logic_error, and a
// layout that does not match the circuit is refused, from any thread).
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include <cuzk/circuits/porep_compound.hpp>
#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/circuits/stacked_porep.hpp>
#include <cuzk/circuits/stacked_porep_coded.hpp>
#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/io/seal_proof.hpp>

#include "common/stacked_sector.hpp"
#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using ff::fr;
using groth16::coded_witness;

void expect_same(const coded_witness& got, const coded_witness& want) {
  EXPECT_EQ(got.size, want.size);
  EXPECT_EQ(got.codes, want.codes);
  EXPECT_EQ(got.group_others, want.group_others);
  EXPECT_EQ(got.others, want.others);
}

/// The coded witness of |c| against the plain one's encoding, at several
/// thread counts and at the others bound.
void check_circuit(const circuits::stacked_porep_circuit& c) {
  const groth16::witness plain = circuits::porep_witness(c, 2);
  const coded_witness want = groth16::encode_witness(plain.inputs, plain.aux);
  std::vector<fr> all = plain.inputs;
  all.insert(all.end(), plain.aux.begin(), plain.aux.end());
  ASSERT_GT(want.others.size(), 1u);
  for (const unsigned threads : {1u, 3u, 0u}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    const std::optional<coded_witness> got = circuits::porep_coded_witness(c, ~std::size_t(0), threads);
    ASSERT_TRUE(got.has_value());
    expect_same(*got, want);
    EXPECT_EQ(groth16::decode_witness(*got), all);
  }
  const std::size_t others = want.others.size();
  const std::optional<coded_witness> at = circuits::porep_coded_witness(c, others, 3);
  ASSERT_TRUE(at.has_value());
  expect_same(*at, want);
  EXPECT_FALSE(circuits::porep_coded_witness(c, others - 1, 3).has_value());
  EXPECT_FALSE(circuits::porep_coded_witness(c, others - 1, 1).has_value());
  EXPECT_FALSE(circuits::porep_coded_witness(c, 1, 3).has_value());  // stops at the globals or the first challenge
}

TEST(porep_coded_witness, EqualsEncodedPlainWitnessGenerated2KiB) {
  const std::uint64_t seed = test::test_seed("porep_coded_witness.EqualsEncodedPlainWitnessGenerated2KiB");
  for (const char* name : {"StackedDrg2KiBV1_1", "StackedDrg2KiBV1"}) {
    SCOPED_TRACE(name);
    const io::seal_proof_info* info = io::find_seal_proof(name);
    ASSERT_NE(info, nullptr);
    const circuits::synthetic_porep g = circuits::generate_synthetic_porep(*info, seed);
    ASSERT_EQ(g.c1.partitions.size(), info->partitions);
    for (std::size_t k = 0; k < g.c1.partitions.size(); ++k) {
      SCOPED_TRACE(::testing::Message() << "partition " << k);
      check_circuit(circuits::porep_partition_circuit(g.c1, k));
    }
  }
}

TEST(porep_coded_witness, EqualsEncodedPlainWitnessNineChallenges) {
  std::mt19937_64 rng(test::test_seed("porep_coded_witness.EqualsEncodedPlainWitnessNineChallenges"));
  circuits::stacked_porep_params p = circuits::stacked_porep_params_for_size(2ull << 10);
  p.challenges = 9;
  const test::stacked_sector s = test::make_stacked_sector(p, rng);
  check_circuit(circuits::stacked_porep_circuit_from_c1(p, s.c1(), 0));
}

TEST(porep_coded_witness, KeepsTheLayout) {
  // the CS: counts up to its bounds, then logic_error
  groth16::coded_block in, ax;
  groth16::coded_block_cs cs(in, 1, ax, 2);
  (void)cs.alloc_input("x", [] { return fr::one(); });
  (void)cs.alloc("a", [] { return fr::zero(); });
  (void)cs.alloc("b", [] { return fr::from_uint(7); });
  EXPECT_THROW((void)cs.alloc("c", [] { return fr::one(); }), std::logic_error);
  EXPECT_THROW((void)cs.alloc_input("y", [] { return fr::one(); }), std::logic_error);
  EXPECT_EQ(cs.num_inputs(), 1u);
  EXPECT_EQ(cs.num_aux(), 2u);
  EXPECT_EQ(in.size, 1u);
  EXPECT_EQ(ax.size, 2u);
  ASSERT_EQ(ax.others.size(), 1u);
  EXPECT_EQ(ax.others[0], fr::from_uint(7));

  // a layout that does not match the circuit, in the globals or a challenge
  std::mt19937_64 rng(test::test_seed("porep_coded_witness.KeepsTheLayout"));
  circuits::stacked_porep_params p = circuits::stacked_porep_params_for_size(2ull << 10);
  p.challenges = 4;
  const test::stacked_sector s = test::make_stacked_sector(p, rng);
  const circuits::stacked_porep_circuit c = circuits::stacked_porep_circuit_from_c1(p, s.c1(), 0);
  const circuits::stacked_witness_layout good = circuits::stacked_witness_layout_for(p);
  ASSERT_TRUE(circuits::stacked_porep_coded_witness(c, good, ~std::size_t(0), 2).has_value());
  for (int change = 0; change < 5; ++change) {
    SCOPED_TRACE(::testing::Message() << "change " << change);
    circuits::stacked_witness_layout bad = good;
    if (change == 0) --bad.challenge_aux;       // overflow in a challenge
    else if (change == 1) ++bad.challenge_aux;  // a challenge ends short
    else if (change == 2) --bad.global_aux;
    else if (change == 3) ++bad.challenge_inputs;
    else ++bad.global_inputs;
    EXPECT_THROW((void)circuits::stacked_porep_coded_witness(c, bad, ~std::size_t(0), 3), std::logic_error);
  }
  circuits::stacked_witness_layout fewer = good;
  fewer.challenges = 3;
  EXPECT_THROW((void)circuits::stacked_porep_coded_witness(c, fewer, ~std::size_t(0), 2), std::invalid_argument);
  EXPECT_THROW(
      (void)circuits::stacked_porep_coded_witness(circuits::blank_stacked_porep_circuit(p), good, ~std::size_t(0), 2),
      std::invalid_argument);
}

}  // namespace
