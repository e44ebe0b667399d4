// SPDX-License-Identifier: Apache-2.0
#pragma once
// A descriptor with one owner: closed by the destructor unless release()d
// (then the new owner closes it, e.g. gRPC after AddInsecureChannelFromFd).
// Movable, not copyable, so a number is never closed twice.
#include <unistd.h>

#include <utility>

namespace cuzk::service {

class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) : _fd(fd) {}
  unique_fd(unique_fd&& o) noexcept : _fd(std::exchange(o._fd, -1)) {}
  unique_fd& operator=(unique_fd&& o) noexcept {
    if (this != &o) reset(std::exchange(o._fd, -1));
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }

  int get() const { return _fd; }
  explicit operator bool() const { return _fd >= 0; }
  /// The descriptor, no longer ours.
  int release() { return std::exchange(_fd, -1); }
  void reset(int fd = -1) {
    // close() is not retried on EINTR: on Linux the number is freed either way
    if (_fd >= 0) ::close(_fd);
    _fd = fd;
  }

 private:
  int _fd = -1;
};

}  // namespace cuzk::service
