// SPDX-License-Identifier: Apache-2.0
#include <cuzk/io/mapped_file.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <cuzk/io/format_error.hpp>

namespace cuzk::io {

mapped_file::mapped_file(const std::filesystem::path& path, const std::string& kind, bool sequential) {
  const auto fail = [&](const std::string& detail) {
    return format_error(kind, path.string(), "", format_error::no_offset, detail);
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fail(std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw fail(std::string("cannot stat: ") + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw fail("not a regular file");
  }
  const std::uint64_t size = std::uint64_t(st.st_size);
  if (size > 0) {
    // sequential: the reader copies every byte once, so the mapping is
    // filled up front (one call instead of a page fault per 4 KiB: a 49 MB
    // zkey took ~12,000 faults, costly in a VM)
    const int flags = MAP_PRIVATE | (sequential ? MAP_POPULATE : 0);
    void* p = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, flags, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw fail(std::string("cannot map: ") + std::strerror(err));
    }
    if (sequential) ::madvise(p, static_cast<std::size_t>(size), MADV_SEQUENTIAL);
    _data = static_cast<const std::uint8_t*>(p);
    _size = size;
  }
  ::close(fd);
}

mapped_file::mapped_file(mapped_file&& other) noexcept
    : _data(std::exchange(other._data, nullptr)), _size(std::exchange(other._size, 0)) {}

mapped_file& mapped_file::operator=(mapped_file&& other) noexcept {
  if (this != &other) {
    release();
    _data = std::exchange(other._data, nullptr);
    _size = std::exchange(other._size, 0);
  }
  return *this;
}

mapped_file::~mapped_file() { release(); }

void mapped_file::drop_pages(std::uint64_t offset, std::uint64_t len) const noexcept {
  if (!_data || offset >= _size) return;
  len = std::min(len, _size - offset);
  const std::uint64_t page = std::uint64_t(::sysconf(_SC_PAGESIZE));
  const std::uint64_t begin = (offset + page - 1) / page * page, end = (offset + len) / page * page;
  if (end > begin)
    ::madvise(const_cast<std::uint8_t*>(_data) + begin, static_cast<std::size_t>(end - begin), MADV_DONTNEED);
}

void mapped_file::release() noexcept {
  if (_data) ::munmap(const_cast<std::uint8_t*>(_data), static_cast<std::size_t>(_size));
  _data = nullptr;
  _size = 0;
}

}  // namespace cuzk::io
