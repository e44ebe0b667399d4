// SPDX-License-Identifier: Apache-2.0
// io::to_hex / to_hex_reversed / decode_hex: known answers (every byte value
// and a little-endian Fr repr printed both ways), seeded random round trips
// of every length 0..64 in both cases, and each refusal with its position
// and reason (odd length, a character that is not a digit in either place
// of a pair, a "0x" prefix, which callers strip themselves).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/io/hex.hpp>

#include "common/test_seed.hpp"

namespace {

using cuzk::io::decode_hex;
using cuzk::io::hex_error;
using cuzk::io::to_hex;
using cuzk::io::to_hex_reversed;

/// The error for |text| (nullopt when accepted).
std::optional<hex_error> refusal(std::string_view text) {
  std::vector<std::uint8_t> out;
  return decode_hex(text, out);
}

TEST(io_hex, known_answers) {
  std::vector<std::uint8_t> all(256);
  for (unsigned i = 0; i < 256; ++i) all[i] = std::uint8_t(i);
  const std::string t = to_hex(all);
  ASSERT_EQ(t.size(), 512u);
  EXPECT_EQ(t.substr(0, 8), "00010203");
  EXPECT_EQ(t.substr(2 * 0x9e, 8), "9e9fa0a1");
  EXPECT_EQ(t.substr(504), "fcfdfeff");
  EXPECT_EQ(to_hex({}), "");

  // Fr one: repr 1 little-endian; the reversed text reads as the number.
  std::uint8_t le[32];
  cuzk::ff::fr::one().to_bytes_le(le);
  EXPECT_EQ(to_hex(le), "01" + std::string(62, '0'));
  EXPECT_EQ(to_hex_reversed(le), std::string(62, '0') + "01");

  std::vector<std::uint8_t> out;
  ASSERT_FALSE(decode_hex("00ff7F80aB", out));
  EXPECT_EQ(out, (std::vector<std::uint8_t>{0x00, 0xff, 0x7f, 0x80, 0xab}));
  ASSERT_FALSE(decode_hex(t, out));
  EXPECT_EQ(out, all);
}

TEST(io_hex, random_round_trips_of_every_length) {
  const std::uint64_t seed = cuzk::test::test_seed("io_hex round trips");
  std::mt19937_64 rng(seed);
  for (std::size_t n = 0; n <= 64; ++n) {
    std::vector<std::uint8_t> b(n);
    for (auto& x : b) x = std::uint8_t(rng());
    std::string t = to_hex(b);
    ASSERT_EQ(t.size(), 2 * n);
    std::vector<std::uint8_t> out{1, 2, 3};  // replaced, not appended to
    ASSERT_FALSE(decode_hex(t, out)) << "CUZK_TEST_SEED=" << seed << " length " << n;
    ASSERT_EQ(out, b) << "CUZK_TEST_SEED=" << seed << " length " << n;
    for (char& c : t) c = char(std::toupper(static_cast<unsigned char>(c)));
    ASSERT_FALSE(decode_hex(t, out)) << "CUZK_TEST_SEED=" << seed << " uppercase, length " << n;
    ASSERT_EQ(out, b) << "CUZK_TEST_SEED=" << seed << " uppercase, length " << n;
    std::vector<std::uint8_t> reversed(b.rbegin(), b.rend());
    ASSERT_EQ(to_hex_reversed(b), to_hex(reversed)) << "CUZK_TEST_SEED=" << seed << " length " << n;
  }
}

TEST(io_hex, refusals_name_the_position_and_reason) {
  struct refused {
    std::string_view text;
    std::size_t position;
    std::string_view reason;
  };
  // clang-format off
  for (const refused& r : {refused{"abc", 3, "odd number of hex digits"},
                           refused{"0", 1, "odd number of hex digits"},
                           refused{"g0", 0, "not hex"},
                           refused{"0g", 1, "not hex"},
                           refused{"00 1", 2, "not hex"},
                           refused{"00 11", 5, "odd number of hex digits"},
                           refused{"0011 2", 4, "not hex"},
                           refused{"00112 ", 5, "not hex"},
                           refused{"0x00", 1, "not hex"},
                           refused{"-1", 0, "not hex"}}) {
    // clang-format on
    const auto e = refusal(r.text);
    ASSERT_TRUE(e) << "\"" << r.text << "\" was accepted";
    EXPECT_EQ(e->position, r.position) << "\"" << r.text << "\"";
    EXPECT_EQ(e->reason, r.reason) << "\"" << r.text << "\"";
  }
  EXPECT_FALSE(refusal(""));
}

}  // namespace
