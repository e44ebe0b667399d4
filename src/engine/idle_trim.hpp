// SPDX-License-Identifier: Apache-2.0
#pragma once
// idle_trimmer: gives freed heap memory back to the OS when the engine goes
// idle (issue 25: idle, with parameters evicted, the daemon held 439 MB
// against 21 MB at start). glibc keeps freed chunks in its arenas (one per
// thread that allocated: the synthesis, device and finalizer workers), and
// only the top of an arena is released by itself; malloc_trim(0) releases
// the free pages inside every arena too.
// The engine pokes it when its last unfinished job finishes; after
// |debounce| (so a stream of short jobs does not trim between every two)
// it asks |still_idle| and, when true, lets the caches go (|release|: the
// witness pool), trims once and reports RSS before and after. Cost: one thread asleep; a trim walks the arenas (milliseconds to a
// few hundred ms for a heap of tens of GB), only when idle.
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

namespace cuzk::engine {

class idle_trimmer {
 public:
  using report_fn = std::function<void(std::uint64_t rss_before, std::uint64_t rss_after)>;

  /// |release| runs when idle, before the trim: caches of freed-later
  /// memory (the witness pool) let go so the trim can return it.
  idle_trimmer(std::function<bool()> still_idle, std::function<void()> release, report_fn report,
               std::chrono::milliseconds debounce = std::chrono::milliseconds(1000))
      : _idle(std::move(still_idle)),
        _release(std::move(release)),
        _report(std::move(report)),
        _debounce(debounce),
        _thread([this] { run(); }) {}
  ~idle_trimmer() {
    {
      std::lock_guard lk(_mu);
      _stop = true;
    }
    _cv.notify_all();
    _thread.join();
  }
  idle_trimmer(const idle_trimmer&) = delete;
  idle_trimmer& operator=(const idle_trimmer&) = delete;

  /// Cheap; may be called with other locks held (takes only its own).
  void poke() {
    {
      std::lock_guard lk(_mu);
      _poked = true;
    }
    _cv.notify_all();
  }

  static std::uint64_t rss_bytes() {
    std::ifstream in("/proc/self/statm");
    std::uint64_t size = 0, resident = 0;
    in >> size >> resident;
    return resident * std::uint64_t(::sysconf(_SC_PAGESIZE));
  }

 private:
  void run() {
    std::unique_lock lk(_mu);
    for (;;) {
      _cv.wait(lk, [&] { return _stop || _poked; });
      if (_stop) return;
      _poked = false;
      // debounce: a new poke restarts the wait
      while (!_stop && _cv.wait_for(lk, _debounce, [&] { return _stop || _poked; })) _poked = false;
      if (_stop) return;
      lk.unlock();
      if (_idle()) {
        const std::uint64_t before = rss_bytes();
        if (_release) _release();
        ::malloc_trim(0);
        if (_report) _report(before, rss_bytes());
      }
      lk.lock();
    }
  }

  std::function<bool()> _idle;
  std::function<void()> _release;
  report_fn _report;
  std::chrono::milliseconds _debounce;
  std::mutex _mu;
  std::condition_variable _cv;
  bool _stop = false, _poked = false;
  std::thread _thread;  // last: started once the members above exist
};

}  // namespace cuzk::engine
