// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers of the listener tests (listener_test.cpp, tls_listener_test.cpp):
// the listener's log lines, raw sockets to the daemon, a gRPC channel with
// its own connection, and waits with a bound.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"
#include "http2_preface.hpp"
#include "unique_fd.hpp"

namespace cuzk::test {

using steady = std::chrono::steady_clock;
using service::unique_fd;

// The listener's log lines, kept for the test.
struct log_capture {
  std::mutex mu;
  std::vector<std::string> lines;
  std::function<void(int, const std::string&)> fn() {
    return [this](int, const std::string& m) {
      std::lock_guard lk(mu);
      lines.push_back(m);
    };
  }
  std::size_t count(const std::string& needle) {
    std::lock_guard lk(mu);
    std::size_t n = 0;
    for (const auto& l : lines) n += l.find(needle) != std::string::npos;
    return n;
  }
  std::string all() {
    std::lock_guard lk(mu);
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
  }
};

inline std::string preface_bytes() {
  std::string s(service::http2_client_magic);
  s += std::string("\0\0\0\x04\0\0\0\0\0", 9);  // an empty SETTINGS frame
  return s;
}

// A channel with its own connection (gRPC shares one connection between
// channels of the same target by default).
inline std::shared_ptr<grpc::Channel> own_channel(const std::string& target) {
  grpc::ChannelArguments a;
  a.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), a);
}

inline bool status_ok(const std::shared_ptr<grpc::Channel>& ch,
                      std::chrono::milliseconds limit = std::chrono::seconds(3)) {
  auto stub = cuzk::v1::ProvingEngine::NewStub(ch);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + limit);
  cuzk::v1::GetStatusResponse resp;
  return stub->GetStatus(&ctx, cuzk::v1::GetStatusRequest(), &resp).ok();
}

inline unique_fd connect_unix(const std::filesystem::path& p) {
  unique_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_TRUE(s) << std::strerror(errno);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, p.c_str(), p.native().size());
  if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) return unique_fd();
  return s;
}

inline unique_fd connect_tcp(int port) {
  unique_fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(std::uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) return unique_fd();
  return s;
}

inline void send_all(int fd, const std::string& s) {
  ASSERT_EQ(::send(fd, s.data(), s.size(), MSG_NOSIGNAL), ssize_t(s.size())) << std::strerror(errno);
}

// Waits up to |limit| for the server to close |fd| (EOF or reset; bytes the
// server sent before, such as its SETTINGS, are read and skipped).
inline bool closed_by_server(int fd, std::chrono::milliseconds limit) {
  const auto end = steady::now() + limit;
  char buf[512];
  while (steady::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) != 1) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return true;
  }
  return false;
}

/// True once |f| holds, checked every 10 ms for up to |limit|.
template <class F>
bool eventually(F f, std::chrono::milliseconds limit) {
  const auto end = steady::now() + limit;
  while (steady::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return f();
}

inline long long ms_since(steady::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - t).count();
}

}  // namespace cuzk::test
