// SPDX-License-Identifier: Apache-2.0
// The stage workers and their queues: synthesis (SRS lease, memory
// reservation, witness; waits for room in the bounded GPU queue unless
// HIGH/CRITICAL), the device workers (prepare off the device, then the
// device's kernel lock around prove_start only; witness memory released
// after) and the finalizers (finalize, self-verification, 192-byte encoding,
// job completion). Each stage checks the job's cancel token, emits its
// TIMELINE events and appends its times to the work item. Cost: a few short
// holds of the engine mutex per partition and stage (state, hand-over).
#include <cuzk/groth16/verifier.hpp>

#include "engine_impl.hpp"
#include "os_random.hpp"

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

void engine::impl::run_synthesis(const std::shared_ptr<job>& j, std::size_t part) {
  auto item = std::make_unique<work_item>();
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

void engine::impl::gpu_loop(std::size_t worker, std::size_t device) {
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

void engine::impl::run_gpu(work_item& item, std::size_t worker, std::size_t device) {
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

}  // namespace cuzk::engine
