// SPDX-License-Identifier: Apache-2.0
#pragma once
// The gRPC front of the engine: cuzk.v1.ProvingEngine. The short calls run on
// the synchronous server's thread pool; AwaitProof and Prove use the callback
// API and wait in a waiter_pool (no thread per waiting call; woken by the
// job's completion; at most max_waiting_calls at once, RESOURCE_EXHAUSTED
// beyond), so GetStatus and the control calls answer whatever the number of
// waiting clients.
// Every engine exception becomes a status and never crosses the boundary:
// invalid_request -> INVALID_ARGUMENT, unsupported_request -> UNIMPLEMENTED,
// shutting_down_error -> UNAVAILABLE, not_found_error -> NOT_FOUND, an SRS
// in use -> FAILED_PRECONDITION, anything else -> INTERNAL.
// Message size: requests above daemon.max_message_size are refused with
// INVALID_ARGUMENT naming both sizes (gRPC itself accepts up to twice the
// limit so that our check, not the transport, answers).
// Security (grpc_server_options): a unix socket (unix:///path, unix:path)
// is created with |unix_socket_mode| (umask set around the bind, then
// chmod before listen, so the socket never accepts with wider permissions,
// TLS or not: listen_socket.hpp); one daemon per
// address: the socket path is claimed first and a live socket, a taken TCP
// port or a non-socket file at the path refuse the start
// (listen_address.hpp; transport limits in listener_args.hpp); abstract
// sockets only with |allow_abstract_socket|; with TLS files the listener speaks
// TLS (and with a client CA requires client certificates); with an auth
// token every call must carry "authorization: Bearer <token>" metadata or
// gets UNAUTHENTICATED (compared in constant time). Nothing here logs or
// echoes request payloads.
// Listener (issue 25): every listener (TCP or unix, TLS or not) is our own
// socket (listen_socket.hpp) and accept loop (connection_acceptor.hpp)
// handing each connection to gRPC by descriptor: accept keeps working after
// descriptors run out (gRPC 1.51's own listener stops for good), a connection
// must finish its handshake and send its HTTP/2 preface within the
// handshake timeout, and at most |listener.max_connections| are open at
// once. gRPC 1.51 takes only plaintext connections by descriptor, so with
// TLS files the daemon terminates TLS itself (tls_terminator.hpp) and
// relays each connection to gRPC over a socketpair (tls_relay.hpp); gRPC
// sees a plaintext connection.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <cuzk/engine/engine.hpp>

#include "connection_acceptor.hpp"
#include "listener_args.hpp"

namespace grpc {
class Server;
}

namespace cuzk::service {

struct grpc_server_options {
  std::uint64_t max_message_size = 128ull << 20;
  unsigned unix_socket_mode = 0600;
  std::string tls_cert_pem, tls_key_pem;  ///< both or neither; TLS when set
  std::string tls_client_ca_pem;          ///< set: client certificates required
  std::string auth_token;                 ///< set: "authorization: Bearer <token>" required
  bool allow_abstract_socket = false;     ///< "unix-abstract:" refused unless set
  std::size_t max_waiting_calls = 10000;  ///< AwaitProof/Prove waiting at once; beyond: RESOURCE_EXHAUSTED
  listener_limits listener;               ///< timeouts, keepalive, max_connections
  /// The listener's messages (level 1 info, 2 warning, 3 error); unset: none.
  std::function<void(int level, const std::string& message)> log;
};

class grpc_server {
 public:
  /// Listens on |address| ("host:port", port 0 = any free port,
  /// "unix:///path", "unix:path", "unix-abstract:name"); throws
  /// std::runtime_error (std::invalid_argument for a malformed address)
  /// saying why when it cannot. |e| must outlive the server (its waiter
  /// pool is subscribed to the engine's job completions).
  grpc_server(engine::engine& e, const std::string& address, const grpc_server_options& opt);
  grpc_server(engine::engine& e, const std::string& address, std::uint64_t max_message_size)
      : grpc_server(e, address, with_max_message_size(max_message_size)) {}
  ~grpc_server();
  /// The TCP port bound (0 for a unix socket).
  int port() const { return _port; }
  /// AwaitProof / Prove calls waiting for their job now.
  std::size_t waiting_calls() const;
  /// The listener's connection counts (TLS connections included).
  acceptor_counters connections() const;
  /// Stops accepting and waits for calls in flight, up to |deadline_ms|.
  void shutdown(std::uint64_t deadline_ms);
  void wait();

 private:
  static grpc_server_options with_max_message_size(std::uint64_t n) {
    grpc_server_options o;
    o.max_message_size = n;
    return o;
  }
  struct impl;
  std::unique_ptr<impl> _p;
  int _port = 0;
};

}  // namespace cuzk::service
