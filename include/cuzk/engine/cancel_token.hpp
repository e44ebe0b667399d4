// SPDX-License-Identifier: Apache-2.0
#pragma once
// cancel_token: one per job, shared by every stage that works on it. Stages
// call check() between steps (synthesis between sector slots, before the GPU
// stage, before finalizing), the wait for a device polls it, and the CPU
// prover polls flag() inside its MSMs and between its NTTs, so a cancelled
// job stops within one step and frees its memory. A thread that blocks for
// the job (memory budget, SRS load by another job) waits on a
// std::condition_variable_any with stop_token(), so cancel() wakes it at
// once instead of it polling. Cost: one relaxed atomic load per check; a
// cancel runs the registered wake-ups in the cancelling thread.
#include <atomic>
#include <memory>
#include <stop_token>

#include <cuzk/engine/types.hpp>

namespace cuzk::engine {

class cancel_token {
 public:
  cancel_token() : _flag(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() const noexcept {
    _flag->store(true, std::memory_order_relaxed);
    _stop.request_stop();
  }
  bool cancelled() const noexcept { return _flag->load(std::memory_order_relaxed); }
  /// The flag itself, for code below the engine that polls it without
  /// knowing about jobs (msm::config::stop, groth16::prove's |stop|). It
  /// lives as long as any copy of this token.
  const std::atomic<bool>* flag() const noexcept { return _flag.get(); }
  /// Stopped at cancel(): for the waits of condition_variable_any that a
  /// cancellation must end.
  std::stop_token stop_token() const noexcept { return _stop.get_token(); }
  /// Throws cancelled_error when cancelled.
  void check() const {
    if (cancelled()) throw cancelled_error("job cancelled");
  }

 private:
  std::shared_ptr<std::atomic<bool>> _flag;
  mutable std::stop_source _stop;  // copies share its state, like _flag
};

}  // namespace cuzk::engine
