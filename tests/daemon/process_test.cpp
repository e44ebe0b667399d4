// SPDX-License-Identifier: Apache-2.0
// The real `cuzk` binary: starts from a config file on a unix socket,
// answers GetStatus, and on SIGTERM stops and exits 0 within its drain
// bound; a config with an invalid value makes it refuse to start.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

pid_t spawn(const fs::path& config, const fs::path& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(CUZK_DAEMON_BINARY, "cuzk", "--config", config.c_str(), "--log-level", "debug", nullptr);
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  int st = 0;
  while (std::chrono::steady_clock::now() < end) {
    if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    std::this_thread::sleep_for(10ms);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  return -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(daemon_process, serves_on_a_unix_socket_and_exits_cleanly_on_sigterm) {
  const fs::path dir = fs::temp_directory_path() / ("cuzk-proc-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  const fs::path sock = dir / "run" / "cuzk.sock";
  {
    std::ofstream c(dir / "cuzk.toml");
    c << "[daemon]\nlisten = \"unix://" << sock.string() << "\"\nshutdown_timeout = \"5s\"\nbogus_key = 1\n"
      << "[srs]\nparam_cache = \"" << dir.string() << "\"\n[memory]\ntotal_budget = \"1GiB\"\n";
  }
  const pid_t pid = spawn(dir / "cuzk.toml", dir / "log");
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 400 && !fs::exists(sock); ++i) std::this_thread::sleep_for(25ms);
  ASSERT_TRUE(fs::exists(sock)) << slurp(dir / "log");
  auto stub = cuzk::v1::ProvingEngine::NewStub(
      grpc::CreateChannel("unix://" + sock.string(), grpc::InsecureChannelCredentials()));
  bool ok = false;
  for (int i = 0; i < 200 && !ok; ++i) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 200ms);
    cuzk::v1::GetStatusResponse resp;
    ok = stub->GetStatus(&ctx, cuzk::v1::GetStatusRequest(), &resp).ok();
    if (ok) {
      EXPECT_EQ(resp.gpus_size(), 1);
    }
    if (!ok) std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(ok) << slurp(dir / "log");
  const auto t0 = std::chrono::steady_clock::now();
  kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid, 10s), 0) << slurp(dir / "log");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 7s);
  const std::string log = slurp(dir / "log");
  EXPECT_NE(log.find("unknown key daemon.bogus_key"), std::string::npos) << log;
  EXPECT_NE(log.find("received SIGTERM"), std::string::npos) << log;
  EXPECT_NE(log.find("cuzk stopped"), std::string::npos) << log;
  fs::remove_all(dir);
}

TEST(daemon_process, invalid_config_refuses_to_start) {
  const fs::path dir = fs::temp_directory_path() / ("cuzk-proc-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  {
    std::ofstream c(dir / "cuzk.toml");
    c << "[gpus]\ngpu_workers_per_device = -1\n";
  }
  const pid_t pid = spawn(dir / "cuzk.toml", dir / "log");
  EXPECT_EQ(wait_exit(pid, 10s), 2);
  EXPECT_NE(slurp(dir / "log").find("gpus.gpu_workers_per_device"), std::string::npos) << slurp(dir / "log");
  fs::remove_all(dir);
}

}  // namespace
