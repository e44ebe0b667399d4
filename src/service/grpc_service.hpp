// SPDX-License-Identifier: Apache-2.0
#pragma once
// The gRPC front of the engine: cuzk.v1.ProvingEngine on the synchronous
// gRPC server (one pooled thread per call in flight; AwaitProof and Prove
// block in the engine and poll for client cancellation every 200 ms).
// Every engine exception becomes a status and never crosses the boundary:
// invalid_request -> INVALID_ARGUMENT, unsupported_request -> UNIMPLEMENTED
// (UNAVAILABLE while shutting down), not_found_error -> NOT_FOUND, an SRS
// in use -> FAILED_PRECONDITION, anything else -> INTERNAL.
// Message size: requests above daemon.max_message_size are refused with
// INVALID_ARGUMENT naming both sizes (gRPC itself accepts up to twice the
// limit so that our check, not the transport, answers).
// Security (grpc_server_options): a unix socket is created with
// |unix_socket_mode| (umask set around the bind, then chmod, so the socket
// never exists with wider permissions); with TLS files the listener speaks
// TLS (and with a client CA requires client certificates); with an auth
// token every call must carry "authorization: Bearer <token>" metadata or
// gets UNAUTHENTICATED (compared in constant time). Nothing here logs or
// echoes request payloads.
#include <cstdint>
#include <memory>
#include <string>

#include <cuzk/engine/engine.hpp>

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
};

class grpc_server {
 public:
  /// Listens on |address| ("host:port", port 0 = any free port, or
  /// "unix:///path"); throws std::runtime_error when it cannot.
  grpc_server(engine::engine& e, const std::string& address, const grpc_server_options& opt);
  grpc_server(engine::engine& e, const std::string& address, std::uint64_t max_message_size)
      : grpc_server(e, address, with_max_message_size(max_message_size)) {}
  ~grpc_server();
  /// The TCP port bound (0 for a unix socket).
  int port() const { return _port; }
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
