// SPDX-License-Identifier: Apache-2.0
// Quick mutation fuzz of io::parse_c1_json (tests/common/c1_fuzz.hpp):
// 5,000 seeded mutations of a valid 2 KiB C1 (bare and wrapped); the only
// allowed outcomes are success (with a write/parse fixed point) or
// io::format_error. The long variant runs 100,000 (tests/unit_long/).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "common/c1_fuzz.hpp"
#include "common/c1_random.hpp"
#include "common/test_seed.hpp"

namespace {

TEST(PorepC1Fuzz, FiveThousandMutations) {
  const std::uint64_t seed = cuzk::test::test_seed("PorepC1Fuzz.FiveThousandMutations");
  std::mt19937_64 rng(seed);
  const auto* proof = cuzk::io::find_seal_proof("StackedDrg2KiBV1_1");
  ASSERT_NE(proof, nullptr);
  cuzk::test::c1_fuzzer fuzzer(cuzk::io::write_c1_json(cuzk::test::random_c1(rng, *proof)));
  const auto st = fuzzer.run(rng, 5000, seed);
  std::printf("[fuzz] accepted %zu, rejected %zu\n", st.accepted, st.rejected);
  EXPECT_EQ(st.accepted + st.rejected, 5000u);
  EXPECT_GT(st.rejected, 2500u);  // most mutations must be caught
}

}  // namespace
