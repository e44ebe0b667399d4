// SPDX-License-Identifier: Apache-2.0
// engine::event_log, the lock-free per-thread TIMELINE buffer: 8 threads
// emitting 10000 events each into roomy rings lose none, every line has the
// TIMELINE format timeline.cpp parses, and each thread's events arrive in
// its own order; with tiny rings and a slow sink events are dropped, and
// exactly those are counted (written + dropped = emitted); an empty sink
// turns emitting off; long job ids and details are cut, not overflowed.
// Also: the engine's test-only delay knob rejects a malformed value, and the
// library never reads it from the environment (the daemon does).
// Cost: ~0.3 s.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <cuzk/engine/engine.hpp>
#include <cuzk/engine/event_log.hpp>

#include "timeline_svg.hpp"

namespace {

using namespace std::chrono_literals;
using cuzk::engine::event_log;

TEST(event_log, many_threads_lose_nothing_and_keep_their_order) {
  event_log log(event_log::clock::now(), 1 << 15, 1ms);
  std::mutex mu;
  std::vector<std::string> lines;
  log.set_sink([&](const std::string& l) {
    std::lock_guard lk(mu);
    lines.push_back(l);
  });
  constexpr int threads = 8, per = 10000;
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      const std::string job = "job-" + std::to_string(t);
      for (int i = 0; i < per; ++i) log.emit("SYNTH_END", job, "partition=0,seq=" + std::to_string(i));
    });
  for (auto& t : ts) t.join();
  log.flush();
  EXPECT_EQ(log.dropped(), 0u);
  EXPECT_EQ(log.emitted(), std::uint64_t(threads) * per);
  EXPECT_EQ(log.written(), std::uint64_t(threads) * per);
  EXPECT_EQ(log.rings(), std::size_t(threads));
  std::lock_guard lk(mu);
  ASSERT_EQ(lines.size(), std::size_t(threads) * per);
  std::map<std::string, int> next;
  for (const auto& l : lines) {
    cuzk::bench_app::timeline_event e;
    ASSERT_TRUE(cuzk::bench_app::parse_timeline_line(l, e)) << l;
    EXPECT_EQ(e.event, "SYNTH_END");
    const int seq = std::stoi(e.detail.at("seq"));
    EXPECT_EQ(seq, next[e.job]) << l;  // one thread's events in emission order
    next[e.job] = seq + 1;
  }
  for (int t = 0; t < threads; ++t) EXPECT_EQ(next["job-" + std::to_string(t)], per);
}

TEST(event_log, a_full_ring_drops_and_counts_exactly) {
  event_log log(event_log::clock::now(), 4, 50ms);
  std::atomic<std::uint64_t> got{0};
  log.set_sink([&](const std::string&) {
    ++got;
    std::this_thread::sleep_for(1ms);  // a slow sink
  });
  constexpr int threads = 4, per = 2000;
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < per; ++i) log.emit("GPU_END", "j", "gpu_ms=1");
    });
  for (auto& t : ts) t.join();
  log.flush();
  EXPECT_GT(log.dropped(), 0u);  // 4-slot rings, a 50 ms poll: most are refused
  EXPECT_EQ(log.emitted() + log.dropped(), std::uint64_t(threads) * per);
  EXPECT_EQ(log.written(), log.emitted());
  EXPECT_EQ(got.load(), log.written());
}

TEST(event_log, empty_sink_is_off_and_long_fields_are_cut) {
  event_log log(event_log::clock::now());
  log.emit("JOB_DONE", "a", "status=COMPLETED");  // no sink: nothing recorded
  EXPECT_FALSE(log.enabled());
  EXPECT_EQ(log.emitted(), 0u);
  std::vector<std::string> lines;
  log.set_sink([&](const std::string& l) { lines.push_back(l); });
  log.emit("JOB_DONE", std::string(500, 'j'), std::string(500, 'd'));
  log.flush();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("TIMELINE,", 0), 0u);
  EXPECT_NE(lines[0].find(",JOB_DONE," + std::string(63, 'j') + "," + std::string(127, 'd')), std::string::npos);
  EXPECT_EQ(lines[0].find(std::string(64, 'j')), std::string::npos);
}

TEST(event_log, engine_rejects_a_malformed_test_delay) {
  for (const char* bad : {"synthesis", "synthesis:", "synthesis:x", "kernel:5", "gpu:-1"}) {
    cuzk::engine::engine_config cfg;
    cfg.param_cache = "/nonexistent";
    cfg.total_budget = 1ull << 30;
    cfg.test_delay_stage = bad;
    EXPECT_THROW(cuzk::engine::engine(cfg, cuzk::engine::make_cpu_backend()), std::invalid_argument) << bad;
  }
}

// Only the cuzk daemon turns CUZK_TEST_DELAY_STAGE into
// engine_config::test_delay_stage; an engine in any other process ignores the
// variable (a malformed value would make its constructor throw if it read it).
TEST(event_log, engine_ignores_the_test_delay_environment_variable) {
  setenv("CUZK_TEST_DELAY_STAGE", "kernel:5", 1);
  cuzk::engine::engine_config cfg;
  cfg.param_cache = "/nonexistent";
  cfg.total_budget = 1ull << 30;
  EXPECT_NO_THROW(cuzk::engine::engine(cfg, cuzk::engine::make_cpu_backend()));
  unsetenv("CUZK_TEST_DELAY_STAGE");
}

}  // namespace
