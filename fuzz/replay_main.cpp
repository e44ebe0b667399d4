// SPDX-License-Identifier: Apache-2.0
// Replay driver of the fuzz targets when they are not built with
// -fsanitize=fuzzer (GCC, or clang without CUZK_BUILD_FUZZ): every argument
// is a file or a folder of files (read in name order), and each file is fed
// once to LLVMFuzzerTestOneInput. This is the CI-sized fuzz run: the
// committed seed corpus plus the regression inputs of past findings, a few
// milliseconds each. Exit 0 when every input returned; a crash or an escaping
// exception ends the process non-zero, naming the input on stderr first.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path p = argv[i];
    if (fs::is_directory(p)) {
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "replay: %s is neither a file nor a folder\n", p.c_str());
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "replay: no inputs given\n");
    return 2;
  }
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<char> buf{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.c_str(), buf.size());
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(buf.data()), buf.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "replay: %s: uncaught exception: %s\n", f.c_str(), e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "replay: %zu input(s) ok\n", files.size());
  return 0;
}
