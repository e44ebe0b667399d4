// SPDX-License-Identifier: Apache-2.0
// The real `cuzk` binary: starts from a config file on a unix socket,
// answers GetStatus, and on SIGTERM stops and exits 0 within its drain
// bound; a running job is drained within daemon.shutdown_timeout or
// cancelled past it; a config with an invalid value makes it refuse to start.
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

#include "common/test_seed.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

/// Starts the daemon; a non-empty |delay| sets the test-only
/// CUZK_TEST_DELAY_STAGE in the child, so a stage outlasts a drain bound
/// however fast this machine proves.
pid_t spawn(const fs::path& config, const fs::path& log, const char* delay = "") {
  const pid_t pid = fork();
  if (pid == 0) {
    if (*delay != '\0') setenv("CUZK_TEST_DELAY_STAGE", delay, 1);
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

namespace {

// SIGTERM with a job in its GPU stage: within shutdown_timeout the job
// completes and its waiting client gets the proof; past a short bound it is
// CANCELLED. Either way the daemon exits 0. |stage_delay| holds the stage
// open for the cancel case: a 2 KiB proof can finish inside 100 ms.
void sigterm_with_job_in_flight(const char* shutdown_timeout, const char* stage_delay,
                                cuzk::v1::AwaitProofResponse::Status expect) {
  std::mt19937_64 rng(cuzk::test::test_seed("daemon-process-drain"));
  const fs::path params = cuzk::test::make_param_cache(true);
  const fs::path dir = fs::temp_directory_path() / ("cuzk-proc-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  const fs::path sock = dir / "cuzk.sock";
  {
    std::ofstream c(dir / "cuzk.toml");
    c << "[daemon]\nlisten = \"unix://" << sock.string() << "\"\nshutdown_timeout = \"" << shutdown_timeout
      << "\"\n[srs]\nparam_cache = \"" << params.string() << "\"\n[memory]\ntotal_budget = \"2GiB\"\n";
  }
  const pid_t pid = spawn(dir / "cuzk.toml", dir / "log", stage_delay);
  for (int i = 0; i < 400 && !fs::exists(sock); ++i) std::this_thread::sleep_for(25ms);
  auto stub = cuzk::v1::ProvingEngine::NewStub(
      grpc::CreateChannel("unix://" + sock.string(), grpc::InsecureChannelCredentials()));
  const auto c = cuzk::test::window_case(rng, "drain-1");
  cuzk::v1::SubmitProofRequest q;
  q.set_request_id(c.req.request_id);
  q.set_proof_kind(cuzk::v1::WINDOW_POST_PARTITION);
  q.set_registered_proof(c.req.registered_proof);
  q.set_randomness(std::string(c.req.randomness.begin(), c.req.randomness.end()));
  for (const auto& v : c.req.vanilla_proofs) q.add_vanilla_proofs(std::string(v.begin(), v.end()));
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 10s);
    ctx.set_wait_for_ready(true);
    cuzk::v1::SubmitProofResponse resp;
    ASSERT_TRUE(stub->SubmitProof(&ctx, q, &resp).ok()) << slurp(dir / "log");
  }
  cuzk::v1::AwaitProofResponse result;
  std::thread waiter([&] {
    grpc::ClientContext ctx;
    cuzk::v1::AwaitProofRequest r;
    r.set_job_id("drain-1");
    EXPECT_TRUE(stub->AwaitProof(&ctx, r, &result).ok());
  });
  // SIGTERM once the job is in its GPU stage (its parameters load first).
  for (int i = 0; i < 1200 && slurp(dir / "log").find("GPU_START,drain-1") == std::string::npos; ++i)
    std::this_thread::sleep_for(25ms);
  EXPECT_NE(slurp(dir / "log").find("GPU_START,drain-1"), std::string::npos) << slurp(dir / "log");
  kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid, 60s), 0) << slurp(dir / "log");
  waiter.join();
  EXPECT_EQ(result.status(), expect) << result.error_message() << "\n" << slurp(dir / "log");
  if (expect == cuzk::v1::AwaitProofResponse::COMPLETED) {
    EXPECT_TRUE(
        cuzk::test::verify_with_vk(params, c.vk_stem, {result.proof().begin(), result.proof().end()}, c.public_inputs));
  } else {
    EXPECT_NE(result.error_message().find("shutting down"), std::string::npos) << result.error_message();
  }
  fs::remove_all(dir);
  fs::remove_all(params);
}

TEST(daemon_process, sigterm_drains_a_running_job) {
  sigterm_with_job_in_flight("60s", "", cuzk::v1::AwaitProofResponse::COMPLETED);
}

TEST(daemon_process, sigterm_cancels_what_does_not_finish_within_the_bound) {
  sigterm_with_job_in_flight("100ms", "gpu:30000", cuzk::v1::AwaitProofResponse::CANCELLED);
}

}  // namespace
