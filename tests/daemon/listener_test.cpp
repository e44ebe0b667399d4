// SPDX-License-Identifier: Apache-2.0
// The plaintext gRPC listener: our accept loop in front of gRPC (issue 25;
// connection_acceptor.hpp, docs/RELIABILITY.md "Process resilience"):
//  * the real binary with 256 descriptors (soft and hard limit) and 300
//    client connections: accept runs out of descriptors; once the clients
//    close them a new client connects and GetStatus answers (before: gRPC
//    1.51 logged "Failed accept4: Too many open files" once and never
//    accepted again), with one warning per episode, not one per attempt;
//  * max_connections: connections beyond it are closed at once, one log line
//    for many refusals, and a slot freed by a client going away is used again;
//  * handshake timeout: a silent socket and one that sent half a preface are
//    closed at the timeout, a client that speaks something else at once, a
//    full preface goes to gRPC;
//  * gRPC's max-idle timeout still closes connections handed over by
//    descriptor, and the count follows gRPC's close.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"
#include "daemon_config.hpp"
#include "grpc_service.hpp"
#include "http2_preface.hpp"
#include "listen_security.hpp"
#include "listen_socket.hpp"
#include "listener_test_support.hpp"
#include "process_support.hpp"
#include "tls_test_support.hpp"
#include "unique_fd.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cuzk;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;
namespace pb = cuzk::v1;
using steady = std::chrono::steady_clock;
using service::unique_fd;

using test::closed_by_server;
using test::connect_tcp;
using test::connect_unix;
using test::eventually;
using test::log_capture;
using test::ms_since;
using test::own_channel;
using test::preface_bytes;
using test::send_all;
using test::status_ok;

TEST(grpc_listener, the_http2_client_preface_is_classified) {
  using service::preface_state;
  const auto classify = [](const std::string& s) {
    return service::classify_client_preface({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
  };
  const std::string p = preface_bytes();
  EXPECT_EQ(classify(""), preface_state::partial);
  EXPECT_EQ(classify("PRI * HTTP/2.0\r\n"), preface_state::partial);
  EXPECT_EQ(classify(p.substr(0, 30)), preface_state::partial);
  EXPECT_EQ(classify(p), preface_state::complete);
  EXPECT_EQ(classify(p + "more frames"), preface_state::complete);
  EXPECT_EQ(classify("GET / HTTP/1.1\r\n"), preface_state::invalid);
  EXPECT_EQ(classify("P"), preface_state::partial);
  EXPECT_EQ(classify("PRX"), preface_state::invalid);
  std::string two = std::string(service::http2_client_magic) + std::string("\0\0\x0c\x04\0\0\0\0\0", 9);
  EXPECT_EQ(classify(two + std::string(6, '\0')), preface_state::partial);  // 12-byte payload, 6 there
  EXPECT_EQ(classify(two + std::string(12, '\0')), preface_state::complete);
  std::string ack = std::string(service::http2_client_magic) + std::string("\0\0\0\x04\x01\0\0\0\0", 9);
  EXPECT_EQ(classify(ack), preface_state::invalid);  // the first SETTINGS is not an ACK
  std::string headers = std::string(service::http2_client_magic) + std::string("\0\0\0\x01\0\0\0\0\x01", 9);
  EXPECT_EQ(classify(headers), preface_state::invalid);
  std::string odd = std::string(service::http2_client_magic) + std::string("\0\0\x05\x04\0\0\0\0\0", 9);
  EXPECT_EQ(classify(odd), preface_state::invalid);  // not a multiple of 6
  std::string huge = std::string(service::http2_client_magic) + std::string("\0\x40\x02\x04\0\0\0\0\0", 9);
  EXPECT_EQ(classify(huge), preface_state::invalid);  // over 16384
}

TEST(grpc_listener, max_connections_is_a_daemon_key) {
  EXPECT_EQ(service::daemon_config().max_connections, 4096u);
  const auto c = service::parse_config("[daemon]\nmax_connections = 8\n");
  EXPECT_EQ(c.max_connections, 8u);
  EXPECT_EQ(service::server_options(c).listener.max_connections, 8u);
  EXPECT_THROW(service::parse_config("[daemon]\nmax_connections = 0\n"), service::config_error);
}

// max_connections = 3: a 4th gRPC client and raw sockets are closed at
// accept, one log line for all of them; a client going away frees its slot.
TEST(grpc_listener, connections_beyond_max_connections_are_closed_and_a_freed_slot_is_used_again) {
  test::bare_engine d("cuzk-listener");
  log_capture log;
  service::grpc_server_options o;
  o.listener.max_connections = 3;
  o.log = log.fn();
  service::grpc_server s(*d.e, "127.0.0.1:0", o);
  const std::string target = "127.0.0.1:" + std::to_string(s.port());
  std::vector<std::shared_ptr<grpc::Channel>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(own_channel(target));
    ASSERT_TRUE(status_ok(held.back())) << i;
  }
  EXPECT_TRUE(eventually([&] { return s.connections().open == 3; }, 2s)) << s.connections().open;
  {
    // dropped after the check: a channel keeps reconnecting in the background
    auto fourth = own_channel(target);
    EXPECT_FALSE(status_ok(fourth, 1500ms));
  }
  EXPECT_GE(s.connections().refused, 1u);
  std::vector<unique_fd> raw;
  for (int i = 0; i < 10; ++i) {
    raw.push_back(connect_tcp(s.port()));
    ASSERT_TRUE(raw.back());
    send_all(raw.back().get(), preface_bytes());
  }
  for (auto& r : raw) EXPECT_TRUE(closed_by_server(r.get(), 2s));
  const auto c = s.connections();
  std::printf("at the cap: open %zu, refused %zu, accepted %zu; log lines about it: %zu\n", c.open, c.refused,
              c.accepted, log.count("closed at accept"));
  EXPECT_GE(c.refused, 11u);
  EXPECT_EQ(c.open, 3u);
  // 11 refusals, one line (a second only if the box stalled past the 10 s interval)
  EXPECT_GE(log.count("closed at accept: daemon.max_connections = 3"), 1u) << log.all();
  EXPECT_LE(log.count("closed at accept: daemon.max_connections = 3"), 2u) << log.all();
  for (auto& ch : held) EXPECT_TRUE(status_ok(ch));  // the held ones still serve
  // one client goes away: gRPC closes its side, the acceptor sees it
  const auto t0 = steady::now();
  held.erase(held.begin());
  EXPECT_TRUE(eventually([&] { return status_ok(own_channel(target), 1s); }, 10s)) << s.connections().open;
  std::printf("a freed slot was used after %lld ms\n", ms_since(t0));
  for (auto& ch : held) EXPECT_TRUE(status_ok(ch));
}

// handshake timeout 300 ms: silent and half-preface sockets closed at the
// timeout, an HTTP/1 client at once, a full preface handed to gRPC.
TEST(grpc_listener, the_handshake_timeout_closes_silent_and_partial_clients_and_another_protocol_at_once) {
  test::bare_engine d("cuzk-listener");
  const fs::path sock = d.dir / "cuzk.sock";
  service::grpc_server_options o;
  o.listener.handshake_timeout_ms = 300;
  service::grpc_server s(*d.e, "unix://" + sock.string(), o);
  const auto t0 = steady::now();
  unique_fd silent = connect_unix(sock), half = connect_unix(sock), http1 = connect_unix(sock),
            whole = connect_unix(sock);
  ASSERT_TRUE(silent && half && http1 && whole);
  send_all(half.get(), "PRI * HTTP/2.0\r\n");
  send_all(http1.get(), "GET /status HTTP/1.1\r\nHost: x\r\n\r\n");
  send_all(whole.get(), preface_bytes());
  EXPECT_TRUE(closed_by_server(http1.get(), 2s));  // at once: not_http2 below, not a timeout
  const long long http1_ms = ms_since(t0);
  EXPECT_TRUE(closed_by_server(silent.get(), 3s));
  const long long silent_ms = ms_since(t0);
  EXPECT_TRUE(closed_by_server(half.get(), 3s));
  EXPECT_FALSE(closed_by_server(whole.get(), 500ms));  // gRPC holds it
  const auto c = s.connections();
  std::printf("HTTP/1 client closed after %lld ms, silent one after %lld ms (timeout 300 ms)\n", http1_ms, silent_ms);
  EXPECT_GE(silent_ms, 290);
  EXPECT_EQ(c.not_http2, 1u);
  EXPECT_EQ(c.handshake_timeouts, 2u);
  EXPECT_EQ(c.handed_over, 1u);
  EXPECT_EQ(c.handshaking, 0u);
  EXPECT_TRUE(status_ok(own_channel("unix://" + sock.string())));
}

// gRPC's max-idle timeout reaches connections handed over by descriptor, and
// the open count follows gRPC's close.
TEST(grpc_listener, grpc_closes_idle_handed_over_connections_and_the_count_follows) {
  test::bare_engine d("cuzk-listener");
  service::grpc_server_options o;
  o.listener.max_idle_ms = 500;
  service::grpc_server s(*d.e, "127.0.0.1:0", o);
  auto ch = own_channel("127.0.0.1:" + std::to_string(s.port()));
  ASSERT_TRUE(status_ok(ch));
  EXPECT_TRUE(eventually([&] { return s.connections().open == 1; }, 2s));
  const auto t0 = steady::now();
  EXPECT_TRUE(eventually([&] { return s.connections().open == 0; }, 10s));
  std::printf("idle connection closed and uncounted after %lld ms (max idle 500 ms, sweep every 1 s)\n", ms_since(t0));
  EXPECT_TRUE(status_ok(ch));  // the client reconnects
}

// Our TCP sockets bind as gRPC's did: every address of the host on one
// port, and a wildcard on [::] dual-stack where the machine has IPv6.
TEST(grpc_listener, tcp_addresses_bind_like_grpcs_own_listener) {
  test::bare_engine d("cuzk-listener");
  EXPECT_EQ(service::split_host_port("127.0.0.1:9820"), std::make_pair(std::string("127.0.0.1"), std::string("9820")));
  EXPECT_EQ(service::split_host_port("[::1]:9820"), std::make_pair(std::string("::1"), std::string("9820")));
  EXPECT_EQ(service::split_host_port("ipv4:10.0.0.1:1"), std::make_pair(std::string("10.0.0.1"), std::string("1")));
  EXPECT_THROW(service::split_host_port(":9820"), std::invalid_argument);
  EXPECT_THROW(service::split_host_port("localhost"), std::invalid_argument);
  EXPECT_THROW(service::split_host_port("::1:9820"), std::invalid_argument);
  const bool v6 = [] {
    unique_fd s(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_loopback;
    return s && ::bind(s.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0;
  }();
  {
    service::grpc_server s(*d.e, "0.0.0.0:0", {});
    EXPECT_TRUE(status_ok(own_channel("127.0.0.1:" + std::to_string(s.port()))));
    if (v6) {
      EXPECT_TRUE(status_ok(own_channel("[::1]:" + std::to_string(s.port()))));
    }
  }
  {
    service::grpc_server s(*d.e, "localhost:0", {});
    EXPECT_TRUE(status_ok(own_channel("127.0.0.1:" + std::to_string(s.port()))));
  }
  if (v6) {
    service::grpc_server s(*d.e, "[::1]:0", {});
    EXPECT_TRUE(status_ok(own_channel("[::1]:" + std::to_string(s.port()))));
  }
  std::string err;
  try {
    service::grpc_server s(*d.e, "localhost", {});
  } catch (const std::exception& x) {
    err = x.what();
  }
  EXPECT_NE(err.find("is not host:port"), std::string::npos) << err;
}

// The real binary with 256 descriptors and 300 client connections (half
// idle gRPC connections, half silent sockets): accept fails with EMFILE;
// after the clients close theirs a new client is answered. With |tls| the
// listener speaks TLS (tls_listener_test.cpp has the rest of its tests):
// the idle half complete their TLS handshake and send the preface (three
// descriptors each in the daemon: TCP and both socketpair ends), so the
// descriptors run out at accept4 or at a socketpair.
void descriptor_exhaustion_then_a_new_client(bool tls) {
  struct temp_dir {
    fs::path p = fs::temp_directory_path() / ("cuzk-emfile-" + std::to_string(std::random_device{}()));
    temp_dir() { fs::create_directories(p); }
    ~temp_dir() { fs::remove_all(p); }
  } d;
  const fs::path sock = d.p / "cuzk.sock", log = d.p / "log";
  const test::pem_pair server = tls ? test::self_signed("localhost") : test::pem_pair{};
  {
    std::ofstream c(d.p / "cuzk.toml");
    c << "[daemon]\nlisten = \"unix://" << sock.string() << "\"\n";
    if (tls) {
      std::ofstream(d.p / "cert.pem") << server.cert;
      std::ofstream(d.p / "key.pem") << server.key;
      c << "tls_cert_file = \"" << (d.p / "cert.pem").string() << "\"\ntls_key_file = \"" << (d.p / "key.pem").string()
        << "\"\n";
    }
    c << "[srs]\nparam_cache = \"" << d.p.string() << "\"\n[memory]\ntotal_budget = \"2GiB\"\n";
  }
  const auto ready = [&](std::chrono::milliseconds limit) {
    return tls ? test::tls_connect_when_ready("unix://" + sock.string(), server, limit)
               : test::connect_when_ready(sock, limit);
  };
  constexpr rlim_t limit = 256;
  constexpr int clients = 300;
  rlimit own{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &own), 0);
  if (own.rlim_cur < 2 * clients + 100) GTEST_SKIP() << "this process may open only " << own.rlim_cur << " files";
  const pid_t pid = fork();
  if (pid == 0) {
    rlimit low{limit, limit};  // the hard limit too: the daemon raises its soft limit to the hard one
    setrlimit(RLIMIT_NOFILE, &low);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(CUZK_DAEMON_BINARY, "cuzk", "--config", (d.p / "cuzk.toml").c_str(), "--log-level", "info", nullptr);
    _exit(127);
  }
  const auto t_start = steady::now();
  ASSERT_TRUE(ready(15s)) << test::slurp(log);
  std::printf("daemon answered %lld ms after start\n", ms_since(t_start));
  std::vector<unique_fd> conns;
  std::vector<std::unique_ptr<test::raw_tls_client>> tls_conns;
  for (int i = 0; i < clients; ++i) {
    unique_fd c(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, sock.c_str(), sock.native().size());
    if (::connect(c.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) continue;  // queue full
    if (i % 2 == 0 && tls) {
      tls_conns.push_back(std::make_unique<test::raw_tls_client>(std::move(c), "\x02h2"));
      continue;
    }
    if (i % 2 == 0) (void)::send(c.get(), preface_bytes().data(), preface_bytes().size(), MSG_NOSIGNAL);
    conns.push_back(std::move(c));
  }
  if (tls) {
    // the handshakes side by side (non-blocking) for up to 1.5 s; the ones
    // still in the daemon's listen queue when descriptors ran out stay there
    const std::size_t done = test::handshake_all(tls_conns, preface_bytes(), 1500ms);
    std::printf("%zu of %zu TLS clients finished their handshake and sent the preface\n", done, tls_conns.size());
  }
  std::printf("%zu of %d connections made against a limit of %d descriptors\n", conns.size() + tls_conns.size(),
              clients, int(limit));
  // ours says "accept failed: Too many open files" (TLS: or "socketpair for
  // a TLS connection failed: ..."); gRPC 1.51's own listener "Failed
  // accept4: Too many open files"
  const bool exhausted = eventually(
      [&] {
        return test::slurp(log).find("ccept4: Too many open files") != std::string::npos ||
               test::slurp(log).find("failed: Too many open files") != std::string::npos;
      },
      10s);
  ASSERT_TRUE(exhausted) << "descriptors were not exhausted\n" << test::slurp(log);
  std::printf("descriptors exhausted %lld ms after start\n", ms_since(t_start));
  std::this_thread::sleep_for(1s);  // about ten retries while still exhausted
  conns.clear();
  tls_conns.clear();
  const auto t0 = steady::now();
  auto stub = ready(10s);
  const long long took = ms_since(t0);
  const std::string text = test::slurp(log);
  EXPECT_TRUE(stub) << "no answer 10 s after the clients closed their connections\n" << text;
  if (stub) std::printf("a new client was answered %lld ms after the clients closed theirs\n", took);
  // one warning per episode, each episode ended by a line that folds its attempts
  std::size_t warnings = 0, resumed = 0;
  for (std::size_t at = 0; (at = text.find("failed: Too many open files", at)) != std::string::npos; ++at) ++warnings;
  for (std::size_t at = 0; (at = text.find("accepting again after", at)) != std::string::npos; ++at) ++resumed;
  std::printf("exhaustion warnings: %zu, resumed lines: %zu\n", warnings, resumed);
  for (std::size_t at = 0, end = 0; (at = text.find("gRPC listener:", at)) != std::string::npos; at = end)
    std::printf("  %s\n", text.substr(at, (end = text.find('\n', at)) - at).c_str());
  EXPECT_GE(warnings, 1u) << text;
  EXPECT_EQ(warnings, resumed) << text;
  EXPECT_LE(warnings, 3u) << text;  // not one per retry
  stub.reset();  // an idle client connection slows gRPC's shutdown (docs/RELIABILITY.md, "Observed, not fixed")
  const auto t_term = steady::now();
  kill(pid, SIGTERM);
  EXPECT_EQ(test::wait_daemon_exit(pid, 15s), 0) << test::slurp(log);
  std::printf("SIGTERM: exit after %lld ms\n", ms_since(t_term));
}

TEST(grpc_listener, after_descriptor_exhaustion_accept_resumes_and_a_new_client_is_answered) {
  descriptor_exhaustion_then_a_new_client(false);
}

TEST(tls_listener, after_descriptor_exhaustion_accept_resumes_and_a_new_tls_client_is_answered) {
  descriptor_exhaustion_then_a_new_client(true);
}

}  // namespace
