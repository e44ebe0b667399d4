// SPDX-License-Identifier: Apache-2.0
#pragma once
// memory_budget: the one byte budget every large allocation of the engine is
// charged to (hot SRS, cached circuit shapes, pinned staging, in-flight
// partitions). A reservation is taken BEFORE the memory is allocated and
// released, in steps, as the buffers are freed; the engine never holds more
// than total() bytes of charged memory (peak() records the high-water mark,
// which tests assert against).
//
// Priorities: waiters are served in (priority desc, arrival) order, so a
// CRITICAL WinningPoSt never waits behind queued PoRep partitions, and the
// last |priority_reserve| bytes may only be taken by HIGH and CRITICAL
// requests, so PoSt finds room even when partitions fill the rest. A request
// larger than it may ever get throws budget_error at once instead of
// waiting forever. When a request does not fit, the evictor (idle pooled
// witness buffers, then idle SRS entries) is asked to free memory before
// waiting.
//
// Waiting: a blocked acquire sleeps until something it waits for happens
// in this process, and is woken by it: a release, a better waiter leaving,
// notify_evictable() (a holder made memory evictable: an SRS lease or a
// pooled buffer went idle), the cancellation of its token (cancel_token's
// stop_token), or the time the evictor named (an SRS entry ages past its
// minimum idle time, which nothing announces).
//
// auto_total(): MemTotal from /proc/meminfo minus a safety margin.
// Cost: one mutex acquisition per acquire/release/notify.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <cuzk/engine/cancel_token.hpp>
#include <cuzk/engine/types.hpp>

namespace cuzk::engine {

class memory_budget;

/// Bytes held from a memory_budget (RAII, move-only); released on
/// destruction, or earlier in parts.
class reservation {
 public:
  reservation() = default;
  reservation(reservation&& o) noexcept
      : _budget(std::exchange(o._budget, nullptr)), _bytes(std::exchange(o._bytes, 0)) {}
  reservation& operator=(reservation&& o) noexcept;
  reservation(const reservation&) = delete;
  reservation& operator=(const reservation&) = delete;
  ~reservation() { release_all(); }

  std::uint64_t bytes() const noexcept { return _bytes; }
  /// Returns min(|n|, bytes()) bytes to the budget.
  void release(std::uint64_t n) noexcept;
  void release_all() noexcept { release(_bytes); }
  /// Moves min(|n|, bytes()) bytes into a new reservation of the same
  /// budget, without releasing anything (a buffer that outlives the rest of
  /// a charge takes its part along: the witness pool).
  reservation split(std::uint64_t n) noexcept {
    n = std::min(n, _bytes);
    _bytes -= n;
    return reservation(n == 0 ? nullptr : _budget, n);
  }

 private:
  friend class memory_budget;
  reservation(memory_budget* b, std::uint64_t n) : _budget(b), _bytes(n) {}
  memory_budget* _budget = nullptr;
  std::uint64_t _bytes = 0;
};

class memory_budget {
 public:
  /// |total| bytes, of which the last |priority_reserve| only HIGH/CRITICAL may use.
  explicit memory_budget(std::uint64_t total, std::uint64_t priority_reserve = 0);
  memory_budget(const memory_budget&) = delete;
  memory_budget& operator=(const memory_budget&) = delete;

  /// MemTotal (/proc/meminfo) minus |safety_margin|; nullopt when unreadable.
  static std::optional<std::uint64_t> auto_total(std::uint64_t safety_margin);

  std::uint64_t total() const noexcept { return _total; }
  std::uint64_t priority_reserve() const noexcept { return _reserve; }
  std::uint64_t used() const;
  std::uint64_t peak() const;
  std::uint64_t available() const;
  std::size_t waiters() const;

  /// The most a request of priority |p| can ever hold.
  std::uint64_t limit_for(priority p) const noexcept;

  /// Blocks until |bytes| fit for priority |p| and every better waiter is
  /// served. Throws budget_error when |bytes| > limit_for(p) (|what| names
  /// the request in the message) and cancelled_error when |token| is cancelled.
  reservation acquire(std::uint64_t bytes, priority p, const cancel_token* token, const std::string& what);
  /// Takes |bytes| now or returns nullopt (no eviction, no waiting).
  std::optional<reservation> try_acquire(std::uint64_t bytes, priority p);

  /// What an evictor freed, and when it may free more without anyone
  /// calling notify_evictable() (max: not before such a call).
  struct eviction {
    std::uint64_t freed = 0;
    std::chrono::steady_clock::time_point retry_at = std::chrono::steady_clock::time_point::max();
  };
  /// |fn(needed)| tries to free at least |needed| bytes (through reservations
  /// it owns). Called without the budget lock.
  void set_evictor(std::function<eviction(std::uint64_t)> fn);
  /// Wakes the blocked acquires to ask the evictor again: call it when
  /// something it could free became idle.
  void notify_evictable();
  /// Called (without the lock) after every release.
  void add_release_listener(std::function<void()> fn);

 private:
  friend class reservation;
  void give_back(std::uint64_t n) noexcept;
  bool fits_locked(std::uint64_t bytes, priority p) const noexcept;
  /// Records a change a waiter may act on and wakes them (after unlocking).
  void changed_locked() noexcept { ++_changes; }

  const std::uint64_t _total;
  const std::uint64_t _reserve;
  mutable std::mutex _mu;
  std::condition_variable_any _cv;  // _any: its waits end at a cancel_token's stop
  std::uint64_t _changes = 0;       // releases, waiters leaving, notify_evictable()
  std::uint64_t _used = 0;
  std::uint64_t _peak = 0;
  std::uint64_t _seq = 0;
  // (-priority, arrival) of every blocked acquire; the first is served first.
  std::set<std::pair<int, std::uint64_t>> _waiting;
  std::function<eviction(std::uint64_t)> _evictor;
  std::vector<std::function<void()>> _listeners;
};

/// "1.50 GiB" style formatting for messages.
std::string format_bytes(std::uint64_t n);

}  // namespace cuzk::engine
