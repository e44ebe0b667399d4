// SPDX-License-Identifier: Apache-2.0
#pragma once
// The listening sockets of the plaintext gRPC listener, bound by us rather
// than by gRPC so that our accept loop (connection_acceptor.hpp) owns
// accept(): gRPC 1.51 stops polling a listener of its own for good after
// one EMFILE from accept4 (issue 25). Same address semantics as gRPC's:
//  * TCP "host:port" (also "[v6]:port", "ipv4:" / "ipv6:" prefixes): every
//    address the host resolves to (getaddrinfo, AI_PASSIVE), as gRPC binds
//    them; a wildcard host (0.0.0.0, [::]) binds [::] dual-stack, or
//    0.0.0.0 where the machine has no IPv6 (gRPC's rule). Port 0: the first
//    bind picks a free port and the other addresses take the same one.
//    SO_REUSEADDR on (a restart binds while old connections sit in
//    TIME_WAIT), SO_REUSEPORT off (gRPC's default is on): a port another
//    process listens on fails with EADDRINUSE on any of the host's addresses,
//    so start is refused rather than sharing the port (one daemon per
//    address). An address the machine lacks (EADDRNOTAVAIL, e.g. ::1 without
//    IPv6) is skipped when another one bound, as gRPC does.
//  * unix path: bound after unix_socket_claim (listen_address.hpp) made the
//    path free, with the umask narrowed to |unix_socket_mode| around the bind
//    and a chmod to it before listen(), so the socket never accepts with
//    wider permissions; unlinked on close if the file there is still ours
//    (same device and inode), as gRPC did.
//  * abstract: the name after a NUL byte, the address length as gRPC's
//    client computes it (so "unix-abstract:NAME" clients reach it).
// Every socket is non-blocking and close-on-exec, backlog SOMAXCONN (the
// kernel caps it at net.core.somaxconn). Cost: a resolve and a few syscalls.
#include <sys/types.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "listen_address.hpp"
#include "unique_fd.hpp"

namespace cuzk::service {

/// Why a listening socket could not be made; |error| is the errno of the
/// failing call (EADDRINUSE: the address is taken).
class listen_error : public std::runtime_error {
 public:
  listen_error(const std::string& what, int error) : std::runtime_error(what), error(error) {}
  int error;
};

class listen_sockets {
 public:
  /// Binds and listens on |a|; throws listen_error (std::invalid_argument for
  /// a TCP address that is not host:port).
  listen_sockets(const listen_address& a, unsigned unix_socket_mode);
  ~listen_sockets();
  listen_sockets(const listen_sockets&) = delete;
  listen_sockets& operator=(const listen_sockets&) = delete;

  /// The listening descriptors (one per bound address), still ours.
  std::vector<int> fds() const;
  /// The TCP port bound (0 for a unix socket).
  int port() const { return _port; }
  /// True for TCP sockets (TCP_NODELAY is set on their connections).
  bool is_tcp() const { return _tcp; }

 private:
  std::vector<unique_fd> _fds;
  int _port = 0;
  bool _tcp = false;
  std::filesystem::path _unix_path;  // unlinked on close when still ours
  dev_t _dev = 0;
  ino_t _ino = 0;
};

/// "host:port" of a TCP listen address split into its parts (brackets of a
/// v6 literal removed, an "ipv4:" / "ipv6:" prefix dropped); throws
/// std::invalid_argument for an empty host or port.
std::pair<std::string, std::string> split_host_port(const std::string& address);

}  // namespace cuzk::service
