// SPDX-License-Identifier: Apache-2.0
// The daemon through gRPC and HTTP, in process: engine + grpc_server on a
// free loopback port (and a unix socket) + the HTTP status listener, with
// WinningPoSt and WindowPoSt at 2 KiB on seeded test parameters and the
// chain test kind standing in for PoRep. Every returned proof is checked
// against the .vk file with public inputs derived from the request alone.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "common/test_seed.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"
#include "proto_request.hpp"
#include "grpc_service.hpp"
#include "http_status.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace pb = cuzk::v1;

using test::to_pb;

std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

struct daemon {
  std::filesystem::path dir = test::make_param_cache(true);
  std::unique_ptr<eng::engine> e;
  std::unique_ptr<service::grpc_server> server;
  std::unique_ptr<service::http_status_server> http;
  std::unique_ptr<pb::ProvingEngine::Stub> stub;

  explicit daemon(const std::string& address = "127.0.0.1:0", std::uint64_t max_msg = 128ull << 20,
                  std::size_t synth = 2) {
    auto cfg = test::small_config(dir);
    cfg.max_parallel_synthesis = synth;
    e = std::make_unique<eng::engine>(cfg, eng::make_cpu_backend(1));
    e->register_kind(eng::make_winning_post_kind());
    e->register_kind(eng::make_window_post_kind());
    e->register_kind(std::make_shared<test::chain_kind>());
    e->start();
    server = std::make_unique<service::grpc_server>(*e, address, max_msg);
    http = std::make_unique<service::http_status_server>(*e, "127.0.0.1:0");
    const std::string target = server->port() ? "127.0.0.1:" + std::to_string(server->port()) : address;
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(512 << 20);
    args.SetMaxReceiveMessageSize(512 << 20);
    stub = pb::ProvingEngine::NewStub(grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args));
  }
  ~daemon() {
    server.reset();
    http.reset();
    e.reset();
    std::filesystem::remove_all(dir);
  }
  grpc::Status prove(const eng::proof_request& r, pb::AwaitProofResponse* out) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 120s);
    pb::ProveRequest req;
    *req.mutable_submit() = to_pb(r);
    pb::ProveResponse resp;
    const grpc::Status s = stub->Prove(&ctx, req, &resp);
    *out = resp.result();
    return s;
  }
  std::string submit(const eng::proof_request& r) {
    grpc::ClientContext ctx;
    pb::SubmitProofResponse resp;
    const grpc::Status s = stub->SubmitProof(&ctx, to_pb(r), &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.job_id();
  }
  pb::AwaitProofResponse await(const std::string& id, std::uint64_t timeout_ms) {
    grpc::ClientContext ctx;
    pb::AwaitProofRequest req;
    req.set_job_id(id);
    req.set_timeout_ms(timeout_ms);
    pb::AwaitProofResponse resp;
    EXPECT_TRUE(stub->AwaitProof(&ctx, req, &resp).ok());
    return resp;
  }
  pb::GetStatusResponse status() {
    grpc::ClientContext ctx;
    pb::GetStatusResponse resp;
    EXPECT_TRUE(stub->GetStatus(&ctx, pb::GetStatusRequest(), &resp).ok());
    return resp;
  }
};

TEST(daemon_grpc, window_post_prove_returns_a_verifying_proof_over_tcp_and_unix_socket) {
  std::mt19937_64 rng(test::test_seed("daemon-window-post"));
  {
    daemon d;
    const auto c = test::window_case(rng, "wpost-1");
    pb::AwaitProofResponse r;
    const auto s = d.prove(c.req, &r);
    ASSERT_TRUE(s.ok()) << s.error_message();
    ASSERT_EQ(r.status(), pb::AwaitProofResponse::COMPLETED) << r.error_message();
    ASSERT_EQ(r.proof().size(), 192u);
    EXPECT_TRUE(test::verify_with_vk(d.dir, c.vk_stem, bytes(r.proof()), c.public_inputs));
    EXPECT_GT(r.total_ms(), 0u);
    EXPECT_GT(r.gpu_compute_ms(), 0u);
    // a tampered input does not verify: the check above can fail
    auto bad = c.public_inputs;
    bad[1] += ff::fr::one();
    EXPECT_FALSE(test::verify_with_vk(d.dir, c.vk_stem, bytes(r.proof()), bad));
  }
  {
    const auto sock =
        std::filesystem::temp_directory_path() / ("cuzk-test-" + std::to_string(rng() % 1000000)) / "cuzk.sock";
    daemon d("unix://" + sock.string());
    const auto c = test::window_case(rng, "wpost-unix", 1);  // one sector, padded to the partition
    pb::AwaitProofResponse r;
    ASSERT_TRUE(d.prove(c.req, &r).ok());
    ASSERT_EQ(r.status(), pb::AwaitProofResponse::COMPLETED) << r.error_message();
    EXPECT_TRUE(test::verify_with_vk(d.dir, c.vk_stem, bytes(r.proof()), c.public_inputs));
    std::filesystem::remove_all(sock.parent_path());
  }
}

TEST(daemon_grpc, winning_post_behind_five_porep_jobs_finishes_first) {
  std::mt19937_64 rng(test::test_seed("daemon-winning-post"));
  daemon d("127.0.0.1:0", 128ull << 20, 1);
  const auto c = test::winning_case(rng, "winpost-1");  // built before the clock starts
  std::vector<std::string> porep;
  for (int i = 0; i < 5; ++i) porep.push_back(d.submit(test::chain_request("porep-" + std::to_string(i), 8, 3000)));
  std::this_thread::sleep_for(100ms);
  const auto st = d.status();  // truthful counts while jobs run
  std::uint32_t pending = 0, running = 0;
  for (const auto& q : st.queues())
    if (q.proof_kind() == "porep_c2") {
      pending = q.pending();
      running = q.in_progress();
    }
  EXPECT_EQ(pending + running, 5u);
  EXPECT_GE(running, 1u);
  ASSERT_EQ(st.gpus_size(), 1);
  const std::string win = d.submit(c.req);
  EXPECT_EQ(win, "winpost-1");
  const auto r = d.await(win, 0);
  ASSERT_EQ(r.status(), pb::AwaitProofResponse::COMPLETED) << r.error_message();
  ASSERT_EQ(r.proof().size(), 192u);
  for (const auto& id : porep) {  // none of them finished before the WinningPoSt
    const auto p = d.await(id, 1);
    EXPECT_EQ(p.status(), pb::AwaitProofResponse::TIMEOUT) << id;
  }
  EXPECT_TRUE(test::verify_with_vk(d.dir, c.vk_stem, bytes(r.proof()), c.public_inputs));
  for (const auto& id : porep) {
    grpc::ClientContext ctx;
    pb::CancelProofRequest req;
    req.set_job_id(id);
    pb::CancelProofResponse resp;
    EXPECT_TRUE(d.stub->CancelProof(&ctx, req, &resp).ok());
  }
}

TEST(daemon_grpc, await_timeout_cancel_status_metrics_and_srs_rpcs) {
  daemon d("127.0.0.1:0", 128ull << 20, 1);
  // AwaitProof honours timeout_ms
  const std::string id = d.submit(test::chain_request("slow", 1, 30000));
  const auto t0 = std::chrono::steady_clock::now();
  auto r = d.await(id, 150);
  EXPECT_EQ(r.status(), pb::AwaitProofResponse::TIMEOUT);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 150ms);
  // duplicate request_id -> same job
  EXPECT_EQ(d.submit(test::chain_request("slow", 1, 30000)), id);
  const std::string queued = d.submit(test::chain_request("queued", 2, 0));
  // status while running: kinds, GPUs, SRS with tier and size. On a loaded
  // machine the slow job may still be loading its SRS: wait (bounded) until
  // it is in progress before checking the counts.
  auto st = d.status();
  for (const auto give_up = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < give_up;
       st = d.status()) {
    bool running = false;
    for (const auto& q : st.queues()) running |= q.proof_kind() == "porep_c2" && q.in_progress() == 1;
    if (running) break;
    std::this_thread::sleep_for(10ms);
  }
  bool seen_porep = false;
  for (const auto& q : st.queues())
    if (q.proof_kind() == "porep_c2") {
      seen_porep = true;
      EXPECT_EQ(q.in_progress(), 1u);
      EXPECT_EQ(q.pending(), 1u);
    }
  EXPECT_TRUE(seen_porep);
  bool chain_hot = false;
  for (const auto& s : st.loaded_srs())
    if (s.circuit_id() == "test-chain") {
      chain_hot = s.tier() == pb::SRSStatus::HOT && s.size_bytes() > 0 && s.ref_count() == 1;
    }
  EXPECT_TRUE(chain_hot);
  EXPECT_GT(st.pinned_memory_bytes(), 0u);
  EXPECT_GT(st.pinned_memory_limit_bytes(), 0u);
  // HTTP /status and /metrics
  httplib::Client http("127.0.0.1", d.http->port());
  auto hs = http.Get("/status");
  ASSERT_TRUE(hs);
  EXPECT_EQ(hs->status, 200);
  const auto js = nlohmann::json::parse(hs->body);
  EXPECT_EQ(js["pipelines"].size(), 2u);
  EXPECT_GT(js["memory"]["used_bytes"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(js["allocations"]["srs"].size(), 3u);  // chain + the two 2 KiB PoSt files present
  auto hm = http.Get("/metrics");
  ASSERT_TRUE(hm);
  EXPECT_NE(hm->body.find("cuzk_proofs_completed_total 0"), std::string::npos);
  EXPECT_NE(hm->body.find("cuzk_running_jobs 1"), std::string::npos);
  EXPECT_EQ(http.Get("/nope")->status, 404);
  {
    grpc::ClientContext ctx;
    pb::GetMetricsResponse m;
    ASSERT_TRUE(d.stub->GetMetrics(&ctx, pb::GetMetricsRequest(), &m).ok());
    EXPECT_NE(m.prometheus_text().find("# TYPE cuzk_proofs_completed_total counter"), std::string::npos);
    EXPECT_NE(m.prometheus_text().find("cuzk_queue_depth 1"), std::string::npos);
  }
  // CancelProof: running and queued, memory back to the hot SRS alone
  const auto srs_only = [&] {
    std::uint64_t n = 0;
    for (const auto& s : d.e->srs().status()) n += s.tier == eng::srs_tier::hot ? s.size_bytes + s.shape_bytes : 0;
    return n;
  };
  // The queued job first: once the running one is cancelled, the worker it
  // frees may pick the queued one up.
  for (const auto& [job, running] : {std::pair{queued, false}, std::pair{id, true}}) {
    grpc::ClientContext ctx;
    pb::CancelProofRequest req;
    req.set_job_id(job);
    pb::CancelProofResponse resp;
    ASSERT_TRUE(d.stub->CancelProof(&ctx, req, &resp).ok());
    EXPECT_EQ(resp.was_running(), running) << job;
    // A running job stops at its next cancel check: allow a loaded machine time.
    EXPECT_EQ(d.await(job, 20000).status(), pb::AwaitProofResponse::CANCELLED);
  }
  const auto end = std::chrono::steady_clock::now() + 5s;
  while (d.e->budget().used() != srs_only() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(d.e->budget().used(), srs_only());
  {
    grpc::ClientContext ctx;
    pb::CancelProofRequest req;
    req.set_job_id("nope");
    pb::CancelProofResponse resp;
    EXPECT_EQ(d.stub->CancelProof(&ctx, req, &resp).error_code(), grpc::StatusCode::NOT_FOUND);
  }
  // PreloadSRS / EvictSRS
  {
    grpc::ClientContext c1, c2, c3, c4;
    pb::PreloadSrsRequest pre;
    pre.set_circuit_id("wpost-2k");
    pb::PreloadSrsResponse pr;
    ASSERT_TRUE(d.stub->PreloadSRS(&c1, pre, &pr).ok());
    EXPECT_FALSE(pr.already_loaded());
    ASSERT_TRUE(d.stub->PreloadSRS(&c2, pre, &pr).ok());
    EXPECT_TRUE(pr.already_loaded());
    pb::EvictSrsRequest ev;
    ev.set_circuit_id("wpost-2k");
    pb::EvictSrsResponse er;
    ASSERT_TRUE(d.stub->EvictSRS(&c3, ev, &er).ok());
    EXPECT_TRUE(er.was_loaded());
    EXPECT_GT(er.freed_bytes(), 0u);
    ev.set_circuit_id("porep-999g");
    EXPECT_EQ(d.stub->EvictSRS(&c4, ev, &er).error_code(), grpc::StatusCode::NOT_FOUND);
  }
}

TEST(daemon_grpc, bad_requests_get_invalid_argument_and_the_daemon_keeps_serving) {
  std::mt19937_64 rng(test::test_seed("daemon-bad-requests"));
  daemon d("127.0.0.1:0", 256 << 10);
  const auto good = test::window_case(rng, "good");
  const auto expect = [&](pb::SubmitProofRequest q, grpc::StatusCode code, const std::string& needle) {
    grpc::ClientContext ctx;
    pb::SubmitProofResponse resp;
    const auto s = d.stub->SubmitProof(&ctx, q, &resp);
    EXPECT_EQ(s.error_code(), code) << needle << ": " << s.error_message();
    EXPECT_NE(s.error_message().find(needle), std::string::npos) << s.error_message();
  };
  auto q = to_pb(good.req);
  q.set_proof_kind(pb::ProofKind(9));
  expect(q, grpc::StatusCode::INVALID_ARGUMENT, "unknown proof_kind 9");
  q.set_proof_kind(pb::PROOF_KIND_UNSPECIFIED);
  expect(q, grpc::StatusCode::INVALID_ARGUMENT, "unknown proof_kind 0");
  q = to_pb(good.req);
  q.clear_vanilla_proofs();
  expect(q, grpc::StatusCode::INVALID_ARGUMENT, "vanilla_proofs is empty");
  q = to_pb(good.req);
  q.set_vanilla_proofs(0, "garbage bytes, not bincode");
  expect(q, grpc::StatusCode::INVALID_ARGUMENT, "bad vanilla proof");
  q = to_pb(good.req);
  q.set_sector_size(12345);
  expect(q, grpc::StatusCode::INVALID_ARGUMENT, "sector_size 12345");
  q = to_pb(good.req);
  q.set_registered_proof(13);  // 32 GiB window: the 2 KiB vanilla proofs do not fit
  expect(q, grpc::StatusCode::INVALID_ARGUMENT, "vanilla");
  q = to_pb(good.req);
  q.set_randomness("short");
  expect(q, grpc::StatusCode::INVALID_ARGUMENT, "randomness must be 32 bytes");
  q = to_pb(good.req);
  std::string other(32, '\x01');
  q.set_randomness(other);  // challenges no longer match the vanilla proofs
  expect(q, grpc::StatusCode::INVALID_ARGUMENT, "opens leaf");
  q = to_pb(good.req);
  q.add_vanilla_proofs(std::string(300 << 10, 'x'));
  expect(q, grpc::StatusCode::INVALID_ARGUMENT, "max_message_size");
  q = to_pb(good.req);
  q.set_proof_kind(pb::SNAP_DEALS_UPDATE);
  expect(q, grpc::StatusCode::UNIMPLEMENTED, "snap_update");
  {
    grpc::ClientContext ctx;
    pb::ProveResponse resp;
    EXPECT_EQ(d.stub->Prove(&ctx, pb::ProveRequest(), &resp).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  // still serving: the good request proves
  pb::AwaitProofResponse r;
  ASSERT_TRUE(d.prove(good.req, &r).ok());
  ASSERT_EQ(r.status(), pb::AwaitProofResponse::COMPLETED) << r.error_message();
  EXPECT_TRUE(test::verify_with_vk(d.dir, good.vk_stem, bytes(r.proof()), good.public_inputs));
}

}  // namespace
