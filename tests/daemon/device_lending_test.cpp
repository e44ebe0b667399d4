// SPDX-License-Identifier: Apache-2.0
// A partition on the device lends it, at the boundaries of its phases, to a
// waiting partition of strictly higher priority and another circuit (issue
// 19: a WinningPoSt waited out whole PoRep partitions; src/engine/
// device_gate.hpp). The backend here is the CPU backend behind phases: a
// partition of the "long" circuit takes the device for `phases` sleeps of
// `phase` each and calls the engine's phase_boundary between them, as the
// CUDA backend does between its stages. The tests record, per partition,
// when it entered and left the device, and check:
//  * a CRITICAL partition of another circuit takes the device within one
//    phase, while the long partition is suspended; the long partition then
//    finishes; neither the long job's next partition (same circuit: its
//    prover is in use) nor anything else runs inside the lent turn;
//  * equal priority never lends, and neither does a more urgent partition
//    of the same circuit;
//  * a partition cancelled while it lends leaves at once; the device is not
//    left held, and later jobs prove.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cpu_wrapping_backend.hpp"
#include "daemon_test_support.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

constexpr std::size_t phases = 12;
constexpr auto phase = 150ms;

struct device_log {
  std::mutex mu;
  std::condition_variable cv;
  struct span {
    int tag;
    steady::time_point in, out;
    std::size_t phases_done = 0;
    bool finished = false;
  };
  std::vector<span> spans;  // in order of entry
  int inside = 0, most_inside = 0;
};

// The CPU backend behind `phases` phases for tags below 100 (the long
// circuit); the urgent circuit's partitions (tags 100+) take one phase.
class phased_backend final : public test::cpu_wrapping_backend {
 public:
  using test::cpu_wrapping_backend::prove_start;
  explicit phased_backend(std::shared_ptr<device_log> log) : cpu_wrapping_backend("phased"), _log(std::move(log)) {}
  std::unique_ptr<eng::pending_proof> prove_start(std::size_t, const groth16::parameters& params,
                                                  const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                                  const ff::fr& s) override {
    return prove_start(0, params, shape, std::move(w), r, s, eng::cancel_token(), nullptr, {});
  }
  std::unique_ptr<eng::pending_proof> prove_start(std::size_t, const groth16::parameters& params,
                                                  const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                                  const ff::fr& s, const eng::cancel_token& token,
                                                  std::unique_ptr<eng::prepared_witness>,
                                                  const eng::phase_boundary& at_boundary) override {
    const int tag = int((w.inputs.at(1) - ff::fr::from_uint(3000)).to_canonical()[0]);
    std::size_t idx = 0;
    {
      std::lock_guard lk(_log->mu);
      idx = _log->spans.size();
      _log->spans.push_back({tag, steady::now(), {}});
      _log->most_inside = std::max(_log->most_inside, ++_log->inside);
      _log->cv.notify_all();
    }
    const auto leave = [&](bool finished) {
      std::lock_guard lk(_log->mu);
      --_log->inside;
      _log->spans[idx].out = steady::now();
      _log->spans[idx].finished = finished;
      _log->cv.notify_all();
    };
    try {
      const std::size_t n = tag < 100 ? phases : 1;
      for (std::size_t i = 0; i < n; ++i) {
        std::this_thread::sleep_for(phase);
        {
          std::lock_guard lk(_log->mu);
          ++_log->spans[idx].phases_done;
          _log->cv.notify_all();
        }
        if (i + 1 < n && at_boundary) {
          // the device is "idle" here: another partition may use it
          {
            std::lock_guard lk(_log->mu);
            --_log->inside;
          }
          at_boundary();
          std::lock_guard lk(_log->mu);
          _log->most_inside = std::max(_log->most_inside, ++_log->inside);
        }
      }
    } catch (...) {
      {
        std::lock_guard lk(_log->mu);
        ++_log->inside;  // leave() takes it off again
      }
      leave(false);
      throw;
    }
    auto out = cpu().prove_start(0, params, shape, std::move(w), r, s, token);
    leave(true);
    return out;
  }

 private:
  std::shared_ptr<device_log> _log;
};

struct fixture {
  fs::path dir = test::make_param_cache(false);
  std::shared_ptr<device_log> log = std::make_shared<device_log>();
  std::unique_ptr<eng::engine> e;
  fixture() {
    const auto shape = r1cs::make_shape(r1cs::examples::chain_circuit{test::chain_steps, std::nullopt});
    test::write_params(dir, "long-64", shape, 21);
    test::write_params(dir, "urgent-64", shape, 22);
    eng::engine_config cfg = test::small_config(dir);
    cfg.gpu_workers_per_device = 2;  // one holds the device, one waits with the next long partition
    cfg.gpu_queue_capacity = 4;
    e = std::make_unique<eng::engine>(cfg, std::make_unique<phased_backend>(log));
    // x0 = 3000 + tag: the backend tells partitions apart from their witness
    e->register_kind(std::make_shared<test::tagged_chain_kind>(
        eng::proof_kind::porep_seal_commit, test::chain_circuit("long", "long-64"), eng::priority::normal, 3000));
    e->register_kind(std::make_shared<test::tagged_chain_kind>(
        eng::proof_kind::winning_post, test::chain_circuit("urgent", "urgent-64"), eng::priority::critical, 3000));
    e->start();
    e->srs().preload("long");
    e->srs().preload("urgent");
  }
  ~fixture() {
    e.reset();
    fs::remove_all(dir);
  }
  static eng::proof_request request(const std::string& id, eng::proof_kind k, int tag,
                                    eng::priority p = eng::priority::unspecified) {
    return test::tagged_request(id, k, tag, p);
  }
  /// Waits until partition |tag| has entered the device and done |done| phases.
  bool wait_phases(int tag, std::size_t done) {
    std::unique_lock lk(log->mu);
    return log->cv.wait_for(lk, 30s, [&] {
      for (const auto& s : log->spans)
        if (s.tag == tag && s.phases_done >= done) return true;
      return false;
    });
  }
  device_log::span span_of(int tag) {
    std::lock_guard lk(log->mu);
    for (const auto& s : log->spans)
      if (s.tag == tag) return s;
    return {-1, {}, {}};
  }
  std::vector<int> order() {
    std::lock_guard lk(log->mu);
    std::vector<int> o;
    for (const auto& s : log->spans) o.push_back(s.tag);
    return o;
  }
};

double ms(steady::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

TEST(device_lending, a_critical_partition_of_another_circuit_takes_the_device_within_one_phase) {
  fixture f;
  f.e->submit(fixture::request("long-1", eng::proof_kind::porep_seal_commit, 1));
  // long-2 only once long-1 is on the device: on a loaded machine its
  // synthesis could otherwise finish first and take the device before long-1
  ASSERT_TRUE(f.wait_phases(1, 0));
  f.e->submit(fixture::request("long-2", eng::proof_kind::porep_seal_commit, 2));  // waits behind long-1
  ASSERT_TRUE(f.wait_phases(1, 2));
  const auto t_submit = steady::now();
  f.e->submit(fixture::request("urgent", eng::proof_kind::winning_post, 100));
  for (const char* id : {"urgent", "long-1", "long-2"}) {
    const auto r = f.e->await(id, 60s);
    ASSERT_EQ(r.status, eng::await_status::completed) << id << ": " << r.error_message;
  }
  const auto l1 = f.span_of(1), u = f.span_of(100), l2 = f.span_of(2);
  ASSERT_TRUE(l1.finished && u.finished && l2.finished);
  // the urgent partition ran inside long-1's time on the device, not after it
  EXPECT_LT(u.in, l1.out) << "the CRITICAL partition waited for the whole long partition";
  EXPECT_LT(u.out, l1.out);
  // its wait: synthesis and queueing (small) plus at most one phase
  EXPECT_LT(ms(u.in - t_submit), ms(phase) * 3 + 1500)
      << "waited " << ms(u.in - t_submit) << " ms for a device lent at every " << ms(phase) << " ms";
  EXPECT_EQ(l1.phases_done, phases);
  // long-2 (same circuit as the lender) never ran inside the lent turn
  EXPECT_EQ(f.order(), (std::vector<int>{1, 100, 2}));
  EXPECT_GE(l2.in, l1.out);
  std::lock_guard lk(f.log->mu);
  EXPECT_EQ(f.log->most_inside, 1) << "two partitions worked on the device at once";
}

TEST(device_lending, equal_priority_and_the_same_circuit_never_take_a_lent_turn) {
  fixture f;
  f.e->submit(fixture::request("long-1", eng::proof_kind::porep_seal_commit, 1));
  ASSERT_TRUE(f.wait_phases(1, 1));
  // another circuit at the same (normal) priority, and the long circuit at
  // critical priority: neither is a reason to lend
  f.e->submit(fixture::request("urgent-normal", eng::proof_kind::winning_post, 101, eng::priority::normal));
  f.e->submit(fixture::request("long-critical", eng::proof_kind::porep_seal_commit, 3, eng::priority::critical));
  for (const char* id : {"long-1", "urgent-normal", "long-critical"}) {
    const auto r = f.e->await(id, 60s);
    ASSERT_EQ(r.status, eng::await_status::completed) << id << ": " << r.error_message;
  }
  const auto l1 = f.span_of(1);
  for (const int tag : {101, 3}) EXPECT_GE(f.span_of(tag).in, l1.out) << "tag " << tag << " took a lent turn";
  // once free, the device goes by priority: the critical one first
  EXPECT_EQ(f.order(), (std::vector<int>{1, 3, 101}));
}

TEST(device_lending, a_partition_cancelled_while_it_lends_leaves_and_the_device_stays_usable) {
  fixture f;
  f.e->submit(fixture::request("long-1", eng::proof_kind::porep_seal_commit, 1));
  ASSERT_TRUE(f.wait_phases(1, 1));
  f.e->submit(fixture::request("urgent", eng::proof_kind::winning_post, 100));
  {
    std::unique_lock lk(f.log->mu);
    ASSERT_TRUE(f.log->cv.wait_for(lk, 30s, [&] { return f.log->spans.size() == 2; }));  // urgent entered
  }
  const auto t0 = steady::now();
  ASSERT_TRUE(f.e->cancel("long-1"));
  const auto r1 = f.e->await("long-1", 30s);
  EXPECT_EQ(r1.status, eng::await_status::cancelled);
  const auto ru = f.e->await("urgent", 30s);
  ASSERT_EQ(ru.status, eng::await_status::completed) << ru.error_message;
  // the cancelled lender's worker left without taking the device back
  const auto l1 = f.span_of(1);
  EXPECT_FALSE(l1.finished);
  EXPECT_LT(l1.phases_done, phases);
  EXPECT_LT(ms(l1.out - t0), 1000.0) << "the cancelled lender left " << ms(l1.out - t0) << " ms after the cancel";
  // and the device is free for the next jobs
  f.e->submit(fixture::request("long-3", eng::proof_kind::porep_seal_commit, 3));
  f.e->submit(fixture::request("urgent-2", eng::proof_kind::winning_post, 102));
  for (const char* id : {"long-3", "urgent-2"}) {
    const auto r = f.e->await(id, 60s);
    ASSERT_EQ(r.status, eng::await_status::completed) << id << ": " << r.error_message;
  }
}

}  // namespace
