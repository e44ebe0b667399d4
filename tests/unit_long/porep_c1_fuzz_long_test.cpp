// SPDX-License-Identifier: Apache-2.0
// Long mutation fuzz of io::parse_c1_json (label long): 100,000 seeded
// mutations of a valid 2 KiB C1 and 20,000 of an 8 MiB one (deeper tree D
// and tree R paths), bare and wrapped. Same oracle as the quick test.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "common/c1_fuzz.hpp"
#include "common/c1_random.hpp"
#include "common/test_seed.hpp"

namespace {

void fuzz(const char* proof_name, std::size_t n, const char* what) {
  const std::uint64_t seed = cuzk::test::test_seed(what);
  std::mt19937_64 rng(seed);
  const auto* proof = cuzk::io::find_seal_proof(proof_name);
  ASSERT_NE(proof, nullptr);
  cuzk::test::c1_fuzzer fuzzer(cuzk::io::write_c1_json(cuzk::test::random_c1(rng, *proof)), proof->sector_size);
  const auto st = fuzzer.run(rng, n, seed);
  std::printf("[fuzz] %s: accepted %zu, rejected %zu\n", proof_name, st.accepted, st.rejected);
  EXPECT_EQ(st.accepted + st.rejected, n);
}

TEST(porep_c1_fuzz_long, HundredThousandMutations2KiB) {
  fuzz("StackedDrg2KiBV1_1", 100000, "porep_c1_fuzz_long.HundredThousandMutations2KiB");
}

TEST(porep_c1_fuzz_long, TwentyThousandMutations8MiB) {
  fuzz("StackedDrg8MiBV1_1_Feat_SyntheticPoRep", 20000, "porep_c1_fuzz_long.TwentyThousandMutations8MiB");
}

}  // namespace
