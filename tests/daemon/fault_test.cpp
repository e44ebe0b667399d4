// SPDX-License-Identifier: Apache-2.0
// Fault injection on the engine and the gRPC service (docs/RELIABILITY.md):
//  * GPU allocation failure, simulated by a backend whose prove_start
//    throws std::bad_alloc or a CUDA-style runtime_error: the job FAILS with
//    the message and the engine keeps serving; with make_fallback_backend
//    (gpus.cpu_fallback) the partition is proved on the CPU instead; a
//    failure after the witness was consumed still fails the job; a GPU
//    backend that cannot be created stops the start-up, or falls back to the
//    CPU backend when configured (choose_backend); an exception that is not
//    a std::exception fails its job instead of terminating the daemon.
//  * cancellation at each of the five stages a partition can be in (queued,
//    synthesizing, waiting for a prover worker, inside prove_start,
//    finalizing), held there by gates in the backend: CANCELLED at once,
//    memory back to the baseline, the engine keeps serving.
//  * a parameter file truncated, corrupted or replaced while the daemon
//    runs, for a cold entry and for a warm (still mapped) one: the job FAILS
//    naming the file (no SIGBUS from a stale mapping), and after the file is
//    restored the next job completes.
//  * a client that goes away during Prove: its server thread returns, the
//    job completes once, and a second Prove with the same request_id gets the
//    result without proving again.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <new>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "backend_select.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon_test_support.hpp"
#include "grpc_service.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;

bool wait_until(const std::function<bool()>& f, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return f();
}

// What the fault backend does; shared between the test and the backend the
// engine owns.
struct fault_plan {
  std::atomic<int> fail_before_consume{0};  // next N prove_starts throw with the witness intact
  std::atomic<int> fail_after_consume{0};   // next N prove_starts throw after taking the witness
  std::atomic<bool> cuda_style{false};      // runtime_error "CUDA error ..." instead of bad_alloc
  std::atomic<bool> not_std{false};         // an exception not derived from std::exception
  std::atomic<int> starts{0}, finalizes{0};
  std::mutex mu;
  std::condition_variable cv;
  bool hold_start = false, hold_finalize = false;
  int in_start = 0, in_finalize = 0;

  void release_all() {
    std::lock_guard lk(mu);
    hold_start = hold_finalize = false;
    cv.notify_all();
  }
};

class fault_backend final : public eng::prover_backend {
 public:
  using eng::prover_backend::prove_start;
  explicit fault_backend(std::shared_ptr<fault_plan> plan) : _plan(std::move(plan)), _cpu(eng::make_cpu_backend(1)) {}
  std::string name() const override { return "fault-injecting"; }
  std::vector<eng::device_info> devices() const override { return {{"fake gpu", 1ull << 30, 1ull << 30}}; }
  std::uint64_t partition_bytes(const r1cs::r1cs_shape& s, std::uint64_t* after) const override {
    return _cpu->partition_bytes(s, after);
  }
  std::unique_ptr<eng::pending_proof> prove_start(std::size_t, const groth16::parameters& params,
                                                  const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                                  const ff::fr& s) override {
    ++_plan->starts;
    {
      std::unique_lock lk(_plan->mu);
      ++_plan->in_start;
      _plan->cv.notify_all();
      _plan->cv.wait(lk, [&] { return !_plan->hold_start; });
      --_plan->in_start;
    }
    if (take(_plan->fail_before_consume)) raise();
    groth16::witness local = std::move(w);
    if (take(_plan->fail_after_consume)) raise();
    return _cpu->prove_start(0, params, shape, std::move(local), r, s);
  }
  groth16::proof finalize(std::unique_ptr<eng::pending_proof> p) override {
    ++_plan->finalizes;
    {
      std::unique_lock lk(_plan->mu);
      ++_plan->in_finalize;
      _plan->cv.notify_all();
      _plan->cv.wait(lk, [&] { return !_plan->hold_finalize; });
      --_plan->in_finalize;
    }
    return _cpu->finalize(std::move(p));
  }

 private:
  static bool take(std::atomic<int>& n) {
    int v = n.load();
    while (v > 0)
      if (n.compare_exchange_weak(v, v - 1)) return true;
    return false;
  }
  void raise() const {
    if (_plan->not_std) throw 42;
    if (_plan->cuda_style) throw std::runtime_error("CUDA error 2 (out of memory) at cudaMalloc(&d_bases, 1610612736)");
    throw std::bad_alloc();
  }
  std::shared_ptr<fault_plan> _plan;
  std::unique_ptr<eng::prover_backend> _cpu;
};

struct fixture {
  fs::path dir = test::make_param_cache(false);
  std::shared_ptr<fault_plan> plan = std::make_shared<fault_plan>();
  std::unique_ptr<eng::engine> e;
  std::vector<std::string> notices;
  std::mutex notice_mu;

  explicit fixture(bool fallback = false, eng::engine_config cfg = test::small_config("")) {
    cfg.param_cache = dir;
    std::unique_ptr<eng::prover_backend> b = std::make_unique<fault_backend>(plan);
    if (fallback)
      b = eng::make_fallback_backend(std::move(b), eng::make_cpu_backend(1), [this](const std::string& m) {
        std::lock_guard lk(notice_mu);
        notices.push_back(m);
      });
    e = std::make_unique<eng::engine>(cfg, std::move(b));
    e->register_kind(std::make_shared<test::chain_kind>());
    e->start();
  }
  ~fixture() {
    plan->release_all();
    e.reset();
    fs::remove_all(dir);
  }
  eng::job_result prove(const std::string& id, std::size_t parts = 1, std::uint64_t delay = 0) {
    return e->await(e->submit(test::chain_request(id, parts, delay)).job_id, 60s);
  }
  std::string stage(const std::string& id, std::size_t part = 0) {
    for (const auto& j : e->status().jobs)
      if (j.job_id == id && part < j.partitions.size()) return j.partitions[part].state;
    return "";
  }
};

// ---- GPU allocation failure -----------------------------------------------------------

TEST(fault_gpu_alloc, failure_fails_the_job_with_its_message_and_the_engine_keeps_serving) {
  fixture f;
  f.e->srs().preload("test-chain");
  const std::uint64_t base = f.e->budget().used();
  f.plan->fail_before_consume = 1;
  const auto r = f.prove("oom-1");
  ASSERT_EQ(r.status, eng::await_status::failed);
  EXPECT_NE(r.error_message.find("proving partition 0 failed"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("bad_alloc"), std::string::npos) << r.error_message;
  f.plan->cuda_style = true;
  f.plan->fail_after_consume = 1;
  const auto r2 = f.prove("oom-2", 2);
  ASSERT_EQ(r2.status, eng::await_status::failed);
  EXPECT_NE(r2.error_message.find("CUDA error 2 (out of memory)"), std::string::npos) << r2.error_message;
  EXPECT_EQ(f.prove("after-oom", 2).status, eng::await_status::completed);
  const auto st = f.e->status();
  EXPECT_EQ(st.failed, 2u);
  EXPECT_EQ(st.completed, 1u);
  EXPECT_TRUE(wait_until([&] { return f.e->budget().used() == base; }, 5s)) << f.e->budget().used() << " vs " << base;
}

TEST(fault_gpu_alloc, an_exception_not_derived_from_std_exception_fails_only_its_job) {
  fixture f;
  f.plan->not_std = true;
  f.plan->fail_before_consume = 1;
  const auto r = f.prove("odd-exception");
  ASSERT_EQ(r.status, eng::await_status::failed);
  EXPECT_NE(r.error_message.find("unknown exception"), std::string::npos) << r.error_message;
  EXPECT_EQ(f.prove("after-odd").status, eng::await_status::completed);
}

TEST(fault_gpu_alloc, cpu_fallback_proves_the_partition_and_says_so) {
  fixture f(true);
  f.plan->fail_before_consume = 2;
  f.plan->cuda_style = true;
  const auto r = f.prove("fallback-1", 3);
  ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
  EXPECT_EQ(r.proof.size(), 3 * io::proof_size);
  for (std::size_t p = 0; p < 3; ++p)
    EXPECT_TRUE(test::verify_with_vk(f.dir, "test-chain-64",
                                     {r.proof.begin() + std::ptrdiff_t(p * io::proof_size),
                                      r.proof.begin() + std::ptrdiff_t((p + 1) * io::proof_size)},
                                     {test::chain_x0(p), test::chain_out(test::chain_x0(p))}));
  std::lock_guard lk(f.notice_mu);
  ASSERT_EQ(f.notices.size(), 2u);
  EXPECT_NE(f.notices[0].find("CUDA error 2 (out of memory)"), std::string::npos) << f.notices[0];
  EXPECT_NE(f.notices[0].find("on the cpu backend"), std::string::npos) << f.notices[0];
}

TEST(fault_gpu_alloc, failure_after_the_witness_was_consumed_fails_even_with_fallback) {
  fixture f(true);
  f.plan->fail_after_consume = 1;
  const auto r = f.prove("consumed");
  ASSERT_EQ(r.status, eng::await_status::failed);
  EXPECT_NE(r.error_message.find("bad_alloc"), std::string::npos) << r.error_message;
  EXPECT_EQ(f.prove("next").status, eng::await_status::completed);
}

TEST(fault_gpu_alloc, backend_that_cannot_start_stops_startup_or_falls_back_to_cpu) {
  service::daemon_config cfg;
  std::vector<std::string> logs;
  const auto log = [&](int, const std::string& m) { logs.push_back(m); };
  const service::backend_factory broken = []() -> std::unique_ptr<eng::prover_backend> {
    throw std::runtime_error("CUDA error 2 (out of memory) while creating the context on device 0");
  };
  try {
    (void)service::choose_backend(cfg, broken, log);
    ADD_FAILURE() << "a broken GPU backend without cpu_fallback must stop the start-up";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gpus.cpu_fallback"), std::string::npos) << e.what();
  }
  cfg.cpu_fallback = true;
  auto b = service::choose_backend(cfg, broken, log);
  EXPECT_EQ(b->name(), "cpu");
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_NE(logs[0].find("out of memory"), std::string::npos);
  const auto plan = std::make_shared<fault_plan>();
  auto w = service::choose_backend(
      cfg, [&] { return std::make_unique<fault_backend>(plan); }, log);
  EXPECT_EQ(w->name(), "fault-injecting (falls back to cpu)");
  cfg.cpu_fallback = false;
  EXPECT_EQ(service::choose_backend(
                cfg, [&] { return std::make_unique<fault_backend>(plan); }, log)
                ->name(),
            "fault-injecting");
  EXPECT_EQ(service::choose_backend(cfg, {}, log)->name(), "cpu");
}

// ---- cancellation at every stage ------------------------------------------------------------

TEST(fault_cancel, at_every_pipeline_stage_the_job_ends_cancelled_and_memory_returns) {
  eng::engine_config cfg = test::small_config("");
  cfg.max_parallel_synthesis = 1;
  cfg.gpu_workers_per_device = 1;
  cfg.finalizer_threads = 1;
  fixture f(false, cfg);
  f.e->srs().preload("test-chain");
  const std::uint64_t base = f.e->budget().used();
  const auto cancel_and_check = [&](const std::string& id, bool expect_running) {
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(f.e->cancel(id), expect_running) << id;
    const auto r = f.e->await(id, 2s);
    EXPECT_EQ(r.status, eng::await_status::cancelled) << id << ": " << r.error_message;
    EXPECT_TRUE(r.proof.empty());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s) << id;
  };
  std::uint64_t expect_cancelled = 0;

  // 1. synthesizing, and 2. queued behind it (one synthesis worker)
  (void)f.e->submit(test::chain_request("synth", 1, 30000));
  ASSERT_TRUE(wait_until([&] { return f.stage("synth") == "synthesizing"; }, 10s));
  (void)f.e->submit(test::chain_request("queued", 1, 0));
  EXPECT_EQ(f.stage("queued"), "pending");
  cancel_and_check("queued", false);
  cancel_and_check("synth", true);
  expect_cancelled += 2;
  ASSERT_TRUE(wait_until([&] { return f.e->budget().used() == base; }, 5s)) << f.e->budget().used() << " vs " << base;

  // 3. inside prove_start (held), and 4. synthesized, waiting for the one prover worker
  {
    std::lock_guard lk(f.plan->mu);
    f.plan->hold_start = true;
  }
  (void)f.e->submit(test::chain_request("in-gpu", 1, 0));
  {
    std::unique_lock lk(f.plan->mu);
    ASSERT_TRUE(f.plan->cv.wait_for(lk, 10s, [&] { return f.plan->in_start == 1; }));
  }
  EXPECT_EQ(f.stage("in-gpu"), "gpu");
  (void)f.e->submit(test::chain_request("gpu-queue", 1, 0));
  ASSERT_TRUE(wait_until([&] { return f.stage("gpu-queue") == "synth_done"; }, 10s));
  cancel_and_check("gpu-queue", true);
  cancel_and_check("in-gpu", true);
  expect_cancelled += 2;
  f.plan->release_all();
  ASSERT_TRUE(wait_until([&] { return f.e->budget().used() == base; }, 10s)) << f.e->budget().used() << " vs " << base;

  // 5. finalizing (held in finalize)
  {
    std::lock_guard lk(f.plan->mu);
    f.plan->hold_finalize = true;
  }
  (void)f.e->submit(test::chain_request("finalizing", 1, 0));
  {
    std::unique_lock lk(f.plan->mu);
    ASSERT_TRUE(f.plan->cv.wait_for(lk, 10s, [&] { return f.plan->in_finalize == 1; }));
  }
  EXPECT_EQ(f.stage("finalizing"), "finalizing");
  cancel_and_check("finalizing", true);
  expect_cancelled += 1;
  f.plan->release_all();
  ASSERT_TRUE(wait_until([&] { return f.e->budget().used() == base; }, 10s)) << f.e->budget().used() << " vs " << base;

  const auto st = f.e->status();
  EXPECT_EQ(st.cancelled, expect_cancelled);
  EXPECT_EQ(st.completed, 0u);
  EXPECT_EQ(st.failed, 0u);
  EXPECT_TRUE(st.jobs.empty());
  EXPECT_EQ(f.prove("after-cancels", 2).status, eng::await_status::completed);
}

// ---- parameter files changing under the daemon ---------------------------------------------------

std::vector<char> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_all(const fs::path& p, const std::vector<char>& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(b.data(), std::streamsize(b.size()));
}

TEST(fault_params, truncated_corrupt_or_replaced_file_fails_the_job_naming_it_then_recovers) {
  eng::engine_config cfg = test::small_config("");
  cfg.eviction_min_idle = 0ms;
  fixture f(false, cfg);
  const fs::path file = f.dir / "test-chain-64.params";
  const std::vector<char> good = read_all(file);
  ASSERT_GT(good.size(), 1000u);
  ASSERT_EQ(f.prove("warmup").status, eng::await_status::completed);
  struct damage {
    const char* name;
    bool warm;  // evicted to warm (the old mapping kept) instead of cold
    std::function<void()> apply;
    const char* expect;
    bool refused_at_submit = false;  // no readable file: refused before a job exists (issue 24)
  };
  const std::vector<damage> cases = {
      {"truncated-cold", false, [&] { fs::resize_file(file, good.size() / 2); }, "test-chain-64.params"},
      {"truncated-warm", true, [&] { fs::resize_file(file, good.size() / 3); }, "test-chain-64.params"},
      {"zero-length-warm", true, [&] { fs::resize_file(file, 0); },
       "test-chain-64.params for circuit 'test-chain' in srs.param_cache is empty", true},
      {"corrupt-point-warm", true,
       [&] {
         std::vector<char> b = good;
         for (std::size_t i = 0; i < 8; ++i) b[b.size() / 2 + i] = char(0x5a);
         write_all(file, b);
       },
       "test-chain-64.params"},
      {"removed-cold", false, [&] { fs::remove(file); }, "test-chain-64.params for circuit 'test-chain' is not in",
       true},
      {"replaced-by-another-circuit-warm", true,
       [&] {
         const auto p =
             groth16::generate_parameters(r1cs::make_shape(r1cs::examples::chain_circuit{8, std::nullopt}), 3);
         const fs::path tmp = f.dir / "other.params";
         io::write_parameters(p, tmp);
         fs::rename(tmp, file);
       },
       "does not match circuit"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    if (c.warm) {
      ASSERT_GT(f.e->srs().evict_idle(1), 0u);
      bool warm = false;
      for (const auto& s : f.e->srs().status())
        warm = warm || (s.circuit_id == "test-chain" && s.tier == eng::srs_tier::warm);
      ASSERT_TRUE(warm);
    } else {
      ASSERT_TRUE(f.e->srs().evict("test-chain").was_loaded);
    }
    c.apply();
    if (c.refused_at_submit) {
      try {
        f.prove(std::string("bad-") + c.name);
        ADD_FAILURE() << "submit accepted a job whose parameter file is unusable";
      } catch (const eng::missing_parameters_error& e) {
        EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find(f.dir.string()), std::string::npos) << "host path in " << e.what();
      }
    } else {
      const auto r = f.prove(std::string("bad-") + c.name);
      ASSERT_EQ(r.status, eng::await_status::failed);
      EXPECT_NE(r.error_message.find(c.expect), std::string::npos) << r.error_message;
    }
    write_all(file, good);  // restored: the next job loads it again
    const auto ok = f.prove(std::string("good-") + c.name, 2);
    ASSERT_EQ(ok.status, eng::await_status::completed) << ok.error_message;
  }
  EXPECT_EQ(f.e->status().failed, cases.size() - 2);  // two refused at submit
}

// ---- client disconnect during Prove ----------------------------------------------------------

TEST(fault_client, disconnect_during_prove_keeps_the_job_once_and_a_retry_gets_its_result) {
  fixture f;
  service::grpc_server server(*f.e, "127.0.0.1:0", 1ull << 20);
  auto stub = cuzk::v1::ProvingEngine::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(server.port()), grpc::InsecureChannelCredentials()));
  cuzk::v1::ProveRequest req;
  auto* s = req.mutable_submit();
  s->set_request_id("porep-1000-42");
  s->set_proof_kind(cuzk::v1::POREP_SEAL_COMMIT);
  s->set_vanilla_proof("chain:2:1500");
  {
    grpc::ClientContext ctx;
    cuzk::v1::ProveResponse resp;
    std::thread canceller([&] {
      ASSERT_TRUE(wait_until([&] { return f.stage("porep-1000-42") == "synthesizing"; }, 10s));
      ctx.TryCancel();
    });
    const auto st = stub->Prove(&ctx, req, &resp);
    canceller.join();
    EXPECT_EQ(st.error_code(), grpc::StatusCode::CANCELLED) << st.error_message();
  }
  // the server still answers, and the job is still there, running
  {
    grpc::ClientContext ctx;
    cuzk::v1::GetStatusResponse resp;
    ASSERT_TRUE(stub->GetStatus(&ctx, cuzk::v1::GetStatusRequest(), &resp).ok());
    std::uint32_t in_flight = 0;
    for (const auto& q : resp.queues()) in_flight += q.pending() + q.in_progress();
    EXPECT_EQ(in_flight, 1u);
  }
  // the client comes back with the same request_id: same job, its result
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 60s);
  cuzk::v1::ProveResponse resp;
  ASSERT_TRUE(stub->Prove(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.result().status(), cuzk::v1::AwaitProofResponse::COMPLETED) << resp.result().error_message();
  EXPECT_EQ(resp.result().proof().size(), 2 * io::proof_size);
  EXPECT_EQ(f.e->status().completed, 1u);
  EXPECT_EQ(f.plan->starts.load(), 2);  // two partitions proved once each
}

}  // namespace
