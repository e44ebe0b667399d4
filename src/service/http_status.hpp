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
// Slow, silent or many clients cannot starve it or grow it without bound
// (issue 25). cpp-httplib only accepts; the connections are ours:
//  * one poller thread waits on every connection that has not sent a whole
//    request head yet, so a silent or trickling socket costs a descriptor and
//    a 4 KiB buffer, not a worker. |threads| workers run complete heads
//    through httplib's parser and the handlers.
//  * at most |max_connections| (default 8 x threads) are kept: beyond that the
//    one that has waited longest without a complete request is closed, so a
//    fresh request still gets in during a flood of idle sockets; above twice
//    the cap (the poller fell behind the accept loop) a new connection is
//    answered 503 and closed at once. Memory and descriptors stay bounded by
//    2 x max_connections x (descriptor + 4 KiB). The accept backlog is 128
//    (httplib's 5 drops SYNs in a burst: a client's connect then waits 1 s).
//  * the first byte of a request must come within |keep_alive_timeout| of the
//    connection being accepted or the previous response; from it the whole
//    request (head, body) must arrive and its response be written within
//    |request_deadline|, each read or write also within |read_timeout| /
//    |write_timeout|; after |keep_alive_max| requests the connection closes.
//    A request cut by the deadline gets no answer.
// Cost: one engine snapshot per request; |threads| + 1 idle threads.
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
  std::size_t max_connections = 0;  ///< 0: 8 x threads
  std::chrono::milliseconds read_timeout{1000}, write_timeout{2000}, keep_alive_timeout{1000};
  std::chrono::milliseconds request_deadline{3000};
  std::size_t keep_alive_max = 16;
};

/// What the connection limits did since the server started (also in /status
/// as "http_status").
struct http_status_counters {
  std::size_t open = 0;         ///< connections held now
  std::size_t accepted = 0;     ///< connections accepted in all
  std::size_t refused = 0;      ///< closed at accept: 2 x max_connections already held
  std::size_t evicted = 0;      ///< closed to stay within max_connections before a whole request came
  std::size_t idle_closed = 0;  ///< no first byte within keep_alive_timeout
  std::size_t cut = 0;          ///< request not read and answered within request_deadline
};

class http_status_server {
 public:
  /// Binds "host:port" (port 0 = any free port; no SO_REUSEPORT, so a port in
  /// use is refused); throws std::runtime_error.
  http_status_server(engine::engine& e, const std::string& address, const http_status_options& opt = {});
  ~http_status_server();
  int port() const { return _port; }
  http_status_counters counters() const;
  void stop();

 private:
  struct impl;
  std::unique_ptr<impl> _p;
  int _port = 0;
};

}  // namespace cuzk::service
