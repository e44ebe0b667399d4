// SPDX-License-Identifier: Apache-2.0
// io::mapped_file: the bytes of a file, the empty file, and the errors
// (missing path, a directory) naming the kind and the path.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <cuzk/io/format_error.hpp>
#include <cuzk/io/mapped_file.hpp>

#include "common/test_seed.hpp"

namespace {

namespace fs = std::filesystem;
using cuzk::io::format_error;
using cuzk::io::mapped_file;

struct temp_dir {
  fs::path path = fs::temp_directory_path() / ("cuzk-mapped-" + std::to_string(::getpid()));
  temp_dir() { fs::create_directories(path); }
  ~temp_dir() { fs::remove_all(path); }
};

std::string error_of(const fs::path& p) {
  try {
    mapped_file f(p, "zkey");
  } catch (const format_error& e) {
    EXPECT_EQ(e.kind(), "zkey");
    return e.what();
  }
  ADD_FAILURE() << "mapped " << p;
  return {};
}

TEST(io_mapped_file, bytes_equal_the_file_and_move_leaves_the_source_empty) {
  temp_dir d;
  std::mt19937_64 rng(cuzk::test::test_seed("io_mapped_file"));
  std::vector<std::uint8_t> data(70001);
  for (auto& b : data) b = std::uint8_t(rng());
  const fs::path p = d.path / "f.bin";
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  for (bool sequential : {false, true}) {
    mapped_file f(p, "params", sequential);
    ASSERT_EQ(f.size(), data.size());
    EXPECT_TRUE(std::equal(data.begin(), data.end(), f.bytes().begin()));
    mapped_file g = std::move(f);
    EXPECT_TRUE(f.bytes().empty());
    EXPECT_EQ(g.bytes().size(), data.size());
    g.release();
    EXPECT_TRUE(g.bytes().empty());
  }
}

TEST(io_mapped_file, empty_file_maps_to_no_bytes) {
  temp_dir d;
  const fs::path p = d.path / "empty";
  std::ofstream(p).close();
  mapped_file f(p, "r1cs");
  EXPECT_EQ(f.size(), 0u);
  EXPECT_TRUE(f.bytes().empty());
}

TEST(io_mapped_file, missing_file_and_directory_are_refused_naming_them) {
  temp_dir d;
  const std::string missing = error_of(d.path / "absent.zkey");
  EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
  EXPECT_NE(missing.find("absent.zkey"), std::string::npos) << missing;
  const std::string dir = error_of(d.path);
  EXPECT_NE(dir.find("not a regular file"), std::string::npos) << dir;
}

}  // namespace
