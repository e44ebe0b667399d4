// SPDX-License-Identifier: Apache-2.0
#pragma once
// Transport settings of the gRPC listener that keep it serving whatever
// clients do (issue 25):
//   * SO_REUSEPORT off (gRPC's default is on): a second daemon cannot bind
//     the same TCP port and take half the connections; its bind fails.
//   * handshake timeout: a connection that never completes the TLS / HTTP/2
//     preface is closed after handshake_timeout_ms instead of holding a
//     descriptor for ever (gRPC's default is 120 s). On the plaintext
//     listener our accept loop enforces it (connection_acceptor.hpp: gRPC's
//     argument does not reach connections handed over by descriptor); the
//     channel argument covers the TLS listener, which gRPC still accepts.
//   * keepalive pings every keepalive_time_ms (answer within
//     keepalive_timeout_ms) find peers that vanished without a FIN, and a
//     connection with no call for max_idle_ms is closed (a client reconnects
//     transparently). A call in flight (AwaitProof for an hour) is not idle.
//     Both apply to handed-over connections too (gRPC builds their transport
//     with the server's channel arguments).
//   * max_connections (daemon.max_connections): client connections open at
//     once on the plaintext listener; beyond it a new one is closed at accept
//     (connection_acceptor.hpp). gRPC 1.51 has no such argument, so the TLS
//     listener has no cap.
// Cost: a ping per connection per keepalive interval.
#include <cstddef>

namespace grpc {
class ServerBuilder;
}

namespace cuzk::service {

struct listener_limits {
  int handshake_timeout_ms = 10'000;
  int keepalive_time_ms = 60'000;
  int keepalive_timeout_ms = 20'000;
  int max_idle_ms = 15 * 60'000;
  std::size_t max_connections = 4096;
};

void apply_listener_args(grpc::ServerBuilder& b, const listener_limits& l = {});

}  // namespace cuzk::service
