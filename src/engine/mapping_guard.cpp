// SPDX-License-Identifier: Apache-2.0
// SIGBUS-proof reads of mapped files (see include/cuzk/engine/mapping_guard.hpp).
#include <cuzk/engine/mapping_guard.hpp>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace cuzk::engine {
namespace {

constexpr int slots = 64;

struct slot {
  std::atomic<bool> used{false};
  std::atomic<std::uintptr_t> begin{0}, end{0};  // end == 0: not (yet) a range
  std::atomic<bool> faulted{false};
};

slot table[slots];
// thread_mapping_guard: initial-exec TLS (the engine is linked statically),
// safe to touch in a synchronous signal handler
thread_local volatile sig_atomic_t thread_active = 0, thread_faulted = 0;

bool zero_page_at(std::uintptr_t addr) {
  const std::uintptr_t page = addr & ~(std::uintptr_t(::sysconf(_SC_PAGESIZE)) - 1);
  void* p = ::mmap(reinterpret_cast<void*>(page), std::size_t(::sysconf(_SC_PAGESIZE)), PROT_READ,
                   MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p != MAP_FAILED;
}
struct sigaction previous {};
std::once_flag installed;

void chain(int sig, siginfo_t* info, void* ctx) {
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(sig, info, ctx);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN && previous.sa_handler) {
    previous.sa_handler(sig);
    return;
  }
  // the default action: returning re-runs the access, which faults again
  ::signal(SIGBUS, SIG_DFL);
}

extern "C" void on_sigbus(int sig, siginfo_t* info, void* ctx) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (auto& s : table) {
    const std::uintptr_t b = s.begin.load(std::memory_order_acquire), e = s.end.load(std::memory_order_acquire);
    if (e == 0 || addr < b || addr >= e) continue;
    if (!zero_page_at(addr)) break;
    s.faulted.store(true, std::memory_order_release);
    return;
  }
  if (thread_active && info->si_code != BUS_ADRALN && zero_page_at(addr)) {
    thread_faulted = 1;
    return;
  }
  chain(sig, info, ctx);
}

void install() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  ::sigaction(SIGBUS, &sa, &previous);
}

}  // namespace

mapping_guard::mapping_guard(const void* data, std::size_t size) {
  std::call_once(installed, install);
  if (!data || size == 0) return;
  for (int i = 0; i < slots; ++i) {
    bool expect = false;
    if (!table[i].used.compare_exchange_strong(expect, true)) continue;
    table[i].faulted.store(false, std::memory_order_relaxed);
    table[i].begin.store(reinterpret_cast<std::uintptr_t>(data), std::memory_order_release);
    table[i].end.store(reinterpret_cast<std::uintptr_t>(data) + size, std::memory_order_release);
    _slot = i;
    return;
  }
}

mapping_guard::~mapping_guard() {
  if (_slot < 0) return;
  table[_slot].end.store(0, std::memory_order_release);
  table[_slot].begin.store(0, std::memory_order_release);
  table[_slot].used.store(false, std::memory_order_release);
}

bool mapping_guard::faulted() const { return _slot >= 0 && table[_slot].faulted.load(std::memory_order_acquire); }

thread_mapping_guard::thread_mapping_guard() {
  std::call_once(installed, install);
  thread_faulted = 0;
  thread_active = 1;
}

thread_mapping_guard::~thread_mapping_guard() { thread_active = 0; }

bool thread_mapping_guard::faulted() const { return thread_faulted != 0; }

}  // namespace cuzk::engine
