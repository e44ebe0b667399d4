// SPDX-License-Identifier: Apache-2.0
// `cuzk-bench gen-vanilla --type porep --sector-size S --seed N --out c1.json
// [--api-version 1.1|1.0] [--check]`: writes a synthetic, internally
// consistent PoRep C1 output (circuits/porep_generator.hpp) as the C1 JSON
// filecoin-ffi produces (io::write_c1_json), for the interactive seal proof
// of that size and api version (StackedDrg{S}V1_1 or StackedDrg{S}V1).
// Prints the proof, commitments and timings. --check re-verifies the
// generated proofs natively before writing. Exit code 2 on bad arguments.
// -t snap: SnapDeals partition proofs (snap_commands.cpp).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/io/hex.hpp>
#include <cuzk/io/porep_c1.hpp>

#include "commands.hpp"

namespace cuzk::bench_app {
namespace {

struct options {
  std::string type = "porep";
  std::string sector_size;
  std::uint64_t seed = 0;
  std::string out;
  std::string api_version = "1.1";
  bool check = false;
  std::string commitments_out;
};

std::string hex(const io::bytes32& b) { return io::to_hex(b); }

const io::seal_proof_info* find_interactive(std::uint64_t size, io::porep_api_version api) {
  for (std::uint64_t id = 0; id < 10; ++id) {
    // ids 0..4 are V1 (1.0.0), 5..9 V1_1 (1.1.0); look them up by name to
    // stay on the registry's facts.
    static const char* sizes[] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
    const std::string name = std::string("StackedDrg") + sizes[id % 5] + (id < 5 ? "V1" : "V1_1");
    const io::seal_proof_info* p = io::find_seal_proof(name);
    if (p && p->sector_size == size && p->api == api) return p;
  }
  return nullptr;
}

int run(const options& o) {
  if (o.type == "snap")
    return run_snap_gen_vanilla({o.sector_size, {}, {}, {}, {}}, o.seed, o.out, o.check, o.commitments_out);
  if (o.type != "porep") {
    std::fprintf(stderr, "gen-vanilla: unsupported --type '%s' (porep, snap)\n", o.type.c_str());
    return 2;
  }
  const std::optional<std::uint64_t> size = circuits::parse_sector_size(o.sector_size);
  if (!size) {
    std::fprintf(stderr, "gen-vanilla: bad --sector-size '%s' (2KiB, 8MiB, 512MiB, 32GiB, 64GiB or bytes)\n",
                 o.sector_size.c_str());
    return 2;
  }
  io::porep_api_version api;
  if (o.api_version == "1.1" || o.api_version == "1.1.0") {
    api = io::porep_api_version::v1_1_0;
  } else if (o.api_version == "1.0" || o.api_version == "1.0.0") {
    api = io::porep_api_version::v1_0_0;
  } else {
    std::fprintf(stderr, "gen-vanilla: bad --api-version '%s' (1.1 or 1.0)\n", o.api_version.c_str());
    return 2;
  }
  const io::seal_proof_info* info = find_interactive(*size, api);
  if (!info) {
    std::fprintf(stderr, "gen-vanilla: no PoRep for sector size %llu bytes\n", static_cast<unsigned long long>(*size));
    return 2;
  }
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const circuits::synthetic_porep g = circuits::generate_synthetic_porep(*info, o.seed);
  const auto t1 = clock::now();
  double check_s = 0;
  if (o.check) {
    const std::vector<std::string> problems = circuits::check_porep_c1(g.c1);
    check_s = std::chrono::duration<double>(clock::now() - t1).count();
    for (const std::string& p : problems) std::fprintf(stderr, "gen-vanilla: check: %s\n", p.c_str());
    if (!problems.empty()) return 1;
  }
  const auto t2 = clock::now();
  const std::string text = io::write_c1_json(g.c1);
  const auto t3 = clock::now();
  std::ofstream f(o.out, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "gen-vanilla: cannot open '%s' for writing\n", o.out.c_str());
    return 1;
  }
  f.write(text.data(), std::streamsize(text.size()));
  if (!f.flush()) {
    std::fprintf(stderr, "gen-vanilla: writing '%s' failed\n", o.out.c_str());
    return 1;
  }
  const auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::printf("wrote %s: %s, %u partitions x %u challenges, %zu bytes\n", o.out.c_str(),
              std::string(info->name).c_str(), info->partitions, info->challenges_per_partition, text.size());
  std::printf("prover_id %s sector_id %llu\n", hex(g.prover_id).c_str(), static_cast<unsigned long long>(g.sector_id));
  // the daemon checks replica_id against the request's miner and sector
  std::printf("prove with: --miner-id %llu --sector-num %llu\n", static_cast<unsigned long long>(g.miner_id),
              static_cast<unsigned long long>(g.sector_id));
  std::printf("replica_id %s\ncomm_d %s\ncomm_r %s\n", hex(g.c1.replica_id).c_str(), hex(g.c1.comm_d).c_str(),
              hex(g.c1.comm_r).c_str());
  char check_text[64] = "";
  if (o.check) std::snprintf(check_text, sizeof check_text, ", check %.3f s", check_s);
  std::printf("generate %.3f s%s, json %.3f s, total %.3f s\n", secs(t0, t1), check_text, secs(t2, t3),
              secs(t0, clock::now()));
  return 0;
}

}  // namespace

void register_gen_vanilla(CLI::App& app) {
  static options o;
  auto* cmd = app.add_subcommand("gen-vanilla", "write a synthetic, internally consistent vanilla proof (C1 JSON)");
  cmd->add_option("-t,--type", o.type, "porep | snap")->default_val("porep");
  cmd->add_option("--sector-size", o.sector_size, "2KiB | 8MiB | 512MiB | 32GiB | 64GiB | bytes")->required();
  cmd->add_option("--seed", o.seed, "generator seed")->required();
  cmd->add_option("--out", o.out, "output file (porep: C1 JSON; snap: JSON array of base64 partition proofs)")
      ->required();
  cmd->add_option("--commitments-out", o.commitments_out,
                  "snap: write '--comm-r-old H --comm-d-new H --comm-r-new H' to this file");
  cmd->add_option("--api-version", o.api_version, "1.1 (default) or 1.0");
  cmd->add_flag("--check", o.check, "re-verify the generated proofs natively before writing");
  cmd->callback([] { run_subcommand("gen-vanilla", [] { return run(o); }); });
}

}  // namespace cuzk::bench_app
