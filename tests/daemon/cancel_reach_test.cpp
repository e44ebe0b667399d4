// SPDX-License-Identifier: Apache-2.0
// Cancellation reaches the places where a partition can wait or work for a
// long time (issue 25; docs/RELIABILITY.md, "Process resilience"):
//  * a partition waiting for the device lock leaves the wait within a second
//    of its job's cancellation (before: it blocked in std::mutex::lock until
//    the holder finished, and then proved anyway);
//  * a free device goes to the most urgent waiter (HIGH before LOW), not to
//    whichever thread the OS wakes;
//  * a CPU MSM stops within a second of its stop flag (before: it ran to the
//    end: minutes for a 32 GiB PoRep partition), and groth16::prove with a
//    raised flag stops before its first step.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/msm/msm.hpp>

#include "cpu_wrapping_backend.hpp"
#include "daemon_test_support.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

bool wait_until(const std::function<bool()>& f, std::chrono::milliseconds limit) {
  const auto end = steady::now() + limit;
  while (steady::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return f();
}

// x0 = 2000 + tag: the backend tells jobs apart from their witness (inputs[1])
eng::proof_request tagged(const std::string& id, int tag, eng::priority p = eng::priority::normal) {
  return test::tagged_request(id, eng::proof_kind::porep_seal_commit, tag, p);
}

// prove_start lets |passes| calls through (the rest wait) and records the
// tag of each call in the order they entered the device.
struct gate {
  std::mutex mu;
  std::condition_variable cv;
  int passes = 0, inside = 0;
  std::vector<int> order;
};

class gated_backend final : public test::cpu_wrapping_backend {
 public:
  using test::cpu_wrapping_backend::prove_start;
  explicit gated_backend(std::shared_ptr<gate> g) : cpu_wrapping_backend("gated"), _g(std::move(g)) {}
  std::unique_ptr<eng::pending_proof> prove_start(std::size_t, const groth16::parameters& params,
                                                  const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                                  const ff::fr& s) override {
    {
      std::unique_lock lk(_g->mu);
      _g->order.push_back(int((w.inputs.at(1) - ff::fr::from_uint(2000)).to_canonical()[0]));
      ++_g->inside;
      _g->cv.notify_all();
      _g->cv.wait(lk, [&] { return _g->passes > 0; });
      --_g->passes;
      --_g->inside;
    }
    return cpu().prove_start(0, params, shape, std::move(w), r, s);
  }

 private:
  std::shared_ptr<gate> _g;
};

struct fixture {
  fs::path dir = test::make_param_cache(false);
  std::shared_ptr<gate> g = std::make_shared<gate>();
  std::unique_ptr<eng::engine> e;
  fixture() {
    eng::engine_config cfg = test::small_config(dir);
    cfg.gpu_workers_per_device = 3;  // one holds the device, two wait for it
    cfg.gpu_queue_capacity = 4;
    e = std::make_unique<eng::engine>(cfg, std::make_unique<gated_backend>(g));
    e->register_kind(std::make_shared<test::tagged_chain_kind>(
        eng::proof_kind::porep_seal_commit, test::chain_kind().circuits()[0], eng::priority::normal, 2000));
    e->start();
    e->srs().preload("test-chain");
  }
  ~fixture() {
    open(1000);
    e.reset();
    fs::remove_all(dir);
  }
  void open(int n) {
    std::lock_guard lk(g->mu);
    g->passes += n;
    g->cv.notify_all();
  }
  bool worker_busy_with(const std::string& id) {
    for (const auto& w : e->status().workers)
      if (w.busy && w.current_job == id) return true;
    return false;
  }
  std::string stage(const std::string& id) {
    for (const auto& j : e->status().jobs)
      if (j.job_id == id && !j.partitions.empty()) return j.partitions[0].state;
    return "";
  }
};

TEST(cancel_reach, a_partition_waiting_for_the_device_leaves_within_a_second_and_the_device_goes_by_priority) {
  fixture f;
  (void)f.e->submit(tagged("holder", 1));
  {
    std::unique_lock lk(f.g->mu);
    ASSERT_TRUE(f.g->cv.wait_for(lk, 20s, [&] { return f.g->inside == 1; }));
  }
  (void)f.e->submit(tagged("waiter", 2));
  ASSERT_TRUE(wait_until([&] { return f.stage("waiter") == "gpu" && f.worker_busy_with("waiter"); }, 20s));
  std::this_thread::sleep_for(100ms);  // it is blocked on the device, not on its way there
  ASSERT_TRUE(f.worker_busy_with("waiter"));
  const auto t0 = steady::now();
  ASSERT_TRUE(f.e->cancel("waiter"));
  EXPECT_TRUE(wait_until([&] { return !f.worker_busy_with("waiter"); }, 5s));
  const auto left = steady::now() - t0;
  EXPECT_LT(left, 1s) << std::chrono::duration_cast<std::chrono::milliseconds>(left).count() << " ms";

  // LOW waits first, HIGH second; the device, once free, goes to HIGH
  (void)f.e->submit(tagged("low", 3, eng::priority::low));
  ASSERT_TRUE(wait_until([&] { return f.worker_busy_with("low"); }, 20s));
  (void)f.e->submit(tagged("high", 4, eng::priority::high));
  ASSERT_TRUE(wait_until([&] { return f.worker_busy_with("high"); }, 20s));
  std::this_thread::sleep_for(100ms);
  f.open(3);
  for (const char* id : {"holder", "low", "high"}) {
    const auto r = f.e->await(id, 30s);
    EXPECT_EQ(r.status, eng::await_status::completed) << id << ": " << r.error_message;
  }
  std::lock_guard lk(f.g->mu);
  EXPECT_EQ(f.g->order, (std::vector<int>{1, 4, 3}));  // the cancelled waiter (2) never reached the device
}

// 1024 distinct points repeated: the MSM's cost does not depend on the bases.
std::vector<ec::g1_affine> bases(std::size_t n) {
  std::vector<ec::g1_affine> distinct;
  ec::g1_jacobian p = ec::g1_jacobian::from_affine(ec::g1_generator());
  for (int i = 0; i < 1024; ++i) {
    distinct.push_back(p.to_affine());
    p += ec::g1_generator();
  }
  std::vector<ec::g1_affine> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = distinct[i % distinct.size()];
  return out;
}

TEST(cancel_reach, a_cpu_msm_stops_within_a_second_of_its_stop_flag) {
  constexpr std::size_t n = std::size_t(1) << 19;  // seconds of work on 2 cores
  const auto b = bases(n);
  std::mt19937_64 rng(25);
  std::vector<ff::fr> k(n);
  for (auto& x : k) x = ff::fr::random(rng);
  std::atomic<bool> stop{false};
  msm::config cfg;
  cfg.stop = &stop;
  steady::time_point raised{};
  std::thread raiser([&] {
    std::this_thread::sleep_for(200ms);
    raised = steady::now();
    stop = true;
  });
  bool stopped = false;
  try {
    (void)msm::msm<ff::fp>(b, k, cfg);
  } catch (const msm::stopped&) {
    stopped = true;
  }
  const auto end = steady::now();
  raiser.join();
  ASSERT_TRUE(stopped) << "the MSM ran to its end (took less than 200 ms, or ignored the flag)";
  EXPECT_LT(end - raised, 1s) << std::chrono::duration_cast<std::chrono::milliseconds>(end - raised).count() << " ms";
  // a raised flag: no work at all
  const auto t0 = steady::now();
  EXPECT_THROW((void)msm::msm<ff::fp>(b, k, cfg), msm::stopped);
  EXPECT_LT(steady::now() - t0, 1s);
}

}  // namespace
