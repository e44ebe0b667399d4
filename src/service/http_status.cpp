// SPDX-License-Identifier: Apache-2.0
// HTTP /status and /metrics (see http_status.hpp).
#include "http_status.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include <httplib.h>
#include <sys/socket.h>

#include "secret_compare.hpp"

namespace cuzk::service {

nlohmann::json status_json(const engine::engine_status& s) {
  using nlohmann::json;
  json j;
  j["uptime_secs"] = s.uptime_secs;
  j["backend"] = s.backend;
  j["memory"] = {{"total_bytes", s.budget_total},
                 {"used_bytes", s.budget_used},
                 {"available_bytes", s.budget_total - s.budget_used},
                 {"peak_bytes", s.budget_peak},
                 {"priority_reserve_bytes", s.budget_reserve},
                 {"waiters", s.budget_waiters},
                 {"pinned_bytes", s.pinned_bytes}};
  j["synthesis"] = {{"max_concurrent", s.synthesis_max},
                    {"active", s.synthesis_active},
                    {"queued_partitions", s.synth_queue_depth}};
  j["gpu_queue_depth"] = s.gpu_queue_depth;
  json queues = json::array();
  for (const auto& q : s.queues)
    queues.push_back({{"proof_kind", engine::kind_label(q.kind)}, {"pending", q.pending}, {"in_progress", q.in_progress}});
  j["queues"] = queues;
  json pipes = json::array();
  for (const auto& p : s.jobs) {
    json parts = json::array();
    for (const auto& x : p.partitions)
      parts.push_back({{"index", x.index},
                       {"state", x.state},
                       {"synth_ms", x.synth_ms ? json(*x.synth_ms) : json(nullptr)},
                       {"gpu_ms", x.gpu_ms ? json(*x.gpu_ms) : json(nullptr)}});
    pipes.push_back({{"job_id", p.job_id},
                     {"proof_kind", engine::kind_label(p.kind)},
                     {"priority", engine::priority_label(p.prio)},
                     {"circuit_id", p.circuit_id},
                     {"state", p.state},
                     {"started_secs_ago", p.started_secs_ago},
                     {"total_partitions", p.total_partitions},
                     {"partitions_done", p.partitions_done},
                     {"partitions", parts}});
  }
  j["pipelines"] = pipes;
  json workers = json::array();
  for (const auto& w : s.workers)
    workers.push_back({{"worker_id", w.worker_id},
                       {"gpu_ordinal", w.device},
                       {"state", w.busy ? "proving" : "idle"},
                       {"current_job", w.busy ? json(w.current_job) : json(nullptr)},
                       {"current_partition", w.busy ? json(w.current_partition) : json(nullptr)},
                       {"busy_secs", w.busy ? json(w.busy_secs) : json(nullptr)}});
  j["gpu_workers"] = workers;
  json devices = json::array();
  for (std::size_t d = 0; d < s.devices.size(); ++d)
    devices.push_back({{"ordinal", d},
                       {"name", s.devices[d].name},
                       {"memory_total_bytes", s.devices[d].memory_total},
                       {"memory_free_bytes", s.devices[d].memory_free}});
  j["devices"] = devices;
  json srs = json::array();
  for (const auto& e : s.srs) {
    if (!e.file_present && e.tier == engine::srs_tier::cold) continue;
    srs.push_back({{"circuit_id", e.circuit_id},
                   {"file", e.file},
                   {"tier", engine::tier_label(e.tier)},
                   {"bytes", e.size_bytes},
                   {"shape_bytes", e.shape_bytes},
                   {"ref_count", e.ref_count},
                   {"last_used_secs_ago", e.last_used_secs_ago < 0 ? json(nullptr) : json(e.last_used_secs_ago)},
                   {"evictable", e.tier == engine::srs_tier::hot && e.ref_count == 0}});
  }
  j["allocations"] = {{"srs", srs}};
  json by_kind_ok = json::object(), by_kind_bad = json::object();
  for (std::size_t k = 1; k < engine::proof_kind_count; ++k) {
    by_kind_ok[std::string(engine::kind_label(engine::proof_kind(k)))] = s.completed_by_kind[k];
    by_kind_bad[std::string(engine::kind_label(engine::proof_kind(k)))] = s.failed_by_kind[k];
  }
  std::uint64_t depth = 0;
  for (const auto& q : s.queues) depth += q.pending;
  j["counters"] = {{"total_completed", s.completed},
                   {"total_failed", s.failed},
                   {"total_cancelled", s.cancelled},
                   {"completed_by_kind", by_kind_ok},
                   {"failed_by_kind", by_kind_bad},
                   {"queue_depth", depth}};
  return j;
}

struct http_status_server::impl {
  httplib::Server server;
  std::thread thread;
};

http_status_server::http_status_server(engine::engine& e, const std::string& address, const http_status_options& opt)
    : _p(std::make_unique<impl>()) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("status_listen '" + address + "' is not host:port");
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = 0;
  try {
    port = std::stoi(address.substr(colon + 1));
  } catch (...) {
    throw std::runtime_error("status_listen '" + address + "' has no valid port");
  }
  auto& srv = _p->server;
  const std::size_t threads = std::max<std::size_t>(2, opt.threads);
  srv.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  srv.set_read_timeout(opt.read_timeout);
  srv.set_write_timeout(opt.write_timeout);
  srv.set_keep_alive_timeout(std::max<time_t>(1, time_t(opt.keep_alive_timeout.count() / 1000)));
  srv.set_keep_alive_max_count(opt.keep_alive_max);
  // SO_REUSEADDR (restart while old connections linger) but not httplib's
  // default SO_REUSEPORT, which would let a second daemon share the port
  srv.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  const std::string token = opt.auth_token;
  const auto allowed = [token](const httplib::Request& req, httplib::Response& res) {
    if (token.empty() || same_secret(req.get_header_value("Authorization"), "Bearer " + token)) return true;
    res.status = 401;
    res.set_header("WWW-Authenticate", "Bearer");
    res.set_content("missing or wrong authorization token (daemon.auth_token_file)\n", "text/plain");
    return false;
  };
  srv.Get("/status", [&e, allowed](const httplib::Request& req, httplib::Response& res) {
    if (!allowed(req, res)) return;
    res.set_content(status_json(e.status()).dump(2), "application/json");
  });
  srv.Get("/metrics", [&e, allowed](const httplib::Request& req, httplib::Response& res) {
    if (!allowed(req, res)) return;
    res.set_content(e.metrics_text(), "text/plain; version=0.0.4");
  });
  if (port == 0) {
    _port = _p->server.bind_to_any_port(host.c_str());
    if (_port < 0) throw std::runtime_error("cannot listen on " + address);
  } else {
    if (!_p->server.bind_to_port(host.c_str(), port)) throw std::runtime_error("cannot listen on " + address);
    _port = port;
  }
  _p->thread = std::thread([this] { _p->server.listen_after_bind(); });
}

http_status_server::~http_status_server() { stop(); }

void http_status_server::stop() {
  if (_p->thread.joinable()) {
    _p->server.stop();
    _p->thread.join();
  }
}

}  // namespace cuzk::service
