// SPDX-License-Identifier: Apache-2.0
// Parameter files that shrink while they are read (issue 25;
// docs/RELIABILITY.md, "Process resilience"):
//  * mapping_guard: reading a page of a mapped file past its new end raises
//    SIGBUS (a forked child without the guard dies of it); with the guard
//    the read gives zeros and faulted() says so;
//  * the daemon's engine while PreloadSRS / EvictSRS cycle and another
//    thread truncates and restores the 47 MB WindowPoSt 2 KiB parameter file
//    (before: SIGBUS killed the process within about 30 s): the process
//    lives, every failed load names the file, and once the file is restored
//    the parameters load. CUZK_PARAM_LOOP_SECONDS sets the loop's length
//    (default 5; the 60 s run is recorded in RELIABILITY.md).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <random>
#include <thread>

#include <cuzk/engine/mapping_guard.hpp>

#include "daemon_test_support.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;

TEST(mapping_guard, a_truncated_mapped_file_reads_zeros_instead_of_killing_the_process) {
  const fs::path p = fs::temp_directory_path() / ("cuzk-guard-" + std::to_string(std::random_device{}()));
  constexpr std::size_t n = 1 << 20;
  {
    std::ofstream out(p, std::ios::binary);
    const std::string block(n, '\x5a');
    out << block;
  }
  const int fd = ::open(p.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  auto* m = static_cast<const volatile std::uint8_t*>(::mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0));
  ASSERT_NE(m, MAP_FAILED);
  ASSERT_EQ(m[n / 2], 0x5a);
  ASSERT_EQ(::ftruncate(fd, 4096), 0);
  // without a guard the read kills: the fault is real
  const pid_t child = fork();
  if (child == 0) {
    ::signal(SIGBUS, SIG_DFL);
    volatile std::uint8_t x = m[n / 2];
    (void)x;
    _exit(0);
  }
  int st = 0;
  ASSERT_EQ(waitpid(child, &st, 0), child);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS) << st;
  {
    const eng::mapping_guard g(const_cast<const std::uint8_t*>(m), n);
    ASSERT_TRUE(g.active());
    EXPECT_FALSE(g.faulted());
    EXPECT_EQ(m[0], 0x5a);   // the first page is still in the file
    EXPECT_EQ(m[n / 2], 0);  // lost: a zero page instead of SIGBUS
    EXPECT_EQ(m[n - 1], 0);
    EXPECT_TRUE(g.faulted());
  }
  {
    const eng::mapping_guard g(const_cast<const std::uint8_t*>(m), 4096);  // a fresh guard starts clean
    EXPECT_FALSE(g.faulted());
  }
  ::munmap(const_cast<std::uint8_t*>(m), n);
  ::close(fd);
  fs::remove(p);
}

TEST(param_file_loop, truncate_and_restore_while_preload_and_evict_cycle_never_kills_the_process) {
  const char* env = std::getenv("CUZK_PARAM_LOOP_SECONDS");
  const auto seconds = std::chrono::seconds(env ? std::stol(env) : 5);
  const fs::path dir = test::make_param_cache(true);
  // a private copy: the shared cache's file is linked into other tests' caches
  const fs::path file = dir / (test::window_stem() + ".params");
  const fs::path shared = fs::read_symlink(file);
  fs::remove(file);
  fs::copy_file(shared, file);
  std::string full;
  {
    std::ifstream in(file, std::ios::binary);
    full.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(full.size(), 1u << 20);
  eng::engine e(test::small_config(dir), eng::make_cpu_backend(1));
  e.register_kind(eng::make_window_post_kind());
  e.start();
  const std::string id = "wpost-2k";
  std::atomic<bool> stop{false};
  std::mt19937_64 rng(25);
  std::thread vandal([&] {
    std::mt19937_64 r(rng());
    while (!stop) {
      ::truncate(file.c_str(), off_t(r() % full.size()));
      std::this_thread::sleep_for(std::chrono::milliseconds(r() % 40));
      {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out << full;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(r() % 60));
    }
  });
  int ok = 0, failed = 0, torn = 0;
  std::vector<std::string> unnamed;
  const auto end = std::chrono::steady_clock::now() + seconds;
  while (std::chrono::steady_clock::now() < end) {
    try {
      (void)e.srs().preload(id);
      ++ok;
    } catch (const std::exception& x) {
      ++failed;
      const std::string m = x.what();
      if (m.find("shrank while it was being read") != std::string::npos) ++torn;
      if (m.find(test::window_stem()) == std::string::npos) unnamed.push_back(m);
    }
    try {
      (void)e.srs().evict(id);
    } catch (const std::exception&) {
    }
  }
  stop = true;
  vandal.join();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << full;
  }
  std::printf("param loop %lld s: %d loads ok, %d failed (%d torn mid-decode, absorbed)\n", (long long)seconds.count(),
              ok, failed, torn);
  for (const auto& m : unnamed) ADD_FAILURE() << "error without the file name: " << m;
  (void)e.srs().evict(id);
  EXPECT_NO_THROW((void)e.srs().preload(id));  // restored: it loads
  e.shutdown(0ms);
  fs::remove_all(dir);
}

}  // namespace
