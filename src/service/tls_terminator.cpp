// SPDX-License-Identifier: Apache-2.0
// The daemon's own TLS server side (see tls_terminator.hpp).
#include "tls_terminator.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>

namespace cuzk::service {
namespace {

// TLS 1.2 suites HTTP/2 allows (ECDHE + AEAD, RFC 9113 section 9.2.2); the
// TLS 1.3 suites are all AEAD and stay OpenSSL's default.
constexpr const char* tls12_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// OpenSSL's reason for the oldest error queued on this thread, then the
// queue emptied (every SSL call must start with an empty queue).
std::string openssl_reason(const char* fallback) {
  const unsigned long e = ERR_peek_error();
  std::string s = fallback;
  if (e != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    const char* reason = ERR_reason_error_string(e);
    s = reason ? reason : buf;
  }
  ERR_clear_error();
  return s;
}

struct bio_deleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
using bio_ptr = std::unique_ptr<BIO, bio_deleter>;

bio_ptr pem_bio(const std::string& pem) {
  bio_ptr b(BIO_new_mem_buf(pem.data(), int(pem.size())));
  if (!b) throw std::bad_alloc();
  return b;
}

// No passphrase prompt: an encrypted key is refused instead of reading the
// terminal (OpenSSL's default callback would).
int no_passphrase(char*, int, int, void*) { return 0; }

// Selects "h2" when the client offers it; without it the handshake fails
// with a no_application_protocol alert (gRPC speaks nothing else). A client
// that sends no ALPN at all never reaches this: tls_session::handshake
// refuses it after the handshake.
int select_h2(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned inlen, void*) {
  for (unsigned i = 0; i < inlen;) {
    const unsigned len = in[i];
    if (i + 1 + len > inlen) break;
    if (len == tls_alpn_h2.size() && std::memcmp(in + i + 1, tls_alpn_h2.data(), len) == 0) {
      *out = in + i + 1;
      *outlen = static_cast<unsigned char>(len);
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + len;
  }
  return SSL_TLSEXT_ERR_ALERT_FATAL;
}

}  // namespace

tls_server_context::tls_server_context(const std::string& cert_chain_pem, const std::string& key_pem,
                                       const std::string& client_ca_pem) {
  ERR_clear_error();
  _ctx = SSL_CTX_new(TLS_server_method());
  if (!_ctx) throw std::runtime_error("TLS: cannot create a context: " + openssl_reason("out of memory"));
  try {
    SSL_CTX_set_min_proto_version(_ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(_ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_TICKET | SSL_OP_NO_COMPRESSION |
                                  SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_num_tickets(_ctx, 0);
    SSL_CTX_set_session_cache_mode(_ctx, SSL_SESS_CACHE_OFF);
    // partial writes and a write buffer that may move between retries (the
    // relay's buffers compact); record buffers freed while a connection idles
    SSL_CTX_set_mode(_ctx,
                     SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    if (SSL_CTX_set_cipher_list(_ctx, tls12_ciphers) != 1)
      throw std::runtime_error("TLS: cipher list refused: " + openssl_reason("unknown"));
    SSL_CTX_set_alpn_select_cb(_ctx, select_h2, nullptr);

    auto cb = pem_bio(cert_chain_pem);
    X509* leaf = PEM_read_bio_X509_AUX(cb.get(), nullptr, no_passphrase, nullptr);
    if (!leaf) throw std::runtime_error("TLS: no certificate in daemon.tls_cert_file: " + openssl_reason("empty"));
    const int used = SSL_CTX_use_certificate(_ctx, leaf);
    X509_free(leaf);
    if (used != 1) throw std::runtime_error("TLS: the certificate is not usable: " + openssl_reason("unknown"));
    while (X509* x = PEM_read_bio_X509(cb.get(), nullptr, no_passphrase, nullptr))
      if (SSL_CTX_add0_chain_cert(_ctx, x) != 1) {  // takes |x| only on success
        X509_free(x);
        throw std::runtime_error("TLS: an intermediate certificate is not usable: " + openssl_reason("unknown"));
      }
    ERR_clear_error();  // the end of the PEM ("no start line")

    auto kb = pem_bio(key_pem);
    EVP_PKEY* key = PEM_read_bio_PrivateKey(kb.get(), nullptr, no_passphrase, nullptr);
    if (!key)
      throw std::runtime_error(
          "TLS: no usable private key in daemon.tls_key_file (an encrypted key is not "
          "supported): " +
          openssl_reason("empty"));
    const int key_used = SSL_CTX_use_PrivateKey(_ctx, key);
    EVP_PKEY_free(key);
    if (key_used != 1 || SSL_CTX_check_private_key(_ctx) != 1)
      throw std::runtime_error("TLS: the key in daemon.tls_key_file does not match the certificate: " +
                               openssl_reason("unknown"));

    if (!client_ca_pem.empty()) {
      auto ab = pem_bio(client_ca_pem);
      X509_STORE* store = SSL_CTX_get_cert_store(_ctx);
      int n = 0;
      while (X509* x = PEM_read_bio_X509(ab.get(), nullptr, no_passphrase, nullptr)) {
        // trusted for verifying clients, and named in the CertificateRequest
        const bool ok = X509_STORE_add_cert(store, x) == 1 && SSL_CTX_add_client_CA(_ctx, x) == 1;
        X509_free(x);
        if (!ok) throw std::runtime_error("TLS: a client CA certificate is not usable: " + openssl_reason("unknown"));
        ++n;
      }
      ERR_clear_error();
      if (n == 0) throw std::runtime_error("TLS: no certificate in daemon.tls_client_ca_file");
      SSL_CTX_set_verify(_ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      _client_cert = true;
    } else {
      SSL_CTX_set_verify(_ctx, SSL_VERIFY_NONE, nullptr);
    }
  } catch (...) {
    SSL_CTX_free(_ctx);
    ERR_clear_error();
    throw;
  }
}

tls_server_context::~tls_server_context() { SSL_CTX_free(_ctx); }

tls_session::tls_session(const tls_server_context& ctx, unique_fd fd)
    : _fd(std::move(fd)), _ssl(SSL_new(ctx.get()), SSL_free) {
  if (!_ssl || SSL_set_fd(_ssl.get(), _fd.get()) != 1) {
    ERR_clear_error();
    throw std::bad_alloc();
  }
  SSL_set_accept_state(_ssl.get());
}

tls_session::~tls_session() = default;

tls_wait tls_session::wait_of(int ret, const char* step) {
  const int saved_errno = errno;
  switch (SSL_get_error(_ssl.get(), ret)) {
    case SSL_ERROR_WANT_READ: return tls_wait::readable;
    case SSL_ERROR_WANT_WRITE: return tls_wait::writable;
    case SSL_ERROR_ZERO_RETURN: ERR_clear_error(); return tls_wait::closed;
    case SSL_ERROR_SYSCALL:
      _broken = true;
      if (ERR_peek_error() == 0) {
        // EOF where OpenSSL does not fold it into ZERO_RETURN, or a reset:
        // the client went away, nothing it did wrong
        if (saved_errno == 0 || saved_errno == ECONNRESET || saved_errno == EPIPE) return tls_wait::closed;
        _error = std::string(step) + ": " + std::strerror(saved_errno);
        return tls_wait::failed;
      }
      [[fallthrough]];
    default: {
      _broken = true;
      std::string why = openssl_reason("unknown error");
      const long verify = SSL_get_verify_result(_ssl.get());
      if (verify != X509_V_OK)
        why += std::string(" (client certificate: ") + X509_verify_cert_error_string(verify) + ")";
      _error = std::string(step) + ": " + why;
      return tls_wait::failed;
    }
  }
}

tls_wait tls_session::handshake() {
  if (_established) return tls_wait::none;
  ERR_clear_error();
  errno = 0;
  const int r = SSL_do_handshake(_ssl.get());
  if (r != 1) return wait_of(r, "handshake");
  const unsigned char* p = nullptr;
  unsigned n = 0;
  SSL_get0_alpn_selected(_ssl.get(), &p, &n);
  if (n != tls_alpn_h2.size() || std::memcmp(p, tls_alpn_h2.data(), n) != 0) {
    _error = "handshake: the client offered no ALPN protocol (gRPC offers \"h2\")";
    return tls_wait::failed;
  }
  _established = true;
  return tls_wait::none;
}

tls_io tls_session::read(std::span<std::uint8_t> to) {
  ERR_clear_error();
  errno = 0;
  std::size_t n = 0;
  const int r = SSL_read_ex(_ssl.get(), to.data(), to.size(), &n);
  if (r == 1) return {n, tls_wait::none};
  return {0, wait_of(r, "read")};
}

tls_io tls_session::write(std::span<const std::uint8_t> from) {
  ERR_clear_error();
  errno = 0;
  std::size_t n = 0;
  const int r = SSL_write_ex(_ssl.get(), from.data(), from.size(), &n);
  if (r == 1) return {n, tls_wait::none};
  return {0, wait_of(r, "write")};
}

tls_wait tls_session::close_notify() {
  if (_broken) return tls_wait::none;  // OpenSSL forbids SSL_shutdown after a fatal error; nothing to send
  ERR_clear_error();
  errno = 0;
  // 0: ours sent, the peer's not awaited (the relay closes the socket next)
  const int r = SSL_shutdown(_ssl.get());
  if (r >= 0) return tls_wait::none;
  const tls_wait w = wait_of(r, "close_notify");
  return w == tls_wait::closed ? tls_wait::none : w;
}

void block_sigpipe_in_this_thread() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
}

}  // namespace cuzk::service
