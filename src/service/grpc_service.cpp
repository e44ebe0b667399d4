// SPDX-License-Identifier: Apache-2.0
// cuzk.v1.ProvingEngine over the engine (see grpc_service.hpp).
#include "grpc_service.hpp"

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include <grpcpp/grpcpp.h>

#include <cuzk/engine/client_text.hpp>

#include "cuzk/v1/proving.grpc.pb.h"
#include "request_check.hpp"
#include "request_limits.hpp"

namespace cuzk::service {
namespace {

namespace pb = cuzk::v1;
using grpc::ServerContext;
using grpc::Status;
using grpc::StatusCode;

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

// Messages name files by their published name: |param_cache| is cut out.
template <class F>
Status guarded_in(const std::filesystem::path& param_cache, F&& f) {
  const auto st = [&](StatusCode c, const char* what) {
    return Status(c, engine::without_host_paths(what, param_cache));
  };
  try {
    return f();
  } catch (const engine::invalid_request& e) {
    return st(StatusCode::INVALID_ARGUMENT, e.what());
  } catch (const engine::unsupported_request& e) {
    return st(std::string(e.what()).find("shutting down") != std::string::npos ? StatusCode::UNAVAILABLE
                                                                                 : StatusCode::UNIMPLEMENTED,
              e.what());
  } catch (const engine::not_found_error& e) {
    return st(StatusCode::NOT_FOUND, e.what());
  } catch (const engine::already_exists_error& e) {
    return st(StatusCode::ALREADY_EXISTS, e.what());
  } catch (const engine::missing_parameters_error& e) {
    return st(StatusCode::FAILED_PRECONDITION, e.what());
  } catch (const std::invalid_argument& e) {
    return st(StatusCode::INVALID_ARGUMENT, e.what());
  } catch (const std::logic_error& e) {
    return st(StatusCode::FAILED_PRECONDITION, e.what());
  } catch (const std::exception& e) {
    return st(StatusCode::INTERNAL, e.what());
  }
}

// Constant-time comparison of the presented and the configured token.
bool same_secret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    diff |= static_cast<unsigned char>((i < a.size() ? a[i] : 0) ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

class service final : public pb::ProvingEngine::Service {
 public:
  service(engine::engine& e, std::uint64_t max_msg, std::string token) : _e(e), _max(max_msg), _token(std::move(token)) {}

  // Every RPC's exceptions -> status codes, file paths cut to their names.
  template <class F>
  Status guarded(F&& f) {
    return guarded_in(_e.config().param_cache, std::forward<F>(f));
  }

  Status check_auth(const ServerContext* ctx) const {
    if (_token.empty()) return Status::OK;
    const auto& md = ctx->client_metadata();
    const auto it = md.find("authorization");
    const std::string_view got = it == md.end() ? std::string_view() : std::string_view(it->second.data(), it->second.size());
    if (!same_secret(got, "Bearer " + _token))
      return {StatusCode::UNAUTHENTICATED, "missing or wrong authorization token (daemon.auth_token_file)"};
    return Status::OK;
  }

  Status check_size(const google::protobuf::Message& m) const {
    const std::size_t n = m.ByteSizeLong();
    if (n > _max)
      return {StatusCode::INVALID_ARGUMENT, "request is " + std::to_string(n) +
                                                " bytes, over the daemon.max_message_size limit of " +
                                                std::to_string(_max) + " bytes"};
    return Status::OK;
  }

  Status SubmitProof(ServerContext* ctx, const pb::SubmitProofRequest* req, pb::SubmitProofResponse* resp) override {
    if (Status a = check_auth(ctx); !a.ok()) return a;
    if (Status s = check_size(*req); !s.ok()) return s;
    return guarded([&] {
      const auto r = _e.submit(to_engine_request(*req));
      resp->set_job_id(r.job_id);
      resp->set_queue_position(r.queue_position);
      return Status::OK;
    });
  }

  // Waits in slices so a client that goes away frees its server thread.
  // A timeout too large for the clock waits like 0 (await_deadline).
  Status wait(ServerContext* ctx, const std::string& id, std::uint64_t timeout_ms, pb::AwaitProofResponse* out) {
    const auto deadline = await_deadline(std::chrono::steady_clock::now(), timeout_ms);
    for (;;) {
      auto slice = std::chrono::milliseconds(200);
      if (deadline) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) slice = std::chrono::milliseconds(0);
        else if (left < slice) slice = left;
      }
      engine::job_result r = _e.await(id, slice);
      if (r.status != engine::await_status::timeout) {
        fill(r, out);
        return Status::OK;
      }
      if (deadline && std::chrono::steady_clock::now() >= *deadline) {
        r.error_message = "job " + engine::quoted_id(id) + " not finished after timeout_ms = " + std::to_string(timeout_ms);
        fill(r, out);
        return Status::OK;
      }
      if (ctx->IsCancelled()) return {StatusCode::CANCELLED, "client went away"};
    }
  }

  Status AwaitProof(ServerContext* ctx, const pb::AwaitProofRequest* req, pb::AwaitProofResponse* resp) override {
    if (Status a = check_auth(ctx); !a.ok()) return a;
    return guarded([&] {
      check_request_id(req->job_id(), "job_id");
      return wait(ctx, req->job_id(), req->timeout_ms(), resp);
    });
  }

  Status Prove(ServerContext* ctx, const pb::ProveRequest* req, pb::ProveResponse* resp) override {
    if (Status a = check_auth(ctx); !a.ok()) return a;
    if (!req->has_submit()) return {StatusCode::INVALID_ARGUMENT, "ProveRequest.submit is missing"};
    if (Status s = check_size(*req); !s.ok()) return s;
    return guarded([&] {
      const auto r = _e.submit(to_engine_request(req->submit()));
      return wait(ctx, r.job_id, 0, resp->mutable_result());
    });
  }

  Status CancelProof(ServerContext* ctx, const pb::CancelProofRequest* req, pb::CancelProofResponse* resp) override {
    if (Status a = check_auth(ctx); !a.ok()) return a;
    return guarded([&] {
      check_request_id(req->job_id(), "job_id");
      resp->set_was_running(_e.cancel(req->job_id()));
      return Status::OK;
    });
  }

  Status GetStatus(ServerContext* ctx, const pb::GetStatusRequest*, pb::GetStatusResponse* resp) override {
    if (Status a = check_auth(ctx); !a.ok()) return a;
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

  Status GetMetrics(ServerContext* ctx, const pb::GetMetricsRequest*, pb::GetMetricsResponse* resp) override {
    if (Status a = check_auth(ctx); !a.ok()) return a;
    return guarded([&] {
      resp->set_prometheus_text(_e.metrics_text());
      return Status::OK;
    });
  }

  Status PreloadSRS(ServerContext* ctx, const pb::PreloadSrsRequest* req, pb::PreloadSrsResponse* resp) override {
    if (Status a = check_auth(ctx); !a.ok()) return a;
    return guarded([&] {
      const auto r = _e.srs().preload(req->circuit_id());
      resp->set_already_loaded(r.already_loaded);
      resp->set_load_time_ms(r.load_ms);
      return Status::OK;
    });
  }

  Status EvictSRS(ServerContext* ctx, const pb::EvictSrsRequest* req, pb::EvictSrsResponse* resp) override {
    if (Status a = check_auth(ctx); !a.ok()) return a;
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
  std::string _token;
};

}  // namespace

struct grpc_server::impl {
  std::unique_ptr<service> svc;
  std::unique_ptr<grpc::Server> server;
};

namespace {

std::mutex umask_mu;  // umask is per process: one socket bind at a time

}  // namespace

grpc_server::grpc_server(engine::engine& e, const std::string& address, const grpc_server_options& opt)
    : _p(std::make_unique<impl>()) {
  _p->svc = std::make_unique<service>(e, opt.max_message_size, opt.auth_token);
  if (opt.tls_cert_pem.empty() != opt.tls_key_pem.empty())
    throw std::runtime_error("TLS needs both a certificate and a key");
  std::shared_ptr<grpc::ServerCredentials> creds = grpc::InsecureServerCredentials();
  if (!opt.tls_cert_pem.empty()) {
    grpc::SslServerCredentialsOptions so(opt.tls_client_ca_pem.empty()
                                             ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                             : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    so.pem_root_certs = opt.tls_client_ca_pem;
    so.pem_key_cert_pairs.push_back({opt.tls_key_pem, opt.tls_cert_pem});
    creds = grpc::SslServerCredentials(so);
  }
  grpc::ServerBuilder b;
  const bool unix_socket = address.rfind("unix://", 0) == 0;
  std::filesystem::path sock;
  if (unix_socket) {
    sock = address.substr(7);
    std::error_code ec;
    if (sock.has_parent_path()) std::filesystem::create_directories(sock.parent_path(), ec);
    std::filesystem::remove(sock, ec);  // a stale socket from an earlier run
    b.AddListeningPort(address, creds);
  } else {
    b.AddListeningPort(address, creds, &_port);
  }
  const std::uint64_t transport_max = std::min<std::uint64_t>(2 * opt.max_message_size + (1 << 20), (1ull << 31) - 1);
  b.SetMaxReceiveMessageSize(int(transport_max));
  // gRPC 1.51 inflates a compressed message in full before any size check
  // (a 261 KB gzip request grew to 256 MiB): compressed requests are
  // refused when their headers arrive, before a byte is inflated (the
  // client gets UNIMPLEMENTED naming the algorithm). Curio does not
  // compress; an uncompressed request is bounded by transport_max.
  b.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_DEFLATE, false);
  b.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, false);
  b.SetMaxSendMessageSize(int(transport_max));
  b.RegisterService(_p->svc.get());
  if (unix_socket) {
    // the socket is born with 0777 & ~umask: narrow the umask around the
    // bind so it never exists wider than |unix_socket_mode|, then chmod to it
    std::lock_guard lk(umask_mu);
    const mode_t old = ::umask(0777 & ~mode_t(opt.unix_socket_mode));
    _p->server = b.BuildAndStart();
    ::umask(old);
    if (_p->server && ::chmod(sock.c_str(), mode_t(opt.unix_socket_mode)) != 0) {
      _p->server->Shutdown();
      _p->server.reset();
      throw std::runtime_error("cannot set the permissions of unix socket " + sock.string());
    }
  } else {
    _p->server = b.BuildAndStart();
  }
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
