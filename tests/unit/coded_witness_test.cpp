// SPDX-License-Identifier: Apache-2.0
// The coded witness form (groth16/coded_witness.hpp): encode then decode
// gives the witness back, on random seeded witnesses with the PoRep mix of
// zeros, ones and other values, and on all-zero, all-one and all-other
// witnesses, at lengths around the code-word (32), group (256) and task
// boundaries; the parts have the documented sizes and layout; the bounded
// encoder gives up beyond its limit of other values; a malformed form is
// rejected.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <cuzk/groth16/coded_witness.hpp>

#include "common/test_seed.hpp"
#include "common/witness_values.hpp"

namespace {

using cuzk::ff::fr;
using cuzk::groth16::coded_witness;

using cuzk::test::witness_values;

void round_trip(const std::vector<fr>& all, std::size_t n_inputs) {
  SCOPED_TRACE(::testing::Message() << all.size() << " values, " << n_inputs << " inputs");
  const std::span<const fr> inputs(all.data(), n_inputs), aux(all.data() + n_inputs, all.size() - n_inputs);
  const coded_witness cw = cuzk::groth16::encode_witness(inputs, aux);
  ASSERT_EQ(cw.size, all.size());
  ASSERT_EQ(cw.codes.size(), (all.size() + 31) / 32);
  ASSERT_EQ(cw.group_others.size(), (all.size() + 255) / 256);
  std::size_t others = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::uint64_t code = (cw.codes[i / 32] >> (2 * (i % 32))) & 3;
    if (i % coded_witness::group_size == 0) {
      ASSERT_EQ(cw.group_others[i / 256], others) << i;
    }
    if (all[i].is_zero()) ASSERT_EQ(code, coded_witness::code_zero) << i;
    else if (all[i] == fr::one()) ASSERT_EQ(code, coded_witness::code_one) << i;
    else {
      ASSERT_EQ(code, coded_witness::code_other) << i;
      ASSERT_LT(others, cw.others.size());
      ASSERT_EQ(cw.others[others], all[i]) << i;
      ++others;
    }
  }
  EXPECT_EQ(cw.others.size(), others);
  if (all.size() % 32) {
    EXPECT_EQ(cw.codes.back() >> (2 * (all.size() % 32)), 0u) << "unused codes are 0";
  }
  EXPECT_EQ(cw.bytes(), cw.codes.size() * 8 + cw.group_others.size() * 4 + others * sizeof(fr));
  EXPECT_EQ(cuzk::groth16::decode_witness(cw), all);
}

TEST(coded_witness, RoundTripsRandomPorepMix) {
  std::mt19937_64 rng(cuzk::test::test_seed("coded_witness.RoundTripsRandomPorepMix"));
  for (const std::size_t n :
       {std::size_t(1), std::size_t(2), std::size_t(31), std::size_t(32), std::size_t(33), std::size_t(63),
        std::size_t(64), std::size_t(65), std::size_t(255), std::size_t(256), std::size_t(257), std::size_t(1000),
        std::size_t(65535), std::size_t(65536), std::size_t(65537), std::size_t(300001), std::size_t(1) << 20}) {
    const auto v = witness_values(n, 0.51, 0.47, rng);
    round_trip(v, std::min<std::size_t>(n, 1 + rng() % 40));
    round_trip(v, 0);
    round_trip(v, n);
  }
}

TEST(coded_witness, RoundTripsUniformWitnesses) {
  std::mt19937_64 rng(cuzk::test::test_seed("coded_witness.RoundTripsUniformWitnesses"));
  for (const std::size_t n : {std::size_t(1), std::size_t(37), std::size_t(256), std::size_t(70001)}) {
    round_trip(std::vector<fr>(n, fr::zero()), std::min<std::size_t>(n, 3));
    round_trip(std::vector<fr>(n, fr::one()), std::min<std::size_t>(n, 3));
    round_trip(witness_values(n, 0, 0, rng), std::min<std::size_t>(n, 3));
    // other values next to 0 and 1: -1 and 2, between zeros
    std::vector<fr> edge(n);
    for (std::size_t i = 0; i < n; ++i) edge[i] = i % 3 == 0 ? -fr::one() : i % 3 == 1 ? fr::from_uint(2) : fr::zero();
    round_trip(edge, std::min<std::size_t>(n, 3));
  }
  const coded_witness empty = cuzk::groth16::encode_witness({}, {});
  EXPECT_EQ(empty.size, 0u);
  EXPECT_TRUE(empty.codes.empty() && empty.group_others.empty() && empty.others.empty());
  EXPECT_TRUE(cuzk::groth16::decode_witness(empty).empty());
}

TEST(coded_witness, BoundedEncodeStopsAtTooManyOthers) {
  std::mt19937_64 rng(cuzk::test::test_seed("coded_witness.BoundedEncodeStopsAtTooManyOthers"));
  const auto v = witness_values(100000, 0.5, 0.45, rng);
  const coded_witness full = cuzk::groth16::encode_witness(v, {});
  const std::size_t others = full.others.size();
  ASSERT_GT(others, 0u);
  const auto at =
      cuzk::groth16::encode_witness(std::span<const fr>(v).first(5), std::span<const fr>(v).subspan(5), others);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->codes, full.codes);
  EXPECT_EQ(at->group_others, full.group_others);
  EXPECT_EQ(at->others, full.others);
  EXPECT_LE(at->bytes(), cuzk::groth16::coded_witness_bytes_bound(v.size(), others));
  EXPECT_FALSE(cuzk::groth16::encode_witness(v, {}, others - 1).has_value());
  EXPECT_EQ(cuzk::groth16::coded_witness_bytes_bound(v.size(), others),
            full.codes.size() * 8 + full.group_others.size() * 4 + others * sizeof(fr));
}

// The bounded encoder stops counting once past the bound (chunks of 2^16
// values on all threads): with the others packed into the first chunks of
// a 24-chunk witness, a bound at their count still gives the whole form
// and one less refuses it; a witness of nothing but other values (as a
// PoSt one nearly is) is refused at a bound of n / 32.
TEST(coded_witness, BoundedEncodeStopsEarlyOnlyWhenItRefuses) {
  std::mt19937_64 rng(cuzk::test::test_seed("coded_witness.BoundedEncodeStopsEarlyOnlyWhenItRefuses"));
  const std::size_t n = 24 * (std::size_t(1) << 16) + 7;
  auto v = witness_values(n, 0.5, 0.5, rng);  // zeros and ones only
  const auto others = witness_values(3 * (std::size_t(1) << 16), 0.0, 0.0, rng);
  std::copy(others.begin(), others.end(), v.begin());
  const coded_witness full = cuzk::groth16::encode_witness(v, {});
  ASSERT_EQ(full.others.size(), others.size());
  const auto at = cuzk::groth16::encode_witness(v, {}, others.size());
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->codes, full.codes);
  EXPECT_EQ(at->group_others, full.group_others);
  EXPECT_EQ(at->others, full.others);
  EXPECT_FALSE(cuzk::groth16::encode_witness(v, {}, others.size() - 1).has_value());
  const auto all_other = witness_values(n, 0.0, 0.0, rng);
  EXPECT_FALSE(cuzk::groth16::encode_witness(all_other, {}, n / 32).has_value());
  EXPECT_TRUE(cuzk::groth16::encode_witness(all_other, {}, n).has_value());
}

TEST(coded_witness, DecodeRejectsMalformedForms) {
  std::mt19937_64 rng(cuzk::test::test_seed("coded_witness.DecodeRejectsMalformedForms"));
  const auto v = witness_values(1000, 0.3, 0.3, rng);
  const coded_witness good = cuzk::groth16::encode_witness(v, {});
  coded_witness bad = good;
  bad.codes.pop_back();
  EXPECT_THROW((void)cuzk::groth16::decode_witness(bad), std::invalid_argument);
  bad = good;
  bad.others.clear();
  EXPECT_THROW((void)cuzk::groth16::decode_witness(bad), std::invalid_argument);
  bad = good;
  bad.codes[0] |= 3;  // code 3 is never written
  EXPECT_THROW((void)cuzk::groth16::decode_witness(bad), std::invalid_argument);
}

}  // namespace
