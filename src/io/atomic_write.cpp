// SPDX-License-Identifier: Apache-2.0
// io::detail::write_file_atomically (see atomic_write.hpp).
#include "atomic_write.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
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

std::filesystem::path temporary_path_for(const std::filesystem::path& path) {
  static std::atomic<std::uint64_t> serial{0};
  std::filesystem::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
  return tmp;
}

void commit_temporary(const std::filesystem::path& tmp, const std::filesystem::path& path, const char* kind) {
  const auto fail = [&](const std::string& detail) {
    return format_error(kind, path.string(), "", format_error::no_offset, detail);
  };
  if (const int err = sync_path(tmp, O_RDONLY))
    throw fail("cannot fsync '" + tmp.string() + "': " + std::strerror(err));
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw fail("cannot rename '" + tmp.string() + "' onto it: " + ec.message());
  // The rename is durable once the folder is synced. A folder that cannot
  // be opened for it (some network file systems) keeps the file's own
  // guarantee: complete or absent, never half.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  sync_path(dir, O_RDONLY | O_DIRECTORY);
}

void write_file_atomically(const std::filesystem::path& path, const char* kind,
                           const std::function<void(std::ostream&)>& body) {
  const std::filesystem::path tmp = temporary_path_for(path);
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
    commit_temporary(tmp, path, kind);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
}

std::size_t remove_orphaned_temporaries(const std::filesystem::path& path) noexcept {
  const std::string prefix = path.filename().string() + ".tmp-";
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  std::size_t removed = 0;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    // "<pid>-<n>", digits only
    const std::string_view rest = std::string_view(name).substr(prefix.size());
    const std::size_t dash = rest.find('-');
    const auto digits = [](std::string_view v) {
      return !v.empty() && v.size() <= 18 && v.find_first_not_of("0123456789") == std::string_view::npos;
    };
    if (dash == std::string_view::npos || !digits(rest.substr(0, dash)) || !digits(rest.substr(dash + 1))) continue;
    const long long pid = std::stoll(std::string(rest.substr(0, dash)));
    if (pid <= 0 || pid > 0x7fffffff || pid == ::getpid()) continue;
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code rm;
    if (std::filesystem::remove(it->path(), rm)) ++removed;
  }
  return removed;
}

}  // namespace cuzk::io::detail
