// SPDX-License-Identifier: Apache-2.0
#pragma once
// Transport settings of the gRPC listener that keep it serving whatever
// clients do (issue 25). Every connection reaches gRPC by descriptor from
// our accept loop (connection_acceptor.hpp; TLS terminated by us,
// tls_terminator.hpp): gRPC has no listening port of its own, so what a
// listener argument would do is done there:
//   * no SO_REUSEPORT (gRPC's default is on): our sockets are bound without
//     it (listen_socket.hpp), so a second daemon's bind fails.
//   * handshake timeout: a connection that has not finished its TLS
//     handshake and HTTP/2 preface within handshake_timeout_ms is closed by
//     the acceptor (gRPC's GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS does not
//     reach connections handed over by descriptor).
//   * max_connections (daemon.max_connections): client connections open at
//     once, TLS or not; beyond it a new one is closed at accept. gRPC 1.51
//     has no such argument.
// Set here as server channel arguments, which reach handed-over
// connections too (gRPC builds their transport with them):
//   * keepalive pings every keepalive_time_ms (answer within
//     keepalive_timeout_ms) find peers that vanished without a FIN, and a
//     connection with no call for max_idle_ms is closed (a client reconnects
//     transparently). A call in flight (AwaitProof for an hour) is not idle.
//     Behind the TLS relay they see gRPC's end of the socketpair: a ping the
//     client does not answer closes it, and the relay then closes the TLS
//     connection.
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
