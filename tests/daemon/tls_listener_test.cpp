// SPDX-License-Identifier: Apache-2.0
// The TLS gRPC listener: TLS terminated by the daemon and relayed to gRPC
// over a socketpair (tls_terminator.hpp, tls_relay.hpp), so it goes
// through our accept loop like the plaintext one (docs/RELIABILITY.md,
// "Process resilience"):
//  * max_connections: TLS connections beyond it are closed at once, a slot
//    freed by a client going away is used again;
//  * handshake timeout: a silent client and one that sent half a
//    ClientHello are closed at the timeout; a plaintext HTTP/2 client, a
//    TLS client offering only http/1.1 and one offering no ALPN at once;
//  * the relay: 32 MiB each way through one connection arrive intact, the
//    sender is held back while the other end does not read (bounded
//    buffers), and a close on either side reaches the other (close_notify
//    to the client; EOF to gRPC's end);
//  * large requests and concurrent calls from four channels through the
//    relay; a unix socket with TLS keeps its mode; bad TLS files refuse
//    the start with a reason.
// After descriptor exhaustion (the real binary, RLIMIT_NOFILE 256):
// tls_listener.after_descriptor_exhaustion... in listener_test.cpp, beside
// the plaintext test it shares its body with. The TLS basics (a TLS client
// proves, plaintext and untrusted servers refused, client certificates) are
// security_tls.* in security_test.cpp.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "common/test_seed.hpp"
#include "connection_acceptor.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"
#include "grpc_service.hpp"
#include "listen_address.hpp"
#include "listen_socket.hpp"
#include "listener_test_support.hpp"
#include "tls_relay.hpp"
#include "tls_terminator.hpp"
#include "tls_test_support.hpp"
#include "unique_fd.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cuzk;
namespace fs = std::filesystem;
namespace pb = cuzk::v1;
using service::unique_fd;
using steady = std::chrono::steady_clock;
using test::closed_by_server;
using test::connect_tcp;
using test::eventually;
using test::log_capture;
using test::ms_since;
using test::own_tls_channel;
using test::pem_pair;
using test::preface_bytes;
using test::raw_tls_client;
using test::send_all;
using test::status_ok;

service::grpc_server_options tls_options(const pem_pair& server) {
  service::grpc_server_options o;
  o.tls_cert_pem = server.cert;
  o.tls_key_pem = server.key;
  return o;
}

// max_connections = 3: a 4th TLS client and raw sockets are closed at
// accept (before any handshake), one log line for all of them; a client
// going away frees its slot once the relay and gRPC have both closed it.
TEST(tls_listener, connections_beyond_max_connections_are_closed_and_a_freed_slot_is_used_again) {
  test::bare_engine d("cuzk-tls-listener");
  const pem_pair server = test::self_signed("localhost");
  log_capture log;
  auto o = tls_options(server);
  o.listener.max_connections = 3;
  o.log = log.fn();
  service::grpc_server s(*d.e, "127.0.0.1:0", o);
  const std::string target = "127.0.0.1:" + std::to_string(s.port());
  std::vector<std::shared_ptr<grpc::Channel>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(own_tls_channel(target, server));
    ASSERT_TRUE(status_ok(held.back())) << i;
  }
  EXPECT_TRUE(eventually([&] { return s.connections().open == 3 && s.connections().relayed == 3; }, 2s))
      << s.connections().open << " open, " << s.connections().relayed << " relayed";
  {
    auto fourth = own_tls_channel(target, server);
    EXPECT_FALSE(status_ok(fourth, 1500ms));
  }
  EXPECT_GE(s.connections().refused, 1u);
  const std::string hello = test::client_hello();
  std::vector<unique_fd> raw;
  for (int i = 0; i < 10; ++i) {
    raw.push_back(connect_tcp(s.port()));
    ASSERT_TRUE(raw.back());
    send_all(raw.back().get(), hello);
  }
  for (auto& r : raw) EXPECT_TRUE(closed_by_server(r.get(), 2s));
  const auto c = s.connections();
  std::printf("at the cap: open %zu (relayed %zu), refused %zu, accepted %zu; log lines about it: %zu\n", c.open,
              c.relayed, c.refused, c.accepted, log.count("closed at accept"));
  EXPECT_GE(c.refused, 11u);
  EXPECT_EQ(c.open, 3u);
  EXPECT_EQ(c.tls_failed, 0u);  // refused before their handshake
  EXPECT_GE(log.count("closed at accept: daemon.max_connections = 3"), 1u) << log.all();
  EXPECT_LE(log.count("closed at accept: daemon.max_connections = 3"), 2u) << log.all();
  for (auto& ch : held) EXPECT_TRUE(status_ok(ch));
  const auto t0 = steady::now();
  held.erase(held.begin());
  EXPECT_TRUE(eventually([&] { return status_ok(own_tls_channel(target, server), 1s); }, 10s)) << s.connections().open;
  std::printf("a freed slot was used after %lld ms\n", ms_since(t0));
  for (auto& ch : held) EXPECT_TRUE(status_ok(ch));
}

// handshake timeout 300 ms: a silent socket and half a ClientHello closed
// at the timeout; a plaintext HTTP/2 client and TLS clients without h2 at
// once; a TLS client with h2 and its preface handed to gRPC and held.
TEST(tls_listener, the_handshake_timeout_closes_silent_and_half_hello_clients_and_non_h2_clients_at_once) {
  test::bare_engine d("cuzk-tls-listener");
  const pem_pair server = test::self_signed("localhost");
  log_capture log;
  auto o = tls_options(server);
  o.listener.handshake_timeout_ms = 300;
  o.log = log.fn();
  service::grpc_server s(*d.e, "127.0.0.1:0", o);
  const std::string hello = test::client_hello();
  ASSERT_GT(hello.size(), 100u);
  const auto t0 = steady::now();
  unique_fd silent = connect_tcp(s.port()), half = connect_tcp(s.port()), plain = connect_tcp(s.port());
  ASSERT_TRUE(silent && half && plain);
  send_all(half.get(), hello.substr(0, hello.size() / 2));
  send_all(plain.get(), preface_bytes());
  raw_tls_client http1(connect_tcp(s.port()), "\x08http/1.1"), no_alpn(connect_tcp(s.port()), ""),
      whole(connect_tcp(s.port()), "\x02h2");
  EXPECT_FALSE(http1.handshake(2s));                     // the server's no_application_protocol alert
  const bool no_alpn_handshake = no_alpn.handshake(2s);  // TLS 1.3: the client may finish before the server refuses
  EXPECT_TRUE(!no_alpn_handshake || no_alpn.closed_by_server(2s));
  ASSERT_TRUE(whole.handshake(2s));
  ASSERT_TRUE(whole.write_all(preface_bytes(), 2s));
  EXPECT_TRUE(closed_by_server(plain.get(), 2s));
  const long long plain_ms = ms_since(t0);
  EXPECT_TRUE(closed_by_server(silent.get(), 3s));
  const long long silent_ms = ms_since(t0);
  EXPECT_TRUE(closed_by_server(half.get(), 3s));
  const long long half_ms = ms_since(t0);
  EXPECT_FALSE(whole.closed_by_server(500ms));  // gRPC holds it
  const auto c = s.connections();
  std::printf(
      "plaintext HTTP/2 client closed after %lld ms, silent one after %lld ms, half ClientHello after %lld ms "
      "(timeout 300 ms)\n",
      plain_ms, silent_ms, half_ms);
  std::printf("%s", log.all().c_str());
  EXPECT_LT(plain_ms, 290);  // at once, not at the timeout
  EXPECT_GE(silent_ms, 290);
  EXPECT_GE(half_ms, 290);
  EXPECT_EQ(c.handshake_timeouts, 2u);
  EXPECT_EQ(c.tls_failed, 3u);  // plaintext, http/1.1 only, no ALPN
  EXPECT_EQ(c.handed_over, 1u);
  EXPECT_EQ(c.handshaking, 0u);
  EXPECT_EQ(c.relayed, 1u);
  // the first failure logged at once with its reason, the others folded into the next line
  EXPECT_GE(log.count("TLS handshake(s) failed, the last: handshake: "), 1u) << log.all();
  EXPECT_LE(log.count("TLS handshake(s) failed"), 2u) << log.all();
  EXPECT_TRUE(status_ok(own_tls_channel("127.0.0.1:" + std::to_string(s.port()), server)));
}

// The process's open descriptors, each as (number, device, inode). Compared
// by identity, not counted: another test's gRPC in the same process closes
// its own pollers a second or so after that test ends (its event engine's
// threads), which a count would take for this test's doing.
std::set<std::tuple<int, dev_t, ino_t>> open_fds() {
  std::set<std::tuple<int, dev_t, ino_t>> fds;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    const int fd = std::atoi(e.path().filename().c_str());
    struct stat st {};
    // directories left out: the iterator's own descriptor on /proc/self/fd
    // takes whatever number is lowest free at each call
    if (::fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) fds.emplace(fd, st.st_dev, st.st_ino);
  }
  return fds;
}

/// Descriptors in |now| that were not open (as the same file) in |before|.
std::string new_fds(const std::set<std::tuple<int, dev_t, ino_t>>& before,
                    const std::set<std::tuple<int, dev_t, ino_t>>& now) {
  std::string out;
  for (const auto& f : now)
    if (!before.count(f)) {
      out += ' ';
      out += std::to_string(std::get<0>(f));
    }
  return out;
}

// A TCP connection whose socket buffers stay small (64 KiB): the bytes the
// test can push without the other side reading are mostly the relay's and
// the server's, not its own.
unique_fd connect_tcp_small_buffers(int port) {
  unique_fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int size = 64 * 1024;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(std::uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) return unique_fd();
  return fd;
}

// The acceptor and relay with an echo in gRPC's place (blocking: it stops
// reading while its write back waits): 32 MiB each way through one TLS
// connection. First the client only writes: it is held back well before
// 32 MiB (the relay stops reading a side whose peer does not drain).
// Then it reads as well: every byte comes back in order. The echo then
// closes its end (as gRPC does): the client gets close_notify and the
// relay forgets the connection. A second client goes away: the echo reads
// EOF (gRPC would close its end) and the relay forgets that one too. A
// third one does not read what gRPC wrote before closing: it is closed at
// the drain timeout. Afterwards the process holds the descriptors it held
// before.
TEST(tls_listener, the_relay_carries_32_mib_each_way_intact_holds_back_the_sender_and_closes_both_ways) {
  const auto fds_before = open_fds();
  {
    const pem_pair server = test::self_signed("localhost");
    service::tls_server_context ctx(server.cert, server.key, "");
    service::tls_relay relay({}, 1s);  // drain timeout 1 s (10 s in the daemon)
    service::listen_sockets ls(service::parse_listen_address("127.0.0.1:0"), 0600);
    std::atomic<std::size_t> close_after{0};
    std::atomic<bool> flood{false};
    std::atomic<std::size_t> flood_bytes{0};
    std::atomic<int> echo_eof{0}, echo_closed{0};
    std::vector<std::thread> echoes;  // pushed by the acceptor thread only, joined after it stopped
    const auto echo = [&](int fd, std::size_t limit, bool flooding) {
      unique_fd f(fd);
      if (flooding) {
        // as gRPC closing a connection with bytes still to send: write until
        // nothing has gone for 300 ms (every buffer on the way is full), then
        // close
        const std::string junk(256 * 1024, 'x');
        auto last = steady::now();
        for (;;) {
          const ssize_t w = ::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
          if (w > 0) {
            flood_bytes.fetch_add(std::size_t(w));
            last = steady::now();
            continue;
          }
          if (w < 0 && errno != EAGAIN && errno != EINTR) break;  // the relay closed ours
          if (flood_bytes.load() > 0 && steady::now() - last >= 300ms) break;
          std::this_thread::sleep_for(10ms);
        }
        echo_closed.fetch_add(1);
        return;
      }
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      std::vector<char> buf(64 * 1024);
      std::size_t total = 0;
      while (total < limit) {
        const ssize_t n = ::read(fd, buf.data(), std::min(buf.size(), limit - total));
        if (n <= 0) {
          if (n == 0) echo_eof.fetch_add(1);
          break;
        }
        for (ssize_t off = 0; off < n;) {
          const ssize_t w = ::send(fd, buf.data() + off, std::size_t(n - off), MSG_NOSIGNAL);
          if (w <= 0) return;
          off += w;
        }
        total += std::size_t(n);
      }
      echo_closed.fetch_add(1);
    };
    service::acceptor_limits lim;
    lim.handshake_timeout = 5s;
    service::connection_acceptor acc(ls.fds(), true, lim,
                                     [&](int fd) { echoes.emplace_back(echo, fd, close_after.load(), flood.load()); },
                                     {}, {&ctx, &relay});

    std::mt19937_64 rng(test::test_seed("tls-relay-echo"));
    std::string payload = preface_bytes();
    const std::size_t bulk = 32u << 20;
    payload.reserve(payload.size() + bulk);
    while (payload.size() < bulk + preface_bytes().size()) {
      const std::uint64_t v = rng();
      payload.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    close_after.store(payload.size());
    raw_tls_client c(connect_tcp_small_buffers(ls.port()), "\x02h2");
    ASSERT_TRUE(c.handshake(3s));
    const auto t0 = steady::now();
    // 1. write only, until nothing more goes for 300 ms
    std::size_t sent = 0;
    for (;;) {
      std::size_t n = 0;
      const int r =
          SSL_write_ex(c.ssl(), payload.data() + sent, std::min<std::size_t>(payload.size() - sent, 1 << 20), &n);
      if (r == 1) {
        sent += n;
        if (sent == payload.size()) break;
        continue;
      }
      const short ev = c.wait_of(r);
      ASSERT_NE(ev, 0) << "the connection failed after " << sent << " bytes";
      if (!c.wait_for(ev, steady::now() + 300ms)) break;
    }
    const std::size_t held_back_at = sent;
    std::printf("writing without reading: held back after %.1f MiB of %.1f MiB\n", double(sent) / (1 << 20),
                double(payload.size()) / (1 << 20));
    EXPECT_LT(held_back_at, payload.size());
    EXPECT_EQ(relay.open(), 1u);
    // 2. both ways until every byte is back
    std::string back;
    back.reserve(payload.size());
    std::vector<char> buf(256 * 1024);
    const auto end = steady::now() + 30s;
    short write_wait = 0, read_wait = 0;
    while (back.size() < payload.size() && steady::now() < end) {
      bool moved = false;
      if (sent < payload.size()) {
        std::size_t n = 0;
        const int r =
            SSL_write_ex(c.ssl(), payload.data() + sent, std::min<std::size_t>(payload.size() - sent, 1 << 20), &n);
        if (r == 1) {
          sent += n;
          moved = true;
          write_wait = 0;
        } else {
          write_wait = c.wait_of(r);
          ASSERT_NE(write_wait, 0) << "write failed after " << sent << " bytes";
        }
      }
      std::size_t n = 0;
      const int r = SSL_read_ex(c.ssl(), buf.data(), buf.size(), &n);
      if (r == 1) {
        back.append(buf.data(), n);
        moved = true;
        read_wait = 0;
      } else {
        read_wait = c.wait_of(r);
        ASSERT_NE(read_wait, 0) << "read failed after " << back.size() << " bytes";
      }
      if (!moved) {
        pollfd p{c.fd(), short(read_wait | (sent < payload.size() ? write_wait : 0)), 0};
        (void)::poll(&p, 1, 100);
      }
    }
    const long long took = ms_since(t0);
    ASSERT_EQ(back.size(), payload.size());
    const auto diff = std::mismatch(back.begin(), back.end(), payload.begin());
    EXPECT_TRUE(diff.first == back.end()) << "first differing byte at " << (diff.first - back.begin());
    std::printf("%.1f MiB each way in %lld ms\n", double(payload.size()) / (1 << 20), took);
    // 3. the echo closed its end after the last byte: close_notify to the client
    EXPECT_TRUE(c.closed_by_server(3s));
    EXPECT_TRUE(c.got_close_notify());
    EXPECT_TRUE(eventually([&] { return relay.open() == 0; }, 2s)) << relay.open();
    EXPECT_EQ(echo_closed.load(), 1);
    // 4. a client that goes away: the echo (gRPC's end) reads EOF
    close_after.store(std::size_t(-1));
    {
      raw_tls_client gone(connect_tcp(ls.port()), "\x02h2");
      ASSERT_TRUE(gone.handshake(3s));
      ASSERT_TRUE(gone.write_all(preface_bytes() + "ping", 2s));
      EXPECT_TRUE(eventually([&] { return relay.open() == 1; }, 2s));
    }
    EXPECT_TRUE(eventually([&] { return echo_eof.load() == 1 && relay.open() == 0; }, 3s))
        << "echo EOF " << echo_eof.load() << ", relay open " << relay.open();
    // 5. gRPC's end closes with bytes the client never reads: the relay waits
    // the drain timeout for them, then closes the TLS side anyway
    flood.store(true);
    {
      // the server's TCP send buffer fixed at 64 KiB (accepted sockets take
      // the listener's), so the kernel cannot take it all by growing it
      const int sndbuf = 64 * 1024;
      ASSERT_EQ(::setsockopt(ls.fds()[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf), 0);
      raw_tls_client stuck(connect_tcp_small_buffers(ls.port()), "\x02h2");
      ASSERT_TRUE(stuck.handshake(3s));
      ASSERT_TRUE(stuck.write_all(preface_bytes(), 2s));
      EXPECT_TRUE(eventually([&] { return echo_closed.load() == 3; }, 3s));  // the 2nd one's ended at its EOF
      const auto t1 = steady::now();
      EXPECT_EQ(relay.open(), 1u);
      EXPECT_TRUE(eventually([&] { return relay.open() == 0; }, 5s));
      const long long drained = ms_since(t1);
      std::printf(
          "a client not reading the %.1f MiB gRPC wrote before closing: closed %lld ms after gRPC's end (drain "
          "timeout 1 s)\n",
          double(flood_bytes.load()) / (1 << 20), drained);
      EXPECT_GE(drained, 800);
    }
    acc.stop();
    relay.stop();
    for (auto& t : echoes) t.join();
    const auto counts = acc.counters();
    EXPECT_EQ(counts.handed_over, 3u);
    EXPECT_EQ(counts.tls_failed, 0u);
  }
  // every descriptor the acceptor, the relay and the connections used is closed
  const std::string left = new_fds(fds_before, open_fds());
  EXPECT_TRUE(left.empty()) << "descriptors left open:" << left;
}

// 20 concurrent calls from 4 channels through the relay, each with a 3 MiB
// request (max_message_size 8 MiB); one of 12 MiB is refused naming its
// exact size, so the server read every byte of it.
TEST(tls_listener, large_requests_and_concurrent_calls_from_four_channels_cross_the_relay) {
  test::bare_engine d("cuzk-tls-listener");
  const pem_pair server = test::self_signed("localhost");
  auto o = tls_options(server);
  o.max_message_size = 8u << 20;
  service::grpc_server s(*d.e, "127.0.0.1:0", o);
  const std::string target = "127.0.0.1:" + std::to_string(s.port());
  std::vector<std::unique_ptr<pb::ProvingEngine::Stub>> stubs;
  for (int i = 0; i < 4; ++i) stubs.push_back(pb::ProvingEngine::NewStub(own_tls_channel(target, server)));
  const auto submit = [&](pb::ProvingEngine::Stub& stub, const std::string& id, std::size_t bytes, std::string* msg) {
    pb::SubmitProofRequest q;
    q.set_request_id(id);
    q.set_proof_kind(pb::POREP_SEAL_COMMIT);
    std::string v(bytes, '\0');
    for (std::size_t i = 0; i < bytes; ++i) v[i] = char(i * 131 + id.size());
    q.set_vanilla_proof(std::move(v));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 30s);
    pb::SubmitProofResponse resp;
    const auto st = stub.SubmitProof(&ctx, q, &resp);
    if (msg) *msg = st.error_message() + " [request " + std::to_string(q.ByteSizeLong()) + " bytes]";
    return st.error_code();
  };
  const auto t0 = steady::now();
  std::vector<grpc::StatusCode> codes(20);
  std::vector<int> status_ok_count(20, 0);
  std::vector<std::thread> th;
  for (int i = 0; i < 20; ++i)
    th.emplace_back([&, i] {
      auto& stub = *stubs[std::size_t(i % 4)];
      codes[std::size_t(i)] = submit(stub, "big-" + std::to_string(i), 3u << 20, nullptr);
      for (int k = 0; k < 5; ++k) {
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + 10s);
        pb::GetStatusResponse resp;
        status_ok_count[std::size_t(i)] += stub.GetStatus(&ctx, pb::GetStatusRequest(), &resp).ok();
      }
    });
  for (auto& t : th) t.join();
  std::printf("20 calls of 3 MiB and 100 GetStatus over 4 TLS channels: %lld ms; first code %d\n", ms_since(t0),
              int(codes[0]));
  for (int i = 0; i < 20; ++i) {
    // no kind is registered: the whole request was read and parsed, then refused by the engine
    EXPECT_EQ(codes[std::size_t(i)], grpc::StatusCode::UNIMPLEMENTED) << i;
    EXPECT_EQ(status_ok_count[std::size_t(i)], 5) << i;
  }
  std::string msg;
  EXPECT_EQ(submit(*stubs[0], "too-big", 12u << 20, &msg), grpc::StatusCode::INVALID_ARGUMENT);
  {
    pb::SubmitProofRequest q;
    q.set_request_id("too-big");
    q.set_proof_kind(pb::POREP_SEAL_COMMIT);
    q.set_vanilla_proof(std::string(12u << 20, '\0'));
    EXPECT_NE(msg.find(std::to_string(q.ByteSizeLong()) + " bytes, over the daemon.max_message_size"),
              std::string::npos)
        << msg;
  }
  EXPECT_EQ(s.connections().relayed, 4u);
  EXPECT_EQ(s.connections().tls_failed, 0u);
}

// A unix socket with TLS: our socket, with daemon.unix_socket_mode, serves
// TLS clients and refuses plaintext ones.
TEST(tls_listener, a_unix_socket_with_tls_keeps_its_mode_and_serves_tls_clients_only) {
  test::bare_engine d("cuzk-tls-listener");
  const pem_pair server = test::self_signed("localhost");
  const fs::path sock = d.dir / "cuzk.sock";
  auto o = tls_options(server);
  o.unix_socket_mode = 0660;
  service::grpc_server s(*d.e, "unix://" + sock.string(), o);
  struct stat st {};
  ASSERT_EQ(::stat(sock.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  EXPECT_TRUE(status_ok(own_tls_channel("unix://" + sock.string(), server)));
  EXPECT_FALSE(status_ok(test::own_channel("unix://" + sock.string()), 1s));
  EXPECT_GE(s.connections().tls_failed, 1u);
}

// A certificate and key that do not go together, a PEM without a
// certificate and an empty client CA refuse the start, saying which.
TEST(tls_listener, bad_tls_files_refuse_the_start_with_a_reason) {
  const pem_pair a = test::self_signed("localhost"), b = test::self_signed("other");
  const auto why = [](const std::string& cert, const std::string& key, const std::string& ca) {
    try {
      service::tls_server_context c(cert, key, ca);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(why(a.cert, a.key, ""), "");
  EXPECT_EQ(why(a.cert, a.key, b.cert + a.cert), "");
  EXPECT_NE(why(a.cert, b.key, "").find("does not match the certificate"), std::string::npos) << why(a.cert, b.key, "");
  EXPECT_NE(why(a.key, a.key, "").find("no certificate in daemon.tls_cert_file"), std::string::npos);
  EXPECT_NE(why(a.cert, a.cert, "").find("no usable private key"), std::string::npos);
  EXPECT_NE(why(a.cert, a.key, "garbage").find("no certificate in daemon.tls_client_ca_file"), std::string::npos);
}

}  // namespace
