// SPDX-License-Identifier: Apache-2.0
#pragma once
// device_gate: the kernel lock of one device, for the engine's device
// workers (gpus.gpu_workers_per_device of them share a device).
// Why not a std::mutex: a worker blocked in lock() could not notice that its
// job was cancelled or that the daemon is stopping (issue 25: a cancelled
// job's partition waited for the device and then proved for minutes), and a
// mutex hands the device to whichever thread the OS wakes, not to the most
// urgent partition. Here a waiter polls its job's cancel token every
// poll_interval and gives up its place when cancelled (acquire returns an
// empty hold), and a free device goes to the waiter with the smallest key
// (-priority, job seq, partition): the engine's queue order, so a
// WindowPoSt that arrives while a PoRep partition waits goes first.
// Cost: a waiting worker wakes every poll_interval (20 ms); the holder pays
// one mutex and one notify on release.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <tuple>

#include <cuzk/engine/cancel_token.hpp>

namespace cuzk::engine {

class device_gate {
 public:
  using key = std::tuple<int, std::uint64_t, std::size_t>;  // (-priority, job seq, partition)
  static constexpr std::chrono::milliseconds poll_interval{20};

  /// Holds the device until destroyed (or empty when the wait was given up).
  class hold {
   public:
    hold() = default;
    explicit hold(device_gate* g) : _g(g) {}
    hold(hold&& o) noexcept : _g(o._g) { o._g = nullptr; }
    hold& operator=(hold&& o) noexcept {
      if (this != &o) {
        reset();
        _g = o._g;
        o._g = nullptr;
      }
      return *this;
    }
    ~hold() { reset(); }
    explicit operator bool() const { return _g != nullptr; }
    void reset() {
      if (_g) _g->release();
      _g = nullptr;
    }

   private:
    device_gate* _g = nullptr;
  };

  /// Waits for the device in |k| order; empty when |token| is cancelled first.
  hold acquire(const key& k, const cancel_token& token) {
    std::unique_lock lk(_mu);
    const auto me = _waiting.insert(k).first;
    for (;;) {
      if (token.cancelled()) {
        _waiting.erase(me);
        _cv.notify_all();  // the next in line may be able to go now
        return {};
      }
      if (!_busy && _waiting.begin() == me) {
        _waiting.erase(me);
        _busy = true;
        return hold(this);
      }
      _cv.wait_for(lk, poll_interval);
    }
  }

  /// Partitions waiting for this device now (status, tests).
  std::size_t waiting() const {
    std::lock_guard lk(_mu);
    return _waiting.size();
  }

 private:
  void release() {
    {
      std::lock_guard lk(_mu);
      _busy = false;
    }
    _cv.notify_all();
  }

  mutable std::mutex _mu;
  std::condition_variable _cv;
  bool _busy = false;
  std::set<key> _waiting;
};

}  // namespace cuzk::engine
