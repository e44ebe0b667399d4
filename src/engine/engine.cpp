// SPDX-License-Identifier: Apache-2.0
// The engine: job table, priority queues, synthesis / device / finalizer
// threads (see include/cuzk/engine/engine.hpp for the pipeline).
// Locking: one engine mutex guards the job table and the three queues; it is
// never held while synthesizing, proving, waiting on the budget or loading
// parameters, and work items (which own reservations and SRS leases) are
// always destroyed outside it. TIMELINE events go through event_log (one
// lock-free ring per thread, one writer thread), so no pipeline thread ever
// waits on the log's sink. Each partition's stage and wait times travel with
// its work item and come back in the job's result (partition_timing).
#include <cuzk/engine/engine.hpp>

#include <openssl/rand.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include <cuzk/engine/client_text.hpp>
#include <cuzk/engine/event_log.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/proof_io.hpp>

#include "device_gate.hpp"
#include "idle_trim.hpp"
#include "job_retention.hpp"
#include "request_identity.hpp"

namespace cuzk::engine {

using clock = std::chrono::steady_clock;

namespace {

std::uint64_t ms_between(clock::time_point a, clock::time_point b) {
  return b > a ? std::uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count()) : 0;
}

/// Milliseconds with microsecond resolution (partition stage times).
double ms_f(clock::time_point a, clock::time_point b) {
  return b > a ? double(std::chrono::duration_cast<std::chrono::microseconds>(b - a).count()) / 1000.0 : 0.0;
}

/// TEST ONLY: "<stage>:<ms>" (engine_config::test_delay_stage or the
/// CUZK_TEST_DELAY_STAGE environment variable) adds a sleep of <ms> inside
/// one stage's timed span, so regression tests can inject a known slowdown.
struct test_delay {
  enum class where : std::uint8_t { none, synthesis, gpu, finalize } at = where::none;
  std::chrono::milliseconds ms{0};
  // sleeps in slices and stops at the job's cancellation, like a real stage
  void apply(where w, const cancel_token& token) const {
    if (w != at || ms.count() <= 0) return;
    const auto until = clock::now() + ms;
    while (clock::now() < until) {
      token.check();
      std::this_thread::sleep_for(std::min<clock::duration>(std::chrono::milliseconds(10), until - clock::now()));
    }
  }
};

test_delay parse_test_delay(std::string spec) {
  if (spec.empty())
    if (const char* env = std::getenv("CUZK_TEST_DELAY_STAGE")) spec = env;
  test_delay d;
  if (spec.empty()) return d;
  const auto colon = spec.find(':');
  const std::string stage = spec.substr(0, colon);
  if (stage == "synthesis") d.at = test_delay::where::synthesis;
  else if (stage == "gpu") d.at = test_delay::where::gpu;
  else if (stage == "finalize") d.at = test_delay::where::finalize;
  long ms = -1;
  if (colon != std::string::npos) {
    char* end = nullptr;
    ms = std::strtol(spec.c_str() + colon + 1, &end, 10);
    if (end == spec.c_str() + colon + 1 || *end != '\0') ms = -1;
  }
  if (d.at == test_delay::where::none || ms < 0 || ms > 600000)
    throw std::invalid_argument("test delay '" + spec +
                                "' (CUZK_TEST_DELAY_STAGE, test only): want synthesis|gpu|finalize:<ms 0..600000>");
  d.ms = std::chrono::milliseconds(ms);
  return d;
}

// r and s must be unpredictable: 64-bit words from the OS CSPRNG.
struct os_rng {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type(0); }
  result_type operator()() {
    result_type v = 0;
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&v), sizeof v) != 1)
      throw std::runtime_error("OS random generator failed");
    return v;
  }
};

std::string random_job_id() {
  os_rng rng;
  char buf[40];
  std::snprintf(buf, sizeof buf, "job-%016llx%08llx", (unsigned long long)rng(), (unsigned long long)(rng() >> 32));
  return buf;
}

enum class pstage : std::uint8_t { pending, synthesizing, synth_done, gpu, finalizing, done, failed };
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

}  // namespace

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

// A partition on its way through the pipeline; owns its memory and lease.
struct work_item {
  std::shared_ptr<job> j;
  std::size_t part = 0;
  srs_manager::lease lease;
  reservation mem;
  std::uint64_t release_after_gpu = 0;
  groth16::witness w;
  std::unique_ptr<pending_proof> pending;
  partition_timing times;        // appended stage by stage
  clock::time_point mark;        // end of the last timed stage
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

  mutable std::mutex mu;
  std::condition_variable synth_cv, gpu_cv, space_cv, fin_cv, done_cv;
  std::map<std::string, std::shared_ptr<job>> jobs;
  std::map<qkey, std::shared_ptr<job>> synth_q;
  std::map<qkey, std::unique_ptr<work_item>> gpu_q;
  std::map<qkey, std::unique_ptr<work_item>> fin_q;
  std::uint64_t next_seq = 1;
  bool accepting = true, stopping = false, started = false;
  std::size_t synth_active = 0;
  std::size_t gpu_capacity = 0, synth_workers = 0;
  std::vector<engine_status::worker> worker_state;
  std::vector<clock::time_point> worker_since;
  std::vector<std::unique_ptr<device_gate>> device_locks;
  std::vector<std::thread> threads;
  reservation resident;  // the backend's resident host buffers
  std::uint64_t completed = 0, failed = 0, cancelled = 0, synthesized = 0;
  std::array<std::uint64_t, proof_kind_count> completed_by{}, failed_by{};
  std::deque<std::pair<proof_kind, double>> recent;  // last 1000 durations
  std::map<std::uint64_t, std::function<void(const std::string&)>> done_subs;  // subscribe_done
  std::uint64_t next_sub = 1;
  // last member: its thread stops first, before anything it looks at goes
  idle_trimmer trimmer{[this] {
                         std::lock_guard lk(mu);
                         return std::none_of(jobs.begin(), jobs.end(), [](const auto& kv) { return !kv.second->done; });
                       },
                       [this](std::uint64_t before, std::uint64_t after) {
                         emit(0, "idle: returned freed memory to the OS (RSS " + format_bytes(before) + " -> " +
                                     format_bytes(after) + ")");
                       }};

  static std::uint64_t budget_total(const engine_config& c) {
    if (c.total_budget != 0) return c.total_budget;
    return memory_budget::auto_total(c.safety_margin).value_or(256ull << 30);
  }
  static std::uint64_t reserve_of(const engine_config& c, std::uint64_t total) {
    return c.priority_reserve ? *c.priority_reserve : std::min<std::uint64_t>(total / 16, 2ull << 30);
  }

  impl(engine_config c, std::unique_ptr<prover_backend> b)
      : cfg(std::move(c)),
        backend(std::move(b)),
        budget(budget_total(cfg), reserve_of(cfg, budget_total(cfg))),
        srs(srs_options{cfg.param_cache, cfg.check_points, cfg.eviction_min_idle}, budget),
        delay(parse_test_delay(cfg.test_delay_stage)) {
    devices = backend->devices();
    budget.set_evictor([this](std::uint64_t n) { return srs.evict_idle(n); });
  }

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

  // ---- job completion ------------------------------------------------------
  // Marks |j| finished with |st| (first caller wins) and takes its queued
  // items out; the caller destroys |dropped| after unlocking.
  void finish_locked(job& j, await_status st, const std::string& err,
                     std::vector<std::unique_ptr<work_item>>& dropped) {
    if (j.done) return;
    j.done = true;
    j.status = st;
    j.error = err;
    j.finished = clock::now();
    j.t.total_ms = ms_between(j.submitted, j.finished);
    if (st != await_status::completed) j.token.cancel();
    j.cj.reset();  // a finished job keeps only its result (stages hold their own copy)
    if (std::none_of(jobs.begin(), jobs.end(), [](const auto& kv) { return !kv.second->done; })) trimmer.poke();
    for (auto it = synth_q.begin(); it != synth_q.end();) it = it->second.get() == &j ? synth_q.erase(it) : std::next(it);
    for (auto* q : {&gpu_q, &fin_q})
      for (auto it = q->begin(); it != q->end();) {
        if (it->second->j.get() == &j) {
          dropped.push_back(std::move(it->second));
          it = q->erase(it);
        } else {
          ++it;
        }
      }
    const std::size_t k = std::size_t(j.kind);
    if (st == await_status::completed) {
      ++completed;
      ++completed_by[k];
      recent.emplace_back(j.kind, double(j.t.total_ms) / 1000.0);
      if (recent.size() > 1000) recent.pop_front();
    } else if (st == await_status::failed) {
      ++failed;
      ++failed_by[k];
    } else if (st == await_status::cancelled) {
      ++cancelled;
    }
    done_cv.notify_all();
    space_cv.notify_all();
    for (const auto& [id, f] : done_subs) f(j.id);
  }

  void fail(const std::shared_ptr<job>& j, std::size_t part, const std::string& raw_err) {
    const std::string err = without_host_paths(raw_err, cfg.param_cache);
    std::vector<std::unique_ptr<work_item>> dropped;
    bool first = false;
    {
      std::lock_guard lk(mu);
      if (part < j->stage.size()) j->stage[part] = pstage::failed;
      first = !j->done;
      finish_locked(*j, await_status::failed, err, dropped);
    }
    if (first) {
      emit(3, "job " + j->id + " failed: " + err);
      tl("JOB_DONE", j->id, "status=FAILED");
    }
  }

  job_result result_of(const job& j) const {
    job_result r;
    r.job_id = j.id;
    r.status = j.status;
    r.error_message = j.error;
    if (j.status == await_status::completed) {
      r.timings = j.t;
      r.proof.reserve(j.proofs.size() * io::proof_size);
      for (const auto& p : j.proofs) r.proof.insert(r.proof.end(), p.begin(), p.end());
    }
    return r;
  }

  void purge_expired_locked() { retire_finished_jobs(jobs, cfg.result_ttl, cfg.max_finished_jobs, clock::now()); }

  /// The job's parsed request, or null once it finished (then the stage stops).
  std::shared_ptr<circuit_job> input_of(const job& j) const {
    std::lock_guard lk(mu);
    return j.cj;
  }

  // ---- threads -----------------------------------------------------------------
  void synth_loop(bool priority_only) {
    for (;;) {
      std::shared_ptr<job> j;
      std::size_t part = 0;
      {
        std::unique_lock lk(mu);
        synth_cv.wait(lk, [&] {
          if (stopping) return true;
          if (synth_q.empty()) return false;
          return !priority_only || -std::get<0>(synth_q.begin()->first) >= int(priority::high);
        });
        if (stopping) return;
        auto it = synth_q.begin();
        j = it->second;
        part = std::get<2>(it->first);
        synth_q.erase(it);
        if (j->done) continue;
        if (!j->running) {
          j->running = true;
          j->started = clock::now();
          j->t.queue_wait_ms = ms_between(j->submitted, j->started);
        }
        ++synth_active;
      }
      run_synthesis(j, part);
      std::lock_guard lk(mu);
      --synth_active;
    }
  }

  void run_synthesis(const std::shared_ptr<job>& j, std::size_t part) {
    auto item = std::make_unique<work_item>();
    item->j = j;
    item->part = part;
    item->times.partition = std::uint32_t(part);
    item->mark = clock::now();
    try {
      std::uint64_t load_ms = 0;
      item->lease = srs.acquire(j->circuit_id, j->prio, &j->token, &load_ms);
      if (load_ms) {
        emit(1, "loaded parameters of " + j->circuit_id + " in " + std::to_string(load_ms) + " ms");
        std::lock_guard lk(mu);
        j->t.srs_load_ms += load_ms;
      }
      const r1cs::r1cs_shape& shape = item->lease->shape;
      const std::uint64_t bytes = backend->partition_bytes(shape, &item->release_after_gpu);
      if (bytes + item->lease->charged_bytes > budget.limit_for(j->prio))
        throw budget_error("partition " + std::to_string(part) + " of job " + j->id + " needs " + format_bytes(bytes) +
                           " besides the " + format_bytes(item->lease->charged_bytes) + " its circuit '" +
                           j->circuit_id + "' holds, more than the memory budget allows (" +
                           format_bytes(budget.limit_for(j->prio)) + " for " + std::string(priority_label(j->prio)) +
                           " priority work)");
      item->mem = budget.acquire(bytes, j->prio, &j->token,
                                 "partition " + std::to_string(part) + " of job " + j->id + " (" + j->circuit_id + ")");
      j->token.check();
      const auto t0 = clock::now();
      stage(*item, "prep_wait", t0);
      {
        std::lock_guard lk(mu);
        j->stage[part] = pstage::synthesizing;
        j->stage_since[part] = t0;
        ++synthesized;
      }
      tl("SYNTH_START", j->id, "partition=" + std::to_string(part));
      const std::shared_ptr<circuit_job> input = input_of(*j);
      if (!input) throw cancelled_error("job finished");
      item->w = input->synthesize(part, shape, j->token);
      delay.apply(test_delay::where::synthesis, j->token);
      const auto t1 = clock::now();
      stage(*item, "synthesis", t1);
      const std::uint64_t sms = ms_between(t0, t1);
      tl("SYNTH_END", j->id, "partition=" + std::to_string(part) + ",synth_ms=" + std::to_string(sms));
      std::unique_lock lk(mu);
      j->synth_ms[part] = sms;
      j->t.synthesis_ms += sms;
      j->stage[part] = pstage::synth_done;
      j->stage_since[part] = clock::now();
      space_cv.wait(lk, [&] {
        return stopping || j->done || j->prio >= priority::high || gpu_q.size() < gpu_capacity;
      });
      if (stopping || j->done) return;  // item dropped below, outside the lock
      stage(*item, "gpu_queue_space_wait", clock::now());
      tl("GPU_QUEUE", j->id, "partition=" + std::to_string(part));  // before a worker can pick it up
      gpu_q.emplace(qkey{-int(j->prio), j->seq, part}, std::move(item));
      gpu_cv.notify_one();
    } catch (const cancelled_error&) {
      // the job is already finished; the item's memory returns here
    } catch (const std::exception& e) {
      fail(j, part, e.what());
    } catch (...) {  // never let a stage kill the daemon
      fail(j, part, "partition " + std::to_string(part) + " synthesis failed: unknown exception");
    }
  }

  void gpu_loop(std::size_t worker, std::size_t device) {
    for (;;) {
      std::unique_ptr<work_item> item;
      {
        std::unique_lock lk(mu);
        gpu_cv.wait(lk, [&] { return stopping || !gpu_q.empty(); });
        if (stopping) return;
        auto it = gpu_q.begin();
        item = std::move(it->second);
        gpu_q.erase(it);
        space_cv.notify_all();
        if (item->j->done) {
          lk.unlock();
          item.reset();
          continue;
        }
        auto& ws = worker_state[worker];
        ws.busy = true;
        ws.current_job = item->j->id;
        ws.current_kind = item->j->kind;
        ws.current_partition = item->part;
        worker_since[worker] = clock::now();
        item->j->stage[item->part] = pstage::gpu;
        item->j->stage_since[item->part] = clock::now();
      }
      run_gpu(*item, worker, device);
      std::unique_lock lk(mu);
      worker_state[worker].busy = false;
      worker_state[worker].current_job.clear();
      if (item && item->pending && !item->j->done) {
        fin_q.emplace(qkey{-int(item->j->prio), item->j->seq, item->part}, std::move(item));
        fin_cv.notify_one();
      }
      lk.unlock();
      item.reset();
    }
  }

  void run_gpu(work_item& item, std::size_t worker, std::size_t device) {
    job& j = *item.j;
    try {
      j.token.check();
      const std::string d = "worker=" + std::to_string(worker) + ",device=" + std::to_string(device) +
                            ",partition=" + std::to_string(item.part);
      tl("GPU_START", j.id, d);
      auto t0 = clock::now();
      stage(item, "gpu_queue_wait", t0);
      os_rng rng;
      const ff::fr r = ff::fr::random(rng), s = ff::fr::random(rng);
      // gpu_ms: the time holding the device (the other worker's turn is lock_wait_ms)
      std::uint64_t wait_ms = 0, gms = 0;
      // device-free work first (the CUDA backend codes the witness), so
      // the device does not wait for it
      std::unique_ptr<prepared_witness> prepared = backend->prepare(item.lease->shape, item.w);
      if (prepared) {
        t0 = clock::now();
        stage(item, "prepare", t0);
      }
      {
        // cancellable, priority-ordered wait for the device (device_gate.hpp)
        const device_gate::hold dl = device_locks[device]->acquire({-int(j.prio), j.seq, item.part}, j.token);
        if (!dl) throw cancelled_error("job cancelled while waiting for the device");
        const auto t1 = clock::now();
        wait_ms = ms_between(t0, t1);
        stage(item, "lock_wait", t1);
        item.pending = backend->prove_start(device, item.lease->params, item.lease->shape, std::move(item.w), r, s,
                                            j.token, std::move(prepared));
        delay.apply(test_delay::where::gpu, j.token);
        const auto t2 = clock::now();
        gms = ms_between(t1, t2);
        stage(item, "gpu", t2);
      }
      item.w = {};
      item.mem.release(item.release_after_gpu);
      tl("GPU_END", j.id, d + ",gpu_ms=" + std::to_string(gms) + ",lock_wait_ms=" + std::to_string(wait_ms));
      std::lock_guard lk(mu);
      j.gpu_ms[item.part] = gms;
      j.t.gpu_compute_ms += gms;
      j.stage[item.part] = pstage::finalizing;
      j.stage_since[item.part] = clock::now();
    } catch (const cancelled_error&) {
      item.pending.reset();
    } catch (const std::exception& e) {
      item.pending.reset();
      fail(item.j, item.part, std::string("proving partition ") + std::to_string(item.part) + " failed: " + e.what());
    } catch (...) {
      item.pending.reset();
      fail(item.j, item.part, "proving partition " + std::to_string(item.part) + " failed: unknown exception");
    }
  }

  void fin_loop() {
    for (;;) {
      std::unique_ptr<work_item> item;
      {
        std::unique_lock lk(mu);
        fin_cv.wait(lk, [&] { return stopping || !fin_q.empty(); });
        if (stopping) return;
        auto it = fin_q.begin();
        item = std::move(it->second);
        fin_q.erase(it);
        if (item->j->done) {
          lk.unlock();
          item.reset();
          continue;
        }
      }
      run_finalize(std::move(item));
    }
  }

  void run_finalize(std::unique_ptr<work_item> item) {
    const std::shared_ptr<job> j = item->j;
    const std::size_t part = item->part;
    try {
      j->token.check();
      const auto t0 = clock::now();
      stage(*item, "finalize_queue_wait", t0);
      auto backend_stages = std::move(item->pending->stage_ms);
      const groth16::proof pr = backend->finalize(std::move(item->pending));
      bool ok = true;
      if (j->verify) {
        const std::shared_ptr<circuit_job> input = input_of(*j);
        if (!input) throw cancelled_error("job finished");
        ok = groth16::verify(item->lease->pvk, pr, input->public_inputs(part));
      }
      const auto bytes = io::write_proof(pr);
      delay.apply(test_delay::where::finalize, j->token);
      const auto t1 = clock::now();
      stage(*item, "finalize", t1);
      for (auto& [name, ms] : backend_stages) item->times.stages.emplace_back("backend." + name, ms);
      partition_timing times = std::move(item->times);
      const std::uint64_t fms = ms_between(t0, t1);
      tl("FINALIZE", j->id, "partition=" + std::to_string(part) + ",finalize_ms=" + std::to_string(fms) +
                                ",verified=" + (j->verify ? (ok ? "yes" : "FAILED") : "skipped"));
      if (!ok) {
        fail(j, part, "partition " + std::to_string(part) + " proof of job " + j->id +
                          " failed self-verification against its public inputs (not returned)");
        return;
      }
      item.reset();  // reservation and lease go back before the job completes
      std::vector<std::unique_ptr<work_item>> dropped;
      bool completed_now = false;
      {
        std::lock_guard lk(mu);
        if (j->done) return;
        j->proofs[part] = bytes;
        j->t.partitions[part] = std::move(times);
        j->stage[part] = pstage::done;
        j->t.gpu_compute_ms += fms;
        if (++j->parts_done == j->parts) {
          finish_locked(*j, await_status::completed, "", dropped);
          completed_now = true;
        }
      }
      if (completed_now) {
        tl("JOB_DONE", j->id, "status=COMPLETED,total_ms=" + std::to_string(j->t.total_ms));
        emit(1, "job " + j->id + " (" + std::string(kind_label(j->kind)) + ") completed in " +
                    std::to_string(j->t.total_ms) + " ms");
      }
    } catch (const cancelled_error&) {
    } catch (const std::exception& e) {
      fail(j, part, std::string("finalizing partition ") + std::to_string(part) + " failed: " + e.what());
    } catch (...) {
      fail(j, part, "finalizing partition " + std::to_string(part) + " failed: unknown exception");
    }
  }
};

engine::engine(engine_config cfg, std::unique_ptr<prover_backend> backend)
    : _p(std::make_unique<impl>(std::move(cfg), std::move(backend))) {}

engine::~engine() { shutdown(std::chrono::milliseconds(0)); }

void engine::set_log(log_fn f) { _p->log = std::move(f); }
void engine::set_timeline(timeline_fn f) { _p->events.set_sink(std::move(f)); }
void engine::flush_timeline() { _p->events.flush(); }
std::uint64_t engine::timeline_dropped() const { return _p->events.dropped(); }
srs_manager& engine::srs() { return _p->srs; }
memory_budget& engine::budget() { return _p->budget; }
const engine_config& engine::config() const { return _p->cfg; }

void engine::register_kind(std::shared_ptr<proof_kind_handler> h) {
  for (const circuit_info& c : h->circuits()) _p->srs.register_circuit(c);
  _p->kinds[h->kind()] = std::move(h);
}

void engine::start() {
  impl& p = *_p;
  std::lock_guard lk(p.mu);
  if (p.started) return;
  p.started = true;
  if (const std::uint64_t rb = p.backend->resident_host_bytes(); rb > 0) {
    auto r = p.budget.try_acquire(rb, priority::critical);
    if (!r)
      throw budget_error("the " + p.backend->name() + " backend's resident host buffers need " + format_bytes(rb) +
                         ", more than the memory budget of " + format_bytes(p.budget.total()));
    p.resident = std::move(*r);
  }
  const std::size_t cpus = std::max(1u, std::thread::hardware_concurrency());
  p.synth_workers = p.cfg.max_parallel_synthesis ? p.cfg.max_parallel_synthesis
                                                 : std::max<std::size_t>(1, std::min<std::size_t>(cpus / 2, 18));
  const std::size_t per_dev = std::max<std::size_t>(1, p.cfg.gpu_workers_per_device);
  const std::size_t nworkers = per_dev * std::max<std::size_t>(1, p.devices.size());
  p.gpu_capacity = p.cfg.gpu_queue_capacity ? p.cfg.gpu_queue_capacity : nworkers + 1;
  for (std::size_t d = 0; d < std::max<std::size_t>(1, p.devices.size()); ++d)
    p.device_locks.push_back(std::make_unique<device_gate>());
  for (std::size_t i = 0; i < p.synth_workers; ++i) p.threads.emplace_back([&p] { p.synth_loop(false); });
  p.threads.emplace_back([&p] { p.synth_loop(true); });  // reserved for HIGH / CRITICAL
  for (std::size_t w = 0; w < nworkers; ++w) {
    p.worker_state.push_back({w, w / per_dev, false, "", proof_kind::unspecified, 0, 0});
    p.worker_since.push_back(clock::now());
    p.threads.emplace_back([&p, w, per_dev] { p.gpu_loop(w, w / per_dev); });
  }
  for (std::size_t i = 0; i < std::max<std::size_t>(1, p.cfg.finalizer_threads); ++i)
    p.threads.emplace_back([&p] { p.fin_loop(); });
  p.emit(1, "engine started: backend " + p.backend->name() + ", " + std::to_string(p.devices.size()) + " device(s) x " +
                std::to_string(per_dev) + " worker(s), " + std::to_string(p.synth_workers) +
                "+1 synthesis workers, memory budget " + format_bytes(p.budget.total()) + " (priority reserve " +
                format_bytes(p.budget.priority_reserve()) + ")");
}

engine::submitted engine::submit(proof_request req) {
  impl& p = *_p;
  const auto kit = p.kinds.find(req.kind);
  if (req.kind == proof_kind::unspecified || unsigned(req.kind) >= proof_kind_count)
    throw invalid_request("unknown proof_kind " + std::to_string(unsigned(req.kind)));
  if (kit == p.kinds.end())
    throw unsupported_request(std::string(kind_label(req.kind)) +
                              " proving is not available in this build (no handler registered for this proof kind)");
  if (unsigned(req.prio) > unsigned(priority::critical))
    throw invalid_request("unknown priority " + std::to_string(unsigned(req.prio)));
  const request_identity ident = identity_of(req);
  // A live (queued, running or completed) job under this id answers only
  // the same request; anything else is refused, never given its proof.
  const auto same_request = [&](const std::shared_ptr<job>& o) -> bool {
    if (o->done && o->status != await_status::completed) return false;  // failed/cancelled: may be resubmitted
    if (o->ident == ident) return true;
    throw already_exists_error("request_id " + quoted_id(req.request_id) + " is in use by " +
                               identity_difference(o->ident, ident) +
                               "; a repeated request_id must carry the same request (use a new id)");
  };
  {
    std::lock_guard lk(p.mu);
    if (!p.accepting) throw shutting_down_error();
    p.purge_expired_locked();
    if (!req.request_id.empty()) {
      auto it = p.jobs.find(req.request_id);
      if (it != p.jobs.end() && same_request(it->second)) return {it->first, 0, true};
    }
  }
  auto j = std::make_shared<job>();
  j->ident = ident;
  j->cj = kit->second->parse(req);  // throws invalid_request
  j->kind = req.kind;
  j->prio = req.prio == priority::unspecified ? kit->second->default_priority() : req.prio;
  j->circuit_id = j->cj->circuit_id();
  j->parts = j->cj->num_partitions();
  j->verify = p.cfg.verify == verify_mode::all ||
              (p.cfg.verify == verify_mode::porep && req.kind == proof_kind::porep_seal_commit);
  j->proofs.resize(j->parts);
  j->stage.assign(j->parts, pstage::pending);
  j->synth_ms.resize(j->parts);
  j->t.partitions.resize(j->parts);
  j->gpu_ms.resize(j->parts);
  j->stage_since.assign(j->parts, clock::now());
  j->submitted = clock::now();
  if (!p.srs.known(j->circuit_id)) throw invalid_request("no parameters registered for circuit " + j->circuit_id);
  p.srs.check_available(j->circuit_id);  // missing_parameters_error: refused now, not at its first partition
  if (p.cfg.check_vanilla_proofs) j->cj->check_vanilla();  // invalid_request before any proving
  std::lock_guard lk(p.mu);
  if (!p.accepting) throw shutting_down_error();
  if (!req.request_id.empty()) {
    auto it = p.jobs.find(req.request_id);  // a racing duplicate
    if (it != p.jobs.end() && same_request(it->second)) return {it->first, 0, true};
  }
  j->id = req.request_id.empty() ? random_job_id() : req.request_id;
  j->seq = p.next_seq++;
  std::uint32_t position = 0;
  for (const auto& [id, o] : p.jobs)
    if (!o->done && !o->running && o->prio >= j->prio) ++position;
  p.jobs[j->id] = j;
  for (std::size_t i = 0; i < j->parts; ++i) p.synth_q.emplace(qkey{-int(j->prio), j->seq, i}, j);
  p.synth_cv.notify_all();
  p.emit(1, "job " + j->id + " queued: " + std::string(kind_label(j->kind)) + " " + j->circuit_id + ", " +
                std::to_string(j->parts) + " partition(s), priority " + std::string(priority_label(j->prio)));
  return {j->id, position, false};
}

job_result engine::await(const std::string& job_id, std::optional<std::chrono::milliseconds> timeout) {
  impl& p = *_p;
  std::unique_lock lk(p.mu);
  auto it = p.jobs.find(job_id);
  if (it == p.jobs.end()) throw not_found_error("unknown job id " + quoted_id(job_id) + " (never submitted or expired)");
  const std::shared_ptr<job> j = it->second;
  const auto pred = [&] { return j->done; };
  if (timeout) {
    if (!p.done_cv.wait_for(lk, *timeout, pred)) {
      job_result r;
      r.job_id = job_id;
      r.status = await_status::timeout;
      r.error_message = "job still running after " + std::to_string(timeout->count()) + " ms";
      return r;
    }
  } else {
    p.done_cv.wait(lk, pred);
  }
  return p.result_of(*j);
}

bool engine::cancel(const std::string& job_id) {
  impl& p = *_p;
  std::vector<std::unique_ptr<work_item>> dropped;
  bool was_running = false;
  {
    std::lock_guard lk(p.mu);
    auto it = p.jobs.find(job_id);
    if (it == p.jobs.end()) throw not_found_error("unknown job id " + quoted_id(job_id));
    job& j = *it->second;
    if (j.done) return false;
    was_running = j.running;
    p.finish_locked(j, await_status::cancelled, "cancelled by request", dropped);
  }
  dropped.clear();
  p.emit(1, "job " + job_id + (was_running ? " cancelled while running" : " cancelled while queued"));
  p.tl("JOB_DONE", job_id, "status=CANCELLED");
  return was_running;
}

std::uint64_t engine::subscribe_done(std::function<void(const std::string&)> f) {
  std::lock_guard lk(_p->mu);
  const std::uint64_t id = _p->next_sub++;
  _p->done_subs.emplace(id, std::move(f));
  return id;
}

void engine::unsubscribe_done(std::uint64_t subscription) {
  std::lock_guard lk(_p->mu);
  _p->done_subs.erase(subscription);
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
  std::lock_guard lk(p.mu);
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

void engine::shutdown(std::chrono::milliseconds drain) {
  impl& p = *_p;
  {
    std::unique_lock lk(p.mu);
    if (p.stopping) return;
    p.accepting = false;
    const auto idle = [&] {
      return std::all_of(p.jobs.begin(), p.jobs.end(), [](const auto& kv) { return kv.second->done; });
    };
    if (!idle() && drain.count() > 0) {
      p.emit(1, "shutdown: draining in-flight jobs for up to " + std::to_string(drain.count()) + " ms");
      p.done_cv.wait_for(lk, drain, idle);
    }
  }
  std::vector<std::unique_ptr<work_item>> dropped;
  {
    std::lock_guard lk(p.mu);
    std::size_t n = 0;
    for (auto& [id, j] : p.jobs)
      if (!j->done) {
        p.finish_locked(*j, await_status::cancelled, "cancelled: the daemon is shutting down", dropped);
        ++n;
      }
    if (n) p.emit(2, "shutdown: cancelled " + std::to_string(n) + " unfinished job(s)");
    p.stopping = true;
  }
  dropped.clear();
  p.synth_cv.notify_all();
  p.gpu_cv.notify_all();
  p.space_cv.notify_all();
  p.fin_cv.notify_all();
  for (auto& t : p.threads)
    if (t.joinable()) t.join();
  p.threads.clear();
  {
    std::lock_guard lk(p.mu);
    p.gpu_q.clear();
    p.fin_q.clear();
    p.synth_q.clear();
  }
  p.events.flush();
}

}  // namespace cuzk::engine
