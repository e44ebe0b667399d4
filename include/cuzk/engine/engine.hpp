// SPDX-License-Identifier: Apache-2.0
#pragma once
// The proving engine: job table + pipeline, no gRPC.
//
//   submit ─► job table (request_id = job id, idempotent; priorities; cancel
//             token per job; a finished job keeps only its result, for
//             result_ttl and at most max_finished_jobs of them; freed memory
//             goes back to the OS when idle)
//     │ parse + validate at submit (bad requests never queue)
//     ▼ one work item per partition, ordered (priority desc, job age, partition)
//   synthesis pool, paced to the devices (a NORMAL/LOW partition starts only
//     while fewer than the lookahead partitions hold a witness: enough
//     syntheses to deliver one partition per device time per device, plus
//     the GPU queue depth, within the budget; synthesis_pacer.hpp):
//     SRS lease (loads the circuit hot) ─► memory reservation
//     (blocks in the budget; HIGH/CRITICAL have a reserved extra worker and
//     the budget's priority reserve) ─► witness synthesis (into a pooled
//     buffer of the shape when one is idle: witness_pool.hpp; or straight
//     into the coded form when the kind can and the backend proves from
//     it, with no whole witness at all) ─► the
//     backend's prepare (the CUDA backend codes the witness; that form
//     replaces it, and the buffer goes back to the pool, still charged)
//     ▼ bounded GPU queue, same order (HIGH/CRITICAL never blocked by its bound)
//   device workers (gpu_workers_per_device per device, plus one for
//     HIGH/CRITICAL only; the device's kernel lock around prove_start only,
//     lent at its phase boundaries to a more urgent partition of another
//     circuit: device_gate.hpp; with max_batch_size > 1 a worker proves
//     up to that many NORMAL/LOW partitions of one circuit in one pass,
//     prove_start_batch, waiting at most max_batch_wait for partitions on
//     their way: device_batch.cpp) ─► witness buffer to the pool (still
//     charged) unless it went after prepare, the rest of the witness memory
//     released
//     ▼
//   finalizer pool: finalize (B_G2 / assembly), verification of the
//     partition proof against its public inputs (pipeline.verify_proofs),
//     192-byte encoding ─► reservation and lease released ─► job result
//
// Every stage checks the job's cancel token; cancelling a job removes its
// queued items at once (their reservations return to the budget) and a
// running stage stops at its next check. TIMELINE lines
// ("TIMELINE,<ms since start>,<EVENT>,<job>,<detail>") go to the timeline
// sink: SYNTH_START, SYNTH_END, GPU_QUEUE, GPU_START, GPU_END (gpu_ms),
// FINALIZE, plus JOB_DONE; they pass through a lock-free per-thread buffer
// and one writer thread (event_log.hpp). A completed job's result carries
// each partition's stage and wait times (types.hpp, partition_timing).
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cuzk/engine/memory_budget.hpp>
#include <cuzk/engine/proof_kind.hpp>
#include <cuzk/engine/prover_backend.hpp>
#include <cuzk/engine/srs_manager.hpp>
#include <cuzk/engine/types.hpp>

namespace cuzk::engine {

enum class verify_mode : std::uint8_t { none, porep, all };

struct engine_config {
  std::filesystem::path param_cache = "/data/zk/params";
  bool check_points = false;
  /// Cache circuit shapes in param_cache (srs_options::shape_cache).
  bool shape_cache = true;
  /// parameters.json for the digest check of parameter files
  /// (srs_options::parameters_json; "": param_cache/parameters.json if any).
  std::filesystem::path parameters_json;
  std::uint64_t total_budget = 0;  ///< 0: auto (MemTotal - safety_margin)
  std::uint64_t safety_margin = 5ull << 30;
  std::optional<std::uint64_t> priority_reserve;  ///< unset: min(total/16, 2 GiB)
  std::chrono::milliseconds eviction_min_idle{std::chrono::minutes(5)};
  std::size_t gpu_workers_per_device = 2;
  /// Synthesis workers; 0: max(1, min(cpus/2, 18)). An upper bound: the
  /// pacer runs only the syntheses that keep the devices busy.
  std::size_t max_parallel_synthesis = 0;
  /// Bound of the GPU queue and the pacer's device-side margin
  /// (pipeline.max_gpu_queue_depth); 0: device workers + 1.
  std::size_t gpu_queue_capacity = 0;
  std::size_t finalizer_threads = 2;
  /// Cross-sector batching (scheduler.max_batch_size): most partitions of
  /// one circuit a device worker proves in one pass (prove_start_batch),
  /// from any NORMAL/LOW jobs, further capped by the backend's
  /// batch_capacity (1 on the CPU backend and wherever the circuit's
  /// parameters are resident in VRAM: nothing to save). It pays where the
  /// parameters are streamed over PCIe for every pass (cards of 16-32 GiB
  /// for a 32 GiB PoRep). HIGH/CRITICAL partitions are never batched.
  /// 0 or 1: no batching.
  std::size_t max_batch_size = 1;
  /// How long a worker holding fewer partitions than its batch takes waits
  /// for more of the circuit that are still being synthesized or queued
  /// for synthesis (scheduler.max_batch_wait_ms), counted from when it took
  /// the first; it never waits when none are on their way. 2 s: about one
  /// 32 GiB PoRep partition's streamed device time (~2.2 s at 16 GiB), so a
  /// short batch costs at most one partition's time, while a full one saves
  /// a whole copy of the streamed parameters per extra partition.
  std::chrono::milliseconds max_batch_wait{2000};
  verify_mode verify = verify_mode::all;
  /// Check every request's vanilla proofs natively at submit (Merkle paths,
  /// labels, commitments; circuit_job::check_vanilla), so a bad one is
  /// refused with INVALID_ARGUMENT before any partition is synthesized
  /// (pipeline.check_vanilla_proofs).
  bool check_vanilla_proofs = true;
  std::chrono::milliseconds result_ttl{std::chrono::minutes(10)};
  /// Finished jobs kept for AwaitProof at most (the oldest are forgotten
  /// first, even before result_ttl); each keeps only its result.
  std::size_t max_finished_jobs = 10000;
  /// TEST ONLY, never for production: "<stage>:<ms>" with stage synthesis,
  /// gpu or finalize sleeps <ms> inside that stage of every partition (a
  /// known slowdown for regression tests, docs/REGRESSION.md); the sleep
  /// stops at the job's cancellation. Empty (the default): off. The engine
  /// never reads the environment for it; the cuzk daemon sets it from
  /// CUZK_TEST_DELAY_STAGE. A malformed value makes the engine constructor
  /// throw std::invalid_argument.
  std::string test_delay_stage;
};

/// A snapshot for GetStatus, /status and the metrics.
struct engine_status {
  struct queue {
    proof_kind kind;
    std::uint32_t pending = 0;      ///< queued, no partition started
    std::uint32_t in_progress = 0;  ///< some partition started, not finished
  };
  struct partition {
    std::size_t index = 0;
    std::string state;  ///< pending|synthesizing|synth_done|gpu|finalizing|done|failed
    std::optional<std::uint64_t> synth_ms, gpu_ms;
  };
  struct job {
    std::string job_id;
    proof_kind kind;
    priority prio;
    std::string circuit_id;
    std::string state;  ///< queued|running
    double started_secs_ago = 0;
    std::size_t total_partitions = 0, partitions_done = 0;
    std::vector<partition> partitions;
  };
  struct worker {
    std::size_t worker_id = 0, device = 0;
    bool busy = false;
    std::string current_job;
    proof_kind current_kind = proof_kind::unspecified;
    std::size_t current_partition = 0;
    double busy_secs = 0;
    /// Partitions in the worker's pass (cross-sector batching; 1 without,
    /// 0 when idle);
    /// current_job / current_partition name the batch's most urgent one.
    std::size_t batch_partitions = 0;
  };
  std::string backend;
  std::vector<device_info> devices;
  double uptime_secs = 0;
  std::vector<queue> queues;
  std::vector<job> jobs;
  std::vector<worker> workers;
  std::uint64_t budget_total = 0, budget_used = 0, budget_peak = 0, budget_reserve = 0;
  std::size_t budget_waiters = 0;
  std::vector<srs_entry_status> srs;
  std::uint64_t pinned_bytes = 0;
  std::size_t synthesis_max = 0, synthesis_active = 0, gpu_queue_depth = 0, synth_queue_depth = 0;
  /// Pacing: partitions allowed to hold a witness at once (for the circuit
  /// last paced, with the averages and budget of now) and those holding one now
  /// (synthesizing, waiting for the GPU queue or a device, on a device).
  std::size_t synthesis_lookahead = 0, witness_holders = 0;
  /// The pacer's running averages per circuit and its lookahead for NORMAL work.
  struct pace {
    std::string circuit_id;
    double synthesis_ms = 0, device_ms = 0;  ///< per partition
    std::uint64_t synthesis_samples = 0, device_samples = 0;
    std::size_t lookahead = 0;
  };
  std::vector<pace> pacing;
  /// The witness pool: idle buffers, their (charged) bytes, takes it served.
  std::size_t witness_pool_idle = 0;
  std::uint64_t witness_pool_bytes = 0, witness_pool_reused = 0;
  std::uint64_t completed = 0, failed = 0, cancelled = 0;
  std::uint64_t partitions_synthesized = 0;  ///< partitions whose synthesis started
  std::array<std::uint64_t, proof_kind_count> completed_by_kind{}, failed_by_kind{};
  std::array<std::uint64_t, proof_kind_count> duration_count{};
  std::array<double, proof_kind_count> duration_sum_secs{};
};

/// Prometheus text exposition of a snapshot (GetMetrics and GET /metrics).
std::string prometheus_text(const engine_status& s);

class engine {
 public:
  /// 0 debug, 1 info, 2 warn, 3 error.
  using log_fn = std::function<void(int level, const std::string& message)>;
  using timeline_fn = std::function<void(const std::string& line)>;

  engine(engine_config cfg, std::unique_ptr<prover_backend> backend);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  void set_log(log_fn f);
  /// Where TIMELINE lines go. They are written by the engine's own writer
  /// thread (event_log), a few ms after the event; an empty function turns
  /// the events off. Set it before start(); it may be called until
  /// shutdown() (or the destructor) returns, so what it captures must live
  /// as long as the engine.
  void set_timeline(timeline_fn f);
  /// Blocks until every TIMELINE event emitted so far reached the sink.
  void flush_timeline();
  /// Events lost because a thread's ring was full (0 in normal operation).
  std::uint64_t timeline_dropped() const;
  /// Adds a kind and its circuits (before start()).
  void register_kind(std::shared_ptr<proof_kind_handler> h);
  /// Starts the worker threads.
  void start();

  struct submitted {
    std::string job_id;
    std::uint32_t queue_position = 0;
    bool duplicate = false;
  };
  /// Throws invalid_request, unsupported_request (no handler for the kind)
  /// or shutting_down_error.
  submitted submit(proof_request req);
  /// The job's result; TIMEOUT when |timeout| passes first (nullopt: no
  /// limit). Throws not_found_error.
  job_result await(const std::string& job_id, std::optional<std::chrono::milliseconds> timeout);
  /// Returns true when the job had started; throws not_found_error.
  bool cancel(const std::string& job_id);

  /// Calls |f| with the job's id each time a job finishes (completed,
  /// failed or cancelled), from the thread that finished it and with the
  /// engine's lock held: |f| must be quick and must not call the engine
  /// (the service's waiter_pool only queues the id). Returns the id to
  /// pass to unsubscribe_done; after unsubscribe_done returns, |f| is never
  /// called again.
  std::uint64_t subscribe_done(std::function<void(const std::string& job_id)> f);
  void unsubscribe_done(std::uint64_t subscription);

  engine_status status() const;
  std::string metrics_text() const { return prometheus_text(status()); }

  srs_manager& srs();
  memory_budget& budget();
  const engine_config& config() const;

  /// Stops accepting, waits up to |drain| for queued and running jobs,
  /// cancels what is left and joins every thread. Idempotent.
  void shutdown(std::chrono::milliseconds drain);

 private:
  struct impl;
  std::unique_ptr<impl> _p;
};

}  // namespace cuzk::engine
