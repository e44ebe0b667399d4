// SPDX-License-Identifier: Apache-2.0
// What the engine keeps of finished jobs (issue 25; docs/RELIABILITY.md,
// "Process resilience"):
//  * a finished job (completed, failed or cancelled) drops its parsed
//    request at once and keeps its result (before: the request lived for
//    result_ttl, outside the memory budget);
//  * at most max_finished_jobs finished jobs are kept; the oldest are
//    forgotten first (NOT_FOUND), running jobs never;
//  * when the engine goes idle, freed memory is returned to the OS
//    (malloc_trim), and the RSS before and after is logged.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <random>
#include <thread>

#include "daemon_test_support.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;
namespace fs = std::filesystem;

std::atomic<int> live_inputs{0};

// The chain circuit, holding |payload_bytes| like a parsed C1 would; "fail"
// makes synthesis throw.
class payload_job final : public eng::circuit_job {
 public:
  payload_job(std::size_t payload_bytes, bool fail) : _payload(payload_bytes, 0x5a), _fail(fail) { ++live_inputs; }
  ~payload_job() override { --live_inputs; }
  const std::string& circuit_id() const override { return _id; }
  std::size_t num_partitions() const override { return 1; }
  groth16::witness synthesize(std::size_t p, const r1cs::r1cs_shape& shape, const eng::cancel_token& t,
                              groth16::witness reuse) const override {
    t.check();
    if (_fail) throw std::runtime_error("synthesis failed on purpose");
    return test::chain_job(1, 0).synthesize(p, shape, t, std::move(reuse));
  }
  std::vector<ff::fr> public_inputs(std::size_t p) const override { return test::chain_job(1, 0).public_inputs(p); }

 private:
  std::string _id = "test-chain";
  std::vector<std::uint8_t> _payload;
  bool _fail;
};

class payload_kind final : public eng::proof_kind_handler {
 public:
  eng::proof_kind kind() const override { return eng::proof_kind::porep_seal_commit; }
  eng::priority default_priority() const override { return eng::priority::normal; }
  std::vector<eng::circuit_info> circuits() const override { return test::chain_kind().circuits(); }
  std::unique_ptr<eng::circuit_job> parse(const eng::proof_request& req) const override {
    const std::string s(req.vanilla_proof.begin(), req.vanilla_proof.end());
    return std::make_unique<payload_job>(std::size_t(8) << 20, s == "fail");
  }
};

eng::proof_request payload_request(const std::string& id, const std::string& what = "ok") {
  eng::proof_request r;
  r.request_id = id;
  r.kind = eng::proof_kind::porep_seal_commit;
  r.vanilla_proof.assign(what.begin(), what.end());
  return r;
}

struct fixture {
  fs::path dir = test::make_param_cache(false);
  std::unique_ptr<eng::engine> e;
  std::mutex mu;
  std::string log;
  explicit fixture(std::size_t max_finished = 10000) {
    eng::engine_config cfg = test::small_config(dir);
    cfg.max_finished_jobs = max_finished;
    e = std::make_unique<eng::engine>(cfg, eng::make_cpu_backend(1));
    e->set_log([this](int, const std::string& m) {
      std::lock_guard lk(mu);
      log += m + "\n";
    });
    e->register_kind(std::make_shared<payload_kind>());
    e->start();
  }
  ~fixture() {
    e.reset();
    fs::remove_all(dir);
  }
};

bool wait_until(const std::function<bool()>& f, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return f();
}

TEST(job_retention, a_finished_job_keeps_only_its_result) {
  fixture f;
  ASSERT_EQ(live_inputs.load(), 0);
  (void)f.e->submit(payload_request("done-1"));
  auto r = f.e->await("done-1", 60s);
  ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
  EXPECT_TRUE(wait_until([] { return live_inputs.load() == 0; }, 2s)) << live_inputs.load() << " inputs alive";
  r = f.e->await("done-1", 0ms);  // the result is still there
  EXPECT_EQ(r.status, eng::await_status::completed);
  EXPECT_EQ(r.proof.size(), io::proof_size);

  (void)f.e->submit(payload_request("fail-1", "fail"));
  EXPECT_EQ(f.e->await("fail-1", 60s).status, eng::await_status::failed);
  EXPECT_TRUE(wait_until([] { return live_inputs.load() == 0; }, 2s));
  (void)f.e->submit(payload_request("queued-then-cancelled"));
  f.e->cancel("queued-then-cancelled");
  EXPECT_TRUE(wait_until([] { return live_inputs.load() == 0; }, 2s));
  EXPECT_NE(f.e->await("fail-1", 0ms).error_message.find("synthesis failed on purpose"), std::string::npos);
}

TEST(job_retention, at_most_max_finished_jobs_are_kept_oldest_forgotten_first) {
  fixture f(3);
  for (int i = 0; i < 6; ++i) {
    const std::string id = "j" + std::to_string(i);
    (void)f.e->submit(payload_request(id, i % 2 ? "fail" : "ok"));
    ASSERT_NE(f.e->await(id, 60s).status, eng::await_status::timeout);
  }
  (void)f.e->submit(payload_request("last"));  // retirement runs at submit
  for (int i = 0; i < 3; ++i) EXPECT_THROW(f.e->await("j" + std::to_string(i), 0ms), eng::not_found_error) << i;
  for (int i = 3; i < 6; ++i) EXPECT_NO_THROW(f.e->await("j" + std::to_string(i), 0ms)) << i;
  EXPECT_EQ(f.e->await("last", 60s).status, eng::await_status::completed);
}

TEST(job_retention, freed_memory_goes_back_to_the_os_when_idle) {
  fixture f;
  for (int i = 0; i < 4; ++i) (void)f.e->submit(payload_request("m" + std::to_string(i)));
  for (int i = 0; i < 4; ++i) ASSERT_EQ(f.e->await("m" + std::to_string(i), 60s).status, eng::await_status::completed);
  ASSERT_TRUE(wait_until(
      [&] {
        std::lock_guard lk(f.mu);
        return f.log.find("idle: returned freed memory to the OS") != std::string::npos;
      },
      5s))
      << f.log;
  std::lock_guard lk(f.mu);
  const auto at = f.log.find("idle: returned freed memory");
  std::printf("%s\n", f.log.substr(at, f.log.find('\n', at) - at).c_str());
}

}  // namespace
