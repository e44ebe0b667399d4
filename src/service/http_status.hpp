// SPDX-License-Identifier: Apache-2.0
#pragma once
// HTTP status listener (daemon.status_listen, cpp-httplib, its own threads):
//   GET /status   JSON snapshot (status_json): uptime, memory budget,
//                 synthesis, queues per kind, jobs in flight with the stage of
//                 each partition, prover workers, devices, SRS tiers, counters
//   GET /metrics  Prometheus text, the same as the GetMetrics RPC
// Anything else: 404. No Access-Control-Allow-Origin header (issue 25: with
// "*" any web page a local user opened could read job ids and parameter
// names). With an auth token (daemon.auth_token_file) every request must
// carry "Authorization: Bearer <token>", else 401.
// Slow or silent clients cannot starve it: |threads| workers, each request
// read within |read_timeout| and written within |write_timeout|, an idle
// keep-alive connection closed after |keep_alive_timeout| and after
// |keep_alive_max| requests. A client must send every header within the read
// timeout of each read, so N silent sockets hold N workers for at most
// read_timeout each. Cost: one engine snapshot per request; |threads| idle
// threads.
#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include <cuzk/engine/engine.hpp>

namespace cuzk::service {

/// The /status document.
nlohmann::json status_json(const engine::engine_status& s);

struct http_status_options {
  std::string auth_token;  ///< set: "Authorization: Bearer <token>" required
  std::size_t threads = 32;
  std::chrono::milliseconds read_timeout{1000}, write_timeout{2000}, keep_alive_timeout{1000};
  std::size_t keep_alive_max = 16;
};

class http_status_server {
 public:
  /// Binds "host:port" (port 0 = any free port; no SO_REUSEPORT, so a port in
  /// use is refused); throws std::runtime_error.
  http_status_server(engine::engine& e, const std::string& address, const http_status_options& opt = {});
  ~http_status_server();
  int port() const { return _port; }
  void stop();

 private:
  struct impl;
  std::unique_ptr<impl> _p;
  int _port = 0;
};

}  // namespace cuzk::service
