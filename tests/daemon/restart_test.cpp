// SPDX-License-Identifier: Apache-2.0
// The real `cuzk` binary under SIGKILL and restart (docs/RELIABILITY.md):
// job state lives in memory only, so what a crash does is fixed and
// checked here. With WindowPoSt jobs queued and running, `kill -9`:
//  * the client blocked in AwaitProof gets UNAVAILABLE (not a hang, not a
//    result);
//  * the daemon restarts on the same unix socket (the stale socket file is
//    replaced, permissions 0600 again) and comes up clean: no jobs, zero
//    counters, AwaitProof of an old id -> NOT_FOUND;
//  * resubmitting the same request_id proves it from scratch and the proof
//    verifies; nothing of the old jobs is returned or duplicated.
// The same run checks that the daemon's own log (spdlog at debug level,
// TIMELINE lines) holds no request payload bytes.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <random>

#include <cuzk/io/hex.hpp>

#include "common/test_seed.hpp"
#include "daemon_test_support.hpp"
#include "process_support.hpp"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace pb = cuzk::v1;

pb::SubmitProofRequest to_pb(const cuzk::test::post_case& c) {
  pb::SubmitProofRequest q;
  q.set_request_id(c.req.request_id);
  q.set_proof_kind(pb::ProofKind(int(c.req.kind)));
  q.set_registered_proof(c.req.registered_proof);
  q.set_randomness(std::string(c.req.randomness.begin(), c.req.randomness.end()));
  for (const auto& v : c.req.vanilla_proofs) q.add_vanilla_proofs(std::string(v.begin(), v.end()));
  return q;
}

TEST(daemon_restart, sigkill_with_jobs_in_flight_then_restart_is_clean_and_resubmission_proves) {
  std::mt19937_64 rng(cuzk::test::test_seed("daemon-restart"));
  const fs::path params = cuzk::test::make_param_cache(true);
  const fs::path dir = fs::temp_directory_path() / ("cuzk-restart-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  const fs::path sock = dir / "cuzk.sock", log = dir / "log";
  {
    std::ofstream c(dir / "cuzk.toml");
    c << "[daemon]\nlisten = \"unix://" << sock.string() << "\"\n[srs]\nparam_cache = \"" << params.string()
      << "\"\n[memory]\ntotal_budget = \"2GiB\"\n[pipeline]\nmax_parallel_synthesis = 1\n";
  }
  std::vector<cuzk::test::post_case> cases;
  for (int i = 0; i < 3; ++i)
    cases.push_back(cuzk::test::window_case(rng, "wdpost-1000-" + std::to_string(i) + "-abcd"));

  pid_t pid = cuzk::test::spawn_daemon(dir / "cuzk.toml", log);
  auto stub = cuzk::test::connect_when_ready(sock, 20s);
  ASSERT_TRUE(stub) << cuzk::test::slurp(log);
  for (const auto& c : cases) {
    grpc::ClientContext ctx;
    pb::SubmitProofResponse resp;
    ASSERT_TRUE(stub->SubmitProof(&ctx, to_pb(c), &resp).ok()) << cuzk::test::slurp(log);
  }
  // a bad request carrying a marker, for the log check below
  {
    auto q = to_pb(cases[0]);
    q.set_request_id("wdpost-bad");
    q.set_vanilla_proofs(0, "PAYLOAD-MARKER-55e1" + std::string(64, 'q'));
    grpc::ClientContext ctx;
    pb::SubmitProofResponse resp;
    EXPECT_EQ(stub->SubmitProof(&ctx, q, &resp).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  grpc::Status waiter_status;
  std::thread waiter([&] {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 60s);
    pb::AwaitProofRequest r;
    r.set_job_id(cases[2].req.request_id);
    pb::AwaitProofResponse resp;
    waiter_status = stub->AwaitProof(&ctx, r, &resp);
  });
  // wait until the first job is running (its partition started)
  bool running = false;
  for (int i = 0; i < 400 && !running; ++i) {
    running = cuzk::test::slurp(log).find("SYNTH_START,wdpost-1000-0") != std::string::npos;
    if (!running) std::this_thread::sleep_for(25ms);
  }
  ASSERT_TRUE(running) << cuzk::test::slurp(log);
  const auto t0 = std::chrono::steady_clock::now();
  kill(pid, SIGKILL);
  EXPECT_EQ(cuzk::test::wait_daemon_exit(pid, 10s), 128 + SIGKILL);
  waiter.join();
  EXPECT_EQ(waiter_status.error_code(), grpc::StatusCode::UNAVAILABLE) << waiter_status.error_message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  EXPECT_TRUE(fs::exists(sock));  // the dead daemon's socket file stays behind

  // restart on the same socket
  pid = cuzk::test::spawn_daemon(dir / "cuzk.toml", log);
  stub = cuzk::test::connect_when_ready(sock, 20s);
  ASSERT_TRUE(stub) << cuzk::test::slurp(log);
  struct stat st {};
  ASSERT_EQ(::stat(sock.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  {
    grpc::ClientContext ctx;
    pb::GetStatusResponse resp;
    ASSERT_TRUE(stub->GetStatus(&ctx, pb::GetStatusRequest(), &resp).ok());
    EXPECT_EQ(resp.total_proofs_completed(), 0u);
    EXPECT_EQ(resp.total_proofs_failed(), 0u);
    for (const auto& q : resp.queues()) EXPECT_EQ(q.pending() + q.in_progress(), 0u) << q.proof_kind();
  }
  for (const auto& c : cases) {
    grpc::ClientContext ctx;
    pb::AwaitProofRequest r;
    r.set_job_id(c.req.request_id);
    r.set_timeout_ms(100);
    pb::AwaitProofResponse resp;
    EXPECT_EQ(stub->AwaitProof(&ctx, r, &resp).error_code(), grpc::StatusCode::NOT_FOUND) << c.req.request_id;
  }
  // the client resubmits: a fresh proof that verifies
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 120s);
    pb::ProveRequest pq;
    *pq.mutable_submit() = to_pb(cases[0]);
    pb::ProveResponse resp;
    ASSERT_TRUE(stub->Prove(&ctx, pq, &resp).ok()) << cuzk::test::slurp(log);
    ASSERT_EQ(resp.result().status(), pb::AwaitProofResponse::COMPLETED) << resp.result().error_message();
    EXPECT_TRUE(cuzk::test::verify_with_vk(params, cases[0].vk_stem,
                                           {resp.result().proof().begin(), resp.result().proof().end()},
                                           cases[0].public_inputs));
    grpc::ClientContext c2;
    pb::GetStatusResponse s2;
    ASSERT_TRUE(stub->GetStatus(&c2, pb::GetStatusRequest(), &s2).ok());
    EXPECT_EQ(s2.total_proofs_completed(), 1u);
  }
  kill(pid, SIGTERM);
  EXPECT_EQ(cuzk::test::wait_daemon_exit(pid, 30s), 0);
  const std::string text = cuzk::test::slurp(log);
  EXPECT_EQ(text.find("PAYLOAD-MARKER"), std::string::npos);
  const std::string hex_rand = cuzk::io::to_hex(std::span<const std::uint8_t>(cases[0].req.randomness));
  EXPECT_EQ(text.find(hex_rand), std::string::npos);
  fs::remove_all(dir);
  fs::remove_all(params);
}

}  // namespace
