// SPDX-License-Identifier: Apache-2.0
// Cross-sector batching in the engine (scheduler.max_batch_size,
// src/engine/device_batch.cpp). The backend is the CPU backend behind a
// batch capacity of 3: it records every prove_start_batch call (which jobs,
// told apart by their witness's x0 = 3000 + tag) and every partition proved
// alone, and can hold a batch inside prove_start_batch. The jobs are
// one-partition chain jobs of one circuit with a per-job synthesis delay.
// The tests check:
//  (a) three jobs submitted together are proved in one batch of three, and
//      every proof verifies against the circuit's verifying key;
//  (b) a job cancelled while its batch is inside prove_start_batch reports
//      CANCELLED and the other two complete and verify;
//  (c) a lone partition with nothing else coming is not held back by a
//      30 s max_batch_wait, and a partition whose circuit has another
//      partition still synthesizing waits at most max_batch_wait (300 ms),
//      then goes alone;
//  (d) max_batch_size 1 never asks for a batch (nor the capacity);
//  (e) a HIGH priority partition arriving while a batch gathers is proved
//      alone, at once, and never joins a batch;
// plus the pacer's lookahead rule for a batching circuit.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../../src/engine/synthesis_pacer.hpp"
#include "cpu_wrapping_backend.hpp"
#include "daemon_test_support.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

constexpr std::uint64_t tag_base = 3000;

int tag_of(const groth16::witness& w) { return int((w.inputs.at(1) - ff::fr::from_uint(tag_base)).to_canonical()[0]); }

// What the backend saw; shared with the test.
struct batch_log {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::vector<int>> batches;  // tags per prove_start_batch call
  std::vector<int> alone;                 // tags proved by a single prove_start
  std::vector<int> proved;                // tags whose proof was started (alone or in a batch)
  std::size_t capacity_calls = 0;
  bool hold = false;  // keeps a batch inside prove_start_batch until cleared
  bool inside = false;
};

class batching_backend final : public test::cpu_wrapping_backend {
 public:
  using test::cpu_wrapping_backend::prove_start;
  explicit batching_backend(std::shared_ptr<batch_log> log)
      : cpu_wrapping_backend("batching test"), _log(std::move(log)) {}
  std::unique_ptr<eng::pending_proof> prove_start(std::size_t, const groth16::parameters& params,
                                                  const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                                  const ff::fr& s) override {
    return prove_start(0, params, shape, std::move(w), r, s, eng::cancel_token());
  }
  std::unique_ptr<eng::pending_proof> prove_start(std::size_t, const groth16::parameters& params,
                                                  const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                                  const ff::fr& s, const eng::cancel_token& token) override {
    {
      std::lock_guard lk(_log->mu);
      _log->proved.push_back(tag_of(w));
      if (!in_batch) _log->alone.push_back(tag_of(w));
    }
    return cpu().prove_start(0, params, shape, std::move(w), r, s, token);
  }
  std::size_t batch_capacity(std::size_t, const groth16::parameters&, const r1cs::r1cs_shape&) override {
    std::lock_guard lk(_log->mu);
    ++_log->capacity_calls;
    return 3;
  }
  std::vector<std::unique_ptr<eng::pending_proof>> prove_start_batch(std::size_t device,
                                                                     const groth16::parameters& params,
                                                                     const r1cs::r1cs_shape& shape,
                                                                     std::span<batch_entry> entries,
                                                                     const eng::phase_boundary& at_boundary) override {
    {
      std::unique_lock lk(_log->mu);
      std::vector<int> tags;
      for (const batch_entry& e : entries) tags.push_back(tag_of(*e.w));
      _log->batches.push_back(tags);
      _log->inside = true;
      _log->cv.notify_all();
      _log->cv.wait(lk, [&] { return !_log->hold; });
      _log->inside = false;
    }
    // the interface's default: entry by entry, skipping cancelled ones
    in_batch = true;
    struct reset {
      ~reset() { in_batch = false; }
    } on_exit;
    return eng::prover_backend::prove_start_batch(device, params, shape, entries, at_boundary);
  }

 private:
  static thread_local bool in_batch;
  std::shared_ptr<batch_log> _log;
};
thread_local bool batching_backend::in_batch = false;

// One-partition chain jobs of circuit test-chain: vanilla proof
// "<tag>:<synthesis delay ms>", x0 = 3000 + tag.
class delayed_job final : public eng::circuit_job {
 public:
  delayed_job(int tag, std::uint64_t delay_ms)
      : _x0(ff::fr::from_uint(tag_base + std::uint64_t(tag))), _delay(delay_ms) {}
  const std::string& circuit_id() const override { return _id; }
  std::size_t num_partitions() const override { return 1; }
  groth16::witness synthesize(std::size_t, const r1cs::r1cs_shape& shape, const eng::cancel_token& t,
                              groth16::witness) const override {
    const auto until = steady::now() + std::chrono::milliseconds(_delay);
    while (steady::now() < until) {
      t.check();
      std::this_thread::sleep_for(5ms);
    }
    t.check();
    const auto cs =
        r1cs::make_witness(r1cs::examples::chain_circuit{test::chain_steps, _x0}, shape.num_inputs, shape.num_aux);
    return {{cs.inputs().begin(), cs.inputs().end()}, {cs.aux().begin(), cs.aux().end()}};
  }
  std::vector<ff::fr> public_inputs(std::size_t) const override { return {_x0, test::chain_out(_x0)}; }

 private:
  std::string _id = "test-chain";
  ff::fr _x0;
  std::uint64_t _delay;
};

class delayed_kind final : public eng::proof_kind_handler {
 public:
  eng::proof_kind kind() const override { return eng::proof_kind::porep_seal_commit; }
  eng::priority default_priority() const override { return eng::priority::normal; }
  std::vector<eng::circuit_info> circuits() const override {
    return {test::chain_circuit("test-chain", "test-chain-64")};
  }
  std::unique_ptr<eng::circuit_job> parse(const eng::proof_request& req) const override {
    int tag = 0;
    unsigned long long delay = 0;
    const std::string s(req.vanilla_proof.begin(), req.vanilla_proof.end());
    if (std::sscanf(s.c_str(), "%d:%llu", &tag, &delay) != 2) throw eng::invalid_request("expected <tag>:<delay_ms>");
    return std::make_unique<delayed_job>(tag, delay);
  }
};

struct fixture {
  fs::path dir = test::make_param_cache(false);
  std::shared_ptr<batch_log> log = std::make_shared<batch_log>();
  std::unique_ptr<eng::engine> e;
  fixture(std::size_t max_batch_size, std::chrono::milliseconds max_batch_wait) {
    eng::engine_config cfg = test::small_config(dir);
    cfg.max_batch_size = max_batch_size;
    cfg.max_batch_wait = max_batch_wait;
    e = std::make_unique<eng::engine>(cfg, std::make_unique<batching_backend>(log));
    e->register_kind(std::make_shared<delayed_kind>());
    e->start();
    e->srs().preload("test-chain");
  }
  ~fixture() {
    e.reset();
    fs::remove_all(dir);
  }
  void submit(int tag, std::uint64_t delay_ms = 0, eng::priority p = eng::priority::unspecified) {
    eng::proof_request r;
    r.request_id = "job-" + std::to_string(tag);
    r.kind = eng::proof_kind::porep_seal_commit;
    r.prio = p;
    const std::string v = std::to_string(tag) + ":" + std::to_string(delay_ms);
    r.vanilla_proof.assign(v.begin(), v.end());
    e->submit(r);
  }
  eng::job_result await(int tag, std::chrono::milliseconds timeout = 60s) {
    return e->await("job-" + std::to_string(tag), timeout);
  }
  /// The job completed and its proof verifies with the circuit's .vk.
  void expect_verified(int tag) {
    const auto r = await(tag);
    ASSERT_EQ(r.status, eng::await_status::completed) << "job " << tag << ": " << r.error_message;
    const ff::fr x0 = ff::fr::from_uint(tag_base + std::uint64_t(tag));
    EXPECT_TRUE(test::verify_with_vk(dir, "test-chain-64", r.proof, {x0, test::chain_out(x0)}))
        << "job " << tag << "'s proof does not verify";
  }
  void print(const char* test) {
    std::lock_guard lk(log->mu);
    std::string b;
    for (const auto& batch : log->batches) {
      b.append(" [");
      for (int t : batch) b.append(" ").append(std::to_string(t));
      b.append(" ]");
    }
    std::string a;
    for (int t : log->alone) a.append(" ").append(std::to_string(t));
    std::printf("%s: batches:%s; alone:%s; capacity asked %zu time(s)\n", test, b.empty() ? " none" : b.c_str(),
                a.empty() ? " none" : a.c_str(), log->capacity_calls);
  }
};

double stage_ms(const eng::job_result& r, const std::string& name) {
  for (const auto& [n, ms] : r.timings.partitions.at(0).stages)
    if (n == name) return ms;
  return -1;
}

double ms(steady::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

TEST(engine_batching, three_jobs_submitted_together_are_proved_in_one_batch_that_verifies) {
  fixture f(3, 30s);
  // each synthesis takes 500 ms, so all three are submitted before the first
  // reaches a device (with none, job 1 could be proved alone before job 2
  // was submitted: nothing on its way, it does not wait)
  for (int tag : {1, 2, 3}) f.submit(tag, 500);
  for (int tag : {1, 2, 3}) f.expect_verified(tag);
  f.print("three jobs");
  std::lock_guard lk(f.log->mu);
  ASSERT_EQ(f.log->batches.size(), 1u);
  std::vector<int> batch = f.log->batches.front();
  std::sort(batch.begin(), batch.end());
  EXPECT_EQ(batch, (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(f.log->alone.empty());
}

TEST(engine_batching, a_job_cancelled_inside_its_batch_is_cancelled_and_the_others_complete) {
  fixture f(3, 30s);
  {
    std::lock_guard lk(f.log->mu);
    f.log->hold = true;
  }
  for (int tag : {1, 2, 3}) f.submit(tag, 500);  // submitted before the first reaches a device
  {
    std::unique_lock lk(f.log->mu);
    ASSERT_TRUE(f.log->cv.wait_for(lk, 60s, [&] { return f.log->inside; }));
    ASSERT_EQ(f.log->batches.back().size(), 3u) << "the batch did not gather the three jobs";
  }
  {  // the status names the pass (/status: batch_partitions)
    const eng::engine_status st = f.e->status();
    const bool shown = std::any_of(st.workers.begin(), st.workers.end(), [](const eng::engine_status::worker& w) {
      return w.busy && w.batch_partitions == 3;
    });
    EXPECT_TRUE(shown) << "no busy worker shows the batch of 3";
  }
  ASSERT_TRUE(f.e->cancel("job-2"));
  {
    std::lock_guard lk(f.log->mu);
    f.log->hold = false;
  }
  f.log->cv.notify_all();
  EXPECT_EQ(f.await(2).status, eng::await_status::cancelled);
  f.expect_verified(1);
  f.expect_verified(3);
  f.print("cancel inside a batch");
  std::lock_guard lk(f.log->mu);
  EXPECT_EQ(std::count(f.log->proved.begin(), f.log->proved.end(), 2), 0) << "the cancelled job was proved";
}

TEST(engine_batching, a_lone_partition_is_not_held_back_by_the_batch_wait) {
  fixture f(3, 30s);
  const auto t0 = steady::now();
  f.submit(1);
  f.expect_verified(1);
  const double took = ms(steady::now() - t0);
  const double queued = stage_ms(f.await(1), "gpu_queue_wait");
  f.print("lone partition");
  std::printf("lone partition: completed in %.0f ms, gpu_queue_wait %.1f ms (max_batch_wait 30000 ms)\n", took, queued);
  EXPECT_LT(took, 15000.0);
  EXPECT_GE(queued, 0.0);
  EXPECT_LT(queued, 5000.0) << "the lone partition waited for a batch";
  std::lock_guard lk(f.log->mu);
  EXPECT_GE(f.log->capacity_calls, 1u) << "the batching path was not taken";
  EXPECT_TRUE(f.log->batches.empty());
  EXPECT_EQ(f.log->alone, std::vector<int>{1});
}

TEST(engine_batching, a_partition_waits_at_most_max_batch_wait_for_one_still_synthesizing) {
  fixture f(3, 300ms);
  // job 2 first: on its way (synthesizing for 4 s, too late for the batch)
  // whenever job 1 reaches a device
  f.submit(2, 4000);
  f.submit(1);
  f.expect_verified(1);
  const auto r2_early = f.e->await("job-2", 0ms);
  const double queued = stage_ms(f.await(1), "gpu_queue_wait");
  f.expect_verified(2);
  f.print("bounded wait");
  std::printf("bounded wait: job 1 gpu_queue_wait %.1f ms (max_batch_wait 300 ms); job 2 done at job 1's end: %s\n",
              queued, r2_early.status == eng::await_status::completed ? "yes" : "no");
  EXPECT_NE(r2_early.status, eng::await_status::completed) << "job 1 waited for job 2's synthesis";
  EXPECT_GE(queued, 290.0) << "job 1 did not wait for the partition on its way";
  EXPECT_LT(queued, 3000.0) << "job 1 waited past max_batch_wait";
  std::lock_guard lk(f.log->mu);
  EXPECT_TRUE(f.log->batches.empty());
  EXPECT_EQ(f.log->alone, (std::vector<int>{1, 2}));
}

TEST(engine_batching, max_batch_size_one_never_batches) {
  fixture f(1, 30s);
  for (int tag : {1, 2, 3}) f.submit(tag);
  for (int tag : {1, 2, 3}) f.expect_verified(tag);
  f.print("max_batch_size 1");
  std::lock_guard lk(f.log->mu);
  EXPECT_EQ(f.log->capacity_calls, 0u);
  EXPECT_TRUE(f.log->batches.empty());
  EXPECT_EQ(f.log->alone.size(), 3u);
}

TEST(engine_batching, a_high_priority_partition_is_never_batched_nor_held_by_a_gathering_batch) {
  fixture f(3, 30s);
  f.submit(2, 5000);  // first, so that job 1's batch always waits for it
  f.submit(1);
  // job 1 taken by a device worker (gathering: nothing proved yet)
  const auto deadline = steady::now() + 30s;
  for (;;) {
    const auto st = f.e->status();
    if (std::any_of(st.workers.begin(), st.workers.end(),
                    [](const auto& w) { return w.busy && w.current_job == "job-1"; }))
      break;
    ASSERT_LT(steady::now(), deadline) << "job 1 never reached a device worker";
    std::this_thread::sleep_for(10ms);
  }
  const auto t0 = steady::now();
  f.submit(100, 0, eng::priority::high);
  f.expect_verified(100);
  const double high_ms = ms(steady::now() - t0);
  const bool one_done_first = f.e->await("job-1", 0ms).status == eng::await_status::completed;
  f.expect_verified(1);
  f.expect_verified(2);
  f.print("high priority");
  std::printf("high priority: the HIGH job completed %.0f ms after submission, job 1 done before it: %s\n", high_ms,
              one_done_first ? "yes" : "no");
  EXPECT_LT(high_ms, 4000.0) << "the HIGH job waited for the gathering batch";
  EXPECT_FALSE(one_done_first) << "job 1 did not wait for job 2's partition";
  std::lock_guard lk(f.log->mu);
  for (const auto& batch : f.log->batches)
    EXPECT_EQ(std::count(batch.begin(), batch.end(), 100), 0) << "the HIGH partition was batched";
  EXPECT_EQ(std::count(f.log->alone.begin(), f.log->alone.end(), 100), 1);
  ASSERT_EQ(f.log->batches.size(), 1u);
  std::vector<int> batch = f.log->batches.front();
  std::sort(batch.begin(), batch.end());
  EXPECT_EQ(batch, (std::vector<int>{1, 2}));
}

TEST(engine_batching, the_pacer_lets_a_batching_circuit_hold_a_batch_on_and_one_for_each_device) {
  eng::synthesis_pacer p;
  const eng::synthesis_pacer::limits one{1, 8, 3}, two{2, 8, 3};
  p.record_synthesis("c", 1000);
  p.record_device("c", 1000);  // in flight: 1 per device
  EXPECT_EQ(p.lookahead("c", one, 0), 1u + 3u);
  p.record_batch("c", 3);  // a pass of 3 on the device and 3 gathering
  EXPECT_EQ(p.lookahead("c", one, 0), 1u + 6u);
  EXPECT_EQ(p.lookahead("c", two, 0), 2u + 9u);
  EXPECT_EQ(p.lookahead("c", one, 5), 5u);  // the memory budget still caps it
  p.record_batch("c", 1);
  EXPECT_EQ(p.lookahead("c", one, 0), 1u + 3u);
}

}  // namespace
