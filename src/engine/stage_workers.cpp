// SPDX-License-Identifier: Apache-2.0
// The stage workers and their queues: synthesis (paced: a NORMAL/LOW
// partition starts only while fewer than the pacer's lookahead partitions
// hold a witness, synthesis_pacer.hpp; then SRS lease, memory reservation,
// a pooled witness buffer when one of the shape is idle, witness, then the
// backend's prepare, whose form may replace the witness, whose buffer then
// goes to the pool at once; or, when the kind can and the backend proves
// from it, the witness synthesized straight into the coded form, with no
// buffer and a charge without the whole witness; waits for room in the
// bounded GPU queue unless HIGH/CRITICAL), the device workers (the device's kernel lock around
// prove_start only, lent at the backend's phase boundaries to a more urgent
// partition of another circuit; one worker per device takes only HIGH and
// CRITICAL partitions, so one is always free to wait for that turn; the
// witness buffer goes to the pool with its share of the charge, the rest of
// the witness memory is released; a pass of several partitions of one
// circuit with cross-sector batching: device_batch.cpp) and the
// finalizers (finalize, self-verification, 192-byte encoding, job
// completion). Each stage checks the job's cancel token, writes its TIMELINE
// lines through a stage_timer and appends its times to the work item. Cost: a few short holds of
// the engine mutex per partition and stage (state, hand-over, the pacer's
// averages).
#include <cuzk/groth16/verifier.hpp>

#include "engine_impl.hpp"
#include "os_random.hpp"
#include "stage_timer.hpp"

namespace cuzk::engine {

void engine::impl::synth_loop(bool priority_only) {
  for (;;) {
    std::shared_ptr<job> j;
    std::size_t part = 0;
    {
      std::unique_lock lk(mu);
      synth_cv.wait(lk, [&] {
        if (stopping) return true;
        if (synth_q.empty()) return false;
        // HIGH/CRITICAL are never paced; the rest wait for a holder to go
        // (holder_slot::release notifies synth_cv)
        if (-std::get<0>(synth_q.begin()->first) >= int(priority::high)) return true;
        if (priority_only) return false;
        const job& head = *synth_q.begin()->second;
        paced_circuit = head.circuit_id;
        paced_prio = head.prio;
        return held.n < lookahead_locked(head.circuit_id, head.prio);
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
      ++held.n;
      if (j->prio < priority::high) ++inbound[j->circuit_id];  // a batch may wait for it
    }
    run_synthesis(j, part, holder_slot(&held));
    std::lock_guard lk(mu);
    --synth_active;
  }
}

std::size_t engine::impl::lookahead_locked(const std::string& circuit, priority p) const {
  // partitions of this circuit that fit beside what is not a witness holder
  // (SRS, resident buffers, partitions past their device); idle pooled
  // buffers count as room, the budget's evictor frees them on demand
  std::size_t fit = 0;
  if (const auto it = partition_bytes_of.find(circuit); it != partition_bytes_of.end() && it->second > 0) {
    const std::uint64_t used = budget.used(), idle = pool.status().idle_bytes;
    const std::uint64_t others = used - std::min(used, held.bytes + idle);
    const std::uint64_t limit = budget.limit_for(p);
    fit = std::max<std::uint64_t>(1, limit > others ? (limit - others) / it->second : 0);
  }
  return pacer.lookahead(circuit, {std::max<std::size_t>(1, device_locks.size()), synth_workers, gpu_capacity}, fit);
}

namespace {

// A NORMAL/LOW partition counts in impl::inbound (a gathering batch waits
// for it) from synth_loop until it is queued for a device or dies; a death
// wakes the gatherers, which may stop waiting for it.
class inbound_mark {
 public:
  inbound_mark(std::mutex& mu, std::condition_variable& gpu_cv, std::map<std::string, std::size_t>& inbound,
               const job& j)
      : _mu(mu), _cv(gpu_cv), _inbound(inbound), _circuit(j.circuit_id), _counted(j.prio < priority::high) {}
  inbound_mark(const inbound_mark&) = delete;
  inbound_mark& operator=(const inbound_mark&) = delete;
  ~inbound_mark() {
    if (!_counted) return;
    {
      std::lock_guard lk(_mu);
      drop_locked();
    }
    _cv.notify_all();
  }
  /// The partition is in gpu_q now (mu held).
  void delivered_locked() {
    if (_counted) drop_locked();
  }

 private:
  void drop_locked() {
    _counted = false;
    if (auto it = _inbound.find(_circuit); it != _inbound.end() && --it->second == 0) _inbound.erase(it);
  }
  std::mutex& _mu;
  std::condition_variable& _cv;
  std::map<std::string, std::size_t>& _inbound;
  const std::string _circuit;
  bool _counted;
};

}  // namespace

void engine::impl::run_synthesis(const std::shared_ptr<job>& j, std::size_t part, holder_slot holder) {
  inbound_mark on_its_way(mu, gpu_cv, inbound, *j);
  auto item = std::make_unique<work_item>();
  item->holder = std::move(holder);
  item->j = j;
  item->part = part;
  item->times.partition = std::uint32_t(part);
  item->mark = clock::now();
  try {
    std::uint64_t load_ms = 0;
    item->lease = srs.acquire(j->circuit_id, j->prio, &j->token, &load_ms);
    if (load_ms) {
      emit(1, "loaded parameters of " + j->circuit_id + " in " + std::to_string(load_ms) + " ms; " +
                  item->lease->shape_note);
      std::lock_guard lk(mu);
      j->t.srs_load_ms += load_ms;
    }
    const r1cs::r1cs_shape& shape = item->lease->shape;
    const std::shared_ptr<circuit_job> input = input_of(*j);
    if (!input) throw cancelled_error("job finished");
    const std::uint64_t full = backend->partition_bytes(shape, &item->release_after_gpu);
    // the witness's part of the charge: a coded synthesis never holds the
    // whole witness, only the coded form (charged by the backend's bytes)
    // and, while it joins its blocks, a second one
    const std::uint64_t wbytes = witness_pool::bytes_of(shape.num_inputs, shape.num_aux);
    const bool poolable = wbytes <= item->release_after_gpu && wbytes <= full;
    std::optional<std::size_t> max_others;
    if (poolable && input->synthesizes_coded()) max_others = backend->coded_witness_max_others(shape);
    const std::uint64_t join_bytes =
        max_others ? groth16::coded_witness_bytes_bound(shape.num_inputs + shape.num_aux, *max_others) : 0;
    const std::uint64_t bytes = max_others ? full - wbytes : full;
    {
      std::lock_guard lk(mu);
      partition_bytes_of[j->circuit_id] = bytes;  // the pacer's size of a holder
    }
    if (bytes + join_bytes + item->lease->charged_bytes > budget.limit_for(j->prio))
      throw budget_error("partition " + std::to_string(part) + " of job " + j->id + " needs " +
                         format_bytes(bytes + join_bytes) + " besides the " + format_bytes(item->lease->charged_bytes) +
                         " its circuit '" + j->circuit_id + "' holds, more than the memory budget allows (" +
                         format_bytes(budget.limit_for(j->prio)) + " for " + std::string(priority_label(j->prio)) +
                         " priority work)");
    const std::string what = "partition " + std::to_string(part) + " of job " + j->id + " (" + j->circuit_id + ")";
    // the witness's share of the charge travels with its buffer into the
    // pool; only when the backend frees at least the witness after the device
    std::optional<witness_pool::buffer> reused;
    if (poolable && !max_others) reused = pool.take(shape.num_inputs, shape.num_aux);
    item->mem = budget.acquire((reused ? bytes - wbytes : bytes) + join_bytes, j->prio, &j->token, what);
    groth16::witness buffer;
    if (reused) {
      item->witness_mem = std::move(reused->mem);
      buffer = std::move(reused->w);
    } else if (poolable && !max_others) {
      item->witness_mem = item->mem.split(wbytes);
    }
    if (max_others) item->release_after_gpu -= wbytes;
    item->holder.charge(item->mem.bytes() + item->witness_mem.bytes());
    j->token.check();
    const auto t0 = clock::now();
    stage(*item, "prep_wait", t0);
    {
      std::lock_guard lk(mu);
      j->stage[part] = pstage::synthesizing;
      j->stage_since[part] = t0;
      ++synthesized;
    }
    stage_timer timer(events, j->id, {"SYNTH_START", "SYNTH_END"}, "partition=" + std::to_string(part));
    std::optional<groth16::coded_witness> coded;
    if (max_others) {
      coded = input->synthesize_coded(part, shape, j->token, *max_others);
      item->mem.release(join_bytes);  // the blocks it was joined from are gone
      item->holder.discharge(join_bytes);
      if (!coded) {
        // more other values than the backend's coded form takes: the whole
        // witness after all, in a pooled buffer with its charge or with its
        // share of the charge taken now
        if ((reused = pool.take(shape.num_inputs, shape.num_aux))) {
          item->witness_mem = std::move(reused->mem);
          buffer = std::move(reused->w);
        } else {
          item->witness_mem = budget.acquire(wbytes, j->prio, &j->token, what);
        }
        item->release_after_gpu += wbytes;
        item->holder.charge(wbytes);
      }
    }
    if (!coded) item->w = input->synthesize(part, shape, j->token, std::move(buffer));
    delay.apply(test_delay::where::synthesis, j->token);
    const auto t1 = clock::now();
    stage(*item, "synthesis", t1);
    const std::uint64_t sms = ms_between(t0, t1);
    timer.add("synth_ms", sms);
    timer.add("buffer", coded ? "coded" : reused ? "pooled" : "fresh");
    timer.end();
    // device-free work on the witness (the CUDA backend codes it) here,
    // before the queue: the device never waits for it, and a form that
    // replaces the witness lets the buffer go to the pool now, so a queued
    // partition holds only that form
    item->prepared = coded ? backend->prepare_coded(shape, std::move(*coded)) : backend->prepare(shape, item->w);
    if (item->prepared) {
      stage(*item, "prepare", clock::now());
      if (item->prepared->replaces_witness) give_back_witness(*item);
    } else if (coded) {
      throw std::logic_error("the backend took no coded witness although it offered to");
    }
    std::unique_lock lk(mu);
    pacer.record_synthesis(j->circuit_id, ms_f(t0, t1));
    synth_cv.notify_all();  // a new rate may allow more syntheses
    j->synth_ms[part] = sms;
    j->t.synthesis_ms += sms;
    j->stage[part] = pstage::synth_done;
    j->stage_since[part] = clock::now();
    space_cv.wait(lk, [&] { return stopping || j->done || j->prio >= priority::high || gpu_q.size() < gpu_capacity; });
    if (stopping || j->done) return;  // item dropped below, outside the lock
    stage(*item, "gpu_queue_space_wait", clock::now());
    tl("GPU_QUEUE", j->id, "partition=" + std::to_string(part));  // before a worker can pick it up
    on_its_way.delivered_locked();
    gpu_q.emplace(qkey{-int(j->prio), j->seq, part}, std::move(item));
    gpu_cv.notify_all();  // all: a priority-only worker may not take this one
  } catch (const cancelled_error&) {
    // the job is already finished; the item's memory returns here
  } catch (const std::exception& e) {
    fail(j, part, e.what());
  } catch (...) {  // never let a stage kill the daemon
    fail(j, part, "partition " + std::to_string(part) + " synthesis failed: unknown exception");
  }
}

void engine::impl::give_back_witness(work_item& item) {
  const r1cs::r1cs_shape& shape = item.lease->shape;
  // the witness's part of release_after_gpu: the pool's share when it has
  // one, else its bytes out of the partition's own charge while the
  // vectors are still here (nothing once they went)
  const std::uint64_t pooled = item.witness_mem.bytes();
  const bool held = !item.w.inputs.empty() || !item.w.aux.empty();
  const std::uint64_t plain =
      pooled ? pooled
      : held ? std::min(item.release_after_gpu, witness_pool::bytes_of(shape.num_inputs, shape.num_aux))
             : 0;
  if (!pooled) item.mem.release(plain);
  item.release_after_gpu -= std::min(plain, item.release_after_gpu);
  // the pool keeps a buffer it can reuse and frees any other
  pool.give(std::exchange(item.w, {}), std::move(item.witness_mem), shape.num_inputs, shape.num_aux);
  item.holder.discharge(plain);
  budget.notify_evictable();  // an idle pooled buffer is room for a blocked partition
}

void engine::impl::release_after_device(work_item& item) {
  give_back_witness(item);  // unless prepare's form replaced it already
  item.mem.release(std::exchange(item.release_after_gpu, 0));
  item.holder.release();
}

void engine::impl::gpu_loop(std::size_t worker, std::size_t device, bool priority_only) {
  for (;;) {
    // the partitions of one device pass: one, or a batch (device_batch.cpp)
    std::vector<std::unique_ptr<work_item>> pass;
    bool batchable = false;
    clock::time_point taken;
    {
      std::unique_lock lk(mu);
      auto it = gpu_q.end();
      gpu_cv.wait(lk, [&] { return stopping || (it = next_for_worker_locked(priority_only)) != gpu_q.end(); });
      if (stopping) return;
      std::unique_ptr<work_item> item = std::move(it->second);
      gpu_q.erase(it);
      space_cv.notify_all();
      if (item->j->done) {
        lk.unlock();
        item.reset();
        continue;
      }
      start_on_worker_locked(worker, *item);
      taken = worker_since[worker];
      // HIGH/CRITICAL never wait for a batch; the claim keeps the other
      // workers off this circuit's items while the batch is sized
      batchable = cfg.max_batch_size > 1 && item->j->prio < priority::high;
      if (batchable) gathering[worker] = item->lease.get();
      pass.push_back(std::move(item));
    }
    if (batchable) gather_batch(pass, worker, device, taken);
    if (pass.size() == 1) run_gpu(*pass.front(), worker, device);
    else run_gpu_batch(pass, worker, device);
    std::unique_lock lk(mu);
    worker_state[worker].busy = false;
    worker_state[worker].current_job.clear();
    worker_state[worker].batch_partitions = 0;
    for (auto& item : pass)
      if (item && item->pending && !item->j->done) {
        fin_q.emplace(qkey{-int(item->j->prio), item->j->seq, item->part}, std::move(item));
        fin_cv.notify_one();
      }
    lk.unlock();
    pass.clear();  // what did not go on: its memory and lease return outside the lock
  }
}

std::map<qkey, std::unique_ptr<work_item>>::iterator engine::impl::next_for_worker_locked(bool priority_only) {
  // the queue's head is its most urgent item
  if (priority_only)
    return !gpu_q.empty() && -std::get<0>(gpu_q.begin()->first) >= int(priority::high) ? gpu_q.begin() : gpu_q.end();
  for (auto it = gpu_q.begin(); it != gpu_q.end(); ++it)
    if (!claimed_locked(*it->second)) return it;
  return gpu_q.end();
}

void engine::impl::start_on_worker_locked(std::size_t worker, work_item& item) {
  auto& ws = worker_state[worker];
  ws.busy = true;
  ws.current_job = item.j->id;
  ws.current_kind = item.j->kind;
  ws.current_partition = item.part;
  ws.batch_partitions = 1;
  worker_since[worker] = clock::now();
  item.j->stage[item.part] = pstage::gpu;
  item.j->stage_since[item.part] = clock::now();
}

void engine::impl::run_gpu(work_item& item, std::size_t worker, std::size_t device) {
  job& j = *item.j;
  try {
    j.token.check();
    stage_timer timer(events, j.id, {"GPU_START", "GPU_END"},
                      "worker=" + std::to_string(worker) + ",device=" + std::to_string(device) +
                          ",partition=" + std::to_string(item.part));
    auto t0 = clock::now();
    stage(item, "gpu_queue_wait", t0);
    os_rng rng;
    const ff::fr r = ff::fr::random(rng), s = ff::fr::random(rng);
    // gpu_ms: the time holding the device (the other worker's turn is lock_wait_ms)
    std::uint64_t wait_ms = 0, gms = 0;
    double device_ms = 0;  // the same, with microseconds, for the pacer
    // prepared when synthesis ended (run_synthesis)
    std::unique_ptr<prepared_witness> prepared = std::move(item.prepared);
    {
      // cancellable, priority-ordered wait for the device (device_gate.hpp)
      device_gate::hold dl = device_locks[device]->acquire({-int(j.prio), j.seq, item.part}, j.circuit_id, j.token);
      if (!dl) throw cancelled_error("job cancelled while waiting for the device");
      const auto t1 = clock::now();
      wait_ms = ms_between(t0, t1);
      stage(item, "lock_wait", t1);
      // between the backend's phases: cancellation, then the device lent to
      // a more urgent partition of another circuit; the time lent is not
      // this partition's device time
      clock::duration lent{};
      const phase_boundary at_boundary = [&] {
        j.token.check();
        const auto b0 = clock::now();
        dl.lend_if_urgent(j.token);
        const auto away = clock::now() - b0;
        if (away > std::chrono::milliseconds(1)) {
          lent += away;
          timer.event("GPU_LENT", ",lent_ms=" + std::to_string(ms_between(b0, b0 + away)));
        }
      };
      item.pending = backend->prove_start(device, item.lease->params, item.lease->shape, std::move(item.w), r, s,
                                          j.token, std::move(prepared), at_boundary);
      delay.apply(test_delay::where::gpu, j.token);
      const auto t2 = clock::now();
      gms = ms_between(t1 + lent, t2);
      device_ms = ms_f(t1 + lent, t2);
      if (lent.count()) stage(item, "lent", t1 + lent);
      stage(item, "gpu", t2);
    }
    release_after_device(item);
    const std::uint64_t h2d = item.pending ? item.pending->h2d_bytes : 0;
    item.times.h2d_bytes = h2d;
    timer.add("gpu_ms", gms);
    timer.add("lock_wait_ms", wait_ms);
    timer.add("h2d_bytes", h2d);
    timer.end();
    std::lock_guard lk(mu);
    pacer.record_device(j.circuit_id, device_ms);
    synth_cv.notify_all();  // a new rate may allow more syntheses
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

void engine::impl::fin_loop() {
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

void engine::impl::run_finalize(std::unique_ptr<work_item> item) {
  const std::shared_ptr<job> j = item->j;
  const std::size_t part = item->part;
  try {
    j->token.check();
    stage_timer timer(events, j->id, {nullptr, "FINALIZE"}, "partition=" + std::to_string(part));
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
    timer.add("finalize_ms", fms);
    timer.add("verified", j->verify ? (ok ? "yes" : "FAILED") : "skipped");
    timer.end();
    if (!ok) {
      fail(j, part,
           "partition " + std::to_string(part) + " proof of job " + j->id +
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

}  // namespace cuzk::engine
