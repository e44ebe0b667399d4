// SPDX-License-Identifier: Apache-2.0
#pragma once
// io::format_error: the one exception type of every cuzk file reader (circom,
// snarkjs, Filecoin parameter and proof files). Its message always names the
// file kind, the path, the section (or JSON path) and, for binary files, the
// byte offset where decoding stopped, so a user can find the bad bytes with a
// hex dump. It derives from std::runtime_error; boundaries (CLI, C API, gRPC)
// turn it into their own status.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cuzk::io {

/// A malformed or inconsistent input file. what() reads
/// "<kind> file '<path>': <where> at byte offset <offset>: <detail>".
class format_error : public std::runtime_error {
 public:
  static constexpr std::uint64_t no_offset = ~std::uint64_t(0);

  format_error(std::string kind, std::string path, std::string section, std::uint64_t offset,
               const std::string& detail);

  /// "r1cs", "wtns", "zkey", "proof.json", ...
  const std::string& kind() const { return _kind; }
  const std::string& path() const { return _path; }
  /// e.g. "section 2 (constraints)" or "container header".
  const std::string& section() const { return _section; }
  /// Byte offset in the file, or no_offset when it does not apply (JSON).
  std::uint64_t offset() const { return _offset; }

 private:
  std::string _kind, _path, _section;
  std::uint64_t _offset;
};

}  // namespace cuzk::io
