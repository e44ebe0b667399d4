// SPDX-License-Identifier: Apache-2.0
// cuzk.v1.ProvingEngine over the engine (see grpc_service.hpp).
#include "grpc_service.hpp"

#include <chrono>
#include <filesystem>
#include <stdexcept>

#include <grpcpp/grpcpp.h>
#include <grpcpp/server_posix.h>

#include <cuzk/engine/client_text.hpp>

#include "cuzk/v1/proving.grpc.pb.h"
#include "grpc_process.hpp"
#include "listen_address.hpp"
#include "listen_socket.hpp"
#include "listener_args.hpp"
#include "request_check.hpp"
#include "request_limits.hpp"
#include "secret_compare.hpp"
#include "tls_relay.hpp"
#include "tls_terminator.hpp"
#include "waiter_pool.hpp"

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
  } catch (const engine::shutting_down_error& e) {
    return st(StatusCode::UNAVAILABLE, e.what());
  } catch (const engine::unsupported_request& e) {
    return st(StatusCode::UNIMPLEMENTED, e.what());
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

// A waiting AwaitProof or Prove call (callback API: no thread while it
// waits). Answered once: by the waiter pool (the job finished, or the
// deadline passed) or by OnCancel (the client went away, or the server shuts
// down past its deadline); waiter_pool::cancel decides which one wins.
class waiting_call final : public grpc::ServerUnaryReactor {
 public:
  waiting_call(waiter_pool& pool, pb::AwaitProofResponse* out, std::uint64_t timeout_ms)
      : _pool(pool), _out(out), _timeout_ms(timeout_ms) {}
  // nothing touches |this| after add() returns: the answer (and OnDone's
  // delete) may already have happened on the pool thread
  void start(const std::string& job_id) {
    // saturates: a timeout the clock cannot represent waits like 0
    const std::optional<waiter_pool::clock::time_point> deadline =
        await_deadline(waiter_pool::clock::now(), _timeout_ms);
    try {
      _pool.add(
          job_id, deadline, [this](waiter_pool::outcome o) { answer(std::move(o)); }, &_ticket);
    } catch (const waiters_exhausted& e) {
      Finish({StatusCode::RESOURCE_EXHAUSTED, e.what()});
    }
  }
  void OnCancel() override {
    if (_pool.cancel(_ticket)) Finish({StatusCode::CANCELLED, "client went away"});
  }
  void OnDone() override { delete this; }

 private:
  void answer(waiter_pool::outcome o) {
    if (o.not_found) {
      Finish({StatusCode::NOT_FOUND, o.error});
      return;
    }
    if (o.result.status == engine::await_status::timeout)
      o.result.error_message = "job " + engine::quoted_id(o.result.job_id) +
                               " not finished after timeout_ms = " + std::to_string(_timeout_ms);
    fill(o.result, _out);
    Finish(Status::OK);
  }
  waiter_pool& _pool;
  pb::AwaitProofResponse* _out;
  std::uint64_t _timeout_ms;
  std::uint64_t _ticket = 0;
};

using service_base = pb::ProvingEngine::WithCallbackMethod_AwaitProof<
    pb::ProvingEngine::WithCallbackMethod_Prove<pb::ProvingEngine::Service>>;

class service final : public service_base {
 public:
  service(engine::engine& e, waiter_pool& waiters, std::uint64_t max_msg, std::string token)
      : _e(e), _waiters(waiters), _max(max_msg), _token(std::move(token)) {}

  // Every RPC's exceptions -> status codes, file paths cut to their names.
  template <class F>
  Status guarded(F&& f) {
    return guarded_in(_e.config().param_cache, std::forward<F>(f));
  }

  Status check_auth(const grpc::ServerContextBase* ctx) const {
    if (_token.empty()) return Status::OK;
    const auto& md = ctx->client_metadata();
    const auto it = md.find("authorization");
    const std::string_view got =
        it == md.end() ? std::string_view() : std::string_view(it->second.data(), it->second.size());
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

  // AwaitProof and Prove wait in the waiter pool (waiter_pool.hpp), not on
  // a server thread.
  grpc::ServerUnaryReactor* AwaitProof(grpc::CallbackServerContext* ctx, const pb::AwaitProofRequest* req,
                                       pb::AwaitProofResponse* resp) override {
    if (Status a = check_auth(ctx); !a.ok()) return finished(ctx, a);
    if (Status v = guarded([&] {
          check_request_id(req->job_id(), "job_id");
          return Status::OK;
        });
        !v.ok())
      return finished(ctx, v);
    auto* call = new waiting_call(_waiters, resp, req->timeout_ms());
    call->start(req->job_id());
    return call;
  }

  grpc::ServerUnaryReactor* Prove(grpc::CallbackServerContext* ctx, const pb::ProveRequest* req,
                                  pb::ProveResponse* resp) override {
    if (Status a = check_auth(ctx); !a.ok()) return finished(ctx, a);
    if (!req->has_submit()) return finished(ctx, {StatusCode::INVALID_ARGUMENT, "ProveRequest.submit is missing"});
    if (Status s = check_size(*req); !s.ok()) return finished(ctx, s);
    std::string job_id;
    const Status submitted = guarded([&] {
      job_id = _e.submit(to_engine_request(req->submit())).job_id;
      return Status::OK;
    });
    if (!submitted.ok()) return finished(ctx, submitted);
    auto* call = new waiting_call(_waiters, resp->mutable_result(), 0);
    call->start(job_id);
    return call;
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
  static grpc::ServerUnaryReactor* finished(grpc::CallbackServerContext* ctx, const Status& st) {
    grpc::ServerUnaryReactor* r = ctx->DefaultReactor();
    r->Finish(st);
    return r;
  }
  engine::engine& _e;
  waiter_pool& _waiters;
  std::uint64_t _max;
  std::string _token;
};

}  // namespace

struct grpc_server::impl {
  std::unique_ptr<unix_socket_claim> claim;  // outlives the socket: released last
  std::unique_ptr<listen_sockets> sockets;   // our listening sockets
  std::unique_ptr<waiter_pool> waiters;      // outlives the server's calls
  std::unique_ptr<service> svc;
  std::unique_ptr<tls_server_context> tls;  // TLS: outlives the acceptor and relay
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<tls_relay> relay;               // TLS: stopped after the server's calls are done
  std::unique_ptr<connection_acceptor> acceptor;  // stopped before the server shuts down
};

grpc_server::grpc_server(engine::engine& e, const std::string& address, const grpc_server_options& opt)
    : _p(std::make_unique<impl>()) {
  // before any connection (in-process clients included): see grpc_process.hpp
  prepare_grpc_process();
  _p->waiters = std::make_unique<waiter_pool>(e, opt.max_waiting_calls);
  _p->svc = std::make_unique<service>(e, *_p->waiters, opt.max_message_size, opt.auth_token);
  if (opt.tls_cert_pem.empty() != opt.tls_key_pem.empty())
    throw std::runtime_error("TLS needs both a certificate and a key");
  if (opt.listener.max_connections == 0) throw std::invalid_argument("max_connections must be at least 1");
  // TLS is ours (tls_terminator.hpp): gRPC gets every connection in
  // plaintext by descriptor, from the acceptor started below
  if (!opt.tls_cert_pem.empty())
    _p->tls = std::make_unique<tls_server_context>(opt.tls_cert_pem, opt.tls_key_pem, opt.tls_client_ca_pem);
  const listen_address addr = parse_listen_address(address);
  if (addr.k == listen_address::kind::unix_abstract && !opt.allow_abstract_socket)
    throw std::runtime_error("listen address " + address +
                             " is an abstract unix socket: it has no file permissions, so every process on this "
                             "machine (in this network namespace) can connect; set daemon.allow_abstract_socket = "
                             "true to use it anyway (with daemon.auth_token_file), or listen on unix:///path");
  if (addr.k == listen_address::kind::unix_path) _p->claim = std::make_unique<unix_socket_claim>(addr.path);
  const auto refuse_taken = [&](const std::string& detail) {
    if (addr.k == listen_address::kind::tcp && tcp_address_answers(address))
      throw std::runtime_error("cannot listen on " + address +
                               ": another process is listening on that port; refusing to share it (one daemon per "
                               "address)");
    throw std::runtime_error("cannot listen on " + address + " (" + detail + ")");
  };
  try {
    _p->sockets = std::make_unique<listen_sockets>(addr, opt.unix_socket_mode);
  } catch (const listen_error& x) {
    refuse_taken(x.what());
  }
  _port = addr.k == listen_address::kind::tcp ? _p->sockets->port() : 0;
  grpc::ServerBuilder b;
  apply_listener_args(b, opt.listener);
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
  _p->server = b.BuildAndStart();
  if (!_p->server) throw std::runtime_error("cannot start the gRPC server for " + address);
  acceptor_limits al;
  al.max_connections = opt.listener.max_connections;
  al.handshake_timeout = std::chrono::milliseconds(opt.listener.handshake_timeout_ms);
  acceptor_tls at;
  if (_p->tls) {
    _p->relay = std::make_unique<tls_relay>(opt.log);
    at = {_p->tls.get(), _p->relay.get()};
  }
  grpc::Server* srv = _p->server.get();
  _p->acceptor = std::make_unique<connection_acceptor>(
      _p->sockets->fds(), _p->sockets->is_tcp(), al, [srv](int fd) { grpc::AddInsecureChannelFromFd(srv, fd); },
      opt.log, at);
}

grpc_server::~grpc_server() { shutdown(0); }

std::size_t grpc_server::waiting_calls() const { return _p->waiters->size(); }

acceptor_counters grpc_server::connections() const {
  return _p->acceptor ? _p->acceptor->counters() : acceptor_counters{};
}

void grpc_server::shutdown(std::uint64_t deadline_ms) {
  // no connection is handed to a server that is shutting down
  if (_p->acceptor) _p->acceptor->stop();
  if (_p->server) {
    _p->server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms));
    _p->server->Wait();
    _p->server.reset();
  }
  // TLS: the calls in flight above answered through the relay (and gRPC's
  // GOAWAY went out through it); now its connections close
  if (_p->relay) _p->relay->stop();
}

void grpc_server::wait() {
  if (_p->server) _p->server->Wait();
}

}  // namespace cuzk::service
