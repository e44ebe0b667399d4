// SPDX-License-Identifier: Apache-2.0
// What a TIMELINE event costs the thread that emits it: engine::event_log's
// emit (a copy into the thread's ring; the writer thread formats and writes
// to /dev/null), emit with the timeline off (no sink), and for contrast the
// previous way (format the line, take a mutex, fprintf). The engine emits
// 6 events per partition plus 1 per job, so ns/event * 7 bounds the
// per-proof cost of the instrumentation on the pipeline's threads.
// Run: event-log-bench [--benchmark_filter=...]; numbers in bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <mutex>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <cuzk/engine/event_log.hpp>

namespace {

using cuzk::engine::event_log;

FILE* devnull() {
  static FILE* f = std::fopen("/dev/null", "w");
  return f;
}

// T threads (the argument) each emit 50000 events into a fresh log with
// rings large enough that nothing is dropped (the counter says so); the
// writer thread formats them to /dev/null meanwhile. ns per event = 1e9 /
// items_per_second * T for one thread's view.
void BM_emit(benchmark::State& st) {
  const int threads = int(st.range(0));
  constexpr int per = 50000;
  const std::string job = "batch-0123456789abcdef-7";
  double dropped = 0;
  for (auto _ : st) {
    st.PauseTiming();
    auto log = std::make_unique<event_log>(event_log::clock::now(), 1 << 16);
    log->set_sink([](const std::string& l) { std::fprintf(devnull(), "%s\n", l.c_str()); });
    st.ResumeTiming();
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
      ts.emplace_back([&] {
        for (int i = 0; i < per; ++i) log->emit("GPU_END", job, "worker=0,partition=3,gpu_ms=4123");
      });
    for (auto& t : ts) t.join();
    st.PauseTiming();
    log->flush();
    dropped += double(log->dropped());
    log.reset();
    st.ResumeTiming();
  }
  st.SetItemsProcessed(std::int64_t(st.iterations()) * threads * per);
  st.counters["dropped"] = dropped;
}
BENCHMARK(BM_emit)->Arg(1)->Arg(2)->Arg(4)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_emit_off(benchmark::State& st) {
  static event_log log(event_log::clock::now());
  const std::string job = "batch-0123456789abcdef-7";
  for (auto _ : st) log.emit("GPU_END", job, "worker=0,partition=3,gpu_ms=4123");
}
BENCHMARK(BM_emit_off);

void BM_mutex_fprintf(benchmark::State& st) {
  static std::mutex mu;
  const auto epoch = std::chrono::steady_clock::now();
  const std::string job = "batch-0123456789abcdef-7";
  for (auto _ : st) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - epoch);
    const std::string line =
        "TIMELINE," + std::to_string(ms.count()) + ",GPU_END," + job + ",worker=0,partition=3,gpu_ms=4123";
    std::lock_guard lk(mu);
    std::fprintf(devnull(), "%s\n", line.c_str());
  }
}
BENCHMARK(BM_mutex_fprintf)->Threads(1)->Threads(2)->Threads(4);

}  // namespace

BENCHMARK_MAIN();
