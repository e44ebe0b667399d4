// SPDX-License-Identifier: Apache-2.0
// Load on loopback (docs/RELIABILITY.md): 200 proofs in flight at once
// from 20 clients, each with its own gRPC connection (local subchannel
// pool) and 10 concurrent Prove calls, against the daemon in process on
// 127.0.0.1 (engine + grpc_server, CPU backend, the tiny chain circuit as
// the proof kind so that 200 proofs take seconds on 2 cores). Every call
// must return COMPLETED with a proof that verifies against the .vk; the
// engine must count exactly 200 completed jobs and none failed, hold no job
// afterwards, and give its memory budget back to the hot-SRS baseline.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"
#include "grpc_service.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace pb = cuzk::v1;

std::unique_ptr<pb::ProvingEngine::Stub> own_connection(int port) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // one TCP connection per client
  return pb::ProvingEngine::NewStub(
      grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(), args));
}

TEST(daemon_load, two_hundred_concurrent_proofs_from_twenty_clients) {
  constexpr int clients = 20, per_client = 10;
  const auto dir = test::make_param_cache(false);
  auto cfg = test::small_config(dir);
  cfg.max_parallel_synthesis = 2;
  cfg.gpu_workers_per_device = 2;
  cfg.finalizer_threads = 2;
  eng::engine e(cfg, eng::make_cpu_backend(1));
  e.register_kind(std::make_shared<test::chain_kind>());
  e.start();
  e.srs().preload("test-chain");
  const std::uint64_t base = e.budget().used();
  service::grpc_server server(e, "127.0.0.1:0", 1ull << 20);

  struct outcome {
    std::string id;
    grpc::Status st;
    pb::AwaitProofResponse r;
  };
  std::vector<outcome> out(clients * per_client);
  std::atomic<int> in_flight{0}, max_in_flight{0};
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  std::vector<std::unique_ptr<pb::ProvingEngine::Stub>> stubs;
  for (int c = 0; c < clients; ++c) stubs.push_back(own_connection(server.port()));
  for (int c = 0; c < clients; ++c)
    for (int k = 0; k < per_client; ++k)
      threads.emplace_back([&, c, k] {
        outcome& o = out[std::size_t(c * per_client + k)];
        o.id = "load-" + std::to_string(c) + "-" + std::to_string(k);
        pb::ProveRequest req;
        req.mutable_submit()->set_request_id(o.id);
        req.mutable_submit()->set_proof_kind(pb::POREP_SEAL_COMMIT);
        req.mutable_submit()->set_vanilla_proof("chain:1:0");
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + 300s);
        pb::ProveResponse resp;
        const int now = ++in_flight;
        for (int m = max_in_flight.load(); now > m && !max_in_flight.compare_exchange_weak(m, now);) {
        }
        o.st = stubs[std::size_t(c)]->Prove(&ctx, req, &resp);
        --in_flight;
        o.r = resp.result();
      });
  for (auto& t : threads) t.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::set<std::string> ids;
  int completed = 0;
  for (const auto& o : out) {
    ASSERT_TRUE(o.st.ok()) << o.id << ": " << o.st.error_message();
    ASSERT_EQ(o.r.status(), pb::AwaitProofResponse::COMPLETED) << o.id << ": " << o.r.error_message();
    EXPECT_EQ(o.r.job_id(), o.id);
    ids.insert(o.r.job_id());
    const std::vector<std::uint8_t> proof(o.r.proof().begin(), o.r.proof().end());
    EXPECT_TRUE(
        test::verify_with_vk(dir, "test-chain-64", proof, {test::chain_x0(0), test::chain_out(test::chain_x0(0))}))
        << o.id;
    ++completed;
  }
  EXPECT_EQ(ids.size(), std::size_t(clients * per_client));  // none lost, none merged
  const auto st = e.status();
  EXPECT_EQ(st.completed, std::uint64_t(clients * per_client));
  EXPECT_EQ(st.failed, 0u);
  EXPECT_EQ(st.cancelled, 0u);
  EXPECT_TRUE(st.jobs.empty());
  EXPECT_LE(st.budget_peak, st.budget_total);
  // all returned once idle (pooled witness buffers stay charged until then)
  const auto idle_by = std::chrono::steady_clock::now() + 5s;
  while (e.budget().used() != base && std::chrono::steady_clock::now() < idle_by) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(e.budget().used(), base);
  EXPECT_GE(max_in_flight.load(), clients * per_client / 2);  // they really were concurrent
  std::printf(
      "load: %d proofs from %d clients (%d in flight at most) in %.2f s, %.1f proofs/s, budget peak %llu of %llu\n",
      completed, clients, max_in_flight.load(), secs, completed / secs, (unsigned long long)st.budget_peak,
      (unsigned long long)st.budget_total);
  server.shutdown(0);
  e.shutdown(0ms);
  std::filesystem::remove_all(dir);
}

}  // namespace
