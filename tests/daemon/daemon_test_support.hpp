// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared helpers of the daemon tests:
//  * chain_kind: a tiny partitioned test kind (the chain_circuit example,
//    64 steps, 133 constraints per partition) registered under
//    POREP_SEAL_COMMIT, so tests can queue "PoRep-like" multi-partition jobs
//    with a controllable synthesis delay (cancel-checked every 5 ms). Its
//    request: vanilla_proof = "chain:<partitions>:<delay_ms>".
//  * param_cache(): a temp param_cache holding seeded test parameters under
//    the published 2 KiB WinningPoSt / WindowPoSt file names and the chain
//    circuit's. The PoSt parameters (setup ~15 s on 2 cores) are generated
//    once into CUZK_DAEMON_PARAM_CACHE (the build tree) with a fixed seed and
//    reused by later runs; the .vk written beside each .params lets tests
//    verify proofs independently of the engine.
//  * 2 KiB PoSt requests on synthetic sectors (circuits/post_generator.hpp),
//    and the public inputs a verifier derives from the request alone.
#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/post_generator.hpp>
#include <cuzk/engine/engine.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/io/post_vanilla.hpp>
#include <cuzk/io/proof_io.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

namespace cuzk::test {

using ff::fr;
namespace eng = cuzk::engine;

inline constexpr std::size_t chain_steps = 64;

inline fr chain_x0(std::size_t part) { return fr::from_uint(1000 + part); }
inline fr chain_out(const fr& x0) {
  fr x = x0;
  for (std::size_t i = 0; i < chain_steps; ++i) x = x.sqr() + fr::from_uint(i);
  return x;
}

class chain_job final : public eng::circuit_job {
 public:
  chain_job(std::size_t parts, std::uint64_t delay_ms) : _parts(parts), _delay(delay_ms) {}
  const std::string& circuit_id() const override { return _id; }
  std::size_t num_partitions() const override { return _parts; }
  groth16::witness synthesize(std::size_t p, const r1cs::r1cs_shape& shape, const eng::cancel_token& t,
                              groth16::witness reuse) const override {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(_delay);
    while (std::chrono::steady_clock::now() < until) {
      t.check();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    t.check();
    // appended into |reuse|'s storage, as the PoSt and SnapDeals kinds do
    auto [inputs, aux] =
        r1cs::make_witness(r1cs::examples::chain_circuit{chain_steps, chain_x0(p)}, shape.num_inputs, shape.num_aux,
                           r1cs::witness_cs(std::move(reuse.inputs), std::move(reuse.aux)))
            .take();
    return {std::move(inputs), std::move(aux)};
  }
  std::vector<fr> public_inputs(std::size_t p) const override { return {chain_x0(p), chain_out(chain_x0(p))}; }

 private:
  std::string _id = "test-chain";
  std::size_t _parts;
  std::uint64_t _delay;
};

/// Circuit |id| with the chain shape, parameters under |stem|.
inline eng::circuit_info chain_circuit(const std::string& id, const std::string& stem) {
  return {id, stem, 0, [] { return r1cs::make_shape(r1cs::examples::chain_circuit{chain_steps, std::nullopt}); }};
}

class chain_kind final : public eng::proof_kind_handler {
 public:
  eng::proof_kind kind() const override { return eng::proof_kind::porep_seal_commit; }
  eng::priority default_priority() const override { return eng::priority::normal; }
  std::vector<eng::circuit_info> circuits() const override { return {chain_circuit("test-chain", "test-chain-64")}; }
  std::unique_ptr<eng::circuit_job> parse(const eng::proof_request& req) const override {
    const std::string s(req.vanilla_proof.begin(), req.vanilla_proof.end());
    std::size_t parts = 0;
    unsigned long long delay = 0;
    if (std::sscanf(s.c_str(), "chain:%zu:%llu", &parts, &delay) != 2 || parts == 0 || parts > 64)
      throw eng::invalid_request("chain test request: expected \"chain:<partitions>:<delay_ms>\"");
    return std::make_unique<chain_job>(parts, delay);
  }
};

/// A one-partition chain job of |circuit| with x0 = |x0|: a test backend
/// tells jobs apart by their witness (inputs[1]).
class tagged_chain_job final : public eng::circuit_job {
 public:
  tagged_chain_job(std::string circuit, fr x0) : _id(std::move(circuit)), _x0(x0) {}
  const std::string& circuit_id() const override { return _id; }
  std::size_t num_partitions() const override { return 1; }
  // fresh vectors: a reused buffer is only an optimization a kind may skip
  groth16::witness synthesize(std::size_t, const r1cs::r1cs_shape& shape, const eng::cancel_token& t,
                              groth16::witness) const override {
    t.check();
    const auto cs =
        r1cs::make_witness(r1cs::examples::chain_circuit{chain_steps, _x0}, shape.num_inputs, shape.num_aux);
    return {{cs.inputs().begin(), cs.inputs().end()}, {cs.aux().begin(), cs.aux().end()}};
  }
  std::vector<fr> public_inputs(std::size_t) const override { return {_x0, chain_out(_x0)}; }

 private:
  std::string _id;
  fr _x0;
};

/// Kind |k| proving circuit |c| (chain shape) at |prio| by default; the
/// request's vanilla proof is a decimal tag, and the job's x0 = base + tag.
class tagged_chain_kind final : public eng::proof_kind_handler {
 public:
  tagged_chain_kind(eng::proof_kind k, eng::circuit_info c, eng::priority prio, std::uint64_t base)
      : _k(k), _c(std::move(c)), _prio(prio), _base(base) {}
  eng::proof_kind kind() const override { return _k; }
  eng::priority default_priority() const override { return _prio; }
  std::vector<eng::circuit_info> circuits() const override { return {_c}; }
  std::unique_ptr<eng::circuit_job> parse(const eng::proof_request& req) const override {
    const std::uint64_t tag = std::stoull(std::string(req.vanilla_proof.begin(), req.vanilla_proof.end()));
    return std::make_unique<tagged_chain_job>(_c.id, fr::from_uint(_base + tag));
  }

 private:
  eng::proof_kind _k;
  eng::circuit_info _c;
  eng::priority _prio;
  std::uint64_t _base;
};

/// A request for tagged_chain_kind: job |id|, kind |k|, |tag|.
inline eng::proof_request tagged_request(const std::string& id, eng::proof_kind k, int tag,
                                         eng::priority p = eng::priority::unspecified) {
  eng::proof_request r;
  r.request_id = id;
  r.kind = k;
  r.prio = p;
  const std::string v = std::to_string(tag);
  r.vanilla_proof.assign(v.begin(), v.end());
  return r;
}

inline eng::proof_request chain_request(const std::string& id, std::size_t parts, std::uint64_t delay_ms,
                                        eng::priority p = eng::priority::unspecified) {
  eng::proof_request r;
  r.request_id = id;
  r.kind = eng::proof_kind::porep_seal_commit;
  r.prio = p;
  const std::string v = "chain:" + std::to_string(parts) + ":" + std::to_string(delay_ms);
  r.vanilla_proof.assign(v.begin(), v.end());
  return r;
}

// ---- parameters ------------------------------------------------------------------

inline void write_params(const std::filesystem::path& dir, const std::string& stem, const r1cs::r1cs_shape& shape,
                         std::uint64_t seed) {
  const auto p = groth16::generate_parameters(shape, seed);
  io::write_parameters(p, dir / (stem + ".params"));
  io::write_verifying_key(p.vk, dir / (stem + ".vk"));
}

inline std::string winning_stem() {
  const auto p = circuits::winning_post_params(2048);
  return eng::post_param_file_stem(2048, p.challenge_count, p.sector_count);
}
inline std::string window_stem() {
  const auto p = circuits::window_post_params(2048);
  return eng::post_param_file_stem(2048, p.challenge_count, p.sector_count);
}

/// A fresh temp param_cache: chain params (new), PoSt 2 KiB params (linked
/// from the persistent cache, generated there on first use).
inline std::filesystem::path make_param_cache(bool with_post = true) {
  namespace fs = std::filesystem;
  static std::mt19937_64 name_rng(std::random_device{}());
  const fs::path dir = fs::temp_directory_path() / ("cuzk-daemon-test-" + std::to_string(name_rng()));
  fs::create_directories(dir);
  write_params(dir, "test-chain-64", r1cs::make_shape(r1cs::examples::chain_circuit{chain_steps, std::nullopt}), 11);
  if (with_post) {
    const fs::path cache = CUZK_DAEMON_PARAM_CACHE;
    fs::create_directories(cache);
    const std::pair<std::string, circuits::fallback_post_params> post[] = {
        {winning_stem(), circuits::winning_post_params(2048)}, {window_stem(), circuits::window_post_params(2048)}};
    for (const auto& [stem, params] : post) {
      if (!fs::exists(cache / (stem + ".vk"))) {
        const fs::path tmp = cache / ("tmp-" + std::to_string(name_rng()));
        fs::create_directories(tmp);
        write_params(tmp, stem, r1cs::make_shape(circuits::blank_fallback_post_circuit(params)), 7);
        fs::rename(tmp / (stem + ".params"), cache / (stem + ".params"));
        fs::rename(tmp / (stem + ".vk"), cache / (stem + ".vk"));
        fs::remove_all(tmp);
      }
      for (const char* ext : {".params", ".vk"}) fs::create_symlink(cache / (stem + ext), dir / (stem + ext));
    }
  }
  return dir;
}

// ---- synthetic 2 KiB PoSt ----------------------------------------------------------------

inline std::array<std::uint8_t, 32> random_randomness(std::mt19937_64& rng) {
  std::array<std::uint8_t, 32> r{};
  fr::random(rng).to_bytes_le(r.data());
  return r;
}

struct post_case {
  eng::proof_request req;
  std::vector<fr> public_inputs;  ///< what a verifier derives
  std::string vk_stem;
};

/// A WinningPoSt 2 KiB request (registered proof 0) on a fresh sector.
inline post_case winning_case(std::mt19937_64& rng, const std::string& id) {
  const auto s = circuits::make_synthetic_post_sector(rng, rng() % 100000);
  const auto rand = random_randomness(rng);
  auto cfg = circuits::winning_post_params(2048);
  cfg.sector_count = 1;
  cfg.challenge_count = circuits::winning_post_challenge_count;
  const io::fallback_post_sector_proof v = circuits::synthetic_fallback_post_vanilla(s, cfg, rand, 0);
  post_case c;
  c.req.request_id = id;
  c.req.kind = eng::proof_kind::winning_post;
  c.req.registered_proof = 0;
  c.req.sector_size = 2048;
  c.req.randomness.assign(rand.begin(), rand.end());
  c.req.vanilla_proofs.push_back(io::write_fallback_post_sector_proof(v));
  c.public_inputs = circuits::winning_post_public_inputs(circuits::winning_post_params(2048), rand, {s.id, s.comm_r});
  c.vk_stem = winning_stem();
  return c;
}

/// A WindowPoSt 2 KiB partition-0 request (registered proof 10, V1_1) over |n| sectors.
inline post_case window_case(std::mt19937_64& rng, const std::string& id, std::size_t n = 2) {
  const auto params = circuits::window_post_params(2048, circuits::post_api_version::v1_2_0);
  const auto rand = random_randomness(rng);
  post_case c;
  std::vector<circuits::post_public_sector> pub;
  for (std::size_t i = 0; i < n; ++i) {
    const auto s = circuits::make_synthetic_post_sector(rng, 10 * i + rng() % 7);
    const io::fallback_post_sector_proof v = circuits::synthetic_fallback_post_vanilla(s, params, rand, i);
    c.req.vanilla_proofs.push_back(io::write_fallback_post_sector_proof(v));
    pub.push_back({s.id, s.comm_r});
  }
  c.req.request_id = id;
  c.req.kind = eng::proof_kind::window_post_partition;
  c.req.registered_proof = 10;
  c.req.randomness.assign(rand.begin(), rand.end());
  c.public_inputs = circuits::fallback_post_public_inputs(params, rand, pub, 0);
  c.vk_stem = window_stem();
  return c;
}

/// Verifies 192-byte |proof| with the .vk in |dir| (independent of the engine).
inline bool verify_with_vk(const std::filesystem::path& dir, const std::string& stem,
                           const std::vector<std::uint8_t>& proof, const std::vector<fr>& inputs) {
  const auto vk = io::read_verifying_key(dir / (stem + ".vk"));
  const auto pvk = groth16::prepare_verifying_key(vk);
  return groth16::verify(pvk, io::read_proof(proof), inputs);
}

inline eng::engine_config small_config(const std::filesystem::path& dir) {
  eng::engine_config c;
  c.param_cache = dir;
  c.total_budget = 2ull << 30;
  c.priority_reserve = 64ull << 20;
  c.gpu_workers_per_device = 1;
  c.max_parallel_synthesis = 2;
  c.finalizer_threads = 1;
  return c;
}

/// An engine on the CPU backend with one device and the chain kind, over a
/// fresh param cache (removed with the fixture); started unless |start| is
/// false.
struct engine_fixture {
  std::filesystem::path dir = make_param_cache(false);
  std::unique_ptr<eng::engine> e;
  explicit engine_fixture(eng::engine_config cfg, bool start = true) {
    cfg.param_cache = dir;
    e = std::make_unique<eng::engine>(cfg, eng::make_cpu_backend(1));
    e->register_kind(std::make_shared<chain_kind>());
    if (start) e->start();
  }
  ~engine_fixture() {
    e.reset();
    std::filesystem::remove_all(dir);
  }
  engine_fixture(const engine_fixture&) = delete;
  engine_fixture& operator=(const engine_fixture&) = delete;
  /// Hot SRS + shape bytes of the chain circuit.
  std::uint64_t srs_bytes() {
    std::uint64_t n = 0;
    for (const auto& s : e->srs().status())
      if (s.circuit_id == "test-chain") n = s.size_bytes + s.shape_bytes;
    return n;
  }
};

/// A started engine on the CPU backend with only the built-in kinds and no
/// parameters, over an empty param cache named |prefix|-<random> in the
/// temp folder (removed with it): the listener and status tests, which
/// need a service to answer and a folder for their sockets.
struct bare_engine {
  std::filesystem::path dir;
  std::unique_ptr<eng::engine> e;
  explicit bare_engine(const std::string& prefix)
      : dir(std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(dir);
    e = std::make_unique<eng::engine>(small_config(dir), eng::make_cpu_backend(1));
    e->start();
  }
  ~bare_engine() {
    e.reset();
    std::filesystem::remove_all(dir);
  }
  bare_engine(const bare_engine&) = delete;
  bare_engine& operator=(const bare_engine&) = delete;
};

}  // namespace cuzk::test
