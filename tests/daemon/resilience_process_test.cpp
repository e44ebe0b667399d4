// SPDX-License-Identifier: Apache-2.0
// Process resilience of the real `cuzk` binary (issue 25; docs/RELIABILITY.md,
// "Process resilience"):
//  * SIGHUP and SIGUSR1 are logged and the daemon goes on serving (before:
//    exit 129 / 138 at once, no log line); with its stderr pipe closed it
//    keeps serving and logging fails quietly (before: SIGPIPE, exit 141);
//  * a second daemon on the same unix socket or TCP port refuses to start
//    with a message and exit 1, and the first keeps its address and jobs;
//  * SIGTERM while a partition is inside a long stage exits within
//    shutdown_timeout + 1 s with exit 0, and the waiting client is told
//    CANCELLED (before: the stage ran to its end first);
//  * a malformed CUZK_TEST_DELAY_STAGE (read by the binary, validated by the
//    engine) stops it at start with exit 1 and a message naming the variable.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <regex>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "common/test_seed.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"
#include "process_support.hpp"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace pb = cuzk::v1;

struct temp_dir {
  fs::path p = fs::temp_directory_path() / ("cuzk-res-" + std::to_string(std::random_device{}()));
  temp_dir() { fs::create_directories(p); }
  ~temp_dir() { fs::remove_all(p); }
};

void write_config(const fs::path& file, const std::string& listen, const fs::path& params,
                  const std::string& extra_daemon = "") {
  std::ofstream c(file);
  c << "[daemon]\nlisten = \"" << listen << "\"\n"
    << extra_daemon << "[srs]\nparam_cache = \"" << params.string() << "\"\n[memory]\ntotal_budget = \"2GiB\"\n";
}

// The daemon with stdout and stderr on a pipe whose read end the test holds.
struct piped_daemon {
  pid_t pid = -1;
  int read_fd = -1;
  piped_daemon(const fs::path& config, const std::vector<std::string>& env = {}) {
    int p[2];
    EXPECT_EQ(::pipe(p), 0);
    pid = fork();
    if (pid == 0) {
      ::close(p[0]);
      dup2(p[1], 1);
      dup2(p[1], 2);
      for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
      execl(CUZK_DAEMON_BINARY, "cuzk", "--config", config.c_str(), "--log-level", "info", nullptr);
      _exit(127);
    }
    ::close(p[1]);
    read_fd = p[0];
  }
  /// Reads what is there (up to |wait|) and appends it to |log|.
  void drain(std::string& log, std::chrono::milliseconds wait) {
    const auto end = std::chrono::steady_clock::now() + wait;
    char buf[4096];
    while (read_fd >= 0 && std::chrono::steady_clock::now() < end) {
      pollfd pf{read_fd, POLLIN, 0};
      if (::poll(&pf, 1, 20) != 1) continue;
      const ssize_t n = ::read(read_fd, buf, sizeof buf);
      if (n <= 0) return;
      log.append(buf, std::size_t(n));
    }
  }
  bool alive() const {
    int st = 0;
    return waitpid(pid, &st, WNOHANG) == 0;
  }
  void close_read_end() {
    if (read_fd >= 0) ::close(read_fd);
    read_fd = -1;
  }
  ~piped_daemon() {
    close_read_end();
    if (pid > 0 && alive()) {
      kill(pid, SIGKILL);
      int st = 0;
      waitpid(pid, &st, 0);
    }
  }
};

std::chrono::steady_clock::time_point steady_now() { return std::chrono::steady_clock::now(); }

bool status_ok(pb::ProvingEngine::Stub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 3s);
  pb::GetStatusResponse resp;
  return stub.GetStatus(&ctx, pb::GetStatusRequest(), &resp).ok();
}

TEST(daemon_resilience, sighup_sigusr1_and_a_closed_stderr_leave_it_serving) {
  temp_dir d;
  const fs::path sock = d.p / "cuzk.sock";
  write_config(d.p / "cuzk.toml", "unix://" + sock.string(), d.p);
  piped_daemon dm(d.p / "cuzk.toml");
  std::string log;
  std::unique_ptr<pb::ProvingEngine::Stub> stub;
  for (int i = 0; i < 200 && !stub; ++i) {
    dm.drain(log, 20ms);
    stub = cuzk::test::connect_when_ready(sock, 50ms);
  }
  ASSERT_TRUE(stub) << log;
  for (int sig : {SIGHUP, SIGUSR1, SIGHUP}) {
    ASSERT_EQ(kill(dm.pid, sig), 0);
    std::this_thread::sleep_for(100ms);
    dm.drain(log, 100ms);
    ASSERT_TRUE(dm.alive()) << "signal " << sig << "\n" << log;
    EXPECT_TRUE(status_ok(*stub)) << log;
  }
  dm.drain(log, 200ms);
  EXPECT_NE(log.find("received SIGHUP: ignored"), std::string::npos) << log;
  EXPECT_NE(log.find("received SIGUSR1: status:"), std::string::npos) << log;
  // the reader goes away; each signal's log line now hits a broken pipe
  // (EPIPE; SIGPIPE would kill the daemon if it were not ignored)
  dm.close_read_end();
  for (int sig : {SIGHUP, SIGUSR1}) {
    ASSERT_EQ(kill(dm.pid, sig), 0);
    std::this_thread::sleep_for(100ms);
  }
  std::this_thread::sleep_for(200ms);
  ASSERT_TRUE(dm.alive());
  EXPECT_TRUE(status_ok(*stub));
  kill(dm.pid, SIGTERM);
  EXPECT_EQ(cuzk::test::wait_daemon_exit(dm.pid, 10s), 0);
  dm.pid = -1;
}

// A second daemon with the same address: exit 1 with a reason, the first
// keeps serving on its socket / port.
TEST(daemon_resilience, second_daemon_on_the_same_unix_socket_or_tcp_port_is_refused) {
  temp_dir d;
  const fs::path sock = d.p / "cuzk.sock";
  write_config(d.p / "unix.toml", "unix://" + sock.string(), d.p);
  write_config(d.p / "tcp.toml", "127.0.0.1:0", d.p);
  const pid_t first = cuzk::test::spawn_daemon(d.p / "unix.toml", d.p / "first.log", "info");
  auto stub = cuzk::test::connect_when_ready(sock, 15s);
  ASSERT_TRUE(stub) << cuzk::test::slurp(d.p / "first.log");
  const pid_t second = cuzk::test::spawn_daemon(d.p / "unix.toml", d.p / "second.log", "info");
  const auto t_second = steady_now();
  EXPECT_EQ(cuzk::test::wait_daemon_exit(second, 15s), 1) << cuzk::test::slurp(d.p / "second.log");
  std::printf("second daemon on the socket exited after %lld ms\n",
              (long long)std::chrono::duration_cast<std::chrono::milliseconds>(steady_now() - t_second).count());
  EXPECT_NE(cuzk::test::slurp(d.p / "second.log").find("another cuzk daemon is running on unix socket"),
            std::string::npos)
      << cuzk::test::slurp(d.p / "second.log");
  EXPECT_TRUE(status_ok(*stub));
  EXPECT_TRUE(status_ok(*cuzk::test::connect_when_ready(sock, 3s)));  // a fresh connection: still the first

  // TCP: the first daemon on a free port, the second on that port
  const pid_t tcp1 = cuzk::test::spawn_daemon(d.p / "tcp.toml", d.p / "tcp1.log", "info");
  std::string port;
  for (int i = 0; i < 300 && port.empty(); ++i) {
    std::smatch m;
    const std::string l = cuzk::test::slurp(d.p / "tcp1.log");
    if (std::regex_search(l, m, std::regex(R"(listening on 127\.0\.0\.1:0 \(port (\d+)\))"))) port = m[1];
    else std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(port.empty()) << cuzk::test::slurp(d.p / "tcp1.log");
  write_config(d.p / "tcp2.toml", "127.0.0.1:" + port, d.p);
  const pid_t tcp2 = cuzk::test::spawn_daemon(d.p / "tcp2.toml", d.p / "tcp2.log", "info");
  const auto t_tcp2 = steady_now();
  EXPECT_EQ(cuzk::test::wait_daemon_exit(tcp2, 15s), 1) << cuzk::test::slurp(d.p / "tcp2.log");
  std::printf("second daemon on the taken port exited after %lld ms\n",
              (long long)std::chrono::duration_cast<std::chrono::milliseconds>(steady_now() - t_tcp2).count());
  EXPECT_NE(cuzk::test::slurp(d.p / "tcp2.log").find("another process is listening on that port"), std::string::npos)
      << cuzk::test::slurp(d.p / "tcp2.log");
  auto tcp_stub =
      pb::ProvingEngine::NewStub(grpc::CreateChannel("127.0.0.1:" + port, grpc::InsecureChannelCredentials()));
  EXPECT_TRUE(status_ok(*tcp_stub));
  for (pid_t p : {first, tcp1}) {
    const auto t0 = steady_now();
    kill(p, SIGTERM);
    EXPECT_EQ(cuzk::test::wait_daemon_exit(p, 10s), 0);
    std::printf("SIGTERM: exit after %lld ms\n",
                (long long)std::chrono::duration_cast<std::chrono::milliseconds>(steady_now() - t0).count());
  }
}

// SIGTERM while a partition sits in a long device stage (the test-only
// CUZK_TEST_DELAY_STAGE=gpu:60000 sleep, which the daemon passes to
// engine_config::test_delay_stage and which, like the CPU prover's MSMs,
// polls the job's cancel token): exit 0 within shutdown_timeout + 1 s, and the
// client waiting in AwaitProof gets CANCELLED (before: the stage ran for its
// full 60 s first).
TEST(daemon_resilience, sigterm_inside_a_long_stage_exits_within_the_bound_and_the_client_is_told_cancelled) {
  std::mt19937_64 rng(cuzk::test::test_seed("daemon-resilience-sigterm"));
  const fs::path params = cuzk::test::make_param_cache(true);
  temp_dir d;
  const fs::path sock = d.p / "cuzk.sock";
  write_config(d.p / "cuzk.toml", "unix://" + sock.string(), params, "shutdown_timeout = \"500ms\"\n");
  setenv("CUZK_TEST_DELAY_STAGE", "gpu:60000", 1);
  const pid_t pid = cuzk::test::spawn_daemon(d.p / "cuzk.toml", d.p / "log", "info");
  unsetenv("CUZK_TEST_DELAY_STAGE");
  auto stub = cuzk::test::connect_when_ready(sock, 15s);
  ASSERT_TRUE(stub) << cuzk::test::slurp(d.p / "log");
  const auto c = cuzk::test::window_case(rng, "long-1");
  pb::SubmitProofRequest q;
  q.set_request_id(c.req.request_id);
  q.set_proof_kind(pb::WINDOW_POST_PARTITION);
  q.set_registered_proof(c.req.registered_proof);
  q.set_randomness(std::string(c.req.randomness.begin(), c.req.randomness.end()));
  for (const auto& v : c.req.vanilla_proofs) q.add_vanilla_proofs(std::string(v.begin(), v.end()));
  {
    grpc::ClientContext ctx;
    pb::SubmitProofResponse resp;
    ASSERT_TRUE(stub->SubmitProof(&ctx, q, &resp).ok()) << cuzk::test::slurp(d.p / "log");
  }
  pb::AwaitProofResponse result;
  grpc::Status await_status;
  std::thread waiter([&] {
    grpc::ClientContext ctx;
    pb::AwaitProofRequest r;
    r.set_job_id("long-1");
    await_status = stub->AwaitProof(&ctx, r, &result);
  });
  // wait until the partition is in the device stage (GPU_END never comes)
  bool in_stage = false;
  for (int i = 0; i < 600 && !in_stage; ++i) {
    in_stage = cuzk::test::slurp(d.p / "log").find("GPU_START,long-1") != std::string::npos;
    if (!in_stage) std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(in_stage) << cuzk::test::slurp(d.p / "log");
  std::this_thread::sleep_for(500ms);  // prove_start (2 KiB) is over: the partition is in the long sleep
  const auto t0 = steady_now();
  kill(pid, SIGTERM);
  const int rc = cuzk::test::wait_daemon_exit(pid, 70s);
  const auto took = steady_now() - t0;
  waiter.join();
  std::printf("SIGTERM inside a 60 s stage, shutdown_timeout 500 ms: exit %d after %lld ms\n", rc,
              (long long)std::chrono::duration_cast<std::chrono::milliseconds>(took).count());
  EXPECT_EQ(rc, 0) << cuzk::test::slurp(d.p / "log");
  EXPECT_LT(took, 1500ms) << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n"
                          << cuzk::test::slurp(d.p / "log");
  ASSERT_TRUE(await_status.ok()) << await_status.error_message();
  EXPECT_EQ(result.status(), pb::AwaitProofResponse::CANCELLED) << result.error_message();
  EXPECT_NE(result.error_message().find("shutting down"), std::string::npos) << result.error_message();
  fs::remove_all(params);
}

// The binary reads CUZK_TEST_DELAY_STAGE and the engine validates it: a
// malformed value stops the daemon before it listens.
TEST(daemon_resilience, a_malformed_test_delay_variable_stops_the_daemon_at_start) {
  temp_dir d;
  const fs::path sock = d.p / "cuzk.sock";
  write_config(d.p / "cuzk.toml", "unix://" + sock.string(), d.p);
  setenv("CUZK_TEST_DELAY_STAGE", "kernel:5", 1);
  const pid_t pid = cuzk::test::spawn_daemon(d.p / "cuzk.toml", d.p / "log", "info");
  unsetenv("CUZK_TEST_DELAY_STAGE");
  EXPECT_EQ(cuzk::test::wait_daemon_exit(pid, 20s), 1) << cuzk::test::slurp(d.p / "log");
  const std::string log = cuzk::test::slurp(d.p / "log");
  EXPECT_NE(log.find("test delay 'kernel:5' (CUZK_TEST_DELAY_STAGE, test only)"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(sock)) << log;
}

// The soft open-file limit goes up to the hard one at start (a burst of
// connections should not exhaust descriptors: the plaintext listener recovers,
// listener_test.cpp, but a TLS listener is gRPC 1.51's own, which stops
// accepting after one EMFILE), and the log says so.
TEST(daemon_resilience, the_open_file_limit_is_raised_to_the_hard_limit_at_start) {
  temp_dir d;
  const fs::path sock = d.p / "cuzk.sock";
  write_config(d.p / "cuzk.toml", "unix://" + sock.string(), d.p);
  rlimit hard{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &hard), 0);
  if (hard.rlim_max < 1024) GTEST_SKIP() << "hard limit " << hard.rlim_max << " is too low to tell";
  const pid_t pid = fork();
  if (pid == 0) {
    rlimit low{256, hard.rlim_max};
    setrlimit(RLIMIT_NOFILE, &low);
    const int fd = ::open((d.p / "log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(CUZK_DAEMON_BINARY, "cuzk", "--config", (d.p / "cuzk.toml").c_str(), nullptr);
    _exit(127);
  }
  ASSERT_TRUE(cuzk::test::connect_when_ready(sock, 15s)) << cuzk::test::slurp(d.p / "log");
  const std::string limits = cuzk::test::slurp("/proc/" + std::to_string(pid) + "/limits");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(limits, m, std::regex(R"(Max open files\s+(\d+))"))) << limits;
  EXPECT_EQ(std::stoull(m[1]), std::uint64_t(hard.rlim_max)) << limits;
  const std::string log = cuzk::test::slurp(d.p / "log");
  EXPECT_NE(log.find(hard.rlim_max >= 4096 ? "open file limit raised from 256 to" : "open file limit is"),
            std::string::npos)
      << log;
  kill(pid, SIGTERM);
  EXPECT_EQ(cuzk::test::wait_daemon_exit(pid, 10s), 0);
}

}  // namespace
