// SPDX-License-Identifier: Apache-2.0
// gRPC listener channel arguments (see listener_args.hpp).
#include "listener_args.hpp"

#include <grpcpp/grpcpp.h>

namespace cuzk::service {

void apply_listener_args(grpc::ServerBuilder& b, const listener_limits& l) {
  b.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, l.keepalive_time_ms);
  b.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, l.keepalive_timeout_ms);
  b.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, l.max_idle_ms);
}

}  // namespace cuzk::service
