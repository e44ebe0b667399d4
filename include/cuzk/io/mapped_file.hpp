// SPDX-License-Identifier: Apache-2.0
#pragma once
// A whole file mapped read-only (MAP_PRIVATE), unmapped on destruction. The
// one mapping of parameter and circom files: errors are format_errors naming
// the file kind and path ("cannot open", "cannot stat", "not a regular file",
// "cannot map" with the system's reason). An empty file maps to no bytes.
// A mapped file that shrinks under the reader raises SIGBUS on access past
// the new end; callers that must survive that guard their reads
// (engine/mapping_guard.hpp).

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace cuzk::io {

class mapped_file {
 public:
  /// |sequential|: the reader walks the whole file once from the start
  /// (the kernel reads ahead further, and the mapping is populated at
  /// once: the whole file is resident while mapped, as it would be after
  /// the walk anyway).
  mapped_file(const std::filesystem::path& path, const std::string& kind, bool sequential = false);
  mapped_file(mapped_file&& other) noexcept;
  mapped_file& operator=(mapped_file&& other) noexcept;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();

  std::uint64_t size() const { return _size; }
  std::span<const std::uint8_t> bytes() const { return {_data, std::size_t(_size)}; }
  /// Drops the process's pages of bytes [offset, offset + len) (the whole
  /// pages inside it; MADV_DONTNEED): a loader that streams a multi-GB file
  /// through once keeps its resident set at a chunk instead of the file. The
  /// bytes stay readable (faulted in again from the page cache or the file).
  void drop_pages(std::uint64_t offset, std::uint64_t len) const noexcept;
  /// Unmaps now (bytes() is empty afterwards).
  void release() noexcept;

 private:
  const std::uint8_t* _data = nullptr;
  std::uint64_t _size = 0;
};

}  // namespace cuzk::io
