// SPDX-License-Identifier: Apache-2.0
// cuzk.v1.ProvingEngine over the engine (see grpc_service.hpp).
#include "grpc_service.hpp"

#include <chrono>
#include <filesystem>
#include <stdexcept>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::service {
namespace {

namespace pb = cuzk::v1;
using grpc::ServerContext;
using grpc::Status;
using grpc::StatusCode;

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

engine::proof_request to_engine(const pb::SubmitProofRequest& r) {
  engine::proof_request q;
  q.request_id = r.request_id();
  q.kind = engine::proof_kind(std::uint8_t(std::min<int>(r.proof_kind(), 255)));
  if (r.proof_kind() < 0 || r.proof_kind() >= int(engine::proof_kind_count))
    throw engine::invalid_request("unknown proof_kind " + std::to_string(r.proof_kind()));
  if (r.priority() < 0 || r.priority() > int(engine::priority::critical))
    throw engine::invalid_request("unknown priority " + std::to_string(r.priority()));
  q.prio = engine::priority(r.priority());
  q.sector_size = r.sector_size();
  q.registered_proof = r.registered_proof();
  q.vanilla_proof = bytes_of(r.vanilla_proof());
  for (const auto& v : r.vanilla_proofs()) q.vanilla_proofs.push_back(bytes_of(v));
  q.sector_number = r.sector_number();
  q.miner_id = r.miner_id();
  q.randomness = bytes_of(r.randomness());
  q.partition_index = r.partition_index();
  q.comm_r_old = bytes_of(r.comm_r_old());
  q.comm_r_new = bytes_of(r.comm_r_new());
  q.comm_d_new = bytes_of(r.comm_d_new());
  return q;
}

void fill(const engine::job_result& r, pb::AwaitProofResponse* out) {
  out->set_job_id(r.job_id);
  out->set_status(pb::AwaitProofResponse::Status(int(r.status)));
  out->set_proof(std::string(r.proof.begin(), r.proof.end()));
  out->set_error_message(r.error_message);
  out->set_queue_wait_ms(r.timings.queue_wait_ms);
  out->set_srs_load_ms(r.timings.srs_load_ms);
  out->set_synthesis_ms(r.timings.synthesis_ms);
  out->set_gpu_compute_ms(r.timings.gpu_compute_ms);
  out->set_total_ms(r.timings.total_ms);
  for (const auto& pt : r.timings.partitions) {
    auto* t = out->add_partition_timings();
    t->set_partition(pt.partition);
    for (const auto& [name, ms] : pt.stages) {
      auto* st = t->add_stages();
      st->set_name(name);
      st->set_ms(ms);
    }
  }
}

template <class F>
Status guarded(F&& f) {
  try {
    return f();
  } catch (const engine::invalid_request& e) {
    return {StatusCode::INVALID_ARGUMENT, e.what()};
  } catch (const engine::unsupported_request& e) {
    return {std::string(e.what()).find("shutting down") != std::string::npos ? StatusCode::UNAVAILABLE
                                                                               : StatusCode::UNIMPLEMENTED,
            e.what()};
  } catch (const engine::not_found_error& e) {
    return {StatusCode::NOT_FOUND, e.what()};
  } catch (const std::invalid_argument& e) {
    return {StatusCode::INVALID_ARGUMENT, e.what()};
  } catch (const std::logic_error& e) {
    return {StatusCode::FAILED_PRECONDITION, e.what()};
  } catch (const std::exception& e) {
    return {StatusCode::INTERNAL, e.what()};
  }
}

class service final : public pb::ProvingEngine::Service {
 public:
  service(engine::engine& e, std::uint64_t max_msg) : _e(e), _max(max_msg) {}

  Status check_size(const google::protobuf::Message& m) const {
    const std::size_t n = m.ByteSizeLong();
    if (n > _max)
      return {StatusCode::INVALID_ARGUMENT, "request is " + std::to_string(n) +
                                                " bytes, over the daemon.max_message_size limit of " +
                                                std::to_string(_max) + " bytes"};
    return Status::OK;
  }

  Status SubmitProof(ServerContext*, const pb::SubmitProofRequest* req, pb::SubmitProofResponse* resp) override {
    if (Status s = check_size(*req); !s.ok()) return s;
    return guarded([&] {
      const auto r = _e.submit(to_engine(*req));
      resp->set_job_id(r.job_id);
      resp->set_queue_position(r.queue_position);
      return Status::OK;
    });
  }

  // Waits in slices so a client that goes away frees its server thread.
  Status wait(ServerContext* ctx, const std::string& id, std::uint64_t timeout_ms, pb::AwaitProofResponse* out) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      auto slice = std::chrono::milliseconds(200);
      if (timeout_ms != 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) slice = std::chrono::milliseconds(0);
        else if (left < slice) slice = left;
      }
      engine::job_result r = _e.await(id, slice);
      if (r.status != engine::await_status::timeout) {
        fill(r, out);
        return Status::OK;
      }
      if (timeout_ms != 0 && std::chrono::steady_clock::now() >= deadline) {
        r.error_message = "job " + id + " not finished after timeout_ms = " + std::to_string(timeout_ms);
        fill(r, out);
        return Status::OK;
      }
      if (ctx->IsCancelled()) return {StatusCode::CANCELLED, "client went away"};
    }
  }

  Status AwaitProof(ServerContext* ctx, const pb::AwaitProofRequest* req, pb::AwaitProofResponse* resp) override {
    return guarded([&] { return wait(ctx, req->job_id(), req->timeout_ms(), resp); });
  }

  Status Prove(ServerContext* ctx, const pb::ProveRequest* req, pb::ProveResponse* resp) override {
    if (!req->has_submit()) return {StatusCode::INVALID_ARGUMENT, "ProveRequest.submit is missing"};
    if (Status s = check_size(*req); !s.ok()) return s;
    return guarded([&] {
      const auto r = _e.submit(to_engine(req->submit()));
      return wait(ctx, r.job_id, 0, resp->mutable_result());
    });
  }

  Status CancelProof(ServerContext*, const pb::CancelProofRequest* req, pb::CancelProofResponse* resp) override {
    return guarded([&] {
      resp->set_was_running(_e.cancel(req->job_id()));
      return Status::OK;
    });
  }

  Status GetStatus(ServerContext*, const pb::GetStatusRequest*, pb::GetStatusResponse* resp) override {
    return guarded([&] {
      const engine::engine_status s = _e.status();
      for (std::size_t d = 0; d < s.devices.size(); ++d) {
        auto* g = resp->add_gpus();
        g->set_ordinal(std::uint32_t(d));
        g->set_name(s.devices[d].name);
        g->set_vram_total_bytes(s.devices[d].memory_total);
        g->set_vram_free_bytes(s.devices[d].memory_free);
        for (const auto& w : s.workers)
          if (w.device == d && w.busy) {
            if (!g->current_job_id().empty()) {
              g->set_current_job_id(g->current_job_id() + "," + w.current_job);
            } else {
              g->set_current_job_id(w.current_job);
              g->set_current_proof_kind(std::string(engine::kind_label(w.current_kind)));
            }
          }
      }
      for (const auto& e : s.srs) {
        if (!e.file_present && e.tier == engine::srs_tier::cold) continue;  // not on this machine
        auto* x = resp->add_loaded_srs();
        x->set_circuit_id(e.circuit_id);
        x->set_tier(pb::SRSStatus::Tier(int(e.tier)));
        x->set_size_bytes(e.size_bytes);
        x->set_ref_count(e.ref_count);
      }
      for (const auto& q : s.queues) {
        auto* x = resp->add_queues();
        x->set_proof_kind(std::string(engine::kind_label(q.kind)));
        x->set_pending(q.pending);
        x->set_in_progress(q.in_progress);
      }
      resp->set_total_proofs_completed(s.completed);
      resp->set_total_proofs_failed(s.failed);
      resp->set_uptime_seconds(std::uint64_t(s.uptime_secs));
      resp->set_pinned_memory_bytes(s.pinned_bytes);
      resp->set_pinned_memory_limit_bytes(s.budget_total);
      return Status::OK;
    });
  }

  Status GetMetrics(ServerContext*, const pb::GetMetricsRequest*, pb::GetMetricsResponse* resp) override {
    return guarded([&] {
      resp->set_prometheus_text(_e.metrics_text());
      return Status::OK;
    });
  }

  Status PreloadSRS(ServerContext*, const pb::PreloadSrsRequest* req, pb::PreloadSrsResponse* resp) override {
    return guarded([&] {
      const auto r = _e.srs().preload(req->circuit_id());
      resp->set_already_loaded(r.already_loaded);
      resp->set_load_time_ms(r.load_ms);
      return Status::OK;
    });
  }

  Status EvictSRS(ServerContext*, const pb::EvictSrsRequest* req, pb::EvictSrsResponse* resp) override {
    return guarded([&] {
      const auto r = _e.srs().evict(req->circuit_id());
      resp->set_was_loaded(r.was_loaded);
      resp->set_freed_bytes(r.freed_bytes);
      return Status::OK;
    });
  }

 private:
  engine::engine& _e;
  std::uint64_t _max;
};

}  // namespace

struct grpc_server::impl {
  std::unique_ptr<service> svc;
  std::unique_ptr<grpc::Server> server;
};

grpc_server::grpc_server(engine::engine& e, const std::string& address, std::uint64_t max_message_size)
    : _p(std::make_unique<impl>()) {
  _p->svc = std::make_unique<service>(e, max_message_size);
  grpc::ServerBuilder b;
  if (address.rfind("unix://", 0) == 0) {
    const std::filesystem::path sock = address.substr(7);
    std::error_code ec;
    if (sock.has_parent_path()) std::filesystem::create_directories(sock.parent_path(), ec);
    std::filesystem::remove(sock, ec);  // a stale socket from an earlier run
    b.AddListeningPort(address, grpc::InsecureServerCredentials());
  } else {
    b.AddListeningPort(address, grpc::InsecureServerCredentials(), &_port);
  }
  const std::uint64_t transport_max = std::min<std::uint64_t>(2 * max_message_size + (1 << 20), (1ull << 31) - 1);
  b.SetMaxReceiveMessageSize(int(transport_max));
  b.SetMaxSendMessageSize(int(transport_max));
  b.RegisterService(_p->svc.get());
  _p->server = b.BuildAndStart();
  if (!_p->server) throw std::runtime_error("cannot listen on " + address);
}

grpc_server::~grpc_server() { shutdown(0); }

void grpc_server::shutdown(std::uint64_t deadline_ms) {
  if (!_p->server) return;
  _p->server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms));
  _p->server->Wait();
  _p->server.reset();
}

void grpc_server::wait() {
  if (_p->server) _p->server->Wait();
}

}  // namespace cuzk::service
