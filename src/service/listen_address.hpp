// SPDX-License-Identifier: Apache-2.0
#pragma once
// The gRPC listen address (daemon.listen) and the rule "one daemon per
// address".
//
// Forms: "host:port" (TCP), "unix:///abs/path" and "unix:path" (a unix
// socket file; "unix:/abs/path" is the one-slash spelling of the same), and
// "unix-abstract:name" (a Linux abstract socket: it has no file, so no file
// permissions, and any process in the network namespace can connect; refused
// unless daemon.allow_abstract_socket = true). "unix://relative" is refused
// (gRPC would read "relative" as a URI authority).
//
// A unix socket path is claimed before the bind (unix_socket_claim): an
// exclusive flock on "<path>.lock" held for the daemon's life (so two
// daemons starting at once cannot both pass the checks; gRPC itself unlinks
// any socket at the path before binding), then the path itself: nothing
// there is fine; a socket that accepts a connection belongs to a live
// process and start is refused; a socket that refuses (ECONNREFUSED) is
// stale and is removed; anything else (regular file, directory, symlink,
// fifo) is left untouched and start is refused. The lock file stays (removing
// a lock file races with the next daemon taking it); it is empty.
// TCP: gRPC sets SO_REUSEPORT by default, which lets a second daemon bind
// the same port and split the connections; grpc_server turns it off, so a
// taken port fails the bind (tcp_address_answers helps name the cause).
// Cost: a stat, a connect and a flock at start.
#include <filesystem>
#include <string>

namespace cuzk::service {

struct listen_address {
  enum class kind { tcp, unix_path, unix_abstract };
  kind k = kind::tcp;
  std::string grpc_uri;        ///< what gRPC is given
  std::filesystem::path path;  ///< kind::unix_path: the socket file
  std::string abstract_name;   ///< kind::unix_abstract
  bool is_unix() const { return k != kind::tcp; }
};

/// Classifies |address|; throws std::invalid_argument for a malformed unix
/// form (empty path, "unix://relative", a path longer than sun_path allows).
listen_address parse_listen_address(const std::string& address);

/// Holds "<path>.lock" and makes |path| free for a new listening socket, or
/// throws std::runtime_error saying why not (see above). Release: destroy.
class unix_socket_claim {
 public:
  explicit unix_socket_claim(const std::filesystem::path& path);
  ~unix_socket_claim();
  unix_socket_claim(const unix_socket_claim&) = delete;
  unix_socket_claim& operator=(const unix_socket_claim&) = delete;

 private:
  int _lock_fd = -1;
};

/// True when something accepts a TCP connection at "host:port" within
/// |timeout_ms| (used to explain a failed bind).
bool tcp_address_answers(const std::string& host_port, int timeout_ms = 500);

}  // namespace cuzk::service
