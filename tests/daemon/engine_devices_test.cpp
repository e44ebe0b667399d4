// SPDX-License-Identifier: Apache-2.0
// The engine with several devices, simulated on the CPU: a recording
// backend around the CPU backend notes which device ran each partition,
// how many prove_start calls ran at once on one device (the device lock
// allows one), and on which devices each circuit was first used (where a
// GPU backend uploads that circuit's parameters). Also parameters
// installed from memory (srs_manager::install), as the full-size GPU
// benchmark does with parameters computed on the GPU. And the backend's
// prepare hook: run before the device gate (it overlaps the other worker's
// prove_start on the one device), its result handed to the prove_start of
// the same witness, timed as the "prepare" stage.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "daemon_test_support.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;

struct device_record {
  std::mutex mu;
  std::map<std::size_t, std::size_t> partitions_per_device;
  std::set<std::pair<std::size_t, const void*>> first_use;  // (device, params address)
  std::map<std::size_t, int> running;
  int max_running_on_one_device = 0;
  int max_running_total = 0;
  int running_total = 0;
};

/// The CPU backend with |devices| virtual devices under a test backend's
/// name: everything forwarded; |unprepared| counts the plain prove_start
/// calls (the engine makes the prepared call when prepare returned a form).
class cpu_wrapping_backend : public eng::prover_backend {
 public:
  using eng::prover_backend::prove_start;
  explicit cpu_wrapping_backend(std::string name, std::size_t devices = 1)
      : _name(std::move(name)), _inner(eng::make_cpu_backend(devices)) {}
  std::string name() const override { return _name + "(" + _inner->name() + ")"; }
  std::vector<eng::device_info> devices() const override { return _inner->devices(); }
  std::uint64_t partition_bytes(const r1cs::r1cs_shape& s, std::uint64_t* after) const override {
    return _inner->partition_bytes(s, after);
  }
  std::unique_ptr<eng::pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                                  const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                                  const ff::fr& s) override {
    ++unprepared;
    return _inner->prove_start(device, params, shape, std::move(w), r, s);
  }
  std::unique_ptr<eng::pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                                  const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                                  const ff::fr& s, const eng::cancel_token&,
                                                  std::unique_ptr<eng::prepared_witness> p,
                                                  const eng::phase_boundary&) override {
    return prove_prepared({device, &params, &shape, r, s}, std::move(w), p.get());
  }
  groth16::proof finalize(std::unique_ptr<eng::pending_proof> p) override { return _inner->finalize(std::move(p)); }

  std::atomic<int> unprepared{0};

 protected:
  /// prove_start's arguments besides the witness and the prepared form.
  struct call {
    std::size_t device;
    const groth16::parameters* params;
    const r1cs::r1cs_shape* shape;
    ff::fr r, s;
  };
  /// The prepared prove_start (|p| may be null): by default the plain one,
  /// which a test backend may override too.
  virtual std::unique_ptr<eng::pending_proof> prove_prepared(const call& c, groth16::witness&& w,
                                                             const eng::prepared_witness* p) {
    (void)p;
    return prove_start(c.device, *c.params, *c.shape, std::move(w), c.r, c.s);
  }
  std::unique_ptr<eng::pending_proof> prove_plain(const call& c, groth16::witness&& w) {
    return _inner->prove_start(c.device, *c.params, *c.shape, std::move(w), c.r, c.s);
  }
  eng::prover_backend& inner() { return *_inner; }

 private:
  std::string _name;
  std::unique_ptr<eng::prover_backend> _inner;
};

/// The CPU backend with |n| virtual devices, recording placement.
class recording_backend final : public cpu_wrapping_backend {
 public:
  using cpu_wrapping_backend::prove_start;
  recording_backend(std::size_t n, device_record& rec, std::chrono::milliseconds hold)
      : cpu_wrapping_backend("recording", n), _rec(rec), _hold(hold) {}
  std::unique_ptr<eng::pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                                  const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                                  const ff::fr& s) override {
    {
      std::lock_guard lk(_rec.mu);
      _rec.partitions_per_device[device]++;
      _rec.first_use.insert({device, &params});
      const int now = ++_rec.running[device];
      _rec.max_running_on_one_device = std::max(_rec.max_running_on_one_device, now);
      _rec.max_running_total = std::max(_rec.max_running_total, ++_rec.running_total);
    }
    std::this_thread::sleep_for(_hold);  // a device that is busy for a while
    auto out = inner().prove_start(device, params, shape, std::move(w), r, s);
    std::lock_guard lk(_rec.mu);
    --_rec.running[device];
    --_rec.running_total;
    return out;
  }

 private:
  device_record& _rec;
  std::chrono::milliseconds _hold;
};

struct devices_fixture {
  std::filesystem::path dir = test::make_param_cache(false);
  device_record rec;
  std::unique_ptr<eng::engine> e;
  devices_fixture(std::size_t devices, std::size_t workers_per_device) {
    eng::engine_config cfg = test::small_config(dir);
    cfg.gpu_workers_per_device = workers_per_device;
    cfg.max_parallel_synthesis = 4;
    cfg.gpu_queue_capacity = 2 * devices * workers_per_device;
    e = std::make_unique<eng::engine>(cfg, std::make_unique<recording_backend>(devices, rec, 30ms));
    e->register_kind(std::make_shared<test::chain_kind>());
    e->start();
  }
  ~devices_fixture() {
    e.reset();
    std::filesystem::remove_all(dir);
  }
};

TEST(engine_devices, four_devices_all_busy_one_proof_at_a_time_each) {
  devices_fixture f(4, 2);
  const auto st = f.e->status();
  ASSERT_EQ(st.devices.size(), 4u);
  EXPECT_EQ(st.workers.size(), 12u);  // (gpu_workers_per_device + 1 for HIGH/CRITICAL) x devices
  for (int i = 0; i < 4; ++i) f.e->submit(test::chain_request("job" + std::to_string(i), 8, 0));
  for (int i = 0; i < 4; ++i) {
    const auto r = f.e->await("job" + std::to_string(i), 60s);
    ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
    EXPECT_EQ(r.proof.size(), 8u * 192u);
  }
  std::lock_guard lk(f.rec.mu);
  std::size_t total = 0;
  for (std::size_t d = 0; d < 4; ++d) {
    EXPECT_GT(f.rec.partitions_per_device[d], 0u) << "device " << d << " never proved";
    total += f.rec.partitions_per_device[d];
  }
  EXPECT_EQ(total, 32u);
  EXPECT_EQ(f.rec.max_running_on_one_device, 1) << "two prove_start calls ran at once on one device";
  EXPECT_GE(f.rec.max_running_total, 2) << "devices never worked at the same time";
  // one circuit: each device saw the same (hot, resident) parameters
  std::set<const void*> addresses;
  for (const auto& [dev, addr] : f.rec.first_use) addresses.insert(addr);
  EXPECT_EQ(addresses.size(), 1u);
  EXPECT_EQ(f.rec.first_use.size(), 4u);
}

TEST(engine_devices, worker_status_names_each_device) {
  devices_fixture f(3, 1);
  const auto st = f.e->status();
  std::set<std::size_t> devs;
  for (const auto& w : st.workers) devs.insert(w.device);
  EXPECT_EQ(devs, (std::set<std::size_t>{0, 1, 2}));
}

TEST(srs_manager, installed_parameters_prove_and_are_never_evicted) {
  const auto dir = test::make_param_cache(false);
  eng::engine_config cfg = test::small_config("");
  cfg.param_cache = dir / "empty";  // no files at all: only the installed entry can serve
  cfg.eviction_min_idle = 0ms;
  auto e = std::make_unique<eng::engine>(cfg, eng::make_cpu_backend(1));
  e->register_kind(std::make_shared<test::chain_kind>());
  const auto shape = r1cs::make_shape(r1cs::examples::chain_circuit{test::chain_steps, std::nullopt});
  auto params = groth16::generate_parameters(shape, 77);
  EXPECT_THROW(e->srs().install("nope", params, shape), eng::not_found_error);
  auto bad_shape = shape;
  bad_shape.num_inputs += 1;
  EXPECT_THROW(e->srs().install("test-chain", params, bad_shape), std::invalid_argument);
  e->srs().install("test-chain", params, shape);
  const auto used = e->budget().used();
  EXPECT_GT(used, 0u);
  e->start();
  e->submit(test::chain_request("a", 2, 0));
  const auto r = e->await("a", 60s);
  ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
  const auto proofs = io::read_proofs(r.proof, 2);
  const auto pvk = groth16::prepare_verifying_key(params.vk);
  for (std::size_t p = 0; p < 2; ++p) {
    const std::vector<ff::fr> x{test::chain_x0(p), test::chain_out(test::chain_x0(p))};
    EXPECT_TRUE(groth16::verify(pvk, proofs[p], x)) << "partition " << p;
  }
  // neither the evictor nor EvictSRS may drop it: there is no file to reload
  EXPECT_EQ(e->srs().evict_idle(used), 0u);
  EXPECT_THROW(e->srs().evict("test-chain"), std::logic_error);
  for (const auto& s : e->srs().status())
    if (s.circuit_id == "test-chain") {
      EXPECT_EQ(s.tier, eng::srs_tier::hot);
    }
  e.reset();
  std::filesystem::remove_all(dir);
}

// ---- prepare: the backend's device-free work, before the device gate ----

/// An engine over |backend| with the chain kind, started.
std::unique_ptr<eng::engine> chain_engine(const eng::engine_config& cfg, std::unique_ptr<eng::prover_backend> backend) {
  auto e = std::make_unique<eng::engine>(cfg, std::move(backend));
  e->register_kind(std::make_shared<test::chain_kind>());
  e->start();
  return e;
}

/// A chain job of |parts| partitions through |e|, waited for.
eng::job_result prove_chain(eng::engine& e, const std::string& id, std::size_t parts) {
  e.submit(test::chain_request(id, parts, 0));
  return e.await(id, 60s);
}

/// Tags the witness it was made from, so prove_start can check it got its own.
class tagged_prepared final : public eng::prepared_witness {
 public:
  std::size_t values = 0;
  ff::fr last;
};

/// The CPU backend with one device; prepare takes |hold| and records how
/// often it overlapped a running prove_start (impossible if it ran under
/// the device gate: there is one device); prove_start takes |hold| too and
/// checks that the prepared object is its witness's.
class preparing_backend final : public cpu_wrapping_backend {
 public:
  using cpu_wrapping_backend::prove_start;
  explicit preparing_backend(std::chrono::milliseconds hold) : cpu_wrapping_backend("preparing"), _hold(hold) {}
  std::unique_ptr<eng::prepared_witness> prepare(const r1cs::r1cs_shape&, const groth16::witness& w) override {
    if (proving.load()) ++overlapped;
    std::this_thread::sleep_for(_hold);
    if (proving.load()) ++overlapped;
    auto p = std::make_unique<tagged_prepared>();
    p->values = w.inputs.size() + w.aux.size();
    p->last = w.aux.empty() ? w.inputs.back() : w.aux.back();
    ++prepared;
    return p;
  }
  std::unique_ptr<eng::pending_proof> prove_prepared(const call& c, groth16::witness&& w,
                                                     const eng::prepared_witness* p) override {
    const auto* t = dynamic_cast<const tagged_prepared*>(p);
    if (t && t->values == w.inputs.size() + w.aux.size() && t->last == (w.aux.empty() ? w.inputs.back() : w.aux.back()))
      ++matched;
    proving = true;
    std::this_thread::sleep_for(_hold);
    auto out = prove_plain(c, std::move(w));
    proving = false;
    return out;
  }

  std::atomic<bool> proving{false};
  std::atomic<int> overlapped{0}, prepared{0}, matched{0};

 private:
  std::chrono::milliseconds _hold;
};

TEST(engine_devices, prepare_runs_outside_the_device_gate_and_reaches_its_prove_start) {
  const std::filesystem::path dir = test::make_param_cache(false);
  eng::engine_config cfg = test::small_config(dir);
  cfg.gpu_workers_per_device = 2;
  cfg.max_parallel_synthesis = 4;
  cfg.gpu_queue_capacity = 4;
  auto owned = std::make_unique<preparing_backend>(40ms);
  preparing_backend& b = *owned;
  {
    const auto e = chain_engine(cfg, std::move(owned));
    const auto r = prove_chain(*e, "prep", 8);
    ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
    EXPECT_EQ(r.proof.size(), 8u * 192u);
    EXPECT_EQ(b.prepared.load(), 8);
    EXPECT_EQ(b.matched.load(), 8) << "a prove_start did not get the prepared form of its own witness";
    EXPECT_EQ(b.unprepared.load(), 0);
    // two workers, one device: the other worker's prepare runs while one proves
    EXPECT_GT(b.overlapped.load(), 0) << "prepare never overlapped a prove_start: it ran under the device gate";
    ASSERT_EQ(r.timings.partitions.size(), 8u);
    for (const auto& p : r.timings.partitions) {
      bool seen = false;
      for (const auto& [name, ms] : p.stages) seen |= name == "prepare" && ms >= 30.0;
      EXPECT_TRUE(seen) << "partition " << p.partition << " has no prepare stage of the backend's 40 ms";
    }
  }
  std::filesystem::remove_all(dir);
}

// ---- a prepared form that replaces the witness -------------------------------------

/// Holds the witness's values, as a coded witness does.
class replacing_prepared final : public eng::prepared_witness {
 public:
  groth16::witness copy;
};

/// The CPU backend with one device whose prepare returns a form that
/// replaces the witness; prove_start then counts the empty witnesses it
/// gets, holds the device for |hold| and proves from the form. |fail|: every
/// prove_start throws as a failed device would (the fallback's case).
class replacing_backend final : public cpu_wrapping_backend {
 public:
  using cpu_wrapping_backend::prove_start;
  replacing_backend(std::chrono::milliseconds hold, bool fail)
      : cpu_wrapping_backend("replacing"), _hold(hold), _fail(fail) {}
  std::unique_ptr<eng::prepared_witness> prepare(const r1cs::r1cs_shape&, const groth16::witness& w) override {
    auto p = std::make_unique<replacing_prepared>();
    p->copy = w;
    p->replaces_witness = true;
    return p;
  }
  std::unique_ptr<eng::pending_proof> prove_prepared(const call& c, groth16::witness&& w,
                                                     const eng::prepared_witness* p) override {
    if (_fail) throw std::runtime_error("replacing backend: the device failed (test)");
    const auto* rp = dynamic_cast<const replacing_prepared*>(p);
    if (!rp) throw std::logic_error("replacing backend: prove_start without its prepared form");
    if (w.inputs.empty() && w.aux.empty()) ++empty_witnesses;
    std::this_thread::sleep_for(_hold);
    groth16::witness copy = rp->copy;
    return prove_plain(c, std::move(copy));
  }

  std::atomic<int> empty_witnesses{0};

 private:
  std::chrono::milliseconds _hold;
  bool _fail;
};

// One synthesis worker, a device held 300 ms per partition: each witness
// buffer goes to the pool when prepare replaced it, so every synthesis after
// the first reuses the one before it while the first partition is still on
// the device (given back only after the device, partitions 2-4 would each
// need a fresh buffer). The proofs verify, prove_start never sees the
// witness, and a second job leaves the budget where the first left it.
TEST(engine_devices, a_replacing_prepared_form_sends_the_witness_to_the_pool_before_the_device) {
  const std::filesystem::path dir = test::make_param_cache(false);
  eng::engine_config cfg = test::small_config(dir);
  cfg.max_parallel_synthesis = 1;
  cfg.gpu_queue_capacity = 4;
  auto owned = std::make_unique<replacing_backend>(300ms, false);
  replacing_backend& b = *owned;
  {
    const auto e = chain_engine(cfg, std::move(owned));
    const auto r = prove_chain(*e, "rep-1", 4);
    ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
    EXPECT_EQ(r.proof.size(), 4u * 192u);
    EXPECT_EQ(b.empty_witnesses.load(), 4) << "prove_start got a witness the prepared form replaced";
    EXPECT_EQ(b.unprepared.load(), 0);
    const eng::engine_status first = e->status();
    EXPECT_GE(first.witness_pool_reused, 3u) << "a synthesis did not get the buffer its predecessor gave back";
    for (const auto& p : r.timings.partitions) {
      bool prepare = false, queue = false, before = false;
      for (const auto& [name, ms] : p.stages) {
        if (name == "prepare") prepare = true, before = !queue;
        if (name == "gpu_queue_wait") queue = true;
      }
      EXPECT_TRUE(prepare && before) << "partition " << p.partition << ": no prepare stage before the queue";
    }
    const auto r2 = prove_chain(*e, "rep-2", 4);
    ASSERT_EQ(r2.status, eng::await_status::completed) << r2.error_message;
    EXPECT_EQ(e->status().budget_used, first.budget_used) << "the charge moved between two equal jobs";
  }
  std::filesystem::remove_all(dir);
}

// Behind the CPU fallback the witness stays with the partition even when
// the primary's form would replace it: the primary fails every partition
// and the fallback proves each one from its witness.
TEST(engine_devices, the_fallback_keeps_a_witness_its_primary_would_replace) {
  const std::filesystem::path dir = test::make_param_cache(false);
  eng::engine_config cfg = test::small_config(dir);
  std::atomic<int> notices{0};
  auto owned = eng::make_fallback_backend(std::make_unique<replacing_backend>(0ms, true), eng::make_cpu_backend(1),
                                          [&](const std::string&) { ++notices; });
  {
    const auto e = chain_engine(cfg, std::move(owned));
    const auto r = prove_chain(*e, "fb", 3);
    ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
    EXPECT_EQ(r.proof.size(), 3u * 192u);
    EXPECT_EQ(notices.load(), 3);
  }
  std::filesystem::remove_all(dir);
}

// ---- a witness synthesized straight into the coded form ---------------------------

/// The chain kind whose jobs also synthesize coded witnesses (here: the
/// whole witness coded at once; the PoRep kind writes the coded form
/// without it), counting both calls.
struct synthesis_counts {
  std::atomic<int> whole{0}, coded{0}, coded_refused{0};
};
class coding_chain_job final : public eng::circuit_job {
 public:
  coding_chain_job(std::unique_ptr<eng::circuit_job> inner, synthesis_counts& n) : _inner(std::move(inner)), _n(n) {}
  const std::string& circuit_id() const override { return _inner->circuit_id(); }
  std::size_t num_partitions() const override { return _inner->num_partitions(); }
  groth16::witness synthesize(std::size_t p, const r1cs::r1cs_shape& shape, const eng::cancel_token& t,
                              groth16::witness reuse) const override {
    ++_n.whole;
    return _inner->synthesize(p, shape, t, std::move(reuse));
  }
  bool synthesizes_coded() const override { return true; }
  std::optional<groth16::coded_witness> synthesize_coded(std::size_t p, const r1cs::r1cs_shape& shape,
                                                         const eng::cancel_token& t,
                                                         std::size_t max_others) const override {
    ++_n.coded;
    const groth16::witness w = _inner->synthesize(p, shape, t, {});
    std::optional<groth16::coded_witness> cw = groth16::encode_witness(w.inputs, w.aux, max_others);
    if (!cw) ++_n.coded_refused;
    return cw;
  }
  std::vector<ff::fr> public_inputs(std::size_t p) const override { return _inner->public_inputs(p); }

 private:
  std::unique_ptr<eng::circuit_job> _inner;
  synthesis_counts& _n;
};
class coding_chain_kind final : public eng::proof_kind_handler {
 public:
  explicit coding_chain_kind(synthesis_counts& n) : _n(n) {}
  eng::proof_kind kind() const override { return _chain.kind(); }
  eng::priority default_priority() const override { return _chain.default_priority(); }
  std::vector<eng::circuit_info> circuits() const override { return _chain.circuits(); }
  std::unique_ptr<eng::circuit_job> parse(const eng::proof_request& req) const override {
    return std::make_unique<coding_chain_job>(_chain.parse(req), _n);
  }

 private:
  test::chain_kind _chain;
  synthesis_counts& _n;
};

/// Holds a coded witness, as the CUDA backend's prepared form does.
class coded_prepared final : public eng::prepared_witness {
 public:
  groth16::coded_witness cw;
};

/// The CPU backend with one device that proves from a coded witness alone
/// when |max_others| is set (prove_start decodes it), charging as the CUDA
/// backend does: the whole witness plus its coded form's bound, both
/// freed after prove_start.
class coded_backend final : public cpu_wrapping_backend {
 public:
  using cpu_wrapping_backend::prove_start;
  explicit coded_backend(std::optional<std::size_t> max_others)
      : cpu_wrapping_backend("coded"), _max_others(max_others) {}
  std::uint64_t partition_bytes(const r1cs::r1cs_shape& s, std::uint64_t* after) const override {
    const std::uint64_t witness = std::uint64_t(s.num_variables()) * sizeof(ff::fr) + coded_bytes(s.num_variables());
    *after = witness;
    return witness + 4096;
  }
  std::optional<std::size_t> coded_witness_max_others(const r1cs::r1cs_shape&) const override { return _max_others; }
  std::unique_ptr<eng::prepared_witness> prepare_coded(const r1cs::r1cs_shape&, groth16::coded_witness&& cw) override {
    auto p = std::make_unique<coded_prepared>();
    p->cw = std::move(cw);
    p->replaces_witness = true;
    return p;
  }
  std::unique_ptr<eng::pending_proof> prove_prepared(const call& c, groth16::witness&& w,
                                                     const eng::prepared_witness* p) override {
    const auto* cp = dynamic_cast<const coded_prepared*>(p);
    if (!cp) {
      ++from_whole;
      return prove_plain(c, std::move(w));
    }
    if (!w.inputs.empty() || !w.aux.empty())
      throw std::logic_error("coded backend: a whole witness beside the coded one");
    ++from_coded;
    std::vector<ff::fr> all = groth16::decode_witness(cp->cw);
    groth16::witness whole;
    whole.inputs.assign(all.begin(), all.begin() + std::ptrdiff_t(c.shape->num_inputs));
    whole.aux.assign(all.begin() + std::ptrdiff_t(c.shape->num_inputs), all.end());
    return prove_plain(c, std::move(whole));
  }
  std::uint64_t coded_bytes(std::size_t n) const {
    return groth16::coded_witness_bytes_bound(n, _max_others.value_or(n));
  }

  std::atomic<int> from_coded{0}, from_whole{0};

 private:
  std::optional<std::size_t> _max_others;
};

/// An engine over |backend| with the coding chain kind, started.
std::unique_ptr<eng::engine> coding_engine(const eng::engine_config& cfg, std::unique_ptr<eng::prover_backend> backend,
                                           synthesis_counts& n) {
  auto e = std::make_unique<eng::engine>(cfg, std::move(backend));
  e->register_kind(std::make_shared<coding_chain_kind>(n));
  e->start();
  return e;
}

// A backend that proves from the coded form gets it straight from the kind:
// no whole witness is synthesized, none reaches the pool, every proof is
// made from the coded form and verifies (the engine's own check), and the
// charge returns to where it was.
TEST(engine_devices, a_coded_synthesis_never_holds_a_whole_witness) {
  const std::filesystem::path dir = test::make_param_cache(false);
  eng::engine_config cfg = test::small_config(dir);
  synthesis_counts n;
  auto owned = std::make_unique<coded_backend>(std::size_t(1000));
  coded_backend& b = *owned;
  {
    const auto e = coding_engine(cfg, std::move(owned), n);
    const auto r = prove_chain(*e, "coded-1", 4);
    ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
    EXPECT_EQ(r.proof.size(), 4u * 192u);
    EXPECT_EQ(n.coded.load(), 4);
    EXPECT_EQ(n.whole.load(), 0) << "a whole witness was synthesized for a backend that proves from the coded form";
    EXPECT_EQ(b.from_coded.load(), 4);
    EXPECT_EQ(b.from_whole.load(), 0);
    const eng::engine_status first = e->status();
    EXPECT_EQ(first.witness_pool_idle, 0u) << "a whole witness buffer reached the pool";
    EXPECT_EQ(first.witness_pool_reused, 0u);
    const auto r2 = prove_chain(*e, "coded-2", 4);
    ASSERT_EQ(r2.status, eng::await_status::completed) << r2.error_message;
    EXPECT_EQ(e->status().budget_used, first.budget_used) << "the charge moved between two equal jobs";
  }
  std::filesystem::remove_all(dir);
}

// The charge of a coded partition is the backend's less the whole witness,
// plus a second coded bound while synthesis joins its blocks: one partition
// at a time, the budget's peak moves by exactly the witness's bytes less
// that bound against the same backend without the coded path.
TEST(engine_devices, a_coded_partition_is_charged_without_the_whole_witness) {
  const std::filesystem::path dir = test::make_param_cache(false);
  eng::engine_config cfg = test::small_config(dir);
  cfg.max_parallel_synthesis = 1;
  const auto peak_of = [&](std::optional<std::size_t> max_others, std::uint64_t* witness, std::uint64_t* join) {
    synthesis_counts n;
    auto owned = std::make_unique<coded_backend>(max_others);
    coded_backend& b = *owned;
    const auto e = coding_engine(cfg, std::move(owned), n);
    const auto r = prove_chain(*e, max_others ? "charge-coded" : "charge-whole", 1);
    EXPECT_EQ(r.status, eng::await_status::completed) << r.error_message;
    const r1cs::r1cs_shape shape = r1cs::make_shape(r1cs::examples::chain_circuit{test::chain_steps, std::nullopt});
    *witness = std::uint64_t(shape.num_variables()) * sizeof(ff::fr);
    *join = b.coded_bytes(shape.num_variables());
    EXPECT_EQ(n.coded.load(), max_others ? 1 : 0);
    return e->status().budget_peak;
  };
  std::uint64_t witness = 0, join = 0;
  const std::uint64_t whole_peak = peak_of(std::nullopt, &witness, &join);
  const std::uint64_t coded_peak = peak_of(std::size_t(1000), &witness, &join);
  // (the chain's values are nearly all other: here the coded bound is the larger)
  EXPECT_EQ(std::int64_t(whole_peak) - std::int64_t(coded_peak), std::int64_t(witness) - std::int64_t(join));
  std::filesystem::remove_all(dir);
}

// A witness with more other values than the backend's coded form takes:
// the kind says so (nullopt) and the engine synthesizes the whole witness
// after all, its share of the charge taken then; every proof still
// verifies and the charge returns to where it was.
TEST(engine_devices, too_many_other_values_take_the_whole_witness_after_all) {
  const std::filesystem::path dir = test::make_param_cache(false);
  eng::engine_config cfg = test::small_config(dir);
  synthesis_counts n;
  auto owned = std::make_unique<coded_backend>(std::size_t(0));
  coded_backend& b = *owned;
  {
    const auto e = coding_engine(cfg, std::move(owned), n);
    const auto r = prove_chain(*e, "dense-1", 3);
    ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
    EXPECT_EQ(n.coded.load(), 3);
    EXPECT_EQ(n.coded_refused.load(), 3) << "the chain witness has other values: a bound of 0 must refuse it";
    EXPECT_EQ(n.whole.load(), 3);
    EXPECT_EQ(b.from_whole.load(), 3);
    const eng::engine_status first = e->status();
    const auto r2 = prove_chain(*e, "dense-2", 3);
    ASSERT_EQ(r2.status, eng::await_status::completed) << r2.error_message;
    EXPECT_EQ(e->status().budget_used, first.budget_used) << "the charge moved between two equal jobs";
  }
  std::filesystem::remove_all(dir);
}

// Behind the CPU fallback no coded synthesis is asked for, since the
// fallback proves from the whole witness.
TEST(engine_devices, the_fallback_never_asks_for_a_coded_synthesis) {
  const std::filesystem::path dir = test::make_param_cache(false);
  eng::engine_config cfg = test::small_config(dir);
  synthesis_counts n;
  auto owned = eng::make_fallback_backend(std::make_unique<coded_backend>(std::size_t(1000)), eng::make_cpu_backend(1),
                                          [](const std::string&) {});
  {
    const auto e = coding_engine(cfg, std::move(owned), n);
    const auto r = prove_chain(*e, "fb-coded", 2);
    ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
    EXPECT_EQ(n.coded.load(), 0);
    EXPECT_EQ(n.whole.load(), 2);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
