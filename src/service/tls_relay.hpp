// SPDX-License-Identifier: Apache-2.0
#pragma once
// tls_relay: carries the bytes of TLS connections to and from gRPC. gRPC
// 1.51 takes only plaintext connections by descriptor, so for a TLS
// connection the acceptor (connection_acceptor.hpp) does the handshake,
// makes a socketpair, hands one end to gRPC and adds the TLS session and
// the other end here; one thread then decrypts what the client sends into
// the socketpair and encrypts what gRPC writes back.
//  * One thread with poll for every connection (not one per connection).
//    Everything is non-blocking; a step that cannot go on waits for what
//    OpenSSL asked for (SSL_read may need the socket writable and SSL_write
//    readable), so a connection never blocks the others.
//  * Bounded: a buffer of |buffer_size| per direction; a side whose peer
//    buffer is full is not read (its socket leaves the poll set), so a
//    client that does not read its answers stops gRPC's writes through the
//    socketpair and gRPC's flow control, and a gRPC that does not read
//    stops the client's TCP window; memory per connection stays bounded.
//  * Closing follows both ways. The client closes (close_notify or EOF):
//    what it sent is delivered, then our end is shut for writing, so gRPC
//    reads EOF and closes its end; answers gRPC still writes meanwhile go
//    to the client while it reads. gRPC closes its end (idle timeout,
//    shutdown, keepalive unanswered): what it wrote is delivered, close_notify
//    is sent and the TCP connection closed; a client that does not take
//    those bytes within |drain_timeout| (10 s) is closed anyway, so a client
//    that stopped reading does not hold a connection after gRPC let go
//    (while the buffer toward the client is full, gRPC's close is seen with
//    POLLRDHUP, without reading). A reset or TLS error on the client side
//    closes the TLS side at once and shuts our end the same way.
//  * A connection counts (open()) from add() until both sides are done:
//    the TLS side closed and gRPC's end closed (EOF on ours), so the
//    acceptor's max_connections sees every descriptor it costs.
// stop() closes every connection (no close_notify) and ends the thread;
// call it after gRPC's shutdown, whose calls in flight still need the relay.
// Cost: one thread; per connection three descriptors (TCP, two socketpair
// ends) and up to 2 x buffer_size of buffers, allocated while data waits in
// them and freed when they drain (an idle connection holds none); poll over
// all connections at each wake (O(connections)), fine for the thousands
// max_connections allows.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tls_terminator.hpp"
#include "unique_fd.hpp"

namespace cuzk::service {

class tls_relay {
 public:
  /// Bytes buffered per direction and connection at most (a TLS record
  /// holds 16 KiB; 4 records keep a stream moving between two wakes).
  static constexpr std::size_t buffer_size = 64 * 1024;

  /// How long what gRPC wrote before closing its end may take to reach the
  /// client (its keepalive timeout is 20 s; a closing connection needs less).
  static constexpr std::chrono::milliseconds default_drain_timeout{10'000};

  /// level 1 info, 2 warning, 3 error.
  using log_fn = std::function<void(int level, const std::string& message)>;
  explicit tls_relay(log_fn log = {}, std::chrono::milliseconds drain_timeout = default_drain_timeout);
  ~tls_relay();
  tls_relay(const tls_relay&) = delete;
  tls_relay& operator=(const tls_relay&) = delete;

  /// Relays |tls| (handshake done) and |local| (our end of the socketpair,
  /// non-blocking); |received|: decrypted bytes already read from the
  /// client (its HTTP/2 preface), at most buffer_size, delivered first.
  /// Thread-safe; after stop() the connection is closed at once.
  void add(std::unique_ptr<tls_session> tls, unique_fd local, std::vector<std::uint8_t> received);
  /// Connections added and not yet closed on both sides.
  std::size_t open() const { return _open.load(); }
  /// Closes every connection and ends the thread. Idempotent.
  void stop();

 private:
  struct state;
  void run();

  std::unique_ptr<state> _s;
  std::atomic<std::size_t> _open{0};
  std::thread _thread;
};

}  // namespace cuzk::service
