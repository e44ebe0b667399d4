// SPDX-License-Identifier: Apache-2.0
// io::to_base64 / io::decode_base64: the RFC 4648 §10 test vectors, seeded
// random round trips of every length 0..100, each strict-mode refusal with
// its position and reason, lenient mode reading the URL-safe, unpadded and
// line-wrapped spellings as the strict decode of the standard one (and what
// it still refuses), and the SnapDeals vanilla reader framing a decode error.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cuzk/io/base64.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/snap_vanilla.hpp>

#include "common/test_seed.hpp"

namespace {

using cuzk::io::base64_error;
using cuzk::io::base64_mode;
using cuzk::io::decode_base64;
using cuzk::io::to_base64;

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

/// The decode of |text|; fails the test (naming the error) when refused.
std::vector<std::uint8_t> decoded(std::string_view text, base64_mode mode) {
  std::vector<std::uint8_t> out;
  const auto e = decode_base64(text, mode, out);
  EXPECT_FALSE(e) << "\"" << text << "\": " << (e ? e->message() : "");
  return out;
}

/// The error for |text| (position max and an empty reason when accepted).
base64_error refusal(std::string_view text, base64_mode mode) {
  std::vector<std::uint8_t> out;
  const auto e = decode_base64(text, mode, out);
  return e ? *e : base64_error{std::size_t(-1), ""};
}

/// |b64| in the URL-safe alphabet without padding.
std::string url_safe_unpadded(std::string b64) {
  while (!b64.empty() && b64.back() == '=') b64.pop_back();
  for (char& c : b64) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return b64;
}

// RFC 4648 section 10 ("Test Vectors").
TEST(io_base64, Rfc4648TestVectors) {
  // clang-format off
  const std::pair<const char*, const char*> vectors[] = {
      {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},         {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
  };
  // clang-format on
  for (const auto& [plain, b64] : vectors) {
    EXPECT_EQ(to_base64(bytes_of(plain)), b64) << plain;
    EXPECT_EQ(to_base64(std::string_view(plain)), b64) << plain;
    EXPECT_EQ(decoded(b64, base64_mode::strict), bytes_of(plain)) << b64;
    EXPECT_EQ(decoded(b64, base64_mode::lenient), bytes_of(plain)) << b64;
    EXPECT_EQ(decoded(url_safe_unpadded(b64), base64_mode::lenient), bytes_of(plain)) << b64;
  }
}

// The bytes whose text uses '+' and '/' (62 and 63), so the URL-safe
// spelling differs.
TEST(io_base64, LastTwoAlphabetCharacters) {
  const std::vector<std::uint8_t> b{0xfb, 0xff, 0xbf};  // 111110 111111 111110 111111
  EXPECT_EQ(to_base64(b), "+/+/");
  EXPECT_EQ(decoded("+/+/", base64_mode::strict), b);
  EXPECT_EQ(decoded("-_-_", base64_mode::lenient), b);
  EXPECT_EQ(decoded("-/+_", base64_mode::lenient), b);  // the two alphabets mixed
}

TEST(io_base64, RandomRoundTripsOfEveryLength) {
  const std::uint64_t seed = cuzk::test::test_seed("io_base64 round trips");
  std::mt19937_64 rng(seed);
  for (std::size_t n = 0; n <= 100; ++n) {
    std::vector<std::uint8_t> b(n);
    for (auto& x : b) x = std::uint8_t(rng());
    const std::string t = to_base64(b);
    ASSERT_EQ(t.size(), (n + 2) / 3 * 4) << "CUZK_TEST_SEED=" << seed << " length " << n;
    ASSERT_EQ(decoded(t, base64_mode::strict), b) << "CUZK_TEST_SEED=" << seed << " length " << n;
    ASSERT_EQ(decoded(t, base64_mode::lenient), b) << "CUZK_TEST_SEED=" << seed << " length " << n;
    // Lenient: URL-safe, unpadded, and wrapped at a random width with
    // "\r\n" or "\n", read as the standard text.
    std::string wrapped;
    const std::string u = url_safe_unpadded(t);
    const std::size_t width = 1 + rng() % 80;
    const char* eol = rng() % 2 ? "\r\n" : "\n";
    for (std::size_t i = 0; i < u.size(); ++i) {
      wrapped += u[i];
      if ((i + 1) % width == 0) wrapped += eol;
    }
    ASSERT_EQ(decoded(u, base64_mode::lenient), b) << "CUZK_TEST_SEED=" << seed << " length " << n;
    ASSERT_EQ(decoded(wrapped, base64_mode::lenient), b) << "CUZK_TEST_SEED=" << seed << " text " << wrapped;
    // The string overload decodes the same bytes.
    std::string s;
    ASSERT_FALSE(decode_base64(t, base64_mode::strict, s)) << "CUZK_TEST_SEED=" << seed;
    ASSERT_EQ(std::vector<std::uint8_t>(s.begin(), s.end()), b) << "CUZK_TEST_SEED=" << seed << " length " << n;
  }
}

TEST(io_base64, DecodeReplacesTheOutput) {
  std::vector<std::uint8_t> out{1, 2, 3, 4, 5, 6, 7};
  ASSERT_FALSE(decode_base64("Zm8=", base64_mode::strict, out));
  EXPECT_EQ(out, bytes_of("fo"));
  std::string s = "old contents";
  ASSERT_FALSE(decode_base64("", base64_mode::lenient, s));
  EXPECT_EQ(s, "");
}

struct bad_case {
  const char* text;
  std::size_t position;
  const char* reason;
};

void expect_refusals(const std::vector<bad_case>& cases, base64_mode mode) {
  for (const bad_case& c : cases) {
    const base64_error e = refusal(c.text, mode);
    EXPECT_EQ(e.position, c.position) << "\"" << c.text << "\": " << e.reason;
    EXPECT_EQ(e.reason, c.reason) << "\"" << c.text << "\"";
  }
}

TEST(io_base64, StrictRefusals) {
  expect_refusals(
      {
          // a character outside the standard alphabet (printable ones as they
          // are, others as \xNN)
          {"Zm9*", 3, "character \"*\" is not in the alphabet"},
          {"Zm-v", 2, "character \"-\" is not in the alphabet"},
          {"Zm9_", 3, "character \"_\" is not in the alphabet"},
          {"Zm v", 2, "character \" \" is not in the alphabet"},
          {"Zm9\n", 3, "character \"\\x0a\" is not in the alphabet"},
          {"Zm\"v", 2, "character \"\\x22\" is not in the alphabet"},
          {"Zm9vZ\xffv=", 5, "character \"\\xff\" is not in the alphabet"},
          // the length, checked first (also when a character is bad)
          {"Zm9", 3, "length 3 is not a multiple of 4"},
          {"Zm9vYg", 6, "length 6 is not a multiple of 4"},
          {"Zm8", 3, "length 3 is not a multiple of 4"},
          {"Z*", 2, "length 2 is not a multiple of 4"},
          // '=' anywhere but the last one or two characters
          {"Zg=v", 2, "misplaced '='"},
          {"Zg==Zg==", 2, "misplaced '='"},
          {"Zm9=Zm9v", 3, "misplaced '='"},
          {"=m9v", 0, "misplaced '='"},
          // too much padding
          {"Z===", 1, "misplaced '='"},
          {"====", 0, "misplaced '='"},
          {"Zm9vZ===", 5, "misplaced '='"},
          // unused bits of the last group not zero (named at the group)
          {"Zh==", 0, "non-zero bits after the last byte"},
          {"Zm9=", 0, "non-zero bits after the last byte"},
          {"Zm9vYmF=", 4, "non-zero bits after the last byte"},
          {"Zm9vYj==", 4, "non-zero bits after the last byte"},
      },
      base64_mode::strict);
  EXPECT_EQ(refusal("Zm9vYg=", base64_mode::strict).message(),
            "invalid base64 at character 7: length 7 is not a multiple of 4");
}

TEST(io_base64, LenientAcceptsWhatStrictRefusesOnlyForSpelling) {
  // Every text here is refused by strict mode; lenient reads it as "foob".
  for (const char* t : {"Zm9vYg", "Zm9vYg=", "Zm9vYg===", "Zm9v\nYg==", "Zm9v\r\nYg\r\n", "\nZm9vYg==\n"}) {
    EXPECT_TRUE(refusal(t, base64_mode::strict).position != std::size_t(-1)) << t;
    EXPECT_EQ(decoded(t, base64_mode::lenient), bytes_of("foob")) << t;
  }
  // Unused bits are ignored: "Zh" and "Zm9" read as "f" and "fo".
  EXPECT_EQ(decoded("Zh==", base64_mode::lenient), bytes_of("f"));
  EXPECT_EQ(decoded("Zm9", base64_mode::lenient), bytes_of("fo"));
  EXPECT_EQ(decoded("==", base64_mode::lenient), bytes_of(""));
}

TEST(io_base64, LenientRefusals) {
  expect_refusals(
      {
          {"Zm9*", 3, "character \"*\" is not in the alphabet"},
          {"Zm v", 2, "character \" \" is not in the alphabet"},
          {"Zm9v\t", 4, "character \"\\x09\" is not in the alphabet"},
          {"Zg==\n*", 5, "character \"*\" is not in the alphabet"},
          // data after padding would be read at the wrong bit offset
          {"Zg==Zg==", 2, "misplaced '='"},
          {"Zm9=\nv", 3, "misplaced '='"},
          // one character cannot hold a byte: the text was cut
          {"Zm9vZ", 4, "the last group has one character, too few for a byte (cut short?)"},
          {"Zm9v\nZ==", 5, "the last group has one character, too few for a byte (cut short?)"},
          {"Z", 0, "the last group has one character, too few for a byte (cut short?)"},
      },
      base64_mode::lenient);
}

// The SnapDeals vanilla file's reader keeps the decode's position and reason
// and adds the element; its writer is the codec's encoder.
TEST(io_base64, SnapVanillaJsonFramesTheDecodeError) {
  const std::vector<std::vector<std::uint8_t>> parts{bytes_of("foobar"), bytes_of("f"), {}};
  const std::string text = cuzk::io::write_snap_vanilla_json(parts);
  EXPECT_EQ(text, "[\"Zm9vYmFy\",\"Zg==\",\"\"]");
  EXPECT_EQ(cuzk::io::parse_snap_vanilla_json(text, "v.json"), parts);
  try {
    (void)cuzk::io::parse_snap_vanilla_json("[\"Zm9v\",\"Zm9*\"]", "v.json");
    FAIL() << "accepted a bad base64 element";
  } catch (const cuzk::io::format_error& e) {
    EXPECT_EQ(e.section(), "[1]");
    EXPECT_NE(std::string(e.what()).find("invalid base64 at character 3: character \"*\" is not in the alphabet"),
              std::string::npos)
        << e.what();
  }
  // URL-safe text is refused here: the file is Go's json.Marshal output.
  EXPECT_THROW((void)cuzk::io::parse_snap_vanilla_json("[\"-_-_\"]", "v.json"), cuzk::io::format_error);
}

}  // namespace
