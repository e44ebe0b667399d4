// SPDX-License-Identifier: Apache-2.0
#pragma once
// Transport settings of the gRPC listener that keep it serving whatever
// clients do (issue 25):
//   * SO_REUSEPORT off (gRPC's default is on): a second daemon cannot bind
//     the same TCP port and take half the connections; its bind fails.
//   * handshake timeout: a connection that never completes the TLS / HTTP/2
//     preface is closed after handshake_timeout_ms instead of holding a
//     descriptor for ever (gRPC's default is 120 s).
//   * keepalive pings every keepalive_time_ms (answer within
//     keepalive_timeout_ms) find peers that vanished without a FIN, and a
//     connection with no call for max_idle_ms is closed (a client reconnects
//     transparently). A call in flight (AwaitProof for an hour) is not idle.
// Cost: a ping per connection per keepalive interval.
namespace grpc {
class ServerBuilder;
}

namespace cuzk::service {

struct listener_limits {
  int handshake_timeout_ms = 10'000;
  int keepalive_time_ms = 60'000;
  int keepalive_timeout_ms = 20'000;
  int max_idle_ms = 15 * 60'000;
};

void apply_listener_args(grpc::ServerBuilder& b, const listener_limits& l = {});

}  // namespace cuzk::service
