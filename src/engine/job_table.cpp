// SPDX-License-Identifier: Apache-2.0
// The job table and a job's life: submit (request checks, parse and
// validation before anything queues, request_id dedupe against the live job
// with that id), await, cancel, completion and failure (finish_locked: the
// first outcome wins, the job's queued items come out, it keeps only its
// result: job_retention.hpp), and the done subscriptions. Cost: submit
// parses and hashes the request outside the engine lock; under it, one pass
// over the job table (retention, queue position).
#include <algorithm>

#include <cuzk/engine/client_text.hpp>

#include "engine_impl.hpp"
#include "job_retention.hpp"
#include "os_random.hpp"

namespace cuzk::engine {

void engine::impl::finish_locked(job& j, await_status st, const std::string& err,
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
  gpu_cv.notify_all();  // a gathering batch may have been waiting for this job's partitions
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

void engine::impl::fail(const std::shared_ptr<job>& j, std::size_t part, const std::string& raw_err) {
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

job_result engine::impl::result_of(const job& j) const {
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

void engine::impl::purge_expired_locked() {
  retire_finished_jobs(jobs, cfg.result_ttl, cfg.max_finished_jobs, clock::now());
}

std::shared_ptr<circuit_job> engine::impl::input_of(const job& j) const {
  std::lock_guard lk(mu);
  return j.cj;
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
  if (it == p.jobs.end())
    throw not_found_error("unknown job id " + quoted_id(job_id) + " (never submitted or expired)");
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

}  // namespace cuzk::engine
