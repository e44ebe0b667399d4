// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the engine keeps of finished jobs (issue 25: finished jobs kept their
// parsed input for result_ttl, outside the memory budget and with no bound on
// their number; 20 failed 32 GiB PoRep jobs held 299 MB).
//   * A job drops its parsed request (circuit_job: the C1 or vanilla proofs)
//     when it finishes (engine's finish_locked); it keeps its id, status,
//     error, timings and proof bytes (192 bytes per partition).
//   * A finished job is forgotten result_ttl after it finished, or earlier
//     when more than |max_finished| finished jobs are kept: the oldest go
//     first (AwaitProof of a forgotten id: NOT_FOUND; jobs in flight are never
//     touched). Run under the engine lock at every submit.
// Cost: one pass over the job table per submit (O(jobs), plus a sort of the
// finished ones when over the cap).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cuzk::engine {

template <class Job, class Clock = std::chrono::steady_clock>
void retire_finished_jobs(std::map<std::string, std::shared_ptr<Job>>& jobs, std::chrono::milliseconds ttl,
                          std::size_t max_finished, typename Clock::time_point now) {
  std::vector<typename std::map<std::string, std::shared_ptr<Job>>::iterator> finished;
  for (auto it = jobs.begin(); it != jobs.end();) {
    if (!it->second->done) {
      ++it;
    } else if (now - it->second->finished > ttl) {
      it = jobs.erase(it);
    } else {
      finished.push_back(it);
      ++it;
    }
  }
  if (finished.size() <= max_finished) return;
  const std::size_t drop = finished.size() - max_finished;
  std::nth_element(finished.begin(), finished.begin() + std::ptrdiff_t(drop - 1), finished.end(),
                   [](const auto& a, const auto& b) { return a->second->finished < b->second->finished; });
  for (std::size_t i = 0; i < drop; ++i) jobs.erase(finished[i]);
}

}  // namespace cuzk::engine
