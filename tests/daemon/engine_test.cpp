// SPDX-License-Identifier: Apache-2.0
// Engine-level tests on the tiny chain kind (no gRPC): memory budget under
// load, a job larger than the budget, cancellation of queued and running
// jobs, request_id idempotency, AwaitProof timeouts, priority order, the
// budget's own rules, and the SRS tiers.
#include <gtest/gtest.h>

#include <cuzk/io/params.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "daemon_test_support.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;

using test::engine_fixture;

bool wait_until(const std::function<bool()>& f, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return f();
}

std::uint64_t partition_charge(eng::engine&) {
  std::uint64_t after = 0;
  const auto shape = r1cs::make_shape(r1cs::examples::chain_circuit{test::chain_steps, std::nullopt});
  const std::uint64_t n = eng::make_cpu_backend(1)->partition_bytes(shape, &after);
  EXPECT_LT(after, n);
  EXPECT_GT(after, shape.num_aux * 32);  // at least the witness
  return n;
}

TEST(engine_budget, tiny_budget_twenty_jobs_never_exceed_and_all_complete) {
  // a budget that holds the hot SRS + shape and ONE partition at a time
  eng::engine_config probe_cfg = test::small_config("");
  std::uint64_t srs = 0, part = 0;
  {
    engine_fixture probe(probe_cfg);
    probe.e->srs().preload("test-chain");
    srs = probe.srs_bytes();
    part = partition_charge(*probe.e);
  }
  eng::engine_config cfg = test::small_config("");
  cfg.total_budget = srs + part + part / 2;
  cfg.priority_reserve = 0;
  cfg.max_parallel_synthesis = 3;
  engine_fixture f(cfg);
  std::vector<std::string> ids;
  for (int i = 0; i < 20; ++i)
    ids.push_back(f.e->submit(test::chain_request("tiny-" + std::to_string(i), 2, 0)).job_id);
  for (const auto& id : ids) {
    const auto r = f.e->await(id, 60s);
    ASSERT_EQ(r.status, eng::await_status::completed) << id << ": " << r.error_message;
    ASSERT_EQ(r.proof.size(), 2 * io::proof_size);
  }
  EXPECT_LE(f.e->budget().peak(), f.e->budget().total());
  EXPECT_GE(f.e->budget().peak(), srs + part);  // partitions really were charged
  // everything but the hot SRS returned once idle (the pooled witness
  // buffers stay charged until then)
  EXPECT_TRUE(wait_until([&] { return f.e->budget().used() == srs; }, 5s)) << f.e->budget().used() << " vs " << srs;
  EXPECT_EQ(f.e->status().completed, 20u);
}

TEST(engine_budget, job_larger_than_the_whole_budget_fails_clearly) {
  eng::engine_config cfg = test::small_config("");
  cfg.total_budget = 4096;  // not even the SRS fits
  cfg.priority_reserve = 0;
  engine_fixture f(cfg);
  const auto id = f.e->submit(test::chain_request("huge", 1, 0)).job_id;
  const auto r = f.e->await(id, 30s);
  ASSERT_EQ(r.status, eng::await_status::failed);
  EXPECT_NE(r.error_message.find("memory budget"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("test-chain"), std::string::npos) << r.error_message;
  EXPECT_EQ(f.e->budget().used(), 0u);
}

TEST(engine_budget, partition_larger_than_budget_fails_clearly) {
  eng::engine_config probe_cfg = test::small_config("");
  std::uint64_t srs = 0;
  {
    engine_fixture probe(probe_cfg);
    probe.e->srs().preload("test-chain");
    srs = probe.srs_bytes();
  }
  eng::engine_config cfg = test::small_config("");
  cfg.total_budget = srs + 100;  // the SRS fits, a partition never will
  cfg.priority_reserve = 0;
  engine_fixture f(cfg);
  const auto r = f.e->await(f.e->submit(test::chain_request("big-part", 1, 0)).job_id, 30s);
  ASSERT_EQ(r.status, eng::await_status::failed);
  EXPECT_NE(r.error_message.find("partition 0 of job big-part"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("needs"), std::string::npos) << r.error_message;
}

// Refused at submit (issue 24), not queued to fail at its first partition.
TEST(engine_jobs, missing_parameter_file_is_refused_at_submit_naming_it) {
  engine_fixture f(test::small_config(""));
  std::filesystem::remove(f.dir / "test-chain-64.params");
  try {
    f.e->submit(test::chain_request("no-params", 2, 0));
    ADD_FAILURE() << "a job without its parameter file was queued";
  } catch (const eng::missing_parameters_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("parameter file test-chain-64.params for circuit 'test-chain' is not in srs.param_cache"),
              std::string::npos)
        << m;
    EXPECT_EQ(m.find(f.dir.string()), std::string::npos) << m;
  }
  EXPECT_TRUE(f.e->status().jobs.empty());
  EXPECT_EQ(f.e->status().failed, 0u);
}

TEST(engine_jobs, submit_after_shutdown_is_refused_with_its_own_error) {
  // the service maps this type, not a message text, to UNAVAILABLE
  engine_fixture f(test::small_config(""));
  f.e->shutdown(0ms);
  EXPECT_THROW(f.e->submit(test::chain_request("late", 1, 0)), eng::shutting_down_error);
}

TEST(engine_jobs, cancel_queued_and_running_jobs_frees_memory) {
  eng::engine_config cfg = test::small_config("");
  cfg.max_parallel_synthesis = 1;
  engine_fixture f(cfg);
  f.e->srs().preload("test-chain");
  const std::uint64_t base = f.e->budget().used();
  const auto running = f.e->submit(test::chain_request("run", 1, 20000)).job_id;
  ASSERT_TRUE(wait_until([&] { return f.e->budget().used() > base; }, 10s));  // its partition holds memory
  const auto queued = f.e->submit(test::chain_request("queued", 1, 0)).job_id;
  EXPECT_FALSE(f.e->cancel(queued));  // not started: was_running = false
  EXPECT_EQ(f.e->await(queued, 1s).status, eng::await_status::cancelled);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(f.e->cancel(running));
  const auto r = f.e->await(running, 1s);
  EXPECT_EQ(r.status, eng::await_status::cancelled);
  EXPECT_TRUE(wait_until([&] { return f.e->budget().used() == base; }, 5s)) << f.e->budget().used() << " vs " << base;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);  // stopped well before its 20 s
  EXPECT_FALSE(f.e->cancel(running));                    // already finished
  EXPECT_THROW(f.e->cancel("no-such-job"), eng::not_found_error);
  // the engine keeps working
  EXPECT_EQ(f.e->await(f.e->submit(test::chain_request("after", 1, 0)).job_id, 30s).status,
            eng::await_status::completed);
}

TEST(engine_jobs, duplicate_request_id_returns_the_same_job_and_await_times_out) {
  engine_fixture f(test::small_config(""));
  const auto a = f.e->submit(test::chain_request("same-id", 1, 300));
  const auto b = f.e->submit(test::chain_request("same-id", 1, 300));
  EXPECT_EQ(a.job_id, "same-id");
  EXPECT_EQ(b.job_id, a.job_id);
  EXPECT_TRUE(b.duplicate);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = f.e->await(a.job_id, 50ms);
  EXPECT_EQ(r.status, eng::await_status::timeout);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 50ms);
  EXPECT_EQ(f.e->await(a.job_id, 30s).status, eng::await_status::completed);
  EXPECT_EQ(f.e->status().completed, 1u);  // one job, not two
  // a completed id returns its job to the same request; another request under it is refused
  EXPECT_TRUE(f.e->submit(test::chain_request("same-id", 1, 300)).duplicate);
  EXPECT_THROW(f.e->submit(test::chain_request("same-id", 1, 0)), eng::already_exists_error);
  const auto c = f.e->submit(test::chain_request("", 1, 0));
  EXPECT_FALSE(c.job_id.empty());
  EXPECT_THROW(f.e->await("unknown", 10ms), eng::not_found_error);
}

TEST(engine_jobs, results_are_purged_after_the_ttl) {
  eng::engine_config cfg = test::small_config("");
  cfg.result_ttl = 100ms;
  engine_fixture f(cfg);
  const auto id = f.e->submit(test::chain_request("ttl", 1, 0)).job_id;
  ASSERT_EQ(f.e->await(id, 30s).status, eng::await_status::completed);
  std::this_thread::sleep_for(150ms);
  (void)f.e->submit(test::chain_request("trigger", 1, 0));  // purges on submit
  EXPECT_THROW(f.e->await(id, 10ms), eng::not_found_error);
}

TEST(engine_jobs, critical_job_overtakes_queued_normal_partitions) {
  eng::engine_config cfg = test::small_config("");
  cfg.max_parallel_synthesis = 1;
  engine_fixture f(cfg, false);
  std::vector<std::string> order;
  std::mutex mu;
  f.e->set_timeline([&](const std::string& line) {
    if (line.find(",JOB_DONE,") == std::string::npos) return;
    std::lock_guard lk(mu);
    const auto a = line.find(",JOB_DONE,") + 10;
    order.push_back(line.substr(a, line.find(',', a) - a));
  });
  f.e->start();
  for (int i = 0; i < 5; ++i) (void)f.e->submit(test::chain_request("porep-" + std::to_string(i), 3, 100));
  std::this_thread::sleep_for(50ms);
  const auto c = f.e->submit(test::chain_request("critical", 1, 0, eng::priority::critical)).job_id;
  ASSERT_EQ(f.e->await(c, 30s).status, eng::await_status::completed);
  const auto st = f.e->status();
  std::uint32_t normal_left = 0;
  for (const auto& q : st.queues) normal_left += q.pending + q.in_progress;
  EXPECT_GE(normal_left, 4u);  // at most one normal job could finish first
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(f.e->await("porep-" + std::to_string(i), 60s).status, eng::await_status::completed);
  ASSERT_TRUE(wait_until(
      [&] {
        std::lock_guard lk(mu);
        return order.size() == 6;
      },
      5s));  // JOB_DONE is emitted just after the waiters wake
  std::lock_guard lk(mu);
  EXPECT_TRUE(order[0] == "critical" || order[1] == "critical");
}

TEST(memory_budget, priorities_reserve_and_errors) {
  eng::memory_budget b(1000, 200);
  EXPECT_EQ(b.limit_for(eng::priority::normal), 800u);
  EXPECT_EQ(b.limit_for(eng::priority::critical), 1000u);
  auto r1 = b.acquire(700, eng::priority::normal, nullptr, "a");
  EXPECT_FALSE(b.try_acquire(200, eng::priority::normal));  // would eat the reserve
  auto r2 = b.try_acquire(200, eng::priority::critical);    // the reserve is for it
  ASSERT_TRUE(r2);
  EXPECT_EQ(b.used(), 900u);
  EXPECT_THROW(b.acquire(801, eng::priority::low, nullptr, "x"), eng::budget_error);
  // a waiting CRITICAL is served before a waiting NORMAL that came first
  std::atomic<int> seq{0};
  int normal_at = 0, critical_at = 0;
  std::thread n([&] {
    auto r = b.acquire(500, eng::priority::normal, nullptr, "n");
    normal_at = ++seq;
  });
  std::this_thread::sleep_for(30ms);
  std::thread c([&] {
    auto r = b.acquire(500, eng::priority::critical, nullptr, "c");
    critical_at = ++seq;
    std::this_thread::sleep_for(30ms);
  });
  std::this_thread::sleep_for(30ms);
  r1.release(700);  // room for exactly one of them
  n.join();
  c.join();
  EXPECT_EQ(critical_at, 1);
  EXPECT_EQ(normal_at, 2);
  r2->release_all();
  EXPECT_EQ(b.used(), 0u);
  EXPECT_LE(b.peak(), 1000u);
  // cancellation while waiting
  auto all = b.acquire(1000, eng::priority::critical, nullptr, "all");
  eng::cancel_token t;
  std::thread w([&] { EXPECT_THROW(b.acquire(10, eng::priority::high, &t, "w"), eng::cancelled_error); });
  std::this_thread::sleep_for(30ms);
  t.cancel();
  w.join();
}

TEST(srs_manager, tiers_refcounts_preload_and_evict) {
  engine_fixture f(test::small_config(""));
  auto& srs = f.e->srs();
  auto find = [&] {
    for (const auto& s : srs.status())
      if (s.circuit_id == "test-chain") return s;
    return eng::srs_entry_status{};
  };
  EXPECT_EQ(find().tier, eng::srs_tier::cold);
  EXPECT_TRUE(find().file_present);
  const auto p1 = srs.preload("test-chain");
  EXPECT_FALSE(p1.already_loaded);
  EXPECT_EQ(find().tier, eng::srs_tier::hot);
  EXPECT_GT(find().size_bytes, 0u);
  EXPECT_EQ(f.e->budget().used(), find().size_bytes + find().shape_bytes);
  EXPECT_TRUE(srs.preload("test-chain").already_loaded);
  {
    auto lease = srs.acquire("test-chain", eng::priority::normal, nullptr);
    EXPECT_EQ(find().ref_count, 1u);
    EXPECT_THROW(srs.evict("test-chain"), std::logic_error);  // in use
    EXPECT_EQ(srs.evict_idle(1), 0u);
  }
  EXPECT_EQ(find().ref_count, 0u);
  const auto ev = srs.evict("test-chain");
  EXPECT_TRUE(ev.was_loaded);
  EXPECT_GT(ev.freed_bytes, 0u);
  EXPECT_EQ(find().tier, eng::srs_tier::cold);
  EXPECT_EQ(f.e->budget().used(), 0u);
  EXPECT_THROW(srs.preload("nope"), eng::not_found_error);
}

TEST(srs_manager, idle_entries_are_evicted_to_warm_under_pressure) {
  eng::engine_config cfg = test::small_config("");
  cfg.eviction_min_idle = 0ms;
  engine_fixture f(cfg);
  f.e->srs().preload("test-chain");
  const auto used = f.e->budget().used();
  ASSERT_GT(used, 0u);
  // ask for everything: the evictor must drop the idle entry
  auto r = f.e->budget().acquire(f.e->budget().total(), eng::priority::critical, nullptr, "pressure");
  for (const auto& s : f.e->srs().status())
    if (s.circuit_id == "test-chain") {
      EXPECT_EQ(s.tier, eng::srs_tier::warm);
    }
}

// The shape cache through the SRS manager: the first load builds the shape
// and writes <stem>.shape next to the parameters, a load after eviction (and
// a new manager, as at a daemon restart) reads it without building; a
// corrupt file is rebuilt; srs.shape_cache = false and shape version 0
// never touch the disk. The load result says which happened.
TEST(srs_manager, shapes_are_cached_next_to_the_parameters) {
  namespace fs = std::filesystem;
  const fs::path dir = test::make_param_cache(false);
  const fs::path shape_file = dir / "test-chain-64.shape";
  std::atomic<int> builds{0};
  auto info_with = [&](std::uint32_t version) {
    eng::circuit_info info = test::chain_kind().circuits().at(0);
    info.make_shape = [&builds, inner = info.make_shape] {
      ++builds;
      return inner();
    };
    info.shape_version = version;
    return info;
  };
  eng::memory_budget budget(1ull << 30);
  auto load = [&](const eng::circuit_info& info, bool cache_on) {
    eng::srs_options o;
    o.param_cache = dir;
    o.shape_cache = cache_on;
    eng::srs_manager m(o, budget);
    m.register_circuit(info);
    auto l = m.acquire("test-chain", eng::priority::normal, nullptr);
    EXPECT_EQ(l->shape.num_inputs, l->params.vk.ic.size());
    return l->shape_note;
  };
  std::string note = load(info_with(1), true);
  EXPECT_EQ(builds, 1);
  EXPECT_NE(note.find("built"), std::string::npos) << note;
  EXPECT_NE(note.find("written to test-chain-64.shape"), std::string::npos) << note;
  ASSERT_TRUE(fs::exists(shape_file));
  note = load(info_with(1), true);
  EXPECT_EQ(builds, 1) << note;  // read, not built
  EXPECT_NE(note.find("read from test-chain-64.shape"), std::string::npos) << note;
  // a flipped payload byte: rebuilt and rewritten
  {
    std::fstream f(shape_file, std::ios::binary | std::ios::in | std::ios::out);
    const auto at = std::streamoff(fs::file_size(shape_file) - 3);
    char c = 0;
    f.seekg(at);
    f.get(c);
    f.seekp(at);
    f.put(char(c ^ 0x5a));
  }
  note = load(info_with(1), true);
  EXPECT_EQ(builds, 2);
  EXPECT_NE(note.find("digest mismatch"), std::string::npos) << note;
  note = load(info_with(1), true);
  EXPECT_EQ(builds, 2) << note;
  // a new shape version: the old file is stale
  note = load(info_with(2), true);
  EXPECT_EQ(builds, 3);
  EXPECT_NE(note.find("stale"), std::string::npos) << note;
  // off, or version 0: built at every load, the file left alone
  const auto before = fs::last_write_time(shape_file);
  note = load(info_with(2), false);
  EXPECT_EQ(builds, 4);
  EXPECT_NE(note.find("not cached on disk"), std::string::npos) << note;
  note = load(info_with(0), true);
  EXPECT_EQ(builds, 5);
  EXPECT_EQ(fs::last_write_time(shape_file), before);
  fs::remove_all(dir);
}

// A loader that keeps the queries on the "device": when it also holds what
// proofs need of the shape (holds_shape), the SRS manager releases the host
// matrices and charges only counts and masks; otherwise they stay. The
// status reports the loader's device bytes and the release.
TEST(srs_manager, host_matrices_are_released_when_the_devices_hold_the_shape) {
  namespace fs = std::filesystem;
  const fs::path dir = test::make_param_cache(false);
  struct fake_resident final : eng::device_resident_queries {
    bool shape = false;
    std::uint64_t device_bytes() const override { return 12345; }
    bool holds_shape() const override { return shape; }
  };
  for (const bool holds : {false, true}) {
    SCOPED_TRACE(holds ? "holds the shape" : "queries only");
    eng::memory_budget budget(1ull << 30);
    eng::srs_options o;
    o.param_cache = dir;
    o.shape_cache = false;
    std::size_t loads = 0, rows_seen = 0;
    o.load_queries = [&](const io::mapped_parameter_file&, const groth16::parameters&, const r1cs::r1cs_shape& sh,
                         const io::read_options&, const eng::cancel_token*) {
      ++loads;
      rows_seen = sh.a.rows();  // the loader sees the full shape
      auto r = std::make_shared<fake_resident>();
      r->shape = holds;
      return std::shared_ptr<eng::device_resident_queries>(r);
    };
    eng::srs_manager m(o, budget);
    const eng::circuit_info info = test::chain_kind().circuits().at(0);
    m.register_circuit(info);
    const r1cs::r1cs_shape full = info.make_shape();
    ASSERT_TRUE(full.has_matrices());
    auto l = m.acquire("test-chain", eng::priority::normal, nullptr);
    EXPECT_EQ(loads, 1u);
    EXPECT_EQ(rows_seen, full.num_constraints);
    EXPECT_EQ(l->shape.num_inputs, full.num_inputs);
    EXPECT_EQ(l->shape.num_aux, full.num_aux);
    EXPECT_EQ(l->shape.num_constraints, full.num_constraints);
    EXPECT_EQ(l->shape.a_aux_density, full.a_aux_density);
    EXPECT_EQ(l->shape.b_input_density, full.b_input_density);
    EXPECT_EQ(l->shape.b_aux_density, full.b_aux_density);
    EXPECT_EQ(l->shape.has_matrices(), !holds);
    eng::srs_entry_status st;
    for (const auto& e : m.status())
      if (e.circuit_id == "test-chain") st = e;
    EXPECT_EQ(st.device_bytes, 12345u);
    EXPECT_EQ(st.shape_matrices_released, holds);
    EXPECT_EQ(st.shape_bytes, eng::shape_bytes(holds ? l->shape : full));
    if (holds) {
      EXPECT_LT(st.shape_bytes * 4, eng::shape_bytes(full));
      EXPECT_NE(l->shape_note.find("host matrices released"), std::string::npos) << l->shape_note;
    }
    EXPECT_EQ(budget.used(), l->charged_bytes);
  }
  fs::remove_all(dir);
}

// The digest policy: a .params file is checked against parameters.json once
// per file identity. A matching file loads and leaves <file>.verified; a new
// manager (a restart) loads it again without hashing (shown by a digest in
// parameters.json that no longer matches: the recorded identity still
// vouches for the unchanged file); a rewritten file (new identity) is hashed
// again and refused for the wrong digest, naming both; a file without an
// entry loads unchecked; a configured parameters.json that is missing fails.
TEST(srs_manager, digests_are_checked_once_per_file_identity) {
  namespace fs = std::filesystem;
  const fs::path dir = test::make_param_cache(false);
  const fs::path params = dir / "test-chain-64.params";
  const fs::path record = dir / "test-chain-64.params.verified";
  const std::string digest = io::file_digest(params);
  const auto write_json = [&](const std::string& d) {
    std::ofstream(dir / "parameters.json")
        << "{\"test-chain-64.params\": {\"cid\": \"x\", \"digest\": \"" << d << "\", \"sector_size\": 2048}}";
  };
  eng::memory_budget budget(1ull << 30);
  const auto load = [&](const fs::path& json = {}) {
    eng::srs_options o;
    o.param_cache = dir;
    o.shape_cache = false;
    o.parameters_json = json;
    eng::srs_manager m(o, budget);
    m.register_circuit(test::chain_kind().circuits().at(0));
    (void)m.acquire("test-chain", eng::priority::normal, nullptr);
  };
  write_json(digest);
  ASSERT_FALSE(fs::exists(record));
  load();
  ASSERT_TRUE(fs::exists(record));
  std::string line;
  std::getline(std::ifstream(record), line);
  EXPECT_NE(line.find(digest), std::string::npos) << line;
  // parameters.json now disagrees, the file is the same: not hashed again
  write_json(std::string(32, '0'));
  EXPECT_NO_THROW(load());
  // the same bytes rewritten (another inode and mtime): hashed, refused
  std::ifstream in(params, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  fs::remove(params);
  std::ofstream(params, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  try {
    load();
    FAIL() << "a file whose digest differs from parameters.json loaded";
  } catch (const io::digest_error& e) {
    EXPECT_EQ(e.actual(), digest);
    EXPECT_NE(std::string(e.what()).find("digest mismatch"), std::string::npos) << e.what();
  }
  // no entry for the file: loaded unchecked
  std::ofstream(dir / "parameters.json") << "{}";
  EXPECT_NO_THROW(load());
  // an explicit parameters.json that does not exist
  EXPECT_THROW(load(dir / "missing.json"), std::runtime_error);
  fs::remove_all(dir);
}

TEST(post_kinds, published_file_names) {
  EXPECT_EQ(test::winning_stem(),
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
            "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e");
  EXPECT_EQ(test::window_stem(),
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
            "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0");
  const auto w32 = circuits::window_post_params(32ull << 30);
  EXPECT_EQ(eng::post_param_file_stem(32ull << 30, w32.challenge_count, w32.sector_count),
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
            "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc");
  const auto n64 = circuits::winning_post_params(64ull << 30);
  EXPECT_EQ(eng::post_param_file_stem(64ull << 30, n64.challenge_count, n64.sector_count),
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
            "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c");
}

}  // namespace
