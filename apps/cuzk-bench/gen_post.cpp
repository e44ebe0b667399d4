// SPDX-License-Identifier: Apache-2.0
// `cuzk-bench gen-post -t winning|wpost --out-dir DIR [--param-cache DIR]
//   [--seed N] [--sectors N]`: test inputs for the daemon at 2 KiB. Builds
// random sectors (circuits/post_generator.hpp), writes
// their bincode vanilla proofs as DIR/vanilla.json (JSON array of base64, the
// --vanilla format) and the randomness as DIR/randomness.hex, and with
// --param-cache writes seeded TEST parameters (.params + .vk; NOT a trusted
// setup) under the circuit's published file name when missing. Setup costs
// ~15 s (WinningPoSt) / ~3 s (WindowPoSt) on 2 cores.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/post_generator.hpp>
#include <cuzk/engine/proof_kind.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/io/base64.hpp>
#include <cuzk/io/hex.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/io/post_vanilla.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "client_util.hpp"
#include "commands.hpp"

namespace cuzk::bench_app {
namespace {

using ff::fr;

struct options {
  std::string type, out_dir, param_cache;
  std::uint64_t seed = 1;
  std::size_t sectors = 2;
};

/// A fresh random sector's vanilla proof as sector |index| of the partition.
io::fallback_post_sector_proof make_vanilla(std::mt19937_64& rng, std::uint64_t id,
                                            const circuits::fallback_post_params& cfg,
                                            const std::array<std::uint8_t, 32>& rand, std::size_t index) {
  return circuits::synthetic_fallback_post_vanilla(circuits::make_synthetic_post_sector(rng, id), cfg, rand, index);
}

int run(const options& o) {
  const bool winning = parse_type(o.type) == engine::proof_kind::winning_post;
  if (!winning && parse_type(o.type) != engine::proof_kind::window_post_partition)
    throw std::runtime_error("gen-post makes winning or wpost inputs");
  std::mt19937_64 rng(o.seed);
  std::array<std::uint8_t, 32> rand{};
  fr::random(rng).to_bytes_le(rand.data());
  std::filesystem::create_directories(o.out_dir);
  nlohmann::json arr = nlohmann::json::array();
  if (winning) {
    auto cfg = circuits::winning_post_params(2048);
    cfg.sector_count = 1;
    cfg.challenge_count = circuits::winning_post_challenge_count;
    arr.push_back(
        io::to_base64(io::write_fallback_post_sector_proof(make_vanilla(rng, 1 + rng() % 1000, cfg, rand, 0))));
  } else {
    const auto cfg = circuits::window_post_params(2048, circuits::post_api_version::v1_2_0);
    for (std::size_t i = 0; i < o.sectors; ++i)
      arr.push_back(io::to_base64(io::write_fallback_post_sector_proof(make_vanilla(rng, 100 + i, cfg, rand, i))));
  }
  std::ofstream(o.out_dir + "/vanilla.json") << arr.dump() << "\n";
  std::ofstream(o.out_dir + "/randomness.hex") << io::to_hex(rand) << "\n";
  std::printf("wrote %s/vanilla.json (%zu vanilla proof(s)) and randomness.hex; registered proof %d\n",
              o.out_dir.c_str(), arr.size(), winning ? 0 : 10);
  if (!o.param_cache.empty()) {
    const auto params = winning ? circuits::winning_post_params(2048) : circuits::window_post_params(2048);
    const std::string stem = engine::post_param_file_stem(2048, params.challenge_count, params.sector_count);
    const std::filesystem::path dir = o.param_cache;
    std::filesystem::create_directories(dir);
    if (std::filesystem::exists(dir / (stem + ".vk"))) {
      std::printf("test parameters already present: %s.params\n", stem.c_str());
    } else {
      const auto keys =
          groth16::generate_parameters(r1cs::make_shape(circuits::blank_fallback_post_circuit(params)), o.seed);
      io::write_parameters(keys, dir / (stem + ".params"));
      io::write_verifying_key(keys.vk, dir / (stem + ".vk"));
      std::printf("wrote TEST parameters (seeded, not a trusted setup): %s/%s.params\n", o.param_cache.c_str(),
                  stem.c_str());
    }
  }
  return 0;
}

}  // namespace

void register_gen_post(CLI::App& app) {
  static options o;
  auto* cmd = app.add_subcommand("gen-post", "2 KiB PoSt test inputs (vanilla proofs, randomness, test parameters)");
  cmd->add_option("-t,--type", o.type, "winning | wpost")->required();
  cmd->add_option("--out-dir", o.out_dir, "where vanilla.json and randomness.hex go")->required();
  cmd->add_option("--param-cache", o.param_cache, "also write seeded test parameters here");
  cmd->add_option("--seed", o.seed, "RNG seed");
  cmd->add_option("--sectors", o.sectors, "WindowPoSt sectors (1-2 at 2 KiB)");
  cmd->callback([] { run_subcommand("gen-post", [] { return run(o); }); });
}

}  // namespace cuzk::bench_app
