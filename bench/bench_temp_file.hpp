// SPDX-License-Identifier: Apache-2.0
#pragma once
// A file path under the system temp folder, unique to the process and the
// instance ("<tag>-<pid>-<random><ext>"), whose file is removed on
// destruction: the inputs the file-format benchmarks generate once.
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace cuzk::bench {

struct temp_file {
  std::filesystem::path path;

  temp_file(const std::string& tag, const std::string& ext) {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() /
           (tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(rd()) + ext);
  }
  ~temp_file() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
};

}  // namespace cuzk::bench
