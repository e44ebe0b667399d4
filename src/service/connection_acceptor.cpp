// SPDX-License-Identifier: Apache-2.0
// Our accept loop in front of gRPC (see connection_acceptor.hpp).
#include "connection_acceptor.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "http2_preface.hpp"
#include "tls_relay.hpp"
#include "tls_terminator.hpp"

#ifndef SO_COOKIE
#define SO_COOKIE 57  // Linux 4.12+; older kernels answer ENOPROTOOPT (inode fallback below)
#endif

namespace cuzk::service {
namespace {

using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds sweep_at_cap_interval{50};
constexpr milliseconds first_recheck{10}, max_recheck{500};
constexpr int accepts_per_wake = 64;  // then the other listeners and the handshakes get their turn

// The identity of the socket behind |fd|, or nothing when |fd| is not an
// open socket. SO_COOKIE is unique for the life of the system; where the
// kernel lacks it, the sockfs inode number (unique among live sockets; a
// freed number comes back only after the 32-bit counter wraps).
std::optional<std::uint64_t> socket_id(int fd) {
  std::uint64_t cookie = 0;
  socklen_t len = sizeof cookie;
  if (::getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &len) == 0) return cookie;
  if (errno != ENOPROTOOPT) return std::nullopt;  // EBADF, ENOTSOCK: ours is closed
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return std::nullopt;
  return std::uint64_t(st.st_ino);
}

// accept4 errors that belong to the one incoming connection (Linux passes
// pending network errors of the new socket to accept): skip it, go on.
bool connection_error(int e) {
  switch (e) {
    case EINTR:
    case ECONNABORTED:
    case EPROTO:
    case EPERM:  // a firewall rule refused it
    case ENETDOWN:
    case ENOPROTOOPT:
    case EHOSTDOWN:
    case ENONET:
    case EHOSTUNREACH:
    case EOPNOTSUPP:
    case ENETUNREACH: return true;
    default: return false;
  }
}

bool out_of_descriptors(int e) { return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM; }

std::string soft_fd_limit() {
  rlimit l{};
  if (::getrlimit(RLIMIT_NOFILE, &l) != 0) return "unknown";
  return l.rlim_cur == RLIM_INFINITY ? "unlimited" : std::to_string(l.rlim_cur);
}

long long ms_between(steady::time_point a, steady::time_point b) {
  return std::chrono::duration_cast<milliseconds>(b - a).count();
}

// A connection accepted whose client has not sent its whole HTTP/2 preface
// (TLS: or not finished its handshake).
struct pending_conn {
  unique_fd fd;                      // plaintext
  std::unique_ptr<tls_session> tls;  // TLS: owns the socket
  steady::time_point deadline;       // closed then (handshake timeout)
  steady::time_point recheck_at;     // not polled before (see inspect; TLS: the socketpair retry)
  milliseconds recheck_delay = first_recheck;
  short events = POLLIN;               // TLS: what the handshake or read waits for
  std::vector<std::uint8_t> received;  // TLS: decrypted bytes so far (the preface)
  std::size_t received_n = 0;
  bool ready = false;  // TLS: preface complete, waiting for descriptors for the socketpair

  int socket() const { return tls ? tls->fd() : fd.get(); }
};

// A warning that folds its repeats: the first occurrence is logged at once,
// later ones at most every refusal_log_interval as one line with their count.
struct folded_warning {
  std::size_t unlogged = 0;
  steady::time_point last{};
  bool logged = false;

  /// One more occurrence; true when a line is due now.
  bool add(steady::time_point now, milliseconds interval) {
    ++unlogged;
    return !logged || now - last >= interval;
  }
  /// Folded occurrences whose interval has passed (checked at each sweep).
  bool overdue(steady::time_point now, milliseconds interval) const { return unlogged > 0 && now - last >= interval; }
  /// The count for the line logged now; a new interval starts.
  std::size_t take(steady::time_point now) {
    const std::size_t n = unlogged;
    unlogged = 0;
    last = now;
    logged = true;
    return n;
  }
};

}  // namespace

struct connection_acceptor::state {
  std::vector<int> listeners;
  bool tcp = false;
  acceptor_limits lim;
  hand_over_fn hand_over;
  log_fn log;
  acceptor_tls tls;
  unique_fd wake;
  std::atomic<bool> stopping{false};

  // the thread's own
  std::vector<pending_conn> pending;
  std::unordered_map<int, std::uint64_t> handed;  // descriptor number -> socket_id when handed over
  steady::time_point accept_resume{};             // listeners left out of poll until then
  bool failing = false;                           // in an episode of accept errors
  steady::time_point failing_since{};
  std::size_t failed_attempts = 0;
  int first_errno = 0;
  steady::time_point last_sweep{};
  folded_warning refusals, tls_failures;
  std::string last_tls_failure;
  std::vector<std::uint8_t> peek = std::vector<std::uint8_t>(http2_max_client_preface);

  // published for counters()
  // |open| without the relay's connections: counters() adds the relay's
  // live count, which changes between this thread's wake-ups
  std::atomic<std::size_t> open{0}, handshaking{0}, accepted{0}, handed_over{0}, refused{0}, handshake_timeouts{0},
      not_http2{0}, exhausted_episodes{0}, tls_failed{0};

  void say(int level, const std::string& m) const {
    if (log) log(level, m);
  }
  std::size_t in_relay() const { return tls.relay ? tls.relay->open() : 0; }
  std::size_t open_now() const { return handed.size() + pending.size() + in_relay(); }
  void publish() {
    open.store(handed.size() + pending.size());
    handshaking.store(pending.size());
  }

  // Forgets every handed-over descriptor gRPC has closed since.
  void sweep(steady::time_point now) {
    last_sweep = now;
    for (auto it = handed.begin(); it != handed.end();) {
      const auto id = socket_id(it->first);
      if (!id || *id != it->second) it = handed.erase(it);
      else ++it;
    }
    if (refusals.overdue(now, lim.refusal_log_interval)) log_refusals(now);
    if (tls_failures.overdue(now, lim.refusal_log_interval)) log_tls_failures(now);
  }

  void log_tls_failures(steady::time_point now) {
    say(2, "gRPC listener: " + std::to_string(tls_failures.take(now)) +
               " TLS handshake(s) failed, the last: " + last_tls_failure +
               " (a client that does not speak TLS, does not offer h2, or lacks a trusted certificate; at most one "
               "such line every " +
               std::to_string(lim.refusal_log_interval.count()) + " ms)");
  }

  void tls_failure(const std::string& why, steady::time_point now) {
    tls_failed.fetch_add(1);
    last_tls_failure = why;
    if (tls_failures.add(now, lim.refusal_log_interval)) log_tls_failures(now);
  }

  void log_refusals(steady::time_point now) {
    say(2, "gRPC listener: " + std::to_string(refusals.take(now)) +
               " connection(s) closed at accept: daemon.max_connections = " + std::to_string(lim.max_connections) +
               " connections are open (in their handshake or held by gRPC); raise daemon.max_connections or find "
               "the client holding them (at most one such line every " +
               std::to_string(lim.refusal_log_interval.count()) + " ms)");
  }

  void refuse(steady::time_point now) {
    refused.fetch_add(1);
    if (refusals.add(now, lim.refusal_log_interval)) log_refusals(now);
  }

  // accept4 (or a TLS connection's socketpair) failed for want of
  // descriptors or another error of the process: leave the listeners out of
  // poll for a while and try again; one line per episode.
  void back_off(int e, steady::time_point now, const char* call = "accept") {
    accept_resume = now + lim.exhausted_backoff;
    ++failed_attempts;
    if (failing) return;
    failing = true;
    failing_since = now;
    failed_attempts = 1;
    first_errno = e;
    const std::string every = " every " + std::to_string(lim.exhausted_backoff.count()) + " ms";
    if (out_of_descriptors(e)) {
      exhausted_episodes.fetch_add(1);
      say(2, std::string("gRPC listener: ") + call + " failed: " + std::strerror(e) + " (" +
                 std::to_string(open_now()) + " client connections open, open file limit " + soft_fd_limit() +
                 "); new connections wait in the listen queue, accept is retried" + every +
                 " until descriptors free up");
    } else {
      say(3, std::string("gRPC listener: ") + call + " failed: " + std::strerror(e) + "; retrying" + every);
    }
  }

  void accepting_again(steady::time_point now) {
    say(1, "gRPC listener: accepting again after " + std::to_string(ms_between(failing_since, now)) + " ms (" +
               std::to_string(failed_attempts) + " failed attempt(s): " + std::strerror(first_errno) + ")");
    failing = false;
  }

  void accept_from(int listener, steady::time_point now) {
    for (int i = 0; i < accepts_per_wake; ++i) {
      const int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        const int e = errno;
        if (e == EAGAIN || e == EWOULDBLOCK) return;
        if (connection_error(e)) continue;
        back_off(e, now);
        return;
      }
      unique_fd c(fd);
      // TLS: the episode ends when a connection gets its socketpair too
      if (failing && !tls.context) accepting_again(now);
      accepted.fetch_add(1);
      handed.erase(fd);  // the kernel gave us this number: what we handed over under it is closed
      if (open_now() >= lim.max_connections) {
        if (now - last_sweep >= sweep_at_cap_interval) sweep(now);
        if (open_now() >= lim.max_connections) {
          refuse(now);
          continue;  // |c| closes
        }
      }
      if (tcp) {
        // as gRPC's listener does; without it the connection still works
        // (with Nagle's delay), so a failure is not fatal
        const int one = 1;
        (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      }
      pending_conn p;
      p.deadline = now + lim.handshake_timeout;
      p.recheck_at = now;
      if (tls.context) {
        try {
          p.tls = std::make_unique<tls_session>(*tls.context, std::move(c));
        } catch (const std::bad_alloc&) {
          continue;  // out of memory: the connection closes, the client retries
        }
      } else {
        p.fd = std::move(c);
      }
      pending.push_back(std::move(p));
    }
  }

  // The client's first bytes, peeked: true when |p| leaves the pending list
  // (handed over or closed). A partial preface keeps the socket readable, so
  // poll would report it at once again: it is left out of poll and peeked
  // again after 10, 20, 40 ... 500 ms (a gRPC client sends the preface in
  // one write, so this is for odd or hostile clients only).
  bool inspect(pending_conn& p, steady::time_point now) {
    if (p.tls) return inspect_tls(p, now);
    const ssize_t n = ::recv(p.fd.get(), peek.data(), peek.size(), MSG_PEEK | MSG_DONTWAIT);
    if (n < 0) return !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);  // reset: close
    if (n == 0) return true;  // closed by the client before its preface
    switch (classify_client_preface({peek.data(), std::size_t(n)})) {
      case preface_state::complete: {
        const int fd = p.fd.get();
        const auto id = socket_id(fd);
        if (!id) return true;
        handed[fd] = *id;
        handed_over.fetch_add(1);
        hand_over(p.fd.release());  // gRPC's from here
        return true;
      }
      case preface_state::invalid: not_http2.fetch_add(1); return true;
      case preface_state::partial: break;
    }
    p.recheck_at = now + p.recheck_delay;
    p.recheck_delay = std::min(p.recheck_delay * 2, max_recheck);
    return false;
  }

  // A TLS connection: a handshake step, then its preface read decrypted
  // (consumed: kept for the relay, which delivers it to gRPC first), then
  // the hand-over. Reads consume, so no peek backoff: the socket is polled
  // for what OpenSSL waits for. True when |p| leaves the pending list.
  bool inspect_tls(pending_conn& p, steady::time_point now) {
    if (!p.ready) {
      tls_wait w = p.tls->handshake();
      if (w == tls_wait::none && p.received.empty()) p.received.resize(tls_relay::buffer_size);
      while (w == tls_wait::none) {
        // the preface is at most http2_max_client_preface bytes and a read
        // at most one record (16 KiB): the buffer holds both
        const tls_io r = p.tls->read(std::span(p.received).subspan(p.received_n));
        if (r.bytes == 0) {
          w = r.wait;
          break;
        }
        p.received_n += r.bytes;
        const auto c = classify_client_preface({p.received.data(), p.received_n});
        if (c == preface_state::invalid) {
          not_http2.fetch_add(1);
          return true;
        }
        if (c == preface_state::complete) {
          p.ready = true;
          break;
        }
      }
      if (!p.ready) {
        switch (w) {
          case tls_wait::readable: p.events = POLLIN; return false;
          case tls_wait::writable: p.events = POLLOUT; return false;
          case tls_wait::failed: tls_failure(p.tls->error(), now); return true;
          default: return true;  // closed by the client
        }
      }
    }
    if (failing && now < accept_resume) {
      // out of descriptors a moment ago: one retry per back-off round for
      // all connections waiting here, not one each
      p.recheck_at = accept_resume;
      return false;
    }
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) {
      // out of descriptors like accept4: retried, bounded by the deadline
      back_off(errno, now, "socketpair for a TLS connection");
      p.recheck_at = now + lim.exhausted_backoff;
      return false;
    }
    unique_fd ours(sv[0]), theirs(sv[1]);
    if (failing) accepting_again(now);
    p.received.resize(p.received_n);
    try {
      tls.relay->add(std::move(p.tls), std::move(ours), std::move(p.received));
    } catch (const std::exception&) {
      return true;  // out of memory: the connection closes
    }
    handed_over.fetch_add(1);
    hand_over(theirs.release());  // gRPC's from here
    return true;
  }

  void expire(steady::time_point now) {
    const auto gone = std::remove_if(pending.begin(), pending.end(), [&](const pending_conn& p) {
      if (now < p.deadline) return false;
      handshake_timeouts.fetch_add(1);
      return true;
    });
    pending.erase(gone, pending.end());
  }
};

connection_acceptor::connection_acceptor(std::vector<int> listeners, bool tcp, const acceptor_limits& limits,
                                         hand_over_fn hand_over, log_fn log, acceptor_tls tls)
    : _s(std::make_unique<state>()) {
  if (limits.max_connections == 0) throw std::invalid_argument("max_connections must be at least 1");
  if (bool(tls.context) != bool(tls.relay)) throw std::invalid_argument("TLS needs both a context and a relay");
  _s->tls = tls;
  _s->listeners = std::move(listeners);
  _s->tcp = tcp;
  _s->lim = limits;
  _s->hand_over = std::move(hand_over);
  _s->log = std::move(log);
  _s->wake.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!_s->wake) throw std::runtime_error(std::string("gRPC listener: eventfd: ") + std::strerror(errno));
  _s->last_sweep = steady::now();
  _thread = std::thread([this] { run(); });
  ::pthread_setname_np(_thread.native_handle(), "cuzk-accept");  // a name for ps/top; failure is harmless
}

connection_acceptor::~connection_acceptor() { stop(); }

void connection_acceptor::stop() {
  if (!_thread.joinable()) return;
  _s->stopping.store(true);
  const std::uint64_t one = 1;
  // the counter cannot overflow with one write; should it fail, the thread
  // still sees |stopping| at its next wake-up (at most sweep_interval)
  (void)!::write(_s->wake.get(), &one, sizeof one);
  _thread.join();
}

acceptor_counters connection_acceptor::counters() const {
  const state& s = *_s;
  const std::size_t relayed = s.in_relay();
  return {.open = s.open.load() + relayed,
          .handshaking = s.handshaking.load(),
          .accepted = s.accepted.load(),
          .handed_over = s.handed_over.load(),
          .refused = s.refused.load(),
          .handshake_timeouts = s.handshake_timeouts.load(),
          .not_http2 = s.not_http2.load(),
          .exhausted_episodes = s.exhausted_episodes.load(),
          .tls_failed = s.tls_failed.load(),
          .relayed = relayed};
}

void connection_acceptor::run() {
  block_sigpipe_in_this_thread();  // TLS handshakes write to sockets clients may have reset
  state& s = *_s;
  std::vector<pollfd> pf;
  std::vector<std::ptrdiff_t> slot;  // pf index of each pending entry, -1 when not polled
  std::vector<std::size_t> done;
  while (!s.stopping.load()) {
    auto now = steady::now();
    s.expire(now);
    pf.clear();
    slot.assign(s.pending.size(), -1);
    pf.push_back({s.wake.get(), POLLIN, 0});
    const bool accepting = now >= s.accept_resume;
    if (accepting)
      for (int l : s.listeners) pf.push_back({l, POLLIN, 0});
    const std::size_t first_pending = pf.size();
    steady::time_point wake_at = s.last_sweep + s.lim.sweep_interval;
    if (!accepting) wake_at = std::min(wake_at, s.accept_resume);
    for (std::size_t i = 0; i < s.pending.size(); ++i) {
      const pending_conn& p = s.pending[i];
      wake_at = std::min(wake_at, p.deadline);
      if (p.ready) {
        wake_at = std::min(wake_at, p.recheck_at);  // its socketpair retried then, without poll
      } else if (now >= p.recheck_at) {
        slot[i] = std::ptrdiff_t(pf.size());
        pf.push_back({p.socket(), p.events, 0});
      } else {
        wake_at = std::min(wake_at, p.recheck_at);
      }
    }
    s.publish();  // the counts as they stand while the thread sleeps
    const auto wait = std::clamp<long long>(std::chrono::ceil<milliseconds>(wake_at - now).count(), 0, 60'000);
    const int r = ::poll(pf.data(), pf.size(), int(wait));
    if (r < 0) {
      if (errno == EINTR) continue;
      // ENOMEM (the kernel's poll table): nothing to do but wait and retry
      s.say(3, std::string("gRPC listener: poll failed: ") + std::strerror(errno) + "; retrying");
      std::this_thread::sleep_for(s.lim.exhausted_backoff);
      continue;
    }
    if (pf[0].revents) {
      std::uint64_t v = 0;
      (void)!::read(s.wake.get(), &v, sizeof v);  // drained; |stopping| decides
      if (s.stopping.load()) break;
    }
    now = steady::now();
    done.clear();
    for (std::size_t i = 0; i < slot.size(); ++i) {
      pending_conn& p = s.pending[i];
      const bool due = p.ready ? now >= p.recheck_at : slot[i] >= 0 && pf[std::size_t(slot[i])].revents != 0;
      if (due && s.inspect(p, now)) done.push_back(i);
    }
    // |done| is ascending: remove from the back, each slot filled by the
    // last entry (one already inspected or not polled), so the indices
    // still to remove stay valid
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      if (*it + 1 != s.pending.size()) s.pending[*it] = std::move(s.pending.back());
      s.pending.pop_back();
    }
    for (std::size_t k = 1; k < first_pending; ++k)
      if (pf[k].revents) s.accept_from(pf[k].fd, now);
    if (now - s.last_sweep >= s.lim.sweep_interval) s.sweep(now);
  }
  s.pending.clear();  // connections still in their handshake are closed
  s.publish();
}

}  // namespace cuzk::service
