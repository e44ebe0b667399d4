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
#include <cstdint>
#include <memory>
#include <string>

#include <cuzk/engine/engine.hpp>

namespace grpc {
class Server;
}

namespace cuzk::service {

class grpc_server {
 public:
  /// Listens on |address| ("host:port", port 0 = any free port, or
  /// "unix:///path"); throws std::runtime_error when it cannot.
  grpc_server(engine::engine& e, const std::string& address, std::uint64_t max_message_size);
  ~grpc_server();
  /// The TCP port bound (0 for a unix socket).
  int port() const { return _port; }
  /// Stops accepting and waits for calls in flight, up to |deadline_ms|.
  void shutdown(std::uint64_t deadline_ms);
  void wait();

 private:
  struct impl;
  std::unique_ptr<impl> _p;
  int _port = 0;
};

}  // namespace cuzk::service
