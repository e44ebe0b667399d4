// SPDX-License-Identifier: Apache-2.0
// SnapDeals circuit, long tests: generated partition proofs satisfy the
// circuit in the checking constraint system (satisfaction_cs) at 8 MiB
// (partition 2 of 4, ~10 M constraints; ~31 s loaded) and 32 GiB
// (partition 9 of 16, 81,049,499 constraints; 150-370 s), with the public
// inputs as the verifier computes them; a corrupted data leaf (8 MiB) or
// tree D sibling (32 GiB) is rejected, the failing constraint named.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include <cuzk/circuits/empty_sector_update_compound.hpp>
#include <cuzk/circuits/empty_sector_update_generator.hpp>
#include <cuzk/r1cs/satisfaction_cs.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using circuits::snap_variant;

r1cs::satisfaction_cs run(const circuits::synthetic_snap& s, std::size_t k, const io::snap_partition_proof& proof) {
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::satisfaction_cs cs;
  r1cs::synthesize_circuit(circuits::snap_circuit_from_partition(s.params, s.pub, k, proof), cs);
  std::fprintf(stderr, "[snap] %llu-byte %s partition %zu: %zu constraints checked in %.1f s\n",
               static_cast<unsigned long long>(s.params.sector_size()),
               s.params.variant == snap_variant::sha256 ? "sha256" : "poseidon", k, cs.num_constraints(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return cs;
}

void expect_accepts(const circuits::synthetic_snap& s, std::size_t k) {
  const r1cs::satisfaction_cs cs = run(s, k, s.partitions[k]);
  EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
  const std::vector<ff::fr> pub = circuits::snap_public_inputs(s.params, s.pub, k);
  ASSERT_EQ(cs.num_inputs(), pub.size() + 1);
  for (std::size_t i = 0; i < pub.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], pub[i]) << "input " << i + 1;
}

TEST(snap_long, Checking8MiB) {
  const std::uint64_t seed = test::test_seed("snap_long.Checking8MiB");
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(8ull << 20), seed);
  expect_accepts(s, 2);
  io::snap_partition_proof bad = s.partitions[2];
  bad.challenge_proofs[6].proof_d_new.leaf += ff::fr::one();
  const r1cs::satisfaction_cs cs = run(s, 2, bad);
  ASSERT_FALSE(cs.is_satisfied());
  EXPECT_NE(cs.which_is_unsatisfied()->find("c_index=6"), std::string::npos) << *cs.which_is_unsatisfied();
}

TEST(snap_long, Checking32GiBOnePartition) {
  const std::uint64_t seed = test::test_seed("snap_long.Checking32GiBOnePartition");
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(32ull << 30), seed);
  expect_accepts(s, 9);
  io::snap_partition_proof bad = s.partitions[9];
  bad.challenge_proofs[40].proof_d_new.base[5].hashes[0] += ff::fr::one();
  const r1cs::satisfaction_cs cs = run(s, 9, bad);
  ASSERT_FALSE(cs.is_satisfied());
  EXPECT_NE(cs.which_is_unsatisfied()->find("por to_apex_leaf (c_index=40)"), std::string::npos)
      << *cs.which_is_unsatisfied();
}

}  // namespace
