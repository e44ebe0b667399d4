// SPDX-License-Identifier: Apache-2.0
#pragma once
// engine::impl, shared by the files that make up the engine:
//   engine.cpp        construction, start (the threads), shutdown, accessors
//   job_table.cpp     submit (validation, request_id dedupe), await, cancel,
//                     job completion and failure, done subscriptions
//   stage_workers.cpp the synthesis, device and finalizer loops and queues
//   engine_status.cpp the status snapshot and the labels
// Locking: one engine mutex (mu) guards the job table and the three queues;
// it is never held while synthesizing, proving, waiting on the budget or
// loading parameters, and work items (which own reservations and SRS leases)
// are always destroyed outside it. Each stage writes its TIMELINE lines
// through a stage_timer (stage_timer.hpp) into event_log (one
// lock-free ring per thread, one writer thread), so no pipeline thread ever
// waits on the log's sink. Each partition's stage and wait times travel with
// its work item and come back in the job's result (partition_timing).
// Pacing: a NORMAL/LOW partition leaves the synthesis queue only while
// fewer than the pacer's lookahead partitions hold a witness
// (synthesis_pacer.hpp, impl::held); each holder owns a holder_slot, given
// back when its witness is released after prove_start or when the item dies.
// Cross-sector batching (engine_config::max_batch_size > 1, device_batch.cpp):
// a device worker that takes a NORMAL/LOW partition claims its circuit
// (impl::gathering) and pulls up to K - 1 more of it from the GPU queue,
// waiting up to max_batch_wait while more are on their way (impl::inbound,
// the synthesis queue); other workers pass over claimed items.
#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <cuzk/engine/engine.hpp>
#include <cuzk/engine/event_log.hpp>
#include <cuzk/io/proof_io.hpp>

#include "device_gate.hpp"
#include "idle_trim.hpp"
#include "request_identity.hpp"
#include "synthesis_pacer.hpp"
#include "test_delay.hpp"
#include "witness_pool.hpp"

namespace cuzk::engine {

using clock = std::chrono::steady_clock;

inline std::uint64_t ms_between(clock::time_point a, clock::time_point b) {
  return b > a ? std::uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count()) : 0;
}

/// Milliseconds with microsecond resolution (partition stage times).
inline double ms_f(clock::time_point a, clock::time_point b) {
  return b > a ? double(std::chrono::duration_cast<std::chrono::microseconds>(b - a).count()) / 1000.0 : 0.0;
}

/// Where a partition is, for the status snapshot (engine_status::partition).
enum class pstage : std::uint8_t { pending, synthesizing, synth_done, gpu, finalizing, done, failed };
const char* pstage_label(pstage s);

struct job {
  std::string id;
  request_identity ident;  // what a repeated request_id must match
  proof_kind kind = proof_kind::unspecified;
  priority prio = priority::normal;
  std::uint64_t seq = 0;
  // the parsed request; dropped when the job finishes (job_retention.hpp),
  // so stages take a copy under the engine lock (input_of)
  std::shared_ptr<circuit_job> cj;
  std::string circuit_id;
  std::size_t parts = 0;
  bool verify = false;
  cancel_token token;
  clock::time_point submitted{}, started{}, finished{};
  // guarded by impl::mu
  bool running = false, done = false;
  await_status status = await_status::unknown;
  std::string error;
  std::vector<std::array<std::uint8_t, io::proof_size>> proofs;
  std::size_t parts_done = 0;
  std::vector<pstage> stage;
  std::vector<std::optional<std::uint64_t>> synth_ms, gpu_ms;
  std::vector<clock::time_point> stage_since;
  proof_timings t;  // t.partitions filled as partitions finish
};

// The partitions holding a witness, for the pacer (synthesis_pacer.hpp):
// how many and the bytes they have charged; guarded by the engine mutex
// |mu|, and |cv| (synth_cv) is told when one goes.
struct holder_count {
  std::mutex& mu;
  std::condition_variable& cv;
  std::size_t n = 0;
  std::uint64_t bytes = 0;
};

// One partition's place in holder_count; move-only. release() and the
// destructor take the engine mutex, so a slot is never destroyed under it
// (the locking rule above already keeps work items out of it).
class holder_slot {
 public:
  holder_slot() = default;
  explicit holder_slot(holder_count* c) noexcept : _c(c) {}
  holder_slot(holder_slot&& o) noexcept : _c(std::exchange(o._c, nullptr)), _bytes(std::exchange(o._bytes, 0)) {}
  holder_slot& operator=(holder_slot&& o) noexcept {
    if (this != &o) {
      release();
      _c = std::exchange(o._c, nullptr);
      _bytes = std::exchange(o._bytes, 0);
    }
    return *this;
  }
  ~holder_slot() { release(); }
  /// Records |bytes| more charged to the budget for this holder.
  void charge(std::uint64_t bytes) {
    if (!_c) return;
    std::lock_guard lk(_c->mu);
    _c->bytes += bytes;
    _bytes += bytes;
  }
  /// Records min(|bytes|, what it holds) given back ahead of release (a
  /// witness buffer gone to the pool when prepare replaced it).
  void discharge(std::uint64_t bytes) {
    if (!_c) return;
    std::lock_guard lk(_c->mu);
    bytes = std::min(bytes, _bytes);
    _c->bytes -= std::min(bytes, _c->bytes);
    _bytes -= bytes;
  }
  void release() noexcept {
    if (!_c) return;
    {
      std::lock_guard lk(_c->mu);
      --_c->n;
      _c->bytes -= std::min(_bytes, _c->bytes);
    }
    _c->cv.notify_all();
    _c = nullptr;
    _bytes = 0;
  }

 private:
  holder_count* _c = nullptr;
  std::uint64_t _bytes = 0;
};

// A partition on its way through the pipeline; owns its memory and lease.
struct work_item {
  std::shared_ptr<job> j;
  std::size_t part = 0;
  srs_manager::lease lease;
  reservation mem;
  std::uint64_t release_after_gpu = 0;
  reservation witness_mem;                     // the witness's share of the charge, kept by the pool after the device
  groth16::witness w;                          // empty once a prepared form replaced it
  std::unique_ptr<prepared_witness> prepared;  // what backend->prepare made of w (may be null)
  holder_slot holder;
  std::unique_ptr<pending_proof> pending;
  partition_timing times;  // appended stage by stage
  clock::time_point mark;  // end of the last timed stage
};

using qkey = std::tuple<int, std::uint64_t, std::size_t>;  // (-priority, job seq, partition)

struct engine::impl {
  engine_config cfg;
  std::unique_ptr<prover_backend> backend;
  std::vector<device_info> devices;
  memory_budget budget;
  srs_manager srs;
  std::map<proof_kind, std::shared_ptr<proof_kind_handler>> kinds;
  log_fn log;
  const clock::time_point epoch = clock::now();
  event_log events{epoch};
  test_delay delay;
  witness_pool pool;  // after budget: its buffers hold reservations

  mutable std::mutex mu;
  std::condition_variable synth_cv, gpu_cv, space_cv, fin_cv, done_cv;
  std::map<std::string, std::shared_ptr<job>> jobs;
  std::map<qkey, std::shared_ptr<job>> synth_q;
  std::map<qkey, std::unique_ptr<work_item>> gpu_q;
  std::map<qkey, std::unique_ptr<work_item>> fin_q;
  std::uint64_t next_seq = 1;
  bool accepting = true, stopping = false, started = false;
  std::size_t synth_active = 0;
  // pacing (synthesis_pacer.hpp): partitions holding a witness and the
  // bytes they have charged; partition bytes per circuit once known
  synthesis_pacer pacer;
  holder_count held{mu, synth_cv};
  std::string paced_circuit;  // the last circuit paced, and its priority (status)
  priority paced_prio = priority::normal;
  std::map<std::string, std::uint64_t> partition_bytes_of;
  // batching: per device worker, the circuit (its loaded parameters and
  // shape) whose batch it is gathering, or null; and per circuit, NORMAL/LOW
  // partitions taken from synth_q that have not reached gpu_q yet
  std::vector<const loaded_circuit*> gathering;
  std::map<std::string, std::size_t> inbound;
  std::size_t gpu_capacity = 0, synth_workers = 0;
  std::vector<engine_status::worker> worker_state;
  std::vector<clock::time_point> worker_since;
  std::vector<std::unique_ptr<device_gate>> device_locks;
  std::vector<std::thread> threads;
  reservation resident;  // the backend's resident host buffers
  std::uint64_t completed = 0, failed = 0, cancelled = 0, synthesized = 0;
  std::array<std::uint64_t, proof_kind_count> completed_by{}, failed_by{};
  std::deque<std::pair<proof_kind, double>> recent;                            // last 1000 durations
  std::map<std::uint64_t, std::function<void(const std::string&)>> done_subs;  // subscribe_done
  std::uint64_t next_sub = 1;
  // last member: its thread stops first, before anything it looks at goes
  idle_trimmer trimmer{[this] {
                         std::lock_guard lk(mu);
                         return std::none_of(jobs.begin(), jobs.end(), [](const auto& kv) { return !kv.second->done; });
                       },
                       [this] { pool.clear(); },
                       [this](std::uint64_t before, std::uint64_t after) {
                         emit(0, "idle: returned freed memory to the OS (RSS " + format_bytes(before) + " -> " +
                                     format_bytes(after) + ")");
                       }};

  // engine.cpp
  impl(engine_config c, std::unique_ptr<prover_backend> b);

  void emit(int level, const std::string& m) const {
    if (log) log(level, m);
  }
  void tl(const char* event, const std::string& job_id, const std::string& detail) {
    events.emit(event, job_id, detail);
  }
  /// Appends (name, ms since the item's last mark) and moves the mark.
  static void stage(work_item& item, const char* name, clock::time_point now) {
    item.times.stages.emplace_back(name, ms_f(item.mark, now));
    item.mark = now;
  }

  // ---- job_table.cpp ---------------------------------------------------------
  /// Marks |j| finished with |st| (first caller wins) and takes its queued
  /// items out; the caller destroys |dropped| after unlocking.
  void finish_locked(job& j, await_status st, const std::string& err, std::vector<std::unique_ptr<work_item>>& dropped);
  /// Fails the job (partition |part| marked failed), logs it once; takes mu.
  void fail(const std::shared_ptr<job>& j, std::size_t part, const std::string& raw_err);
  job_result result_of(const job& j) const;
  void purge_expired_locked();
  /// The job's parsed request, or null once it finished (then the stage stops).
  std::shared_ptr<circuit_job> input_of(const job& j) const;

  // ---- stage_workers.cpp -----------------------------------------------------
  void synth_loop(bool priority_only);
  /// The pacer's lookahead for |circuit| at priority |p| under the budget (mu held).
  std::size_t lookahead_locked(const std::string& circuit, priority p) const;
  void run_synthesis(const std::shared_ptr<job>& j, std::size_t part, holder_slot holder);
  /// The witness buffer to the pool with its share of the charge (or that
  /// share back to the budget), and its part of release_after_gpu dropped:
  /// when prepare's form replaced it, else after the device. Nothing when
  /// it already went.
  void give_back_witness(work_item& item);
  /// After prove_start: the witness (give_back_witness), the rest of
  /// release_after_gpu, and the holder slot.
  void release_after_device(work_item& item);
  /// |priority_only|: takes only HIGH / CRITICAL partitions (one such
  /// worker per device, so one is free to wait for a lent turn).
  void gpu_loop(std::size_t worker, std::size_t device, bool priority_only);
  /// The first item of gpu_q the worker may take (gpu_q.end(): none): for a
  /// priority-only worker a HIGH/CRITICAL head, else the first item no other
  /// worker's batch has claimed (mu held).
  std::map<qkey, std::unique_ptr<work_item>>::iterator next_for_worker_locked(bool priority_only);
  /// Marks |item| on |worker|'s device: worker state, partition stage (mu held).
  void start_on_worker_locked(std::size_t worker, work_item& item);
  void run_gpu(work_item& item, std::size_t worker, std::size_t device);

  // ---- device_batch.cpp ------------------------------------------------------
  /// Whether another worker is gathering a batch that |item| belongs in (mu held).
  bool claimed_locked(const work_item& item) const;
  /// Grows |pass| (its first item taken at |taken|, its circuit claimed by
  /// |worker|) into a batch of up to min(max_batch_size, batch_capacity)
  /// partitions; releases the claim.
  void gather_batch(std::vector<std::unique_ptr<work_item>>& pass, std::size_t worker, std::size_t device,
                    clock::time_point taken);
  /// Moves queued items of |pass|'s circuit into it, up to |k| (mu held).
  void take_batchable_locked(std::vector<std::unique_ptr<work_item>>& pass, std::size_t k);
  /// Whether NORMAL/LOW partitions of |circuit| are being synthesized or
  /// wait for synthesis (mu held).
  bool more_coming_locked(const std::string& circuit) const;
  /// run_gpu for a batch: one device turn, prove_start_batch, then each
  /// item as run_gpu leaves it (pending set, or reset when cancelled/failed).
  void run_gpu_batch(std::vector<std::unique_ptr<work_item>>& pass, std::size_t worker, std::size_t device);
  void fin_loop();
  void run_finalize(std::unique_ptr<work_item> item);
};

}  // namespace cuzk::engine
