// SPDX-License-Identifier: Apache-2.0
#pragma once
// HTTP status listener (daemon.status_listen, cpp-httplib, its own threads):
//   GET /status   JSON snapshot (status_json): uptime, memory budget,
//                 synthesis, queues per kind, jobs in flight with the stage of
//                 each partition, prover workers, devices, SRS tiers, counters
//   GET /metrics  Prometheus text, the same as the GetMetrics RPC
// Anything else: 404. Responses carry Access-Control-Allow-Origin: * (the
// reference's polling UI). Cost: one engine snapshot per request.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include <cuzk/engine/engine.hpp>

namespace cuzk::service {

/// The /status document.
nlohmann::json status_json(const engine::engine_status& s);

class http_status_server {
 public:
  /// Binds "host:port" (port 0 = any free port); throws std::runtime_error.
  http_status_server(engine::engine& e, const std::string& address);
  ~http_status_server();
  int port() const { return _port; }
  void stop();

 private:
  struct impl;
  std::unique_ptr<impl> _p;
  int _port = 0;
};

}  // namespace cuzk::service
