// SPDX-License-Identifier: Apache-2.0
#pragma once
// event_log: the engine's TIMELINE events without a lock on the pipeline's
// path. Each thread that emits gets its own single-producer ring (registered
// once, by a lock-free push onto an intrusive list); emit() copies the event
// into a fixed-size slot of that ring and publishes it with one release
// store: no mutex, no allocation, no system call. One writer thread polls
// every ring (every |poll| interval), orders what it took by time and hands
// "TIMELINE,<ms since epoch>,<EVENT>,<job>,<detail>" lines to the sink, so
// a slow sink (stderr to the journal) never stalls a synthesis or GPU
// thread. A full ring drops the event and counts it (dropped()); nothing is
// lost silently. Lines of one thread keep their order; lines of different
// threads are ordered by time within one drain pass.
//
// Cost: emit ~200 ns on the 2-core dev VM (bench/event_log_bench.cpp: a
// clock read and two copies into a ~200-byte slot); memory
// |ring_capacity| * 208 bytes per emitting thread (100 KiB at the default
// 512), kept until the log is destroyed; the writer wakes 1000/|poll| times
// a second. Job ids longer than 63 bytes and details longer than 127 bytes
// are cut.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace cuzk::engine {

class event_log {
 public:
  using sink_fn = std::function<void(const std::string& line)>;
  using clock = std::chrono::steady_clock;

  /// Times are printed in whole milliseconds since |epoch|.
  explicit event_log(clock::time_point epoch, std::size_t ring_capacity = 512,
                     std::chrono::milliseconds poll = std::chrono::milliseconds(5));
  /// Writes what is left, then stops the writer.
  ~event_log();
  event_log(const event_log&) = delete;
  event_log& operator=(const event_log&) = delete;

  /// Where lines go (called on the writer thread only). An empty sink turns
  /// emitting off: emit() then returns at once and records nothing.
  void set_sink(sink_fn f);
  bool enabled() const { return _enabled.load(std::memory_order_relaxed); }

  /// Records one event from the calling thread; never blocks. |event| must
  /// be a string with static storage (an event name literal).
  void emit(const char* event, std::string_view job, std::string_view detail) noexcept;

  /// Blocks until every event emitted before the call has reached the sink
  /// (or was dropped). Not for pipeline threads: shutdown and tests.
  void flush();

  std::uint64_t emitted() const;  ///< events accepted into a ring
  std::uint64_t dropped() const;  ///< events refused because a ring was full
  std::uint64_t written() const { return _written.load(std::memory_order_relaxed); }
  std::size_t rings() const { return _nrings.load(std::memory_order_relaxed); }

 private:
  struct ring;
  ring* ring_of_this_thread();
  void writer_loop();
  std::size_t drain_once();

  const clock::time_point _epoch;
  const std::size_t _cap;
  const std::chrono::milliseconds _poll;
  const std::uint64_t _id;  ///< never reused: keys the threads' ring caches
  std::atomic<ring*> _rings{nullptr};
  std::atomic<std::size_t> _nrings{0};
  std::atomic<bool> _enabled{false};
  std::atomic<std::uint64_t> _written{0};

  std::mutex _mu;  // writer-side only: the sink, flush requests, stop
  std::condition_variable _cv;
  sink_fn _sink;
  std::uint64_t _flush_req = 0, _flush_done = 0;
  bool _stop = false;
  std::thread _writer;
};

}  // namespace cuzk::engine
