// SPDX-License-Identifier: Apache-2.0
// Cross-sector batching (scheduler.max_batch_size > 1): a device worker
// proves several NORMAL/LOW partitions of one circuit in one pass
// (prover_backend::prove_start_batch), so that parameters the backend
// streams to the device (a 32 GiB PoRep on a 16-32 GiB card) are copied
// once per pass instead of once per partition.
//
// Gathering. The worker that takes a NORMAL/LOW partition claims its circuit
// (the loaded parameters and shape object of its SRS lease): other workers
// pass over queued items of it. It asks the backend how many partitions one
// pass takes on its device (batch_capacity), K = min(max_batch_size, that),
// and pulls up to K - 1 more queued items of the circuit, from any job: the
// partitions of several sectors, and other partitions of the same job (a
// superset of the reference's rule, which batched one partition index across
// sectors: here any partitions of one circuit share the pass). While fewer
// than K are held and more partitions of the circuit are being synthesized
// or wait for synthesis, it waits for them, at most max_batch_wait from when
// it took the first; with nothing on its way it goes at once, so a lone
// partition never waits. HIGH/CRITICAL partitions are never batched, never
// claimed and never wait for a batch: a gathering worker holds no device,
// and the priority-only worker of each device takes them meanwhile.
//
// Running. Each partition comes prepared from its synthesis (as to
// run_gpu), the device is taken once, under the most urgent partition's key, and lent at
// the backend's phase boundaries (each partition's cancellation is the
// backend's check); the wait for it is given up only when every partition
// of the batch was cancelled. Afterwards each partition goes on exactly as
// from run_gpu: memory release, witness to the pool, TIMELINE GPU_START /
// GPU_END (with batch=K), the pacer, the finalizers. Its gpu_ms is the
// pass's device time divided by the partitions that completed in it (what
// the device costs per partition; the "gpu" stage keeps the pass's wall
// time, which the partition spent on the device). Cost: one scan of the GPU
// queue per wake-up of a gathering worker, under the engine mutex.
#include <algorithm>
#include <atomic>
#include <stop_token>

#include "engine_impl.hpp"
#include "os_random.hpp"
#include "stage_timer.hpp"

namespace cuzk::engine {
namespace {

// Cancelled once every one of the batch's job tokens is: the batch gives up
// its wait for the device (or a lent turn) only when no partition in it
// still wants a proof. Cost: one stop_callback per partition.
class all_cancelled {
 public:
  explicit all_cancelled(const std::vector<const cancel_token*>& tokens) : _left(tokens.size()) {
    _callbacks.reserve(tokens.size());
    for (const cancel_token* t : tokens) _callbacks.push_back(std::make_unique<callback>(t->stop_token(), gone{this}));
  }
  const cancel_token& token() const noexcept { return _token; }

 private:
  struct gone {
    all_cancelled* self;
    void operator()() const noexcept {
      if (self->_left.fetch_sub(1) == 1) self->_token.cancel();
    }
  };
  using callback = std::stop_callback<gone>;
  cancel_token _token;
  std::atomic<std::size_t> _left;
  std::vector<std::unique_ptr<callback>> _callbacks;  // last: unregistered before the rest goes
};

device_gate::key key_of(const work_item& item) { return {-int(item.j->prio), item.j->seq, item.part}; }

}  // namespace

bool engine::impl::claimed_locked(const work_item& item) const {
  if (cfg.max_batch_size <= 1 || item.j->prio >= priority::high) return false;
  return std::find(gathering.begin(), gathering.end(), item.lease.get()) != gathering.end();
}

bool engine::impl::more_coming_locked(const std::string& circuit) const {
  if (inbound.contains(circuit)) return true;  // entries are erased at zero
  return std::any_of(synth_q.begin(), synth_q.end(), [&](const auto& kv) {
    const job& j = *kv.second;
    return !j.done && j.prio < priority::high && j.circuit_id == circuit;
  });
}

void engine::impl::take_batchable_locked(std::vector<std::unique_ptr<work_item>>& pass, std::size_t k) {
  const work_item& first = *pass.front();
  bool took = false;
  for (auto it = gpu_q.begin(); it != gpu_q.end() && pass.size() < k;) {
    work_item& c = *it->second;
    if (c.j->done || c.j->prio >= priority::high || c.lease.get() != first.lease.get() ||
        c.j->circuit_id != first.j->circuit_id) {
      ++it;
      continue;
    }
    c.j->stage[c.part] = pstage::gpu;
    c.j->stage_since[c.part] = clock::now();
    pass.push_back(std::move(it->second));
    it = gpu_q.erase(it);
    took = true;
  }
  if (took) space_cv.notify_all();
}

void engine::impl::gather_batch(std::vector<std::unique_ptr<work_item>>& pass, std::size_t worker, std::size_t device,
                                clock::time_point taken) {
  const work_item& first = *pass.front();
  const std::string& circuit = first.j->circuit_id;
  std::size_t k = 1;
  try {  // outside the engine mutex: it may build the device's prover of the circuit
    k = std::min(cfg.max_batch_size, backend->batch_capacity(device, first.lease->params, first.lease->shape));
  } catch (const std::exception& e) {  // prove_start meets the same problem and reports it per partition
    emit(2, "batch capacity of " + circuit + " on device " + std::to_string(device) + ": " + e.what() +
                "; proving without batching");
  }
  std::unique_lock lk(mu);
  pacer.record_batch(circuit, k);
  synth_cv.notify_all();  // a batch allows more witnesses ahead (synthesis_pacer.hpp)
  const clock::time_point deadline = taken + cfg.max_batch_wait;
  while (k > 1) {
    take_batchable_locked(pass, k);
    if (pass.size() >= k || stopping || !more_coming_locked(circuit)) break;
    if (gpu_cv.wait_until(lk, deadline) == std::cv_status::timeout) {
      take_batchable_locked(pass, k);
      break;
    }
  }
  gathering[worker] = nullptr;
  gpu_cv.notify_all();  // items of the circuit still queued are anyone's now
  worker_state[worker].batch_partitions = pass.size();
}

void engine::impl::run_gpu_batch(std::vector<std::unique_ptr<work_item>>& pass, std::size_t worker,
                                 std::size_t device) {
  // partitions whose job went while the batch gathered leave here (as at
  // run_gpu's first check); the rest make the pass, most urgent first
  std::vector<work_item*> live;
  for (auto& item : pass)
    if (!item->j->token.cancelled()) live.push_back(item.get());
  if (live.empty()) return;
  std::sort(live.begin(), live.end(), [](const work_item* a, const work_item* b) { return key_of(*a) < key_of(*b); });
  const std::size_t k = live.size();
  const loaded_circuit& circuit = *live.front()->lease.get();
  const std::string& circuit_id = live.front()->j->circuit_id;
  try {
    std::vector<std::unique_ptr<stage_timer>> timers;
    std::vector<prover_backend::batch_entry> entries(k);
    std::vector<const cancel_token*> tokens;
    os_rng rng;
    auto t0 = clock::now();
    for (std::size_t i = 0; i < k; ++i) {
      work_item& item = *live[i];
      timers.push_back(
          std::make_unique<stage_timer>(events, item.j->id, stage_timer::event_names{"GPU_START", "GPU_END"},
                                        "worker=" + std::to_string(worker) + ",device=" + std::to_string(device) +
                                            ",partition=" + std::to_string(item.part)));
      stage(item, "gpu_queue_wait", t0);
      entries[i].w = &item.w;
      entries[i].r = ff::fr::random(rng);
      entries[i].s = ff::fr::random(rng);
      entries[i].token = &item.j->token;
      entries[i].prepared = std::move(item.prepared);  // made when its synthesis ended
      tokens.push_back(&item.j->token);
    }
    const all_cancelled batch_cancelled(tokens);
    std::vector<std::unique_ptr<pending_proof>> results;
    clock::time_point t1, t2;
    clock::duration lent{};
    {
      device_gate::hold dl = device_locks[device]->acquire(key_of(*live.front()), circuit_id, batch_cancelled.token());
      if (!dl) throw cancelled_error("every job of the batch was cancelled while it waited for the device");
      t1 = clock::now();
      for (work_item* item : live) stage(*item, "lock_wait", t1);
      // only lending here: the backend checks each partition's token
      const phase_boundary at_boundary = [&] {
        const auto b0 = clock::now();
        dl.lend_if_urgent(batch_cancelled.token());
        const auto away = clock::now() - b0;
        if (away > std::chrono::milliseconds(1)) {
          lent += away;
          for (const auto& timer : timers)
            timer->event("GPU_LENT", ",lent_ms=" + std::to_string(ms_between(b0, b0 + away)));
        }
      };
      results = backend->prove_start_batch(device, circuit.params, circuit.shape, entries, at_boundary);
      if (results.size() != k)
        throw std::logic_error("the backend returned " + std::to_string(results.size()) + " proofs for a batch of " +
                               std::to_string(k));
      delay.apply(test_delay::where::gpu, batch_cancelled.token());
      t2 = clock::now();
    }
    const std::size_t completed =
        std::size_t(std::count_if(results.begin(), results.end(), [](const auto& p) { return p != nullptr; }));
    const double share_ms = ms_f(t1 + lent, t2) / double(std::max<std::size_t>(1, completed));
    const std::uint64_t share = std::uint64_t(share_ms + 0.5);
    for (std::size_t i = 0; i < k; ++i) {
      work_item& item = *live[i];
      item.pending = std::move(results[i]);
      if (!item.pending) {  // cancelled inside the pass: dropped as a cancelled partition
        timers[i]->abandon();
        continue;
      }
      if (lent.count()) stage(item, "lent", t1 + lent);
      stage(item, "gpu", t2);
      release_after_device(item);
      const std::uint64_t h2d = item.pending->h2d_bytes;
      item.times.h2d_bytes = h2d;
      timers[i]->add("gpu_ms", share);
      timers[i]->add("lock_wait_ms", ms_between(t0, t1));
      timers[i]->add("h2d_bytes", h2d);
      timers[i]->add("batch", k);
      timers[i]->end();
      std::lock_guard lk(mu);
      pacer.record_device(circuit_id, share_ms);
      synth_cv.notify_all();  // a new rate may allow more syntheses
      job& j = *item.j;
      j.gpu_ms[item.part] = share;
      j.t.gpu_compute_ms += share;
      j.stage[item.part] = pstage::finalizing;
      j.stage_since[item.part] = clock::now();
    }
  } catch (const cancelled_error&) {
    for (work_item* item : live) item->pending.reset();
  } catch (const std::exception& e) {
    for (work_item* item : live) {
      item->pending.reset();
      fail(item->j, item->part,
           "proving partition " + std::to_string(item->part) + " failed (in a batch of " + std::to_string(live.size()) +
               " partitions): " + e.what());
    }
  } catch (...) {
    for (work_item* item : live) {
      item->pending.reset();
      fail(item->j, item->part,
           "proving partition " + std::to_string(item->part) + " failed (in a batch): unknown exception");
    }
  }
}

}  // namespace cuzk::engine
