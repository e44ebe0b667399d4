// SPDX-License-Identifier: Apache-2.0
// prepare_grpc_process (grpc_process.hpp): absl's lazily initialised CPU
// probes, which gRPC 1.51 can otherwise run between a client's connect() and
// its errno check (a channel's first connect then fails with "UNKNOWN:
// ipv4:...: No such file or directory"), are done up front, and a server's
// construction does them.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <random>

#include <absl/base/internal/sysinfo.h>

#include "daemon_test_support.hpp"
#include "grpc_process.hpp"
#include "grpc_service.hpp"

namespace {

namespace fs = std::filesystem;
namespace eng = cuzk::engine;

// Runs |f| in a child process (absl's once-only probes start fresh there if
// this process has not run them yet) and returns its exit status.
template <class F>
int in_child(F f) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(f());
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

// The probes a contended absl::Mutex runs once; returns errno afterwards
// (set to EINPROGRESS before, as after gRPC's non-blocking connect).
int errno_across_probes() {
  errno = EINPROGRESS;
  (void)absl::base_internal::NumCPUs();
  (void)absl::base_internal::NominalCPUFrequency();
  return errno;
}

TEST(grpc_process, the_lazy_cpu_probes_leave_errno_alone_once_prepared) {
  // control: what the first probe does here without preparation (ENOENT
  // where /sys/devices/system/cpu/cpu0/tsc_freq_khz is missing, as on most
  // VMs; nothing where the file exists, or if this process probed already)
  const int unprepared = in_child([] { return errno_across_probes() == EINPROGRESS ? 0 : 1; });
  std::printf("without prepare_grpc_process the first probe %s errno here\n", unprepared == 0 ? "left" : "changed");
  EXPECT_EQ(in_child([] {
              errno = EINPROGRESS;
              cuzk::service::prepare_grpc_process();
              if (errno != EINPROGRESS) return 2;  // it keeps the caller's errno itself
              return errno_across_probes() == EINPROGRESS ? 0 : 1;
            }),
            0);
}

// In this process (no fork: gRPC may be running here already); where an
// earlier test probed already this passes either way, run alone (as ctest
// does) it checks that the constructor prepared the process.
TEST(grpc_process, a_grpc_server_prepares_the_process) {
  const fs::path dir = fs::temp_directory_path() / ("cuzk-grpc-process-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  {
    eng::engine e(cuzk::test::small_config(dir), eng::make_cpu_backend(1));
    cuzk::service::grpc_server s(e, "127.0.0.1:0", 1u << 20);
    EXPECT_EQ(errno_across_probes(), EINPROGRESS);
    s.shutdown(0);
  }
  fs::remove_all(dir);
}

}  // namespace
