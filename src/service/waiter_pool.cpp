// SPDX-License-Identifier: Apache-2.0
// Waiting calls without a thread each (see waiter_pool.hpp).
// Locking: the engine calls the subscription with its own lock held and the
// subscription only takes _mu; the pool never calls the engine while holding
// _mu, so the order is always engine lock -> _mu.
#include "waiter_pool.hpp"

namespace cuzk::service {

waiter_pool::waiter_pool(engine::engine& e, std::size_t max_waiters) : _e(e), _max(max_waiters) {
  _subscription = _e.subscribe_done([this](const std::string& job_id) {
    std::lock_guard lk(_mu);
    if (_by_job.find(job_id) == _by_job.end()) return;  // nobody waits for it
    _finished.push_back(job_id);
    _cv.notify_one();
  });
  _thread = std::thread([this] { run(); });
}

waiter_pool::~waiter_pool() {
  _e.unsubscribe_done(_subscription);
  {
    std::lock_guard lk(_mu);
    _stop = true;
  }
  _cv.notify_one();
  _thread.join();
}

std::size_t waiter_pool::size() const {
  std::lock_guard lk(_mu);
  return _waiters.size();
}

std::optional<waiter_pool::waiter> waiter_pool::take_locked(std::uint64_t ticket) {
  const auto it = _waiters.find(ticket);
  if (it == _waiters.end()) return std::nullopt;
  waiter w = std::move(it->second);
  _waiters.erase(it);
  for (auto [b, e] = _by_job.equal_range(w.job_id); b != e; ++b)
    if (b->second == ticket) {
      _by_job.erase(b);
      break;
    }
  if (w.deadline)
    for (auto [b, e] = _by_deadline.equal_range(*w.deadline); b != e; ++b)
      if (b->second == ticket) {
        _by_deadline.erase(b);
        break;
      }
  return w;
}

waiter_pool::outcome waiter_pool::result_now(const std::string& job_id) {
  outcome o;
  try {
    o.result = _e.await(job_id, std::chrono::milliseconds(0));
  } catch (const engine::not_found_error& e) {
    o.not_found = true;
    o.error = e.what();
  }
  return o;
}

void waiter_pool::add(const std::string& job_id, std::optional<clock::time_point> deadline, done_fn done,
                      std::uint64_t* ticket_out) {
  std::uint64_t ticket = 0;
  {
    std::lock_guard lk(_mu);
    if (_waiters.size() >= _max)
      throw waiters_exhausted(std::to_string(_waiters.size()) +
                              " calls are already waiting for proofs (daemon.max_waiting_calls = " +
                              std::to_string(_max) + "); retry later");
    ticket = _next++;
    *ticket_out = ticket;
    _waiters.emplace(ticket, waiter{job_id, deadline, std::move(done)});
    _by_job.emplace(job_id, ticket);
    if (deadline) _by_deadline.emplace(*deadline, ticket);
    if (deadline) _cv.notify_one();  // the earliest deadline may have moved
  }
  // registered first, checked second: a job that finished before the
  // registration is answered here, one that finishes after is reported by
  // the engine; take_locked makes sure only one of the two answers
  outcome o = result_now(job_id);
  if (o.not_found || o.result.status != engine::await_status::timeout) {
    std::optional<waiter> w;
    {
      std::lock_guard lk(_mu);
      w = take_locked(ticket);
    }
    if (w) w->done(std::move(o));
  }
}

bool waiter_pool::cancel(std::uint64_t ticket) {
  std::lock_guard lk(_mu);
  return take_locked(ticket).has_value();
}

void waiter_pool::run() {
  std::unique_lock lk(_mu);
  for (;;) {
    if (_stop) return;
    if (_finished.empty()) {
      if (_by_deadline.empty()) {
        _cv.wait(lk);
      } else {
        // a copy: wait_until reads its time point again after waking, and
        // the map's node may be gone by then (a waiter answered meanwhile;
        // AddressSanitizer caught the read of the freed node)
        const clock::time_point until = _by_deadline.begin()->first;
        _cv.wait_until(lk, until);
      }
    }
    if (_stop) return;
    // jobs the engine reported: every waiter of each gets the result
    std::vector<std::string> finished;
    finished.swap(_finished);
    std::vector<std::pair<waiter, std::size_t>> ready;  // (waiter, index into results)
    std::vector<std::string> ids;
    for (const std::string& id : finished) {
      std::vector<std::uint64_t> tickets;
      for (auto [b, e] = _by_job.equal_range(id); b != e; ++b) tickets.push_back(b->second);
      if (tickets.empty()) continue;
      ids.push_back(id);
      for (std::uint64_t t : tickets)
        if (auto w = take_locked(t)) ready.emplace_back(std::move(*w), ids.size() - 1);
    }
    // deadlines that passed
    std::vector<waiter> expired;
    const auto now = clock::now();
    while (!_by_deadline.empty() && _by_deadline.begin()->first <= now) {
      if (auto w = take_locked(_by_deadline.begin()->second)) expired.push_back(std::move(*w));
      else _by_deadline.erase(_by_deadline.begin());  // never: the maps agree
    }
    if (ready.empty() && expired.empty()) continue;
    lk.unlock();
    std::vector<outcome> results;
    results.reserve(ids.size());
    for (const std::string& id : ids) results.push_back(result_now(id));
    for (auto& [w, i] : ready) w.done(results[i]);
    for (auto& w : expired) {
      outcome o;
      o.result.job_id = w.job_id;
      o.result.status = engine::await_status::timeout;
      w.done(std::move(o));
    }
    lk.lock();
  }
}

}  // namespace cuzk::service
