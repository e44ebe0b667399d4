// SPDX-License-Identifier: Apache-2.0
// io::detail::write_file_atomically (see atomic_write.hpp).
#include "atomic_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

#include <cuzk/io/format_error.hpp>

namespace cuzk::io::detail {

namespace {

/// fsync of the file or folder at |p|; returns errno, 0 on success.
int sync_path(const std::filesystem::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return errno;
  const int rc = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return rc;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const char* kind,
                           const std::function<void(std::ostream&)>& body) {
  static std::atomic<std::uint64_t> serial{0};
  std::filesystem::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
  const auto fail = [&](const std::string& detail) {
    return format_error(kind, path.string(), "", format_error::no_offset, detail);
  };
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw fail("cannot create '" + tmp.string() + "': " + std::strerror(errno));
      body(out);
      out.flush();
      if (!out) throw fail("write failed (disk full?)");
    }
    if (const int err = sync_path(tmp, O_RDONLY))
      throw fail("cannot fsync '" + tmp.string() + "': " + std::strerror(err));
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw fail("cannot rename '" + tmp.string() + "' onto it: " + ec.message());
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
  // The rename is durable once the folder is synced. A folder that cannot
  // be opened for it (some network file systems) keeps the file's own
  // guarantee: complete or absent, never half.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  sync_path(dir, O_RDONLY | O_DIRECTORY);
}

}  // namespace cuzk::io::detail
