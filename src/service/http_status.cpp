// SPDX-License-Identifier: Apache-2.0
// HTTP /status and /metrics (see http_status.hpp).
#include "http_status.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

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
  json pacing = json::array();
  for (const auto& pc : s.pacing)
    pacing.push_back({{"circuit_id", pc.circuit_id},
                      {"synthesis_ms", pc.synthesis_ms},
                      {"device_ms", pc.device_ms},
                      {"synthesis_samples", pc.synthesis_samples},
                      {"device_samples", pc.device_samples},
                      {"lookahead", pc.lookahead}});
  j["synthesis"] = {
      {"max_concurrent", s.synthesis_max},
      {"active", s.synthesis_active},
      {"queued_partitions", s.synth_queue_depth},
      {"lookahead", s.synthesis_lookahead},
      {"witness_holders", s.witness_holders},
      {"pacing", pacing},
      {"witness_pool",
       {{"idle", s.witness_pool_idle}, {"idle_bytes", s.witness_pool_bytes}, {"reused", s.witness_pool_reused}}}};
  j["gpu_queue_depth"] = s.gpu_queue_depth;
  json queues = json::array();
  for (const auto& q : s.queues)
    queues.push_back(
        {{"proof_kind", engine::kind_label(q.kind)}, {"pending", q.pending}, {"in_progress", q.in_progress}});
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
                       // partitions in the worker's pass (cross-sector batching; 1 without)
                       {"batch_partitions", w.busy ? json(w.batch_partitions) : json(nullptr)},
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
                   {"device_bytes", e.device_bytes},
                   {"shape_matrices_released", e.shape_matrices_released},
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
  j["counters"] = {{"total_completed", s.completed},  {"total_failed", s.failed},      {"total_cancelled", s.cancelled},
                   {"completed_by_kind", by_kind_ok}, {"failed_by_kind", by_kind_bad}, {"queue_depth", depth}};
  return j;
}

namespace {

using steady = std::chrono::steady_clock;

struct limits {
  std::size_t workers, max_connections, keep_alive_max;
  std::chrono::milliseconds read_timeout, write_timeout, keep_alive_timeout, request_deadline;
};

struct counters {
  std::atomic<std::size_t> open{0}, accepted{0}, refused{0}, evicted{0}, idle_closed{0}, cut{0};
};

// One client connection. Exactly one place holds it at a time (the poller's
// list, the ready queue, one worker) and moves it on as a unique_ptr; the
// descriptor is closed only by the destructor, so it is never closed twice nor
// touched after the number was reused.
struct connection {
  int fd;
  counters* count;
  std::array<char, 4096> buf{};
  std::size_t begin = 0, end = 0;  // unread bytes buf[begin, end)
  std::size_t served = 0;
  bool started = false;           // a byte of the current request has come
  steady::time_point wait_until;  // first byte (not started) or whole head (started) by then
  steady::time_point deadline;    // the current request read and answered by then

  connection(int f, counters* c) : fd(f), count(c) {}
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection() {
    ::close(fd);
    count->open.fetch_sub(1);
  }
  // Whole head buffered ("\n\n" or "\n\r\n"), or no room to wait for one
  // (a worker then reads on, within the deadline).
  bool ready() const {
    if (begin == 0 && end == buf.size()) return true;
    for (std::size_t i = begin; i + 1 < end; ++i)
      if (buf[i] == '\n' && (buf[i + 1] == '\n' || (buf[i + 1] == '\r' && i + 2 < end && buf[i + 2] == '\n')))
        return true;
    return false;
  }
  void start(steady::time_point now, std::chrono::milliseconds request_deadline) {
    started = true;
    deadline = now + request_deadline;
    wait_until = deadline;
  }
};

// httplib::Stream over a connection: reads its buffer first, and fails every
// read and write once the request's deadline has passed or the server stops.
class deadline_stream final : public httplib::Stream {
 public:
  deadline_stream(connection& c, int stop_fd, const limits& l) : _c(c), _stop(stop_fd), _l(l) {}
  bool cut() const { return _cut; }

  bool is_readable() const override { return _c.begin < _c.end || wait(POLLIN, _l.read_timeout); }
  bool is_writable() const override { return wait(POLLOUT, _l.write_timeout); }
  ssize_t read(char* ptr, size_t size) override {
    while (_c.begin == _c.end) {
      if (!wait(POLLIN, _l.read_timeout)) return -1;
      const ssize_t n = ::recv(_c.fd, _c.buf.data(), _c.buf.size(), MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
      if (n <= 0) return n;
      _c.begin = 0;
      _c.end = std::size_t(n);
    }
    const std::size_t n = std::min(size, _c.end - _c.begin);
    std::memcpy(ptr, _c.buf.data() + _c.begin, n);
    _c.begin += n;
    return ssize_t(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    for (;;) {
      if (!wait(POLLOUT, _l.write_timeout)) return -1;
      const ssize_t n = ::send(_c.fd, ptr, size, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
      return n;
    }
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { name(::getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { name(::getsockname, ip, port); }
  socket_t socket() const override { return _c.fd; }

 private:
  // Ready for |events| within |per_op| and before the deadline; false on the
  // deadline (recorded), the timeout or a stop.
  bool wait(short events, std::chrono::milliseconds per_op) const {
    auto now = steady::now();
    const auto until = std::min(_c.deadline, now + per_op);
    for (;;) {
      if (now >= _c.deadline) return !(_cut = true);
      if (now >= until) return false;
      pollfd p[2] = {{_c.fd, events, 0}, {_stop, POLLIN, 0}};
      const auto ms = std::chrono::ceil<std::chrono::milliseconds>(until - now).count();
      const int r = ::poll(p, 2, int(ms));
      if (r < 0 && errno != EINTR) return false;
      if (r > 0 && p[1].revents) return false;
      if (r > 0 && p[0].revents) return true;
      now = steady::now();
    }
  }
  template <class F>
  void name(F get, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    ip.clear();
    port = 0;
    if (get(_c.fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (a.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
      ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
      port = ntohs(v4->sin_port);
    } else if (a.ss_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
      ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
      port = ntohs(v6->sin6_port);
    }
    ip = text;
  }

  connection& _c;
  int _stop;
  const limits& _l;
  mutable bool _cut = false;
};

// httplib's accept loop hands each accepted socket to the task queue as a
// closure that calls process_and_close_socket (virtual). The queue below runs
// the closure at once on the accept thread and this override passes the
// descriptor on: from then on the broker owns it, httplib never sees it again.
// process_request (protected) is httplib's parser, router and response writer.
class adopting_server final : public httplib::Server {
 public:
  std::function<void(int)> adopt;
  // httplib listens with a backlog of 5: during a burst of connections the
  // kernel then drops SYNs and a client's connect waits a 1 s retransmit.
  // Calling listen again on the bound socket only raises the backlog.
  void raise_backlog() { ::listen(svr_sock_, 128); }
  bool serve(httplib::Stream& s, bool close_connection, bool& connection_closed) {
    return process_request(s, close_connection, connection_closed, nullptr);
  }

 private:
  bool process_and_close_socket(socket_t sock) override {
    adopt(sock);
    return true;
  }
};

struct inline_queue final : httplib::TaskQueue {
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

class broker {
 public:
  broker(adopting_server& srv, const limits& l) : _srv(srv), _l(l) {
    _wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    _stop = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (_wake < 0 || _stop < 0) {
      if (_wake >= 0) ::close(_wake);
      if (_stop >= 0) ::close(_stop);
      throw std::runtime_error(std::string("status listener: eventfd: ") + std::strerror(errno));
    }
  }
  ~broker() {
    stop();
    ::close(_wake);
    ::close(_stop);
  }
  void start() {
    _poller = std::thread([this] { poll_loop(); });
    for (std::size_t i = 0; i < _l.workers; ++i) _workers.emplace_back([this] { work_loop(); });
  }
  // Joins every thread; the connections left are closed. Call after the
  // accept loop has ended (nothing adopts any more).
  void stop() {
    {
      std::lock_guard lk(_m);
      if (_stopping && !_poller.joinable()) return;
      _stopping = true;
    }
    signal(_stop);
    _cv.notify_all();
    if (_poller.joinable()) _poller.join();
    for (auto& t : _workers) t.join();
    _workers.clear();
    std::lock_guard lk(_m);
    _incoming.clear();
    _ready.clear();
  }
  // On the accept thread.
  void adopt(int fd) {
    _n.accepted.fetch_add(1);
    if (_n.open.load() >= 2 * _l.max_connections || stopping()) {
      // the poller has not caught up with the accept loop: answer without
      // reading (the socket is new, the send cannot block) and close
      static constexpr char busy[] =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      (void)!::send(fd, busy, sizeof busy - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
      ::close(fd);
      _n.refused.fetch_add(1);
      return;
    }
    _n.open.fetch_add(1);
    auto c = std::make_unique<connection>(fd, &_n);
    c->wait_until = steady::now() + _l.keep_alive_timeout;
    {
      std::lock_guard lk(_m);
      _incoming.push_back(std::move(c));
    }
    signal(_wake);
  }
  http_status_counters snapshot() const {
    return {_n.open.load(),    _n.accepted.load(),    _n.refused.load(),
            _n.evicted.load(), _n.idle_closed.load(), _n.cut.load()};
  }

 private:
  using conn_ptr = std::unique_ptr<connection>;

  static void signal(int efd) {
    const std::uint64_t one = 1;
    (void)!::write(efd, &one, sizeof one);
  }
  bool stopping() {
    std::lock_guard lk(_m);
    return _stopping;
  }

  // Connections that have not sent a whole request head. Only this thread
  // touches |idle|; others hand connections in through |_incoming|.
  void poll_loop() {
    std::deque<conn_ptr> idle;  // oldest wait first
    std::vector<pollfd> fds;
    for (;;) {
      {
        std::lock_guard lk(_m);
        if (_stopping) return;
        for (auto& c : _incoming) idle.push_back(std::move(c));
        _incoming.clear();
      }
      // over the cap: close what has waited longest without a whole request,
      // so that a new request still gets in
      while (_n.open.load() > _l.max_connections && !idle.empty()) {
        idle.pop_front();
        _n.evicted.fetch_add(1);
      }
      auto now = steady::now();
      auto next = now + std::chrono::hours(1);
      fds.assign({{_wake, POLLIN, 0}, {_stop, POLLIN, 0}});
      for (const auto& c : idle) {
        fds.push_back({c->fd, POLLIN, 0});
        next = std::min(next, c->wait_until);
      }
      const auto ms = std::chrono::ceil<std::chrono::milliseconds>(std::max(next - now, steady::duration{}));
      const int r = ::poll(fds.data(), fds.size(), int(ms.count()));
      if (r < 0 && errno != EINTR) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (fds[1].revents) return;
      if (fds[0].revents) {
        std::uint64_t v;
        (void)!::read(_wake, &v, sizeof v);
      }
      now = steady::now();
      std::deque<conn_ptr> still;
      std::vector<conn_ptr> ready;
      for (std::size_t i = 0; i < idle.size(); ++i) {
        auto& c = idle[i];
        if (r > 0 && fds[i + 2].revents) {
          if (c->begin > 0) {  // keep the unread bytes at the front
            std::memmove(c->buf.data(), c->buf.data() + c->begin, c->end - c->begin);
            c->end -= c->begin;
            c->begin = 0;
          }
          const ssize_t n = ::recv(c->fd, c->buf.data() + c->end, c->buf.size() - c->end, MSG_DONTWAIT);
          if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) continue;  // closed
          if (n > 0) {
            c->end += std::size_t(n);
            if (!c->started) c->start(now, _l.request_deadline);
            if (c->ready()) {
              ready.push_back(std::move(c));
              continue;
            }
          }
        }
        if (now >= c->wait_until) {
          (c->started ? _n.cut : _n.idle_closed).fetch_add(1);
          continue;
        }
        still.push_back(std::move(c));
      }
      idle.swap(still);
      if (!ready.empty()) {
        {
          std::lock_guard lk(_m);
          for (auto& c : ready) _ready.push_back(std::move(c));
        }
        _cv.notify_all();
      }
    }
  }

  void work_loop() {
    for (;;) {
      conn_ptr c;
      {
        std::unique_lock lk(_m);
        _cv.wait(lk, [&] { return _stopping || !_ready.empty(); });
        if (_stopping) return;
        c = std::move(_ready.front());
        _ready.pop_front();
      }
      deadline_stream s(*c, _stop, _l);
      const bool last = ++c->served >= _l.keep_alive_max;
      bool closed = false;
      const bool ok = _srv.serve(s, last, closed);
      if (s.cut()) _n.cut.fetch_add(1);
      if (!ok || closed || last) continue;
      // the next request: pipelined bytes already here start it now
      const auto now = steady::now();
      c->started = false;
      c->wait_until = now + _l.keep_alive_timeout;
      if (c->begin < c->end) c->start(now, _l.request_deadline);
      std::lock_guard lk(_m);
      if (c->begin < c->end && c->ready()) {
        _ready.push_back(std::move(c));
        _cv.notify_one();
      } else {
        _incoming.push_back(std::move(c));
        signal(_wake);
      }
    }
  }

  adopting_server& _srv;
  const limits _l;
  counters _n;
  int _wake = -1, _stop = -1;
  std::mutex _m;
  std::condition_variable _cv;
  bool _stopping = false;
  std::deque<conn_ptr> _incoming, _ready;
  std::thread _poller;
  std::vector<std::thread> _workers;
};

}  // namespace

struct http_status_server::impl {
  adopting_server server;
  std::unique_ptr<broker> conns;
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
  limits l;
  l.workers = std::max<std::size_t>(2, opt.threads);
  l.max_connections = opt.max_connections ? opt.max_connections : 8 * l.workers;
  l.keep_alive_max = std::max<std::size_t>(1, opt.keep_alive_max);
  l.read_timeout = opt.read_timeout;
  l.write_timeout = opt.write_timeout;
  l.keep_alive_timeout = opt.keep_alive_timeout;
  l.request_deadline = opt.request_deadline;
  _p->conns = std::make_unique<broker>(srv, l);
  srv.adopt = [b = _p->conns.get()](int fd) { b->adopt(fd); };
  srv.new_task_queue = [] { return new inline_queue; };
  // neither endpoint takes a body; a GET with a large Content-Length is
  // refused (413) instead of buffered
  srv.set_payload_max_length(64 * 1024);
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
  srv.Get("/status", [&e, allowed, b = _p->conns.get()](const httplib::Request& req, httplib::Response& res) {
    if (!allowed(req, res)) return;
    auto j = status_json(e.status());
    const auto n = b->snapshot();
    j["http_status"] = {{"connections_open", n.open},
                        {"connections_accepted", n.accepted},
                        {"connections_refused", n.refused},
                        {"connections_evicted", n.evicted},
                        {"connections_idle_closed", n.idle_closed},
                        {"requests_cut", n.cut}};
    res.set_content(j.dump(2), "application/json");
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
  _p->server.raise_backlog();
  _p->conns->start();
  _p->thread = std::thread([this] { _p->server.listen_after_bind(); });
}

http_status_server::~http_status_server() { stop(); }

http_status_counters http_status_server::counters() const { return _p->conns->snapshot(); }

void http_status_server::stop() {
  if (_p->thread.joinable()) {
    _p->server.stop();
    _p->thread.join();
  }
  _p->conns->stop();  // after the accept loop: nothing adopts any more
}

}  // namespace cuzk::service
