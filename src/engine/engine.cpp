// SPDX-License-Identifier: Apache-2.0
// The engine's frame: construction (memory budget and SRS manager sized from
// engine_config), start (the thread layout: synthesis workers plus one for
// HIGH/CRITICAL, gpu_workers_per_device per device plus one for HIGH/CRITICAL,
// the finalizers), shutdown
// (drain, cancel what is left, join, free the pooled witness buffers) and
// the accessors. The pipeline is in
// include/cuzk/engine/engine.hpp; engine_impl.hpp says which file holds what.
#include <algorithm>
#include <thread>

#include "engine_impl.hpp"

namespace cuzk::engine {

namespace {

std::uint64_t budget_total(const engine_config& c) {
  if (c.total_budget != 0) return c.total_budget;
  return memory_budget::auto_total(c.safety_margin).value_or(256ull << 30);
}
std::uint64_t reserve_of(const engine_config& c, std::uint64_t total) {
  return c.priority_reserve ? *c.priority_reserve : std::min<std::uint64_t>(total / 16, 2ull << 30);
}

/// The backend's load_queries for the SRS manager, when it loads any.
query_loader query_loader_of(prover_backend& b) {
  if (!b.loads_queries()) return {};
  return [&b](const io::mapped_parameter_file& f, const groth16::parameters& vk_only, const r1cs::r1cs_shape& shape,
              const io::read_options& opt,
              const cancel_token* token) { return b.load_queries(f, vk_only, shape, opt, token); };
}

/// The backend's parameter pinning for the SRS manager.
parameter_pinner parameter_pinner_of(prover_backend& b) {
  return [&b](const groth16::parameters& p) { return b.pin_host_parameters(p); };
}

}  // namespace

engine::impl::impl(engine_config c, std::unique_ptr<prover_backend> b)
    : cfg(std::move(c)),
      backend(std::move(b)),
      budget(budget_total(cfg), reserve_of(cfg, budget_total(cfg))),
      srs(srs_options{cfg.param_cache, cfg.check_points, cfg.eviction_min_idle, cfg.shape_cache, cfg.parameters_json,
                      query_loader_of(*backend), parameter_pinner_of(*backend)},
          budget),
      delay(parse_test_delay(cfg.test_delay_stage)) {
  devices = backend->devices();
  // idle pooled witness buffers first (rebuilding one costs its first
  // touch), then idle SRS entries (reloading costs seconds to minutes)
  budget.set_evictor([this](std::uint64_t n) {
    const std::uint64_t freed = pool.evict(n);
    if (freed >= n) return memory_budget::eviction{freed};
    memory_budget::eviction srs_freed = srs.evict_idle_for_budget(n - freed);
    srs_freed.freed += freed;
    return srs_freed;
  });
}

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
  p.threads.emplace_back([&p] { p.synth_loop(true); });           // reserved for HIGH / CRITICAL
  p.gathering.assign(nworkers + p.device_locks.size(), nullptr);  // before the workers read it
  for (std::size_t w = 0; w < nworkers; ++w) {
    p.worker_state.push_back({w, w / per_dev, false, "", proof_kind::unspecified, 0, 0, 0});
    p.worker_since.push_back(clock::now());
    p.threads.emplace_back([&p, w, per_dev] { p.gpu_loop(w, w / per_dev, false); });
  }
  // one more per device for HIGH / CRITICAL only: with every other worker
  // holding or waiting for the device, a WinningPoSt still reaches the
  // device gate at once and takes the device at the next phase boundary
  for (std::size_t d = 0; d < p.device_locks.size(); ++d) {
    const std::size_t w = nworkers + d;
    p.worker_state.push_back({w, d, false, "", proof_kind::unspecified, 0, 0, 0});
    p.worker_since.push_back(clock::now());
    p.threads.emplace_back([&p, w, d] { p.gpu_loop(w, d, true); });
  }
  for (std::size_t i = 0; i < std::max<std::size_t>(1, p.cfg.finalizer_threads); ++i)
    p.threads.emplace_back([&p] { p.fin_loop(); });
  p.emit(1, "engine started: backend " + p.backend->name() + ", " + std::to_string(p.devices.size()) + " device(s) x " +
                std::to_string(per_dev) + "+1 worker(s), " + std::to_string(p.synth_workers) +
                "+1 synthesis workers, memory budget " + format_bytes(p.budget.total()) + " (priority reserve " +
                format_bytes(p.budget.priority_reserve()) + ")");
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
    // destroyed outside the lock: a work item's holder_slot takes it
    std::map<qkey, std::unique_ptr<work_item>> gq, fq;
    {
      std::lock_guard lk(p.mu);
      gq.swap(p.gpu_q);
      fq.swap(p.fin_q);
      p.synth_q.clear();
    }
  }
  p.pool.clear();
  p.events.flush();
}

}  // namespace cuzk::engine
