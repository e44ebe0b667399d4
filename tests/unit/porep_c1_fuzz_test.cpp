// SPDX-License-Identifier: Apache-2.0
// Quick mutation fuzz of io::parse_c1_json (tests/common/c1_fuzz.hpp):
// 5,000 seeded mutations of a valid 2 KiB C1 in serde's key order and 1,000
// of one whose vanilla_proofs precedes registered_proof (read deferred),
// bare and wrapped; the only allowed outcomes are success (with a
// write/parse fixed point) or io::format_error. The long variant runs
// 100,000 (tests/unit_long/).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/c1_fuzz.hpp"
#include "common/c1_random.hpp"
#include "common/test_seed.hpp"

namespace {

TEST(porep_c1_fuzz, FiveThousandMutations) {
  const std::uint64_t seed = cuzk::test::test_seed("porep_c1_fuzz.FiveThousandMutations");
  std::mt19937_64 rng(seed);
  const auto* proof = cuzk::io::find_seal_proof("StackedDrg2KiBV1_1");
  ASSERT_NE(proof, nullptr);
  const std::string text = cuzk::io::write_c1_json(cuzk::test::random_c1(rng, *proof));
  cuzk::test::c1_fuzzer fuzzer(text, proof->sector_size);
  const auto st = fuzzer.run(rng, 5000, seed);
  std::printf("[fuzz] accepted %zu, rejected %zu\n", st.accepted, st.rejected);
  EXPECT_EQ(st.accepted + st.rejected, 5000u);
  EXPECT_GT(st.rejected, 2500u);  // most mutations must be caught

  // Reversed key order: vanilla_proofs is skipped, then read again.
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  nlohmann::ordered_json r = nlohmann::ordered_json::object();
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) r[*k] = j[*k];
  ASSERT_EQ(r.begin().key(), "ticket");
  cuzk::test::c1_fuzzer reversed(r.dump(), proof->sector_size);
  const auto st2 = reversed.run(rng, 1000, seed);
  std::printf("[fuzz] reversed keys: accepted %zu, rejected %zu\n", st2.accepted, st2.rejected);
  EXPECT_EQ(st2.accepted + st2.rejected, 1000u);
}

}  // namespace
