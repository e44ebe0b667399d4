// SPDX-License-Identifier: Apache-2.0
// The per-thread TIMELINE rings and their writer (see
// include/cuzk/engine/event_log.hpp for the design and the costs).
// Ring protocol (single producer = the owning thread, single consumer = the
// writer): the producer writes slot[head % cap] and then stores head+1 with
// release; the consumer loads head with acquire, copies the slots up to it
// and stores tail with release, which the producer loads with acquire before
// reusing a slot. Every counter only grows (64 bits do not wrap).
#include <cuzk/engine/event_log.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace cuzk::engine {

namespace {

struct record {
  std::int64_t t_ns = 0;
  const char* event = nullptr;
  char job[64];
  char detail[128];
};

void copy_cut(char* dst, std::size_t cap, std::string_view s) {
  const std::size_t n = std::min(s.size(), cap - 1);
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

std::atomic<std::uint64_t> next_log_id{1};

}  // namespace

struct event_log::ring {
  explicit ring(std::size_t cap) : slots(cap) {}
  std::vector<record> slots;
  ring* next = nullptr;                            // set before publication, then immutable
  alignas(64) std::atomic<std::uint64_t> head{0};  // producer
  std::atomic<std::uint64_t> dropped{0};           // producer
  std::uint64_t tail_seen = 0;                     // producer's copy of tail: read tail only when it looks full
  alignas(64) std::atomic<std::uint64_t> tail{0};  // consumer
};

event_log::event_log(clock::time_point epoch, std::size_t ring_capacity, std::chrono::milliseconds poll)
    : _epoch(epoch),
      _cap(std::max<std::size_t>(2, ring_capacity)),
      _poll(poll.count() > 0 ? poll : std::chrono::milliseconds(1)),
      _id(next_log_id.fetch_add(1)) {
  _writer = std::thread([this] { writer_loop(); });
}

event_log::~event_log() {
  {
    std::lock_guard lk(_mu);
    _stop = true;
  }
  _cv.notify_all();
  _writer.join();
  for (ring* r = _rings.load(); r;) {
    ring* n = r->next;
    delete r;
    r = n;
  }
}

void event_log::set_sink(sink_fn f) {
  std::lock_guard lk(_mu);
  _enabled.store(bool(f), std::memory_order_relaxed);
  _sink = std::move(f);
}

event_log::ring* event_log::ring_of_this_thread() {
  // A thread's rings, by log id. Ids are never reused, so an entry of a
  // destroyed log is never matched again; the cache is bounded, and a
  // thread that loses its entry simply registers a fresh ring.
  struct entry {
    std::uint64_t id;
    ring* r;
  };
  thread_local std::vector<entry> cache;
  for (const entry& e : cache)
    if (e.id == _id) return e.r;
  auto* r = new ring(_cap);
  r->next = _rings.load(std::memory_order_relaxed);
  while (!_rings.compare_exchange_weak(r->next, r, std::memory_order_release, std::memory_order_relaxed)) {
  }
  _nrings.fetch_add(1, std::memory_order_relaxed);
  if (cache.size() >= 16) cache.erase(cache.begin());
  cache.push_back({_id, r});
  return r;
}

void event_log::emit(const char* event, std::string_view job, std::string_view detail) noexcept {
  if (!_enabled.load(std::memory_order_relaxed)) return;
  ring* r = nullptr;
  try {
    r = ring_of_this_thread();  // allocates once per thread
  } catch (...) {
    return;
  }
  const std::uint64_t h = r->head.load(std::memory_order_relaxed);
  if (h - r->tail_seen >= r->slots.size()) {
    r->tail_seen = r->tail.load(std::memory_order_acquire);
    if (h - r->tail_seen >= r->slots.size()) {
      r->dropped.store(r->dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      return;
    }
  }
  record& s = r->slots[h % r->slots.size()];
  s.t_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - _epoch).count();
  s.event = event;
  copy_cut(s.job, sizeof s.job, job);
  copy_cut(s.detail, sizeof s.detail, detail);
  r->head.store(h + 1, std::memory_order_release);
}

std::size_t event_log::drain_once() {
  thread_local std::vector<record> batch;  // writer thread only
  batch.clear();
  for (ring* r = _rings.load(std::memory_order_acquire); r; r = r->next) {
    const std::uint64_t t = r->tail.load(std::memory_order_relaxed);
    const std::uint64_t h = r->head.load(std::memory_order_acquire);
    for (std::uint64_t i = t; i < h; ++i) batch.push_back(r->slots[i % r->slots.size()]);
    r->tail.store(h, std::memory_order_release);
  }
  if (batch.empty()) return 0;
  std::stable_sort(batch.begin(), batch.end(), [](const record& a, const record& b) { return a.t_ns < b.t_ns; });
  sink_fn sink;
  {
    std::lock_guard lk(_mu);
    sink = _sink;
  }
  if (sink) {
    std::string line;
    for (const record& e : batch) {
      char ms[32];
      std::snprintf(ms, sizeof ms, "%lld", (long long)(e.t_ns / 1000000));
      line.assign("TIMELINE,")
          .append(ms)
          .append(",")
          .append(e.event)
          .append(",")
          .append(e.job)
          .append(",")
          .append(e.detail);
      sink(line);
    }
  }
  _written.fetch_add(batch.size(), std::memory_order_relaxed);
  return batch.size();
}

void event_log::writer_loop() {
  std::unique_lock lk(_mu);
  for (;;) {
    const bool stop = _stop;
    const std::uint64_t want = _flush_req;
    lk.unlock();
    while (drain_once() > 0) {
    }
    lk.lock();
    _flush_done = want;
    _cv.notify_all();
    if (stop) return;
    _cv.wait_for(lk, _poll, [&] { return _stop || _flush_req != _flush_done; });
  }
}

void event_log::flush() {
  std::unique_lock lk(_mu);
  const std::uint64_t ticket = ++_flush_req;
  _cv.notify_all();
  _cv.wait(lk, [&] { return _flush_done >= ticket || _stop; });
}

std::uint64_t event_log::emitted() const {
  std::uint64_t n = 0;
  for (ring* r = _rings.load(std::memory_order_acquire); r; r = r->next) n += r->head.load(std::memory_order_acquire);
  return n;
}

std::uint64_t event_log::dropped() const {
  std::uint64_t n = 0;
  for (ring* r = _rings.load(std::memory_order_acquire); r; r = r->next)
    n += r->dropped.load(std::memory_order_relaxed);
  return n;
}

}  // namespace cuzk::engine
