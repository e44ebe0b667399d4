// SPDX-License-Identifier: Apache-2.0
#pragma once
// TLS helpers of the daemon tests: self-signed certificates made with
// OpenSSL, gRPC channels that trust them, and a raw TLS client (OpenSSL,
// non-blocking) for what a gRPC client cannot do: stop halfway through a
// handshake, offer another ALPN protocol, or move bytes of its own choosing
// through the daemon's relay.
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <fcntl.h>
#include <openssl/x509v3.h>
#include <poll.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"
#include "process_support.hpp"
#include "unique_fd.hpp"

namespace cuzk::test {

struct pem_pair {
  std::string cert, key;
};

inline std::string bio_string(BIO* b) {
  char* p = nullptr;
  const long n = BIO_get_mem_data(b, &p);
  return std::string(p, std::size_t(n));
}

// A self-signed P-256 certificate for localhost / 127.0.0.1 (CA:TRUE so it
// is its own root).
inline pem_pair self_signed(const char* cn) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* x = X509_new();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509_set_issuer_name(x, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
  for (const auto& [nid, value] : {std::pair{NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
                                   std::pair{NID_basic_constraints, "critical,CA:TRUE"},
                                   std::pair{NID_key_usage, "critical,digitalSignature,keyCertSign"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(x, key, EVP_sha256());
  BIO* cb = BIO_new(BIO_s_mem());
  BIO* kb = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(cb, x);
  PEM_write_bio_PrivateKey(kb, key, nullptr, nullptr, 0, nullptr, nullptr);
  pem_pair out{bio_string(cb), bio_string(kb)};
  BIO_free(cb);
  BIO_free(kb);
  X509_free(x);
  EVP_PKEY_free(key);
  return out;
}

/// gRPC TLS credentials trusting |server|, with |client| as the client
/// certificate when given.
inline std::shared_ptr<grpc::ChannelCredentials> tls_credentials(const pem_pair& server,
                                                                 const pem_pair* client = nullptr) {
  grpc::SslCredentialsOptions o;
  o.pem_root_certs = server.cert;
  if (client) {
    o.pem_private_key = client->key;
    o.pem_cert_chain = client->cert;
  }
  return grpc::SslCredentials(o);
}

/// A TLS channel with its own connection (gRPC shares one connection
/// between channels of the same target by default); the server name
/// checked is "localhost" (also for unix: targets).
inline std::shared_ptr<grpc::Channel> own_tls_channel(const std::string& target, const pem_pair& server) {
  grpc::ChannelArguments a;
  a.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  a.SetSslTargetNameOverride("localhost");
  return grpc::CreateCustomChannel(target, tls_credentials(server), a);
}

/// A raw TLS client on a connected socket, non-blocking: ALPN offers
/// |alpn| (wire format, e.g. "\x02h2"; empty: no ALPN extension) and the
/// server certificate is not checked (the tests check the server side).
class raw_tls_client {
 public:
  raw_tls_client(service::unique_fd fd, const std::string& alpn)
      : _fd(std::move(fd)), _ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free), _ssl(nullptr, SSL_free) {
    SSL_CTX_set_mode(_ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    _ssl.reset(SSL_new(_ctx.get()));
    if (!alpn.empty())
      SSL_set_alpn_protos(_ssl.get(), reinterpret_cast<const unsigned char*>(alpn.data()), unsigned(alpn.size()));
    SSL_set_tlsext_host_name(_ssl.get(), "localhost");
    const int flags = ::fcntl(_fd.get(), F_GETFL);
    ::fcntl(_fd.get(), F_SETFL, flags | O_NONBLOCK);
    SSL_set_fd(_ssl.get(), _fd.get());
    SSL_set_connect_state(_ssl.get());
  }
  int fd() const { return _fd.get(); }
  SSL* ssl() const { return _ssl.get(); }

  /// What a failed non-blocking call waits for: POLLIN / POLLOUT, or 0 when
  /// the connection failed or was closed.
  short wait_of(int ret) const {
    switch (SSL_get_error(_ssl.get(), ret)) {
      case SSL_ERROR_WANT_READ: return POLLIN;
      case SSL_ERROR_WANT_WRITE: return POLLOUT;
      default: ERR_clear_error(); return 0;
    }
  }
  /// The handshake until done (true) or failed / |limit| passed (false).
  bool handshake(std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    for (;;) {
      const int r = SSL_do_handshake(_ssl.get());
      if (r == 1) return true;
      const short ev = wait_of(r);
      if (ev == 0 || !wait_for(ev, end)) return false;
    }
  }
  /// Writes all of |s| (false when the connection failed or |limit| passed).
  bool write_all(const std::string& s, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    std::size_t off = 0;
    while (off < s.size()) {
      std::size_t n = 0;
      const int r = SSL_write_ex(_ssl.get(), s.data() + off, s.size() - off, &n);
      if (r == 1) {
        off += n;
        continue;
      }
      const short ev = wait_of(r);
      if (ev == 0 || !wait_for(ev, end)) return false;
    }
    return true;
  }
  /// Reads until the server closes the connection (true: close_notify, EOF
  /// or a reset; what arrived before is dropped) or |limit| passes (false).
  bool closed_by_server(std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    char buf[4096];
    for (;;) {
      std::size_t n = 0;
      const int r = SSL_read_ex(_ssl.get(), buf, sizeof buf, &n);
      if (r == 1) continue;
      const short ev = wait_of(r);
      if (ev == 0) return true;
      if (!wait_for(ev, end)) return false;
    }
  }
  /// The close_notify the server sent was read (after closed_by_server).
  bool got_close_notify() const { return (SSL_get_shutdown(_ssl.get()) & SSL_RECEIVED_SHUTDOWN) != 0; }

  /// Polls the socket for |ev| until |end|.
  bool wait_for(short ev, std::chrono::steady_clock::time_point end) const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{_fd.get(), ev, 0};
    return ::poll(&p, 1, int(left.count())) == 1;
  }

 private:
  service::unique_fd _fd;
  std::unique_ptr<SSL_CTX, void (*)(SSL_CTX*)> _ctx;
  std::unique_ptr<SSL, void (*)(SSL*)> _ssl;
};

/// The first bytes a TLS client sends (its ClientHello record), made
/// without a socket.
inline std::string client_hello() {
  std::unique_ptr<SSL_CTX, void (*)(SSL_CTX*)> ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  std::unique_ptr<SSL, void (*)(SSL*)> ssl(SSL_new(ctx.get()), SSL_free);
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  SSL_set_bio(ssl.get(), in, out);  // |ssl| owns both
  SSL_set_alpn_protos(ssl.get(), reinterpret_cast<const unsigned char*>("\x02h2"), 3);
  SSL_set_connect_state(ssl.get());
  (void)SSL_do_handshake(ssl.get());  // wants the ServerHello; the ClientHello is in |out|
  ERR_clear_error();
  return bio_string(out);
}

/// A stub on |target| (TLS, trusting |server|) once GetStatus answers
/// (nullptr after |limit|).
inline std::unique_ptr<cuzk::v1::ProvingEngine::Stub> tls_connect_when_ready(const std::string& target,
                                                                             const pem_pair& server,
                                                                             std::chrono::milliseconds limit) {
  return connect_when_ready([&] { return own_tls_channel(target, server); }, limit);
}

/// Runs the handshakes of |clients| side by side, each then sending
/// |first_bytes|, for up to |limit|; the number that got that far.
inline std::size_t handshake_all(std::vector<std::unique_ptr<raw_tls_client>>& clients, const std::string& first_bytes,
                                 std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  std::vector<short> want(clients.size(), POLLOUT);  // 0: done or failed
  std::vector<bool> established(clients.size(), false);
  std::vector<std::size_t> sent(clients.size(), 0);
  std::size_t done = 0;
  std::vector<pollfd> pf;
  while (std::chrono::steady_clock::now() < end) {
    for (std::size_t i = 0; i < clients.size(); ++i) {
      SSL* ssl = clients[i]->ssl();
      while (want[i] != 0) {
        int r = 1;
        if (!established[i]) {
          r = SSL_do_handshake(ssl);
          if (r == 1) established[i] = true;
        } else {
          std::size_t n = 0;
          r = SSL_write_ex(ssl, first_bytes.data() + sent[i], first_bytes.size() - sent[i], &n);
          if (r == 1) sent[i] += n;
          if (sent[i] == first_bytes.size()) {
            want[i] = 0;
            ++done;
          }
        }
        if (r != 1) {
          want[i] = clients[i]->wait_of(r);
          break;
        }
      }
    }
    pf.clear();
    for (std::size_t i = 0; i < clients.size(); ++i)
      if (want[i] != 0) pf.push_back({clients[i]->fd(), want[i], 0});
    if (pf.empty()) break;
    (void)::poll(pf.data(), pf.size(), 50);
  }
  return done;
}

}  // namespace cuzk::test
