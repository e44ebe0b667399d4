// SPDX-License-Identifier: Apache-2.0
// TLS connections relayed to gRPC over socketpairs (see tls_relay.hpp).
#include "tls_relay.hpp"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace cuzk::service {
namespace {

// A byte queue of at most tls_relay::buffer_size, contiguous (SSL_write
// takes one span): filled at the tail, drained at the head. The bytes move
// to the front when less than a TLS record fits behind them (SSL_write
// allows it: SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER). Storage only while bytes
// wait in it.
class relay_buffer {
 public:
  static constexpr std::size_t cap = tls_relay::buffer_size;
  bool empty() const { return _head == _tail; }
  std::size_t size() const { return _tail - _head; }
  std::size_t room() const { return cap - size(); }
  std::span<const std::uint8_t> data() const { return {_b.get() + _head, size()}; }
  /// Where the next bytes go (not empty while room() > 0).
  std::span<std::uint8_t> space() {
    if (!_b) _b = std::make_unique_for_overwrite<std::uint8_t[]>(cap);
    if (_head > 0 && cap - _tail < 16 * 1024) {
      std::memmove(_b.get(), _b.get() + _head, size());
      _tail -= _head;
      _head = 0;
    }
    return {_b.get() + _tail, cap - _tail};
  }
  void added(std::size_t n) { _tail += n; }
  void consume(std::size_t n) {
    _head += n;
    if (_head == _tail) clear();
  }
  void clear() {
    _b.reset();
    _head = _tail = 0;
  }

 private:
  std::unique_ptr<std::uint8_t[]> _b;
  std::size_t _head = 0, _tail = 0;
};

struct relayed {
  std::unique_ptr<tls_session> tls;  // null once the TLS side is closed
  unique_fd local;                   // our end of the socketpair
  relay_buffer up, down;             // up: client -> gRPC; down: gRPC -> client
  bool client_done = false;          // nothing more comes from the client
  bool grpc_done = false;            // gRPC closed its end (EOF or an error on ours)
  bool grpc_hup = false;             // poll saw gRPC close its end; its last bytes may wait unread
  bool local_shut = false;           // ours shut for writing: gRPC reads EOF
  bool closing = false;              // close_notify waits for the socket
  tls_wait read_wait = tls_wait::readable, write_wait = tls_wait::writable;
  std::size_t write_len = 0;                               // an SSL_write to repeat with this many bytes
  std::chrono::steady_clock::time_point drain_deadline{};  // set when gRPC closed: the TLS side closes by then

  bool finished() const { return !tls && grpc_done; }
  // pump() tries exactly what these ask poll for, so a ready descriptor is
  // never left unread (poll would report it again at once)
  bool wants_client_bytes() const { return tls && !client_done && !grpc_done && !closing && up.room() > 0; }
  bool has_client_bytes_out() const { return tls && (!down.empty() || closing); }
  bool wants_grpc_bytes() const { return !grpc_done && (down.room() > 0 || !tls); }

  short tcp_events() const {
    short ev = 0;
    if (wants_client_bytes()) ev |= read_wait == tls_wait::writable ? POLLOUT : POLLIN;
    if (has_client_bytes_out()) ev |= write_wait == tls_wait::readable ? POLLIN : POLLOUT;
    return ev;
  }
  short local_events() const {
    short ev = 0;
    if (!grpc_done && !up.empty()) ev |= POLLOUT;
    if (wants_grpc_bytes()) ev |= POLLIN;
    // |down| full: not read, but told when gRPC closes (the drain timeout
    // starts then); once told, left out until there is room again
    else if (!grpc_done && !grpc_hup) ev |= POLLRDHUP;
    return ev;
  }

  // the client is gone (reset, TLS error, close_notify sent): what gRPC
  // writes from now on is read and dropped until it closes its end
  void close_tls() {
    tls.reset();
    client_done = true;
    closing = false;
    down.clear();
    write_len = 0;
  }
  void grpc_gone() {
    grpc_done = true;
    up.clear();
  }
  bool draining() const { return tls && (grpc_done || grpc_hup); }

  // Moves bytes both ways until nothing can move without waiting.
  void pump(std::span<std::uint8_t> scratch) {
    for (bool moved = true; moved;) {
      moved = false;
      if (wants_client_bytes()) {
        const tls_io r = tls->read(up.space());
        if (r.bytes > 0) {
          up.added(r.bytes);
          moved = true;
        } else if (r.wait == tls_wait::readable || r.wait == tls_wait::writable) {
          read_wait = r.wait;
        } else if (r.wait == tls_wait::closed) {
          client_done = true;
          moved = true;
        } else {
          close_tls();
          moved = true;
        }
      }
      if (!grpc_done && !up.empty()) {
        const auto d = up.data();
        const ssize_t n = ::send(local.get(), d.data(), d.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
          up.consume(std::size_t(n));
          moved = true;
        } else if (n < 0 && errno == EINTR) {
          moved = true;
        } else if (!(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) {
          grpc_gone();  // EPIPE, ECONNRESET: gRPC closed its end
          moved = true;
        }
      }
      if (client_done && up.empty() && !local_shut && !grpc_done) {
        (void)::shutdown(local.get(), SHUT_WR);  // gRPC reads EOF and closes its end
        local_shut = true;
      }
      if (wants_grpc_bytes()) {
        const auto sp = tls ? down.space() : scratch;
        const ssize_t n = ::recv(local.get(), sp.data(), sp.size(), MSG_DONTWAIT);
        if (n > 0) {
          if (tls) down.added(std::size_t(n));
          moved = true;
        } else if (n < 0 && errno == EINTR) {
          moved = true;
        } else if (!(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) {
          grpc_gone();  // EOF or an error: gRPC closed its end
          moved = true;
        }
      }
      if (tls && !down.empty()) {
        auto d = down.data();
        if (write_len > 0) d = d.first(write_len);  // a repeat: the same bytes
        const tls_io r = tls->write(d);
        if (r.bytes > 0) {
          down.consume(r.bytes);
          write_len = 0;
          moved = true;
        } else if (r.wait == tls_wait::readable || r.wait == tls_wait::writable) {
          write_wait = r.wait;
          write_len = d.size();
        } else {
          close_tls();
          moved = true;
        }
      }
      if (tls && grpc_done && down.empty()) {
        const tls_wait w = tls->close_notify();
        if (w == tls_wait::readable || w == tls_wait::writable) {
          write_wait = w;
          closing = true;
        } else {
          close_tls();  // sent (or the socket is gone): the TCP connection closes
          moved = true;
        }
      }
    }
  }
};

}  // namespace

struct tls_relay::state {
  log_fn log;
  std::chrono::milliseconds drain_timeout{};
  unique_fd wake;
  std::atomic<bool> stopping{false};
  std::mutex mu;
  bool closed = false;                          // guarded by |mu|: add() closes at once
  std::vector<std::unique_ptr<relayed>> inbox;  // guarded by |mu|
  std::vector<std::unique_ptr<relayed>> conns;  // the thread's own
  std::vector<std::uint8_t> scratch = std::vector<std::uint8_t>(buffer_size);

  void say(int level, const std::string& m) const {
    if (log) log(level, m);
  }
  void notify() const {
    const std::uint64_t one = 1;
    // the counter cannot overflow with these writes; should one fail, the
    // thread still runs the connection at its next wake-up
    (void)!::write(wake.get(), &one, sizeof one);
  }
};

tls_relay::tls_relay(log_fn log, std::chrono::milliseconds drain_timeout) : _s(std::make_unique<state>()) {
  _s->log = std::move(log);
  _s->drain_timeout = drain_timeout;
  _s->wake.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!_s->wake) throw std::runtime_error(std::string("TLS relay: eventfd: ") + std::strerror(errno));
  _thread = std::thread([this] { run(); });
  ::pthread_setname_np(_thread.native_handle(), "cuzk-tls-relay");  // a name for ps/top; failure is harmless
}

tls_relay::~tls_relay() { stop(); }

void tls_relay::add(std::unique_ptr<tls_session> tls, unique_fd local, std::vector<std::uint8_t> received) {
  if (received.size() > buffer_size) throw std::invalid_argument("TLS relay: more bytes received than it buffers");
  auto c = std::make_unique<relayed>();
  c->tls = std::move(tls);
  c->local = std::move(local);
  if (!received.empty()) {
    std::memcpy(c->up.space().data(), received.data(), received.size());
    c->up.added(received.size());
  }
  {
    std::lock_guard lk(_s->mu);
    if (_s->closed) return;  // stopped: |c| closes both sides
    _s->inbox.push_back(std::move(c));
    _open.fetch_add(1);
  }
  _s->notify();
}

void tls_relay::stop() {
  if (!_thread.joinable()) return;
  _s->stopping.store(true);
  _s->notify();
  _thread.join();
}

void tls_relay::run() {
  block_sigpipe_in_this_thread();
  state& s = *_s;
  std::vector<pollfd> pf;
  std::vector<std::unique_ptr<relayed>> fresh;
  using steady = std::chrono::steady_clock;
  // what gRPC wrote before closing gets drain_timeout to reach the client;
  // a client that does not read it is not kept for ever
  const auto remove_finished = [&] {
    const auto now = steady::now();
    for (auto& c : s.conns) {
      if (!c->draining()) continue;
      if (c->drain_deadline == steady::time_point{}) c->drain_deadline = now + s.drain_timeout;
      else if (now >= c->drain_deadline) c->close_tls();
    }
    const auto gone = std::remove_if(s.conns.begin(), s.conns.end(), [](const auto& c) { return c->finished(); });
    const auto n = std::size_t(s.conns.end() - gone);
    s.conns.erase(gone, s.conns.end());
    _open.fetch_sub(n);
  };
  while (!s.stopping.load()) {
    {
      std::lock_guard lk(s.mu);
      fresh.swap(s.inbox);
    }
    for (auto& c : fresh) {
      c->pump(s.scratch);  // the preface and any bytes OpenSSL holds already
      s.conns.push_back(std::move(c));
    }
    fresh.clear();
    remove_finished();
    pf.clear();
    pf.push_back({s.wake.get(), POLLIN, 0});
    steady::time_point wake_at = steady::time_point::max();
    for (const auto& c : s.conns) {
      if (c->draining()) wake_at = std::min(wake_at, c->drain_deadline);
      // a descriptor with nothing asked of it stays out (fd -1): a hang-up
      // there would wake poll at once, again and again
      const short te = c->tcp_events(), le = c->local_events();
      pf.push_back({te && c->tls ? c->tls->fd() : -1, te, 0});
      pf.push_back({le ? c->local.get() : -1, le, 0});
    }
    int wait = -1;
    if (wake_at != steady::time_point::max())
      wait = int(std::clamp<long long>(std::chrono::ceil<std::chrono::milliseconds>(wake_at - steady::now()).count(), 0,
                                       60'000));
    const int r = ::poll(pf.data(), pf.size(), wait);
    if (r < 0) {
      if (errno == EINTR) continue;
      // ENOMEM (the kernel's poll table): nothing to do but wait and retry
      s.say(3, std::string("TLS relay: poll failed: ") + std::strerror(errno) + "; retrying");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (pf[0].revents) {
      std::uint64_t v = 0;
      (void)!::read(s.wake.get(), &v, sizeof v);  // drained; |stopping| and the inbox decide
    }
    for (std::size_t i = 0; i < s.conns.size(); ++i) {
      relayed& c = *s.conns[i];
      if (pf[2 + 2 * i].revents & (POLLHUP | POLLRDHUP | POLLERR)) c.grpc_hup = true;
      if (pf[1 + 2 * i].revents || pf[2 + 2 * i].revents) c.pump(s.scratch);
    }
    remove_finished();
  }
  std::size_t n = s.conns.size();
  {
    std::lock_guard lk(s.mu);
    s.closed = true;
    n += s.inbox.size();
    s.inbox.clear();
  }
  s.conns.clear();  // every TLS connection and our socketpair ends close
  _open.fetch_sub(n);
}

}  // namespace cuzk::service
