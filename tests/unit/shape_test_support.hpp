// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers of the .shape file and shape cache tests: a temporary folder
// removed at the end of the test, whole-file reads and writes, and the
// 2 KiB WinningPoSt shape (a real circuit of ~91k constraints, built once
// per test binary: ~0.3 s on the 2-core dev VM).
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/r1cs/synthesize.hpp>

namespace cuzk::test {

struct shape_dir {
  std::filesystem::path path;
  explicit shape_dir(const std::string& what) {
    static std::mt19937_64 rng(std::random_device{}());
    path = std::filesystem::temp_directory_path() /
           ("cuzk-shape-" + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(rng()));
    std::filesystem::create_directories(path);
  }
  ~shape_dir() {
    std::error_code ec;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path, ec);
  }
  shape_dir(const shape_dir&) = delete;
  shape_dir& operator=(const shape_dir&) = delete;
};

inline std::vector<char> read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_all(const std::filesystem::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

inline const r1cs::r1cs_shape& winning_2k_shape() {
  static const r1cs::r1cs_shape s =
      r1cs::make_shape(circuits::blank_fallback_post_circuit(circuits::winning_post_params(2048)));
  return s;
}

}  // namespace cuzk::test
