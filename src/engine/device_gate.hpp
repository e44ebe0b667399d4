// SPDX-License-Identifier: Apache-2.0
#pragma once
// device_gate: the kernel lock of one device, for the engine's device
// workers (gpus.gpu_workers_per_device of them share a device, plus one
// reserved for HIGH / CRITICAL partitions).
// Why not a std::mutex: a worker blocked in lock() could not notice that its
// job was cancelled or that the daemon is stopping (issue 25: a cancelled
// job's partition waited for the device and then proved for minutes), and a
// mutex hands the device to whichever thread the OS wakes, not to the most
// urgent partition. Here a waiter sleeps until the device is released or
// lent, or its job's cancel token is cancelled (cancel_token::stop_token
// wakes it), and then gives up its place (acquire returns an empty hold);
// a free device goes to the waiter with the smallest key
// (-priority, job seq, partition): the engine's queue order, so a
// WindowPoSt that arrives while a PoRep partition waits goes first.
//
// Lending (issue 19: a WinningPoSt must not wait out a whole PoRep
// partition). A holder calls lend_if_urgent() at the boundaries of its
// device phases, with the device idle. When a waiter of strictly higher
// priority and another circuit (tag) waits, the holder steps aside: the
// device goes to the waiters in key order while the holder waits, and comes
// back to it. Its own prover is suspended meanwhile with the partition's
// buffers in use, so a waiter of the lender's circuit must not take the
// device before the lender is done (it would wait on that prover while
// holding the device: a deadlock); such waiters are passed over until the
// lender has finished. Equal priority never lends (no churn between two
// PoRep jobs), and a lender's turn comes back by key order like any waiter.
// Cost: a waiting worker wakes at each release, lend or cancellation; the
// holder pays one mutex and one notify on release, and one mutex per phase
// boundary.
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <stop_token>
#include <string>
#include <tuple>

#include <cuzk/engine/cancel_token.hpp>
#include <cuzk/engine/types.hpp>

namespace cuzk::engine {

class device_gate {
 public:
  using key = std::tuple<int, std::uint64_t, std::size_t>;  // (-priority, job seq, partition)

  /// Holds the device until destroyed (or empty when the wait was given up).
  class hold {
   public:
    hold() = default;
    hold(device_gate* g, const key& k, std::string tag) : _g(g), _k(k), _tag(std::move(tag)) {}
    hold(hold&& o) noexcept : _g(o._g), _k(o._k), _tag(std::move(o._tag)) { o._g = nullptr; }
    hold& operator=(hold&& o) noexcept {
      if (this != &o) {
        reset();
        _g = o._g;
        _k = o._k;
        _tag = std::move(o._tag);
        o._g = nullptr;
      }
      return *this;
    }
    ~hold() { reset(); }
    explicit operator bool() const { return _g != nullptr; }
    void reset() {
      if (_g) _g->release(_k);
      _g = nullptr;
    }
    /// At a phase boundary, the device idle: lends the device to more
    /// urgent waiters of other circuits and waits for it to come back.
    /// Throws cancelled_error when |token| is cancelled while it waits (the
    /// hold is then empty).
    void lend_if_urgent(const cancel_token& token) {
      if (_g && !_g->lend_if_urgent(_k, _tag, token)) {
        _g = nullptr;
        throw cancelled_error("job cancelled while it lent the device to a more urgent partition");
      }
    }

   private:
    device_gate* _g = nullptr;
    key _k{};
    std::string _tag;
  };

  /// Waits for the device in |k| order; empty when |token| is cancelled
  /// first. |tag| names the circuit (the prover) the partition uses.
  hold acquire(const key& k, const std::string& tag, const cancel_token& token) {
    std::unique_lock lk(_mu);
    if (!wait_turn(lk, k, tag, false, token)) return {};
    return hold(this, k, tag);
  }

  /// Partitions waiting for this device now (status, tests; lenders
  /// included).
  std::size_t waiting() const {
    std::lock_guard lk(_mu);
    return _waiting.size();
  }
  /// Holders that have lent the device and wait for it back (tests).
  std::size_t lending() const {
    std::lock_guard lk(_mu);
    return _lent.size();
  }

 private:
  struct waiter {
    std::string tag;
    bool lender;
  };

  /// Whether |w| may take the device now: a lender always; others unless
  /// their circuit has a lender (its prover is in the middle of a partition).
  bool eligible(const waiter& w) const { return w.lender || !_lent.contains(w.tag); }

  /// Inserts |k| into the waiters and waits until it is the first eligible
  /// one with the device free; then takes the device. False (and removed)
  /// when |token| is cancelled first.
  bool wait_turn(std::unique_lock<std::mutex>& lk, const key& k, const std::string& tag, bool lender,
                 const cancel_token& token) {
    _waiting.emplace(k, waiter{tag, lender});
    const std::stop_token stop = token.stop_token();
    for (;;) {
      if (token.cancelled()) {
        _waiting.erase(k);
        if (lender) drop_lent(tag);
        _cv.notify_all();  // the next in line may be able to go now
        return false;
      }
      if (!_busy && first_eligible() == k) {
        _waiting.erase(k);
        if (lender) drop_lent(tag);
        _busy = true;
        _holder = k;
        return true;
      }
      _cv.wait(lk, stop, [&] { return !_busy && first_eligible() == k; });
    }
  }

  key first_eligible() const {
    for (const auto& [k, w] : _waiting)
      if (eligible(w)) return k;
    return key{std::numeric_limits<int>::max(), 0, 0};
  }

  void drop_lent(const std::string& tag) {
    if (auto it = _lent.find(tag); it != _lent.end()) _lent.erase(it);
  }

  bool lend_if_urgent(const key& k, const std::string& tag, const cancel_token& token) {
    std::unique_lock lk(_mu);
    bool urgent = false;
    for (const auto& [wk, w] : _waiting)
      if (std::get<0>(wk) < std::get<0>(k) && w.tag != tag && eligible(w)) urgent = true;
    if (!urgent) return true;
    _busy = false;
    _lent.insert(tag);
    _cv.notify_all();
    return wait_turn(lk, k, tag, true, token);
  }

  void release(const key& k) {
    {
      std::lock_guard lk(_mu);
      if (!_busy || _holder != k) return;  // lent and cancelled: not ours any more
      _busy = false;
    }
    _cv.notify_all();
  }

  mutable std::mutex _mu;
  std::condition_variable_any _cv;  // _any: a wait ends at the waiter's cancellation
  bool _busy = false;
  key _holder{};
  std::map<key, waiter> _waiting;
  std::multiset<std::string> _lent;  // tags of holders that lent the device
};

}  // namespace cuzk::engine
