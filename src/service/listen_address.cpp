// SPDX-License-Identifier: Apache-2.0
// Listen address forms and the one-daemon-per-address claim (see
// listen_address.hpp).
#include "listen_address.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace cuzk::service {
namespace {

constexpr std::size_t max_sun_path = sizeof(sockaddr_un{}.sun_path) - 1;

struct fd_guard {
  int fd = -1;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

std::string errno_text(int e) { return std::strerror(e); }

// 0: a live listener accepted; ECONNREFUSED: nobody listens (stale); other
// errno: could not tell.
int connect_unix(const std::filesystem::path& path) {
  fd_guard s{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  if (s.fd < 0) return errno;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, path.c_str(), path.native().size());
  if (::connect(s.fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) return 0;
  return errno;
}

}  // namespace

listen_address parse_listen_address(const std::string& address) {
  listen_address a;
  a.grpc_uri = address;
  if (address.rfind("unix-abstract:", 0) == 0) {
    a.k = listen_address::kind::unix_abstract;
    a.abstract_name = address.substr(14);
    if (a.abstract_name.empty()) throw std::invalid_argument("listen address '" + address + "' has an empty name");
    if (a.abstract_name.size() > max_sun_path - 1)
      throw std::invalid_argument("listen address '" + address + "': the abstract name is longer than " +
                                  std::to_string(max_sun_path - 1) + " bytes");
    return a;
  }
  if (address.rfind("unix:", 0) != 0) return a;  // TCP: host:port, checked by gRPC's bind
  a.k = listen_address::kind::unix_path;
  std::string p = address.substr(5);
  if (p.rfind("//", 0) == 0) {
    p = p.substr(2);
    if (p.empty() || p.front() != '/')
      throw std::invalid_argument("listen address '" + address +
                                  "': after unix:// the path must be absolute (unix:///run/cuzk.sock), or use "
                                  "unix:relative/path");
  }
  if (p.empty()) throw std::invalid_argument("listen address '" + address + "' has an empty socket path");
  if (p.size() > max_sun_path)
    throw std::invalid_argument("listen address '" + address + "': the socket path is longer than the " +
                                std::to_string(max_sun_path) + " bytes a unix socket address holds");
  a.path = p;
  a.grpc_uri = "unix:" + p;
  return a;
}

unix_socket_claim::unix_socket_claim(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  const std::string lock = path.string() + ".lock";
  _lock_fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (_lock_fd < 0)
    throw std::runtime_error("cannot open the lock file " + lock + " of unix socket " + path.string() + ": " +
                             errno_text(errno));
  if (::flock(_lock_fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(_lock_fd);
    _lock_fd = -1;
    if (e == EWOULDBLOCK)
      throw std::runtime_error("another cuzk daemon is running on unix socket " + path.string() + " (it holds " + lock +
                               "); refusing to start a second one on the same address");
    throw std::runtime_error("cannot lock " + lock + ": " + errno_text(e));
  }
  // a constructor that throws runs no destructor: close the lock here
  const auto refuse = [&](const std::string& why) {
    ::close(_lock_fd);
    _lock_fd = -1;
    throw std::runtime_error(why);
  };
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;  // free
    refuse("cannot inspect unix socket path " + path.string() + ": " + errno_text(errno));
  }
  if (!S_ISSOCK(st.st_mode))
    refuse("unix socket path " + path.string() + " exists and is not a socket (" +
           (S_ISREG(st.st_mode)   ? std::string("a regular file")
            : S_ISDIR(st.st_mode) ? std::string("a directory")
            : S_ISLNK(st.st_mode) ? std::string("a symbolic link")
                                  : std::string("not a socket")) +
           "); it is left untouched: remove it or choose another daemon.listen");
  const int e = connect_unix(path);
  if (e == 0)
    refuse("another process is listening on unix socket " + path.string() +
           "; refusing to take over its address (stop it first or choose another daemon.listen)");
  if (e != ECONNREFUSED)
    refuse("cannot tell whether unix socket " + path.string() + " is in use (connect: " + errno_text(e) +
           "); it is left untouched");
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)  // stale: its listener is gone
    refuse("cannot remove the stale unix socket " + path.string() + ": " + errno_text(errno));
}

unix_socket_claim::~unix_socket_claim() {
  if (_lock_fd >= 0) ::close(_lock_fd);  // releases the flock
  _lock_fd = -1;
}

bool tcp_address_answers(const std::string& host_port, int timeout_ms) {
  const auto colon = host_port.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = host_port.substr(0, colon);
  const std::string port = host_port.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) return false;
  bool answered = false;
  for (addrinfo* ai = res; ai && !answered; ai = ai->ai_next) {
    fd_guard s{::socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
    if (s.fd < 0) continue;
    if (::connect(s.fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      answered = true;
      break;
    }
    if (errno != EINPROGRESS) continue;
    pollfd p{s.fd, POLLOUT, 0};
    if (::poll(&p, 1, timeout_ms) == 1) {
      int err = 0;
      socklen_t len = sizeof err;
      answered = ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
    }
  }
  ::freeaddrinfo(res);
  return answered;
}

}  // namespace cuzk::service
