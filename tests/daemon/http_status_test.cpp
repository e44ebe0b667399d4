// SPDX-License-Identifier: Apache-2.0
// The HTTP status listener under hostile clients (issue 25;
// docs/RELIABILITY.md, "Process resilience"):
//  * 24 silent sockets (connect, send nothing) and 8 slow ones (half a
//    request line, then nothing) do not block /status: 11 fresh requests
//    are all answered within 3 s each (before: 8 workers held for 5 s each,
//    1 of 11 answered);
//  * no Access-Control-Allow-Origin header (before: "*");
//  * with an auth token, /status and /metrics need "Authorization: Bearer".
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <random>

#include <httplib.h>

#include "daemon_test_support.hpp"
#include "http_status.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;

struct fixture {
  fs::path dir = fs::temp_directory_path() / ("cuzk-http-" + std::to_string(std::random_device{}()));
  std::unique_ptr<eng::engine> e;
  fixture() {
    fs::create_directories(dir);
    e = std::make_unique<eng::engine>(test::small_config(dir), eng::make_cpu_backend(1));
    e->start();
  }
  ~fixture() {
    e.reset();
    fs::remove_all(dir);
  }
};

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(std::uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return fd;
}

TEST(http_status, slow_and_silent_sockets_do_not_block_status) {
  fixture f;
  service::http_status_server http(*f.e, "127.0.0.1:0");
  std::vector<int> hostile;
  for (int i = 0; i < 24; ++i) hostile.push_back(connect_to(http.port()));
  for (int i = 0; i < 8; ++i) {
    const int fd = connect_to(http.port());
    const char part[] = "GET /sta";
    EXPECT_EQ(::send(fd, part, sizeof part - 1, 0), ssize_t(sizeof part - 1));
    hostile.push_back(fd);
  }
  std::this_thread::sleep_for(100ms);
  int answered = 0;
  for (int i = 0; i < 11; ++i) {
    httplib::Client c("127.0.0.1", http.port());
    c.set_connection_timeout(3, 0);
    c.set_read_timeout(3, 0);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = c.Get("/status");
    if (r && r->status == 200) ++answered;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3500ms) << "request " << i;
  }
  EXPECT_EQ(answered, 11);
  for (int fd : hostile) ::close(fd);
}

TEST(http_status, no_cors_header_and_the_token_is_required_when_configured) {
  fixture f;
  {
    service::http_status_server http(*f.e, "127.0.0.1:0");
    httplib::Client c("127.0.0.1", http.port());
    const auto r = c.Get("/status");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_FALSE(r->has_header("Access-Control-Allow-Origin"));
  }
  service::http_status_options o;
  o.auth_token = "s3cret-token";
  service::http_status_server http(*f.e, "127.0.0.1:0", o);
  for (const char* path : {"/status", "/metrics"}) {
    httplib::Client c("127.0.0.1", http.port());
    const auto none = c.Get(path);
    ASSERT_TRUE(none);
    EXPECT_EQ(none->status, 401) << path;
    EXPECT_EQ(none->body.find("s3cret"), std::string::npos);
    const auto wrong = c.Get(path, {{"Authorization", "Bearer s3cret-tokem"}});
    ASSERT_TRUE(wrong);
    EXPECT_EQ(wrong->status, 401) << path;
    const auto right = c.Get(path, {{"Authorization", "Bearer s3cret-token"}});
    ASSERT_TRUE(right);
    EXPECT_EQ(right->status, 200) << path;
    EXPECT_FALSE(right->has_header("Access-Control-Allow-Origin"));
  }
}

}  // namespace
