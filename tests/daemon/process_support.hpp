// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers of the tests that run the real `cuzk` binary: spawn it with a
// config (stdout and stderr to a log file), wait for its exit with a bound
// (then SIGKILL), read a file, and wait for a unix socket to answer.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::test {

inline pid_t spawn_daemon(const std::filesystem::path& config, const std::filesystem::path& log,
                          const char* level = "debug") {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(CUZK_DAEMON_BINARY, "cuzk", "--config", config.c_str(), "--log-level", level, nullptr);
    _exit(127);
  }
  return pid;
}

/// Exit code, 128 + signal, or -1 when it had to be killed after |limit|.
inline int wait_daemon_exit(pid_t pid, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  int st = 0;
  while (std::chrono::steady_clock::now() < end) {
    if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  return -1;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A stub on a channel from |make_channel| (a fresh one per try) once
/// GetStatus answers, tried every 50 ms (nullptr after |limit|).
template <class MakeChannel>
std::unique_ptr<cuzk::v1::ProvingEngine::Stub> connect_when_ready(MakeChannel&& make_channel,
                                                                  std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    auto stub = cuzk::v1::ProvingEngine::NewStub(make_channel());
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
    cuzk::v1::GetStatusResponse resp;
    if (stub->GetStatus(&ctx, cuzk::v1::GetStatusRequest(), &resp).ok()) return stub;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return nullptr;
}

/// A stub on unix socket |sock| once GetStatus answers (nullptr after |limit|).
inline std::unique_ptr<cuzk::v1::ProvingEngine::Stub> connect_when_ready(const std::filesystem::path& sock,
                                                                         std::chrono::milliseconds limit) {
  return connect_when_ready(
      [&] { return grpc::CreateChannel("unix://" + sock.string(), grpc::InsecureChannelCredentials()); }, limit);
}

}  // namespace cuzk::test
