// SPDX-License-Identifier: Apache-2.0
#pragma once
// connection_acceptor: our accept loop in front of gRPC, for plaintext and
// TLS listeners alike (issue 25). gRPC 1.51 stops polling its own listener for good
// after one accept4 error other than EAGAIN / ECONNABORTED ("Failed accept4:
// Too many open files"), and has no connection cap. Here one thread accepts
// on our listening sockets (listen_socket.hpp) and hands each connection to
// gRPC (|hand_over|: grpc::AddInsecureChannelFromFd, which takes the
// descriptor):
//  * descriptors exhausted (EMFILE, ENFILE, ENOBUFS, ENOMEM from accept4):
//    the listeners leave the poll set for |exhausted_backoff| (100 ms) and
//    accept is tried again, for as long as it takes; connections wait in the
//    kernel's backlog meanwhile. One warning when an episode starts and one
//    line when accepting works again (with its length and the attempts), not
//    a line per attempt. Errors of one incoming connection (ECONNABORTED,
//    EPROTO, ...) skip it; an unexpected error backs off the same way, so the
//    loop never stops accepting.
//  * handshake: a connection is handed to gRPC once the client's HTTP/2
//    preface and first SETTINGS frame have arrived (peeked, left in the
//    socket; http2_preface.hpp); one that has not sent them within
//    |handshake_timeout| (10 s) is closed, as is one that sends something
//    else. gRPC's own GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS does not apply to
//    connections handed over by descriptor (they skip its handshake
//    manager); its other server channel arguments do (keepalive, max idle:
//    grpc_server_add_channel_from_fd builds the transport with the server's
//    channel args), so idle connections are still closed by gRPC.
//  * a cap: at most |max_connections| connections open at once, counting
//    the ones in their handshake and the ones gRPC holds; one beyond is
//    closed at once (the client sees the connection closed and retries with
//    its backoff), with a warning at most every |refusal_log_interval|
//    naming the count refused since the last one.
// Counting gRPC's closes: gRPC 1.51 has no callback when a transport closes
// its descriptor (an interceptor sees calls, not connections), so the
// acceptor remembers each descriptor number it handed over with the
// socket's SO_COOKIE (a 64-bit id the kernel gives each socket, never reused
// while the system runs; the socket's inode where the kernel lacks it). A
// sweep checks every entry: the number closed (EBADF), now another kind of
// file (ENOTSOCK) or a socket with another cookie means gRPC closed ours, so
// descriptor reuse cannot keep a dead connection counted or drop a live one.
// accept4 returning a number also proves that whatever we handed over under
// it is closed. The sweep runs every |sweep_interval| and, at the cap, before
// a connection is refused (at most every 50 ms), so the cap sees a slot as
// soon as gRPC frees it.
// TLS (|acceptor_tls| set, daemon.tls_cert_file): gRPC 1.51 takes only
// plaintext connections by descriptor, so the acceptor terminates TLS
// itself (tls_terminator.hpp). The handshake is this thread's handshake
// phase: non-blocking, bounded by the same |handshake_timeout| (a silent
// client or a stalled handshake is closed at it; a failed one at once,
// counted in |tls_failed| and logged at most every |refusal_log_interval|
// with its reason), then the HTTP/2 preface is read decrypted and checked
// as above. Then a socketpair: one end goes to gRPC (|hand_over|), the
// other with the TLS session to the relay thread (tls_relay.hpp), which
// carries the bytes. Such a connection counts as open until the relay is
// done with both sides (the relay's count; gRPC's end is not in the cookie
// map), so max_connections covers TLS connections too. socketpair failing
// for want of descriptors backs off like accept4 (the listeners pause, the
// hand-over is retried every |exhausted_backoff| until the handshake
// deadline); for TLS the episode ends when a socketpair succeeds again.
// Cost: one thread (asleep in poll), per connection a map entry, and per
// sweep one getsockopt per connection held (4096 in ~1 ms); with TLS each
// handshake's CPU (tls_terminator.hpp) on this thread and 64 KiB while its
// preface is read.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "unique_fd.hpp"

namespace cuzk::service {

class tls_server_context;
class tls_relay;

struct acceptor_limits {
  std::size_t max_connections = 4096;
  std::chrono::milliseconds handshake_timeout{10'000};
  std::chrono::milliseconds exhausted_backoff{100};
  std::chrono::milliseconds sweep_interval{1'000};
  std::chrono::milliseconds refusal_log_interval{10'000};
};

/// What the acceptor did since it started.
struct acceptor_counters {
  std::size_t open = 0;         ///< in their handshake + held by gRPC now
  std::size_t handshaking = 0;  ///< accepted, preface not complete yet
  std::size_t accepted = 0;
  std::size_t handed_over = 0;         ///< given to gRPC
  std::size_t refused = 0;             ///< closed at accept: max_connections open
  std::size_t handshake_timeouts = 0;  ///< no complete preface within handshake_timeout
  std::size_t not_http2 = 0;           ///< sent something else than an HTTP/2 preface
  std::size_t exhausted_episodes = 0;  ///< times accept ran out of descriptors (or memory)
  std::size_t tls_failed = 0;          ///< TLS handshakes that failed (not TLS, no h2, certificate)
  std::size_t relayed = 0;             ///< TLS connections in the relay now (part of |open|)
};

/// The TLS listener's parts (both set, or neither for plaintext); borrowed:
/// they must outlive the acceptor.
struct acceptor_tls {
  const tls_server_context* context = nullptr;
  tls_relay* relay = nullptr;
};

class connection_acceptor {
 public:
  /// Takes the accepted connection's descriptor (now its owner).
  using hand_over_fn = std::function<void(int fd)>;
  /// level 1 info, 2 warning, 3 error.
  using log_fn = std::function<void(int level, const std::string& message)>;

  /// Starts the thread on |listeners| (borrowed: they must outlive stop());
  /// |tcp|: set TCP_NODELAY on accepted connections, as gRPC does.
  /// |tls|: terminate TLS and relay (then |hand_over| gets socketpair ends).
  connection_acceptor(std::vector<int> listeners, bool tcp, const acceptor_limits& limits, hand_over_fn hand_over,
                      log_fn log, acceptor_tls tls = {});
  ~connection_acceptor();
  connection_acceptor(const connection_acceptor&) = delete;
  connection_acceptor& operator=(const connection_acceptor&) = delete;

  /// Stops accepting and closes the connections still in their handshake;
  /// hands nothing over after it returns (the relay keeps running: stop it
  /// after gRPC's shutdown). Idempotent.
  void stop();
  acceptor_counters counters() const;

 private:
  struct state;
  void run();

  std::unique_ptr<state> _s;
  std::thread _thread;
};

}  // namespace cuzk::service
