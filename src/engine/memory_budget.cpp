// SPDX-License-Identifier: Apache-2.0
// memory_budget and reservation (see include/cuzk/engine/memory_budget.hpp).
#include <cuzk/engine/memory_budget.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stop_token>

namespace cuzk::engine {

reservation& reservation::operator=(reservation&& o) noexcept {
  if (this != &o) {
    release_all();
    _budget = std::exchange(o._budget, nullptr);
    _bytes = std::exchange(o._bytes, 0);
  }
  return *this;
}

void reservation::release(std::uint64_t n) noexcept {
  n = std::min(n, _bytes);
  if (n == 0 || _budget == nullptr) return;
  _bytes -= n;
  _budget->give_back(n);
}

memory_budget::memory_budget(std::uint64_t total, std::uint64_t priority_reserve)
    : _total(total), _reserve(std::min(priority_reserve, total)) {}

std::optional<std::uint64_t> memory_budget::auto_total(std::uint64_t safety_margin) {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemTotal:") {
      const std::uint64_t bytes = kib * 1024;
      return bytes > safety_margin ? bytes - safety_margin : 0;
    }
  }
  return std::nullopt;
}

std::uint64_t memory_budget::used() const {
  std::lock_guard lk(_mu);
  return _used;
}
std::uint64_t memory_budget::peak() const {
  std::lock_guard lk(_mu);
  return _peak;
}
std::uint64_t memory_budget::available() const {
  std::lock_guard lk(_mu);
  return _total - _used;
}
std::size_t memory_budget::waiters() const {
  std::lock_guard lk(_mu);
  return _waiting.size();
}

std::uint64_t memory_budget::limit_for(priority p) const noexcept {
  return p >= priority::high ? _total : _total - _reserve;
}

bool memory_budget::fits_locked(std::uint64_t bytes, priority p) const noexcept {
  return _used + bytes <= limit_for(p);
}

std::optional<reservation> memory_budget::try_acquire(std::uint64_t bytes, priority p) {
  std::lock_guard lk(_mu);
  if (!fits_locked(bytes, p)) return std::nullopt;
  // a better waiter goes first
  if (!_waiting.empty() && _waiting.begin()->first < -int(p)) return std::nullopt;
  _used += bytes;
  _peak = std::max(_peak, _used);
  return reservation(this, bytes);
}

reservation memory_budget::acquire(std::uint64_t bytes, priority p, const cancel_token* token,
                                   const std::string& what) {
  if (bytes > limit_for(p))
    throw budget_error(what + " needs " + format_bytes(bytes) + " but the memory budget allows at most " +
                       format_bytes(limit_for(p)) + " for " + std::string(priority_label(p)) +
                       " priority work (memory.total_budget = " + format_bytes(_total) + ")");
  std::unique_lock lk(_mu);
  const std::pair<int, std::uint64_t> key{-int(p), _seq++};
  _waiting.insert(key);
  const std::stop_token stop = token != nullptr ? token->stop_token() : std::stop_token();
  bool tried_evict = false;
  auto retry_at = std::chrono::steady_clock::time_point::max();
  for (;;) {
    if (token != nullptr && token->cancelled()) {
      _waiting.erase(key);
      changed_locked();
      lk.unlock();
      _cv.notify_all();
      throw cancelled_error("job cancelled while waiting for memory");
    }
    if (*_waiting.begin() == key && fits_locked(bytes, p)) {
      _waiting.erase(key);
      _used += bytes;
      _peak = std::max(_peak, _used);
      changed_locked();
      lk.unlock();
      _cv.notify_all();  // the next waiter may fit too
      return reservation(this, bytes);
    }
    if (*_waiting.begin() == key && _evictor && !tried_evict) {
      const std::uint64_t need = _used + bytes - limit_for(p);
      auto ev = _evictor;
      lk.unlock();
      const eviction got = ev(need);
      lk.lock();
      tried_evict = got.freed == 0;  // keep evicting while it makes progress
      retry_at = got.retry_at;
      continue;
    }
    // asleep until a change, the token's cancellation or, with nothing
    // left to evict now, the time the evictor named
    const std::uint64_t seen = _changes;
    const auto changed = [&] { return _changes != seen; };
    if (tried_evict && retry_at != std::chrono::steady_clock::time_point::max())
      _cv.wait_until(lk, stop, retry_at, changed);
    else _cv.wait(lk, stop, changed);
    tried_evict = false;
  }
}

void memory_budget::give_back(std::uint64_t n) noexcept {
  std::vector<std::function<void()>> listeners;
  {
    std::lock_guard lk(_mu);
    _used -= std::min(n, _used);
    changed_locked();
    listeners = _listeners;
  }
  _cv.notify_all();
  for (auto& f : listeners) f();
}

void memory_budget::set_evictor(std::function<eviction(std::uint64_t)> fn) {
  std::lock_guard lk(_mu);
  _evictor = std::move(fn);
}

void memory_budget::notify_evictable() {
  {
    std::lock_guard lk(_mu);
    if (_waiting.empty()) return;
    changed_locked();
  }
  _cv.notify_all();
}

void memory_budget::add_release_listener(std::function<void()> fn) {
  std::lock_guard lk(_mu);
  _listeners.push_back(std::move(fn));
}

std::string format_bytes(std::uint64_t n) {
  char buf[64];
  if (n >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB (%llu bytes)", double(n) / double(1ull << 30), (unsigned long long)n);
  else if (n >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.2f MiB (%llu bytes)", double(n) / double(1ull << 20), (unsigned long long)n);
  else std::snprintf(buf, sizeof buf, "%llu bytes", (unsigned long long)n);
  return buf;
}

}  // namespace cuzk::engine
