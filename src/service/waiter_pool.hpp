// SPDX-License-Identifier: Apache-2.0
#pragma once
// waiter_pool: the calls waiting for a job (AwaitProof, Prove) without an OS
// thread each (issue 25: 5000 waiting AwaitProof calls made 5028 threads and
// +313 MB, and GetStatus took 681 ms).
//
// A waiter is a job id, an optional deadline and a completion function. The
// engine tells the pool when a job finishes (engine::subscribe_done, a quick
// push under the engine's lock); one pool thread then takes that job's result
// (engine::await with a zero timeout) and calls the completion of every waiter
// of the job; the same thread answers waiters whose deadline passed with a
// TIMEOUT result. Nothing polls: the thread sleeps until a job finishes or
// the earliest deadline. At most |max_waiters| waiters at once; add() beyond
// that throws waiters_exhausted (the service answers RESOURCE_EXHAUSTED), so
// a flood of waiting calls costs bounded memory.
// Exactly once: each waiter's completion runs once, unless cancel() removed
// it first (then never). Completions run on the pool thread, or inside add()
// when the job is already finished or unknown; they must be quick (the
// gRPC reactor's Finish is).
// Cost: one map entry per waiter (~200 bytes); per finished job one lookup
// and one result copy per waiter.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cuzk/engine/engine.hpp>

namespace cuzk::service {

class waiters_exhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class waiter_pool {
 public:
  using clock = std::chrono::steady_clock;
  /// The waiter's answer: the job's result (TIMEOUT at the deadline), or
  /// |not_found| with a message when the job id is unknown or expired.
  struct outcome {
    engine::job_result result;
    bool not_found = false;
    std::string error;
  };
  using done_fn = std::function<void(outcome)>;

  waiter_pool(engine::engine& e, std::size_t max_waiters);
  ~waiter_pool();
  waiter_pool(const waiter_pool&) = delete;
  waiter_pool& operator=(const waiter_pool&) = delete;

  /// Registers a waiter; its ticket is written to |*ticket| before |done|
  /// can run (so the caller need not touch its state after add returns).
  /// |done| runs exactly once unless cancel(ticket) returns true first.
  /// Throws waiters_exhausted (nothing registered, |done| never runs).
  void add(const std::string& job_id, std::optional<clock::time_point> deadline, done_fn done, std::uint64_t* ticket);
  /// True: removed, |done| will not run. False: it ran or is running.
  bool cancel(std::uint64_t ticket);
  /// Waiters registered now.
  std::size_t size() const;
  std::size_t max_waiters() const { return _max; }

 private:
  struct waiter {
    std::string job_id;
    std::optional<clock::time_point> deadline;
    done_fn done;
  };
  void run();
  std::optional<waiter> take_locked(std::uint64_t ticket);
  outcome result_now(const std::string& job_id);

  engine::engine& _e;
  const std::size_t _max;
  mutable std::mutex _mu;
  std::condition_variable _cv;
  std::map<std::uint64_t, waiter> _waiters;
  std::multimap<std::string, std::uint64_t> _by_job;
  std::multimap<clock::time_point, std::uint64_t> _by_deadline;
  std::vector<std::string> _finished;  // job ids the engine reported, not yet handled
  std::uint64_t _next = 1;
  bool _stop = false;
  std::uint64_t _subscription = 0;
  std::thread _thread;
};

}  // namespace cuzk::service
