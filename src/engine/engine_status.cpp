// SPDX-License-Identifier: Apache-2.0
// The status snapshot (engine::status: GetStatus, /status and, through
// prometheus_text in metrics.cpp, the metrics) and the labels of kinds,
// priorities, await statuses and partition stages. Cost: the snapshot copies
// every unfinished job's partition states under the engine lock.
#include "engine_impl.hpp"

namespace cuzk::engine {

const char* pstage_label(pstage s) {
  switch (s) {
    case pstage::pending: return "pending";
    case pstage::synthesizing: return "synthesizing";
    case pstage::synth_done: return "synth_done";
    case pstage::gpu: return "gpu";
    case pstage::finalizing: return "finalizing";
    case pstage::done: return "done";
    case pstage::failed: return "failed";
  }
  return "?";
}

std::string_view kind_label(proof_kind k) {
  switch (k) {
    case proof_kind::porep_seal_commit: return "porep_c2";
    case proof_kind::snap_deals_update: return "snap_update";
    case proof_kind::window_post_partition: return "window_post";
    case proof_kind::winning_post: return "winning_post";
    default: return "unspecified";
  }
}
std::string_view priority_label(priority p) {
  switch (p) {
    case priority::low: return "low";
    case priority::normal: return "normal";
    case priority::high: return "high";
    case priority::critical: return "critical";
    default: return "unspecified";
  }
}
std::string_view status_label(await_status s) {
  switch (s) {
    case await_status::completed: return "COMPLETED";
    case await_status::failed: return "FAILED";
    case await_status::cancelled: return "CANCELLED";
    case await_status::timeout: return "TIMEOUT";
    default: return "UNKNOWN";
  }
}

engine_status engine::status() const {
  const impl& p = *_p;
  engine_status s;
  s.backend = p.backend->name();
  s.devices = p.devices;
  const auto now = clock::now();
  s.uptime_secs = std::chrono::duration<double>(now - p.epoch).count();
  s.budget_total = p.budget.total();
  s.budget_used = p.budget.used();
  s.budget_peak = p.budget.peak();
  s.budget_reserve = p.budget.priority_reserve();
  s.budget_waiters = p.budget.waiters();
  s.srs = p.srs.status();
  s.pinned_bytes = p.srs.hot_bytes() + p.resident.bytes();
  // the pool before the holders: a buffer moving from a holder to the pool
  // in between is then counted once at most
  const witness_pool::stats pool = p.pool.status();
  s.witness_pool_idle = pool.idle;
  s.witness_pool_bytes = pool.idle_bytes;
  s.witness_pool_reused = pool.reused;
  std::lock_guard lk(p.mu);
  if (!p.paced_circuit.empty()) s.synthesis_lookahead = p.lookahead_locked(p.paced_circuit, p.paced_prio);
  s.witness_holders = p.held.n;
  for (const auto& [id, r] : p.pacer.all())
    s.pacing.push_back({id, r.synthesis_ms, r.device_ms, r.synthesis_samples, r.device_samples,
                        p.lookahead_locked(id, priority::normal)});
  for (const auto& [k, h] : p.kinds) s.queues.push_back({k, 0, 0});
  for (const auto& [id, j] : p.jobs) {
    if (j->done) continue;
    for (auto& q : s.queues)
      if (q.kind == j->kind) ++(j->running ? q.in_progress : q.pending);
    engine_status::job js;
    js.job_id = id;
    js.kind = j->kind;
    js.prio = j->prio;
    js.circuit_id = j->circuit_id;
    js.state = j->running ? "running" : "queued";
    js.started_secs_ago = std::chrono::duration<double>(now - (j->running ? j->started : j->submitted)).count();
    js.total_partitions = j->parts;
    js.partitions_done = j->parts_done;
    for (std::size_t i = 0; i < j->parts; ++i) {
      engine_status::partition ps{i, pstage_label(j->stage[i]), j->synth_ms[i], j->gpu_ms[i]};
      const std::uint64_t running_ms = ms_between(j->stage_since[i], now);
      if (j->stage[i] == pstage::synthesizing) ps.synth_ms = running_ms;
      if (j->stage[i] == pstage::gpu) ps.gpu_ms = running_ms;
      js.partitions.push_back(std::move(ps));
    }
    s.jobs.push_back(std::move(js));
  }
  s.workers = p.worker_state;
  for (std::size_t w = 0; w < s.workers.size(); ++w)
    if (s.workers[w].busy) s.workers[w].busy_secs = std::chrono::duration<double>(now - p.worker_since[w]).count();
  s.synthesis_max = p.synth_workers;
  s.synthesis_active = p.synth_active;
  s.gpu_queue_depth = p.gpu_q.size();
  s.synth_queue_depth = p.synth_q.size();
  s.completed = p.completed;
  s.failed = p.failed;
  s.cancelled = p.cancelled;
  s.partitions_synthesized = p.synthesized;
  s.completed_by_kind = p.completed_by;
  s.failed_by_kind = p.failed_by;
  for (const auto& [k, d] : p.recent) {
    ++s.duration_count[std::size_t(k)];
    s.duration_sum_secs[std::size_t(k)] += d;
  }
  return s;
}

}  // namespace cuzk::engine
