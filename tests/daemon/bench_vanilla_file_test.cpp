// SPDX-License-Identifier: Apache-2.0
// cuzk-bench's --vanilla reader (read_vanilla_file in client_util.hpp): a
// JSON array of base64 strings read leniently (standard, URL-safe, unpadded
// and line-wrapped spellings give the same bytes), a bad element named by
// path, index, character position and reason, and anything that is not a
// JSON array taken as one raw proof.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "client_util.hpp"

namespace {

namespace fs = std::filesystem;
using cuzk::bench_app::read_vanilla_file;

struct temp_file {
  static inline int made = 0;
  fs::path path = fs::temp_directory_path() /
                  ("cuzk-vanilla-" + std::to_string(::getpid()) + "-" + std::to_string(made++) + ".json");
  explicit temp_file(const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
  ~temp_file() { fs::remove(path); }
};

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

TEST(bench_vanilla_file, ReadsEverySpellingOfBase64) {
  // 0xfb 0xff 0xbf is "+/+/" in the standard alphabet.
  const temp_file f(R"(["Zm9vYg==", "Zm9vYg", "-_-_", "+/+/", "Zm9v\nYmFy", ""])");
  const auto v = read_vanilla_file(f.path.string());
  const std::vector<std::vector<std::uint8_t>> want{bytes_of("foob"),   bytes_of("foob"),   {0xfb, 0xff, 0xbf},
                                                    {0xfb, 0xff, 0xbf}, bytes_of("foobar"), {}};
  EXPECT_EQ(v, want);
}

TEST(bench_vanilla_file, NamesTheBadElement) {
  const temp_file f(R"(["Zm9v", "Zm9v*A=="])");
  try {
    (void)read_vanilla_file(f.path.string());
    FAIL() << "accepted a bad base64 element";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), f.path.string() +
                                         ": element 1: invalid base64 at character 4: character \"*\" is not in "
                                         "the alphabet");
  }
  const temp_file g(R"(["Zm9v", 7])");
  EXPECT_THROW((void)read_vanilla_file(g.path.string()), std::runtime_error);
}

TEST(bench_vanilla_file, AnythingElseIsOneRawProof) {
  const std::string raw = "\x01\x02not json\xff";
  const temp_file f(raw);
  const auto v = read_vanilla_file(f.path.string());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], bytes_of(raw));
}

}  // namespace
