// SPDX-License-Identifier: Apache-2.0
// Listening sockets of the plaintext gRPC listener (see listen_socket.hpp).
#include "listen_socket.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <optional>

namespace cuzk::service {
namespace {

/// The umask is per process: every socket bind that narrows it holds this.
std::mutex& umask_mutex() {
  static std::mutex m;
  return m;
}

std::string errno_text(int e) { return std::strerror(e); }

[[noreturn]] void fail(const std::string& what, int e) { throw listen_error(what + ": " + errno_text(e), e); }

unique_fd new_socket(int family) {
  unique_fd s(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!s) fail("socket", errno);
  return s;
}

void set_int_option(int fd, int level, int name, int value, const char* label) {
  if (::setsockopt(fd, level, name, &value, sizeof value) != 0) fail(std::string("setsockopt ") + label, errno);
}

void start_listening(int fd, const std::string& label) {
  if (::listen(fd, SOMAXCONN) != 0) fail("listen on " + label, errno);
}

std::string numeric_name(const sockaddr* a, socklen_t len) {
  char host[NI_MAXHOST] = {}, serv[NI_MAXSERV] = {};
  if (::getnameinfo(a, len, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV) != 0) return "?";
  return a->sa_family == AF_INET6 ? "[" + std::string(host) + "]:" + serv : std::string(host) + ":" + serv;
}

void set_port(sockaddr* a, int port) {
  if (a->sa_family == AF_INET) reinterpret_cast<sockaddr_in*>(a)->sin_port = htons(std::uint16_t(port));
  if (a->sa_family == AF_INET6) reinterpret_cast<sockaddr_in6*>(a)->sin6_port = htons(std::uint16_t(port));
}

int port_of(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) fail("getsockname", errno);
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&a)->sin_port);
  return ntohs(reinterpret_cast<const sockaddr_in6*>(&a)->sin6_port);
}

// One TCP listener on |a| (its port already final unless 0); the bind's
// errno is thrown as listen_error.
unique_fd tcp_listener(sockaddr* a, socklen_t len, bool dual_stack) {
  unique_fd s = new_socket(a->sa_family);
  set_int_option(s.get(), SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
  if (a->sa_family == AF_INET6) set_int_option(s.get(), IPPROTO_IPV6, IPV6_V6ONLY, dual_stack ? 0 : 1, "IPV6_V6ONLY");
  const std::string label = numeric_name(a, len);
  if (::bind(s.get(), a, len) != 0) fail("bind " + label, errno);
  start_listening(s.get(), label);
  return s;
}

}  // namespace

std::pair<std::string, std::string> split_host_port(const std::string& address) {
  std::string a = address;
  for (const char* prefix : {"ipv4:", "ipv6:"})
    if (a.rfind(prefix, 0) == 0) a = a.substr(5);
  std::string host, port;
  if (!a.empty() && a.front() == '[') {
    const auto close = a.find(']');
    if (close == std::string::npos || close + 1 >= a.size() || a[close + 1] != ':')
      throw std::invalid_argument("listen address '" + address + "' is not [v6-address]:port");
    host = a.substr(1, close - 1);
    port = a.substr(close + 2);
  } else {
    const auto colon = a.rfind(':');
    if (colon == std::string::npos || a.find(':') != colon)
      throw std::invalid_argument("listen address '" + address +
                                  "' is not host:port (an IPv6 address goes in brackets: [::1]:9820)");
    host = a.substr(0, colon);
    port = a.substr(colon + 1);
  }
  if (host.empty() || port.empty())
    throw std::invalid_argument("listen address '" + address +
                                "' needs a host and a port (0.0.0.0:9820 for every "
                                "interface)");
  return {host, port};
}

listen_sockets::listen_sockets(const listen_address& a, unsigned unix_socket_mode) {
  if (a.k == listen_address::kind::unix_abstract) {
    unique_fd s = new_socket(AF_UNIX);
    sockaddr_un u{};
    u.sun_family = AF_UNIX;
    std::memcpy(u.sun_path + 1, a.abstract_name.data(), a.abstract_name.size());  // sun_path[0] = NUL
    const auto len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + a.abstract_name.size());
    if (::bind(s.get(), reinterpret_cast<const sockaddr*>(&u), len) != 0)
      fail("bind abstract unix socket '" + a.abstract_name + "'", errno);
    start_listening(s.get(), a.grpc_uri);
    _fds.push_back(std::move(s));
    return;
  }
  if (a.k == listen_address::kind::unix_path) {
    unique_fd s = new_socket(AF_UNIX);
    sockaddr_un u{};
    u.sun_family = AF_UNIX;
    std::memcpy(u.sun_path, a.path.c_str(), a.path.native().size());
    {
      // the socket file is born 0777 & ~umask: narrow the umask around the
      // bind so it never exists wider than |unix_socket_mode|
      std::lock_guard lk(umask_mutex());
      const mode_t old = ::umask(0777 & ~mode_t(unix_socket_mode));
      const int rc = ::bind(s.get(), reinterpret_cast<const sockaddr*>(&u), sizeof u);
      const int e = errno;
      ::umask(old);
      if (rc != 0) fail("bind unix socket " + a.path.string(), e);
    }
    _unix_path = a.path;
    struct stat st {};
    if (::stat(a.path.c_str(), &st) != 0) fail("stat " + a.path.string(), errno);
    _dev = st.st_dev;
    _ino = st.st_ino;
    if (::chmod(a.path.c_str(), mode_t(unix_socket_mode)) != 0)
      fail("cannot set the permissions of unix socket " + a.path.string(), errno);
    start_listening(s.get(), a.path.string());
    _fds.push_back(std::move(s));
    return;
  }

  _tcp = true;
  const auto [host, port] = split_host_port(a.grpc_uri);
  if (host == "0.0.0.0" || host == "::") {
    // gRPC's wildcard rule: [::] dual-stack first, 0.0.0.0 without IPv6
    sockaddr_in6 v6{};
    v6.sin6_family = AF_INET6;
    v6.sin6_addr = in6addr_any;
    sockaddr_in v4{};
    v4.sin_family = AF_INET;
    v4.sin_addr.s_addr = htonl(INADDR_ANY);
    int p = 0;
    try {
      p = std::stoi(port);
    } catch (const std::exception&) {
      throw std::invalid_argument("listen address '" + a.grpc_uri + "': port '" + port + "' is not a number");
    }
    if (p < 0 || p > 65535) throw std::invalid_argument("listen address '" + a.grpc_uri + "': port out of range");
    set_port(reinterpret_cast<sockaddr*>(&v6), p);
    set_port(reinterpret_cast<sockaddr*>(&v4), p);
    try {
      _fds.push_back(tcp_listener(reinterpret_cast<sockaddr*>(&v6), sizeof v6, true));
    } catch (const listen_error& e) {
      if (e.error != EAFNOSUPPORT && e.error != EADDRNOTAVAIL) throw;
      _fds.push_back(tcp_listener(reinterpret_cast<sockaddr*>(&v4), sizeof v4, false));
    }
    _port = port_of(_fds.front().get());
    return;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0)
    throw listen_error("cannot resolve '" + a.grpc_uri + "': " + ::gai_strerror(rc), EADDRNOTAVAIL);
  struct freer {
    addrinfo* r;
    ~freer() { ::freeaddrinfo(r); }
  } free_res{res};
  std::optional<listen_error> skipped;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
    sockaddr_storage addr{};
    std::memcpy(&addr, ai->ai_addr, ai->ai_addrlen);
    if (_port != 0) set_port(reinterpret_cast<sockaddr*>(&addr), _port);  // port 0: every address on the first's
    try {
      _fds.push_back(tcp_listener(reinterpret_cast<sockaddr*>(&addr), ai->ai_addrlen, false));
    } catch (const listen_error& e) {
      // a taken address refuses the start even if another one bound
      if (e.error != EADDRNOTAVAIL && e.error != EAFNOSUPPORT) throw;
      if (!skipped) skipped = e;
      continue;
    }
    if (_port == 0) _port = port_of(_fds.back().get());
  }
  if (_fds.empty()) {
    if (skipped) throw *skipped;
    throw listen_error("'" + a.grpc_uri + "' resolves to no IPv4 or IPv6 address", EADDRNOTAVAIL);
  }
}

listen_sockets::~listen_sockets() {
  _fds.clear();
  if (_unix_path.empty()) return;
  // gone, or replaced by someone else's file: leave it
  struct stat st {};
  if (::lstat(_unix_path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == _dev && st.st_ino == _ino)
    ::unlink(_unix_path.c_str());
}

std::vector<int> listen_sockets::fds() const {
  std::vector<int> v;
  for (const auto& f : _fds) v.push_back(f.get());
  return v;
}

}  // namespace cuzk::service
