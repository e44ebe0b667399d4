// SPDX-License-Identifier: Apache-2.0
// WinningPoSt and WindowPoSt proof kinds: parse and validate a request
// (registered proof -> sector size and API version, randomness, bincode
// vanilla proofs, challenged leaves), then synthesize the FallbackPoSt
// circuit slot by slot with a cancel check between slots. Semantics follow
// rust-filecoin-proofs-api / filecoin-proofs post_util (padding by the last
// sector, WinningPoSt unrolled one challenge per slot) as implemented in
// include/cuzk/circuits/fallback_post.hpp.
// Cost: parsing is one pass over the vanilla bytes plus one SHA-256 per
// challenge; synthesis is the circuit's native hashing.
#include <array>
#include <cstdio>
#include <span>
#include <string>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/post_check.hpp>
#include <cuzk/engine/proof_kind.hpp>
#include <cuzk/gadgets/native_sha256.hpp>
#include <cuzk/io/hex.hpp>
#include <cuzk/r1cs/synthesize.hpp>
#include <cuzk/r1cs/witness_cs.hpp>

namespace cuzk::engine {
namespace {

constexpr std::array<std::uint64_t, 5> published_sizes{2ull << 10, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};

// The revision of the FallbackPoSt circuit's constraints (circuits/
// fallback_post.hpp and its gadgets; WinningPoSt and WindowPoSt share it),
// the key of its cached shapes: bump it with any change of the constraints
// (see circuit_info::shape_version).
constexpr std::uint32_t fallback_post_shape_version = 1;

struct post_setup {
  std::uint64_t sector_size;
  circuits::post_api_version api;
};

// Go abi RegisteredPoStProof: 0-4 Winning V1, 5-9 Window V1, 10-14 Window V1_1 (-> api V1_2).
post_setup resolve_post(const proof_request& req, bool winning) {
  const std::uint64_t rp = req.registered_proof;
  std::uint64_t size = 0;
  circuits::post_api_version api = circuits::post_api_version::v1_0_0;
  if (winning) {
    if (rp > 4)
      throw invalid_request(
          "registered_proof " + std::to_string(rp) +
          " is not a WinningPoSt proof type (0-4: StackedDrgWinning{2KiB,8MiB,512MiB,32GiB,64GiB}V1)");
    size = published_sizes[rp];
  } else {
    if (rp < 5 || rp > 14)
      throw invalid_request("registered_proof " + std::to_string(rp) +
                            " is not a WindowPoSt proof type (5-9: StackedDrgWindow*V1, 10-14: StackedDrgWindow*V1_1)");
    size = published_sizes[(rp - 5) % 5];
    api = rp >= 10 ? circuits::post_api_version::v1_2_0 : circuits::post_api_version::v1_0_0;
  }
  if (req.sector_size != 0 && req.sector_size != size)
    throw invalid_request("sector_size " + std::to_string(req.sector_size) + " does not match registered_proof " +
                          std::to_string(rp) + " (sector size " + std::to_string(size) + ")");
  return {size, api};
}

std::array<std::uint8_t, 32> parse_randomness(const proof_request& req) {
  if (req.randomness.size() != 32)
    throw invalid_request("randomness must be 32 bytes, got " + std::to_string(req.randomness.size()));
  if (!ff::fr::from_bytes_le(req.randomness.data()))
    throw invalid_request(
        "randomness is not a canonical field element (little-endian, below the BLS12-381 scalar modulus)");
  std::array<std::uint8_t, 32> r{};
  std::copy(req.randomness.begin(), req.randomness.end(), r.begin());
  return r;
}

std::vector<io::fallback_post_sector_proof> parse_vanillas(const proof_request& req) {
  // no copy of the payload: the single-proof form is viewed in place
  const std::span<const std::vector<std::uint8_t>> raw =
      req.vanilla_proofs.empty() && !req.vanilla_proof.empty()
          ? std::span<const std::vector<std::uint8_t>>(&req.vanilla_proof, 1)
          : std::span<const std::vector<std::uint8_t>>(req.vanilla_proofs);
  if (raw.empty()) throw invalid_request("vanilla_proofs is empty: a PoSt request needs one vanilla proof per sector");
  std::vector<io::fallback_post_sector_proof> out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i].empty()) throw invalid_request("vanilla_proofs[" + std::to_string(i) + "] is empty");
    try {
      out.push_back(io::read_fallback_post_sector_proof(raw[i], "vanilla_proofs[" + std::to_string(i) + "]"));
    } catch (const std::exception& e) {
      throw invalid_request(std::string("bad vanilla proof: ") + e.what());
    }
  }
  return out;
}

std::string size_suffix(std::uint64_t s) { return sector_size_tag(s); }

// Where slot |slot|, challenge |j| came from in the request, for messages.
struct slot_origin {
  bool winning = false;  // 66 slots of one challenge, all from vanilla_proofs[0]
  std::uint32_t partition = 0;
  std::vector<std::uint64_t> sector_ids;  // per vanilla proof
  std::string operator()(std::size_t slot, std::size_t j) const {
    const std::size_t v = winning ? 0 : slot;
    std::string s = "partition " + std::to_string(partition) + ": vanilla_proofs[" + std::to_string(v) + "] (sector " +
                    std::to_string(v < sector_ids.size() ? sector_ids[v] : 0) + ")";
    if (j != SIZE_MAX) s += " inclusion proof " + std::to_string(winning ? slot : j);
    return s;
  }
};

class post_job final : public circuit_job {
 public:
  post_job(std::string id, circuits::fallback_post_circuit c, std::vector<ff::fr> inputs, slot_origin origin)
      : _id(std::move(id)), _circuit(std::move(c)), _inputs(std::move(inputs)), _origin(std::move(origin)) {}
  const std::string& circuit_id() const override { return _id; }
  std::size_t num_partitions() const override { return 1; }
  groth16::witness synthesize(std::size_t, const r1cs::r1cs_shape& shape, const cancel_token& token,
                              groth16::witness reuse) const override {
    // synthesize_groth16 of fallback_post_circuit::synthesize, slot by slot,
    // appended into |reuse|'s storage (witness_cs clears it first)
    r1cs::witness_cs cs(std::move(reuse.inputs), std::move(reuse.aux));
    cs.reserve(shape.num_inputs, shape.num_aux);
    r1cs::alloc_one(cs);
    const gadgets::merkle_tree_shape tree = _circuit.params.shape();
    {
      r1cs::namespace_guard ns(cs, "outer namespace");
      for (std::size_t i = 0; i < _circuit.params.sector_count; ++i) {
        token.check();
        r1cs::namespace_guard ns_i(cs, [i] { return "sector_" + std::to_string(i); });
        _circuit.synthesize_slot(cs, tree, i);
      }
    }
    r1cs::enforce_input_constraints(cs);
    if (cs.num_inputs() != shape.num_inputs || cs.num_aux() != shape.num_aux)
      throw std::logic_error("post: witness size does not match the circuit shape");
    auto [inputs, aux] = std::move(cs).take();
    return {std::move(inputs), std::move(aux)};
  }
  std::vector<ff::fr> public_inputs(std::size_t) const override { return _inputs; }
  void check_vanilla() const override {
    std::vector<std::string> problems;
    try {
      problems = circuits::check_post_slots(_circuit, _origin);
    } catch (const std::invalid_argument& e) {
      problems.push_back(e.what());
    }
    if (problems.empty()) return;
    std::string msg = "vanilla proof check failed: " + problems[0];
    if (problems.size() > 1) msg += " (and " + std::to_string(problems.size() - 1) + " more)";
    throw invalid_request(msg);
  }

 private:
  std::string _id;
  circuits::fallback_post_circuit _circuit;
  std::vector<ff::fr> _inputs;
  slot_origin _origin;
};

void check_challenges(const circuits::fallback_post_params& params, const std::array<std::uint8_t, 32>& rand,
                      std::uint64_t sector_id, std::size_t sector_index, const io::post_sector_proof& sp,
                      std::size_t challenge_count, const std::string& where) {
  if (sp.inclusion_proofs.size() != challenge_count)
    throw invalid_request(where + " has " + std::to_string(sp.inclusion_proofs.size()) +
                          " inclusion proofs, expected " + std::to_string(challenge_count));
  const auto want = circuits::sector_leaf_challenges(params, rand, sector_id, sector_index, challenge_count);
  for (std::size_t j = 0; j < challenge_count; ++j) {
    const std::uint64_t got = sp.inclusion_proofs[j].leaf_index();
    if (got != want[j])
      throw invalid_request(where + " inclusion proof " + std::to_string(j) + " opens leaf " + std::to_string(got) +
                            ", the challenge for sector " + std::to_string(sector_id) + " is leaf " +
                            std::to_string(want[j]) + " (wrong randomness or sector?)");
  }
}

class winning_kind final : public proof_kind_handler {
 public:
  proof_kind kind() const override { return proof_kind::winning_post; }
  priority default_priority() const override { return priority::critical; }
  std::vector<circuit_info> circuits() const override {
    std::vector<circuit_info> v;
    for (std::uint64_t s : published_sizes) {
      const auto p = circuits::winning_post_params(s);
      v.push_back({"winning-" + size_suffix(s), post_param_file_stem(s, p.challenge_count, p.sector_count), s,
                   [p] { return r1cs::make_shape(circuits::blank_fallback_post_circuit(p)); },
                   fallback_post_shape_version});
    }
    return v;
  }
  std::unique_ptr<circuit_job> parse(const proof_request& req) const override {
    const post_setup su = resolve_post(req, true);
    const auto rand = parse_randomness(req);
    const auto vanillas = parse_vanillas(req);
    if (vanillas.size() != circuits::winning_post_sector_count)
      throw invalid_request("WinningPoSt takes " + std::to_string(circuits::winning_post_sector_count) +
                            " vanilla proof, got " + std::to_string(vanillas.size()));
    const auto& v = vanillas[0];
    const auto params = circuits::winning_post_params(su.sector_size, su.api);
    if (v.sectors.size() != 1)
      throw invalid_request("WinningPoSt vanilla proof holds " + std::to_string(v.sectors.size()) +
                            " sector proofs, expected 1");
    auto cfg = params;  // the challenges are drawn as 66 on one sector
    cfg.sector_count = 1;
    cfg.challenge_count = circuits::winning_post_challenge_count;
    check_challenges(cfg, rand, v.sector_id, 0, v.sectors[0], circuits::winning_post_challenge_count,
                     "vanilla_proofs[0]");
    circuits::fallback_post_circuit c;
    try {
      c = circuits::winning_post_circuit(params, v);
    } catch (const std::invalid_argument& e) {
      throw invalid_request(std::string("vanilla proof does not fit the ") + size_suffix(su.sector_size) +
                            " WinningPoSt circuit: " + e.what());
    }
    auto inputs = circuits::winning_post_public_inputs(params, rand, {v.sector_id, v.comm_r});
    return std::make_unique<post_job>("winning-" + size_suffix(su.sector_size), std::move(c), std::move(inputs),
                                      slot_origin{true, 0, {v.sector_id}});
  }
};

class window_kind final : public proof_kind_handler {
 public:
  proof_kind kind() const override { return proof_kind::window_post_partition; }
  priority default_priority() const override { return priority::high; }
  std::vector<circuit_info> circuits() const override {
    std::vector<circuit_info> v;
    for (std::uint64_t s : published_sizes) {
      const auto p = circuits::window_post_params(s);
      v.push_back({"wpost-" + size_suffix(s), post_param_file_stem(s, p.challenge_count, p.sector_count), s,
                   [p] { return r1cs::make_shape(circuits::blank_fallback_post_circuit(p)); },
                   fallback_post_shape_version});
    }
    return v;
  }
  std::unique_ptr<circuit_job> parse(const proof_request& req) const override {
    const post_setup su = resolve_post(req, false);
    const auto rand = parse_randomness(req);
    const auto vanillas = parse_vanillas(req);
    const auto params = circuits::window_post_params(su.sector_size, su.api);
    if (vanillas.size() > params.sector_count)
      throw invalid_request(std::to_string(vanillas.size()) + " vanilla proofs for a WindowPoSt partition of " +
                            std::to_string(params.sector_count) + " sectors");
    const std::size_t first = std::size_t(req.partition_index) * params.sector_count;
    std::vector<circuits::post_public_sector> pub;  // this partition's sectors only
    pub.reserve(vanillas.size());
    for (std::size_t i = 0; i < vanillas.size(); ++i) {
      const auto& v = vanillas[i];
      const std::string where = "vanilla_proofs[" + std::to_string(i) + "]";
      if (v.sectors.size() != 1)
        throw invalid_request(where + " holds " + std::to_string(v.sectors.size()) + " sector proofs, expected 1");
      check_challenges(params, rand, v.sector_id, first + i, v.sectors[0], params.challenge_count, where);
      pub.push_back({v.sector_id, v.comm_r});
    }
    circuits::fallback_post_circuit c;
    try {
      c = circuits::window_post_circuit(params, vanillas);
    } catch (const std::invalid_argument& e) {
      throw invalid_request(std::string("vanilla proofs do not fit the ") + size_suffix(su.sector_size) +
                            " WindowPoSt circuit: " + e.what());
    }
    auto inputs = circuits::fallback_post_partition_public_inputs(params, rand, pub, req.partition_index);
    slot_origin origin{false, req.partition_index, {}};
    for (const auto& v : vanillas) origin.sector_ids.push_back(v.sector_id);
    return std::make_unique<post_job>("wpost-" + size_suffix(su.sector_size), std::move(c), std::move(inputs),
                                      std::move(origin));
  }
};

}  // namespace

std::string sector_size_tag(std::uint64_t s) {
  if (s % (1ull << 30) == 0) return std::to_string(s >> 30) + "g";
  if (s % (1ull << 20) == 0) return std::to_string(s >> 20) + "m";
  if (s % (1ull << 10) == 0) return std::to_string(s >> 10) + "k";
  return std::to_string(s);
}

std::string post_param_file_stem(std::uint64_t sector_size, std::size_t challenge_count, std::size_t sector_count) {
  const gadgets::merkle_tree_shape t = circuits::tree_r_shape(sector_size);
  const std::string ident = "FallbackPoSt::PublicParams{sector_size: " + std::to_string(sector_size) +
                            ", challenge_count: " + std::to_string(challenge_count) +
                            ", sector_count: " + std::to_string(sector_count) + "}";
  const auto d = gadgets::native::sha256(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(ident.data()), ident.size()));
  const std::string hex = io::to_hex(d);
  return "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-" + std::to_string(t.base_arity) + "-" +
         std::to_string(t.sub_arity) + "-" + std::to_string(t.top_arity) + "-" + hex;
}

std::unique_ptr<proof_kind_handler> make_winning_post_kind() { return std::make_unique<winning_kind>(); }
std::unique_ptr<proof_kind_handler> make_window_post_kind() { return std::make_unique<window_kind>(); }

}  // namespace cuzk::engine
