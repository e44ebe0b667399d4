// SPDX-License-Identifier: Apache-2.0
// A blocked memory_budget::acquire sleeps until what it waits for happens
// and is woken by it, with no polling: its token's cancellation, a holder's
// notify_evictable(), or the time its evictor named. Each case would hang
// (or, for the time, call the evictor many more times) if the waiter were
// not woken, so the tests bound the wait with a future and count the
// evictor's calls.
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include <cuzk/engine/memory_budget.hpp>

namespace eng = cuzk::engine;
using namespace std::chrono_literals;

namespace {

/// Runs acquire(|bytes|) on another thread; the future holds its outcome.
std::future<eng::reservation> acquire_async(eng::memory_budget& b, std::uint64_t bytes,
                                            const eng::cancel_token* token) {
  return std::async(std::launch::async, [&b, bytes, token] {
    return b.acquire(bytes, eng::priority::normal, token, "the test's request");
  });
}

}  // namespace

TEST(memory_budget_wake, a_blocked_acquire_ends_at_its_tokens_cancellation) {
  eng::memory_budget b(100);
  eng::reservation all = b.acquire(100, eng::priority::normal, nullptr, "all");
  eng::cancel_token token;
  auto waiting = acquire_async(b, 50, &token);
  while (b.waiters() == 0) std::this_thread::sleep_for(1ms);
  token.cancel();
  ASSERT_EQ(waiting.wait_for(10s), std::future_status::ready) << "the cancelled waiter was not woken";
  EXPECT_THROW(waiting.get(), eng::cancelled_error);
  EXPECT_EQ(b.waiters(), 0u);
}

TEST(memory_budget_wake, notify_evictable_makes_a_blocked_acquire_ask_the_evictor_again) {
  eng::memory_budget b(100);
  eng::reservation all = b.acquire(100, eng::priority::normal, nullptr, "all");
  std::atomic<bool> idle{false};
  std::atomic<int> calls{0};
  // frees |all| once it is idle; says nothing of when that will be
  b.set_evictor([&](std::uint64_t) {
    ++calls;
    if (!idle) return eng::memory_budget::eviction{};
    const std::uint64_t n = all.bytes();
    all.release_all();
    return eng::memory_budget::eviction{n};
  });
  auto waiting = acquire_async(b, 50, nullptr);
  while (calls == 0) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(calls, 1) << "the waiter asked again before anything changed";
  idle = true;
  b.notify_evictable();
  ASSERT_EQ(waiting.wait_for(10s), std::future_status::ready) << "notify_evictable did not wake the waiter";
  EXPECT_EQ(waiting.get().bytes(), 50u);
}

TEST(memory_budget_wake, a_blocked_acquire_asks_the_evictor_again_at_the_time_it_named) {
  eng::memory_budget b(100);
  eng::reservation all = b.acquire(100, eng::priority::normal, nullptr, "all");
  const auto ready = std::chrono::steady_clock::now() + 300ms;
  std::atomic<int> calls{0};
  // like an SRS entry that becomes evictable once idle long enough
  b.set_evictor([&](std::uint64_t) {
    ++calls;
    if (std::chrono::steady_clock::now() < ready) return eng::memory_budget::eviction{0, ready};
    const std::uint64_t n = all.bytes();
    all.release_all();
    return eng::memory_budget::eviction{n};
  });
  auto waiting = acquire_async(b, 50, nullptr);
  ASSERT_EQ(waiting.wait_for(10s), std::future_status::ready) << "the waiter slept past the evictor's time";
  EXPECT_EQ(waiting.get().bytes(), 50u);
  EXPECT_GE(std::chrono::steady_clock::now(), ready);
  // once at the start, once at |ready| (a 20 ms poll would have asked ~15 times);
  // a spurious wake-up may add one
  EXPECT_LE(calls, 3);
}
