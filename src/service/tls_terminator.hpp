// SPDX-License-Identifier: Apache-2.0
#pragma once
// TLS terminated by the daemon itself, so the TLS listener goes through our
// accept loop (connection_acceptor.hpp) like the plaintext one: gRPC 1.51
// takes only plaintext connections by descriptor, so the TLS connection is
// decrypted here and relayed to gRPC over a socketpair (tls_relay.hpp).
//  * tls_server_context: the server's SSL_CTX from the PEM strings of
//    grpc_server_options. TLS 1.2 or newer; on TLS 1.2 only ECDHE key
//    exchange with AEAD ciphers (HTTP/2 forbids the others, RFC 9113
//    section 9.2.2); ALPN must select "h2" (a gRPC client refuses a server
//    that selects nothing; a client that does not offer h2 is refused at
//    the handshake). With a client CA: a client certificate is required and
//    verified against it (SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT),
//    the same as gRPC's REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY.
//    No renegotiation, no session resumption (gRPC connections live long; a
//    ticket per connection would be bytes for nothing).
//  * tls_session: one connection, non-blocking: the handshake, reads and
//    writes report what they wait for (the socket readable or writable), so
//    one thread can serve many connections with poll. The session owns the
//    socket and closes it with itself.
// Cost: a handshake is one key exchange and one signature on the server,
// plus a verification with a client CA: `openssl speed` on the 2-core dev
// box gives P-256 sign 0.02 ms, ECDH 0.04 ms, verify 0.05 ms, RSA-2048 sign
// 0.25 ms, so ~0.1 ms of CPU per handshake with an EC key, on the accept
// thread; per open connection OpenSSL's state and record buffers (~70 KiB
// while data moves; released while the connection idles).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "unique_fd.hpp"

struct ssl_st;
struct ssl_ctx_st;

namespace cuzk::service {

/// The ALPN protocol every connection must negotiate.
inline constexpr std::string_view tls_alpn_h2 = "h2";

class tls_server_context {
 public:
  /// |cert_chain_pem|: the server certificate, then any intermediates;
  /// |client_ca_pem| empty: no client certificate asked for. Throws
  /// std::runtime_error naming what is wrong (no certificate in the PEM, a
  /// key that does not match it, an unreadable CA).
  tls_server_context(const std::string& cert_chain_pem, const std::string& key_pem, const std::string& client_ca_pem);
  ~tls_server_context();
  tls_server_context(const tls_server_context&) = delete;
  tls_server_context& operator=(const tls_server_context&) = delete;

  ssl_ctx_st* get() const { return _ctx; }
  bool requires_client_certificate() const { return _client_cert; }

 private:
  ssl_ctx_st* _ctx = nullptr;
  bool _client_cert = false;
};

/// What a non-blocking step needs before it can go on.
enum class tls_wait {
  none,      ///< done (or bytes moved)
  readable,  ///< the socket readable
  writable,  ///< the socket writable
  closed,    ///< the peer closed (close_notify or EOF): no more to read
  failed,    ///< a protocol or socket error; error() says which
};

struct tls_io {
  std::size_t bytes = 0;  ///< moved; 0 with a wait other than none
  tls_wait wait = tls_wait::none;
};

class tls_session {
 public:
  /// Takes |fd| (a connected, non-blocking socket); throws std::bad_alloc
  /// when OpenSSL cannot allocate the session.
  tls_session(const tls_server_context& ctx, unique_fd fd);
  ~tls_session();
  tls_session(const tls_session&) = delete;
  tls_session& operator=(const tls_session&) = delete;

  int fd() const { return _fd.get(); }
  /// One step of the server handshake: none once it is complete and "h2"
  /// was negotiated; failed for anything else the client did (a plaintext
  /// client, no h2 offered, a certificate missing or not trusted).
  tls_wait handshake();
  bool established() const { return _established; }
  /// Decrypted bytes into |to| (at most its size).
  tls_io read(std::span<std::uint8_t> to);
  /// Encrypts bytes of |from|. After a wait, call again with the same
  /// bytes (the buffer may move, not shrink; partial writes are reported).
  tls_io write(std::span<const std::uint8_t> from);
  /// Sends close_notify: none when sent (or nothing can be sent: the
  /// connection broke), readable / writable to retry, failed when the
  /// socket is gone.
  tls_wait close_notify();
  /// Why the last step failed (OpenSSL's reason or the socket error).
  const std::string& error() const { return _error; }

 private:
  tls_wait wait_of(int ret, const char* step);

  unique_fd _fd;
  std::unique_ptr<ssl_st, void (*)(ssl_st*)> _ssl;
  bool _established = false;
  bool _broken = false;  // a socket or protocol error: no close_notify
  std::string _error;
};

/// Blocks SIGPIPE in the calling thread: OpenSSL writes to the socket with
/// write(2), which raises SIGPIPE on a connection the peer reset; blocked,
/// write fails with EPIPE instead. The daemon ignores SIGPIPE for the whole
/// process; this keeps the TLS threads safe in any process (the tests).
void block_sigpipe_in_this_thread();

}  // namespace cuzk::service
