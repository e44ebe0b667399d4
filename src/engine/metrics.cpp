// SPDX-License-Identifier: Apache-2.0
// Prometheus text exposition of an engine_status: the reference daemon's
// metric names (cuzk_proofs_completed_total, cuzk_proofs_failed_total,
// cuzk_uptime_seconds, cuzk_queue_depth, cuzk_proofs_completed{proof_kind},
// cuzk_proofs_failed{proof_kind}, cuzk_proof_duration_seconds_{count,sum},
// cuzk_running_jobs, cuzk_gpu_workers) plus the memory budget, SRS tiers and
// pipeline depths. Cost: one string build per scrape.
#include <cstdio>
#include <string>

#include <cuzk/engine/engine.hpp>

namespace cuzk::engine {
namespace {

void line(std::string& out, const char* name, const std::string& labels, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out += name;
  if (!labels.empty()) out += "{" + labels + "}";
  out += " ";
  out += buf;
  out += "\n";
}
void head(std::string& out, const char* name, const char* type, const char* help) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}
std::string kl(std::size_t k) { return "proof_kind=\"" + std::string(kind_label(proof_kind(k))) + "\""; }

}  // namespace

std::string prometheus_text(const engine_status& s) {
  std::string o;
  head(o, "cuzk_proofs_completed_total", "counter", "Proofs completed since start.");
  line(o, "cuzk_proofs_completed_total", "", double(s.completed));
  head(o, "cuzk_proofs_failed_total", "counter", "Proofs failed since start.");
  line(o, "cuzk_proofs_failed_total", "", double(s.failed));
  head(o, "cuzk_proofs_cancelled_total", "counter", "Proofs cancelled since start.");
  line(o, "cuzk_proofs_cancelled_total", "", double(s.cancelled));
  head(o, "cuzk_partitions_synthesized_total", "counter", "Partitions whose witness synthesis started since start.");
  line(o, "cuzk_partitions_synthesized_total", "", double(s.partitions_synthesized));
  head(o, "cuzk_uptime_seconds", "gauge", "Seconds since the engine started.");
  line(o, "cuzk_uptime_seconds", "", s.uptime_secs);
  std::uint64_t pending = 0, running = 0;
  for (const auto& q : s.queues) {
    pending += q.pending;
    running += q.in_progress;
  }
  head(o, "cuzk_queue_depth", "gauge", "Jobs queued and not started.");
  line(o, "cuzk_queue_depth", "", double(pending));
  head(o, "cuzk_proofs_completed", "counter", "Proofs completed per kind.");
  for (std::size_t k = 1; k < proof_kind_count; ++k)
    line(o, "cuzk_proofs_completed", kl(k), double(s.completed_by_kind[k]));
  head(o, "cuzk_proofs_failed", "counter", "Proofs failed per kind.");
  for (std::size_t k = 1; k < proof_kind_count; ++k) line(o, "cuzk_proofs_failed", kl(k), double(s.failed_by_kind[k]));
  head(o, "cuzk_proof_duration_seconds", "summary", "Submit-to-result time of the last 1000 proofs.");
  for (std::size_t k = 1; k < proof_kind_count; ++k) {
    line(o, "cuzk_proof_duration_seconds_count", kl(k), double(s.duration_count[k]));
    line(o, "cuzk_proof_duration_seconds_sum", kl(k), s.duration_sum_secs[k]);
  }
  head(o, "cuzk_running_jobs", "gauge", "Jobs with a partition started and not finished.");
  line(o, "cuzk_running_jobs", "", double(running));
  head(o, "cuzk_gpu_workers", "gauge", "Prover (device) workers.");
  line(o, "cuzk_gpu_workers", "", double(s.workers.size()));
  std::size_t busy = 0;
  for (const auto& w : s.workers) busy += w.busy ? 1 : 0;
  head(o, "cuzk_gpu_workers_busy", "gauge", "Prover workers proving now.");
  line(o, "cuzk_gpu_workers_busy", "", double(busy));
  head(o, "cuzk_memory_budget_bytes", "gauge", "Memory budget total.");
  line(o, "cuzk_memory_budget_bytes", "", double(s.budget_total));
  head(o, "cuzk_memory_reserved_bytes", "gauge", "Bytes reserved from the memory budget now.");
  line(o, "cuzk_memory_reserved_bytes", "", double(s.budget_used));
  head(o, "cuzk_memory_reserved_peak_bytes", "gauge", "Highest reserved bytes since start.");
  line(o, "cuzk_memory_reserved_peak_bytes", "", double(s.budget_peak));
  head(o, "cuzk_synthesis_active", "gauge", "Partitions synthesizing now.");
  line(o, "cuzk_synthesis_active", "", double(s.synthesis_active));
  head(o, "cuzk_gpu_queue_depth", "gauge", "Synthesized partitions waiting for a prover worker.");
  line(o, "cuzk_gpu_queue_depth", "", double(s.gpu_queue_depth));
  head(o, "cuzk_synthesis_lookahead", "gauge", "Partitions the pacer lets hold a witness at once now.");
  line(o, "cuzk_synthesis_lookahead", "", double(s.synthesis_lookahead));
  head(o, "cuzk_witness_holders", "gauge", "Partitions holding a witness (synthesizing, waiting, on a device).");
  line(o, "cuzk_witness_holders", "", double(s.witness_holders));
  head(o, "cuzk_partition_synthesis_seconds", "gauge", "Running average of one partition's synthesis, per circuit.");
  for (const auto& pc : s.pacing)
    line(o, "cuzk_partition_synthesis_seconds", "circuit_id=\"" + pc.circuit_id + "\"", pc.synthesis_ms / 1000);
  head(o, "cuzk_partition_device_seconds", "gauge", "Running average of one partition's device time, per circuit.");
  for (const auto& pc : s.pacing)
    line(o, "cuzk_partition_device_seconds", "circuit_id=\"" + pc.circuit_id + "\"", pc.device_ms / 1000);
  head(o, "cuzk_witness_pool_bytes", "gauge", "Charged bytes of idle pooled witness buffers.");
  line(o, "cuzk_witness_pool_bytes", "", double(s.witness_pool_bytes));
  head(o, "cuzk_witness_pool_reused_total", "counter", "Partitions synthesized into a pooled witness buffer.");
  line(o, "cuzk_witness_pool_reused_total", "", double(s.witness_pool_reused));
  head(o, "cuzk_srs_bytes", "gauge", "Charged bytes of each circuit's parameters by tier (hot only is charged).");
  for (const auto& e : s.srs)
    if (e.tier != srs_tier::cold)
      line(o, "cuzk_srs_bytes", "circuit_id=\"" + e.circuit_id + "\",tier=\"" + std::string(tier_label(e.tier)) + "\"",
           double(e.size_bytes));
  return o;
}

}  // namespace cuzk::engine
