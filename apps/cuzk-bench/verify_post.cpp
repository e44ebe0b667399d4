// SPDX-License-Identifier: Apache-2.0
// `cuzk-bench verify -t porep --c1 c1.json --params DIR --proof proof.bin`:
// a PoRep C2 proof against the C1 it was made for (porep_commands.cpp:
// public inputs re-derived from the C1's commitments and seed; prints
// "valid", exit 0, or "invalid", exit 1).
// `cuzk-bench verify -t winning|wpost --proof proof.bin --vanilla FILE
//   --randomness HEX --registered-proof N [--partition K]
//   (--vk FILE | --param-cache DIR)`: checks a proof the daemon returned.
// The public inputs are derived from the request alone, by the same
// proof-kind parser the engine uses (challenges from the randomness and
// sector ids, comm_r from the vanilla proofs); the verifying key is the .vk
// of the circuit's published name in --param-cache, or --vk. Prints "valid"
// (exit 0) or "invalid" (exit 1).
// `cuzk-bench verify -t snap --proof proof.bin --comm-r-old H --comm-d-new H
//   --comm-r-new H (--sector-size S --params DIR | --registered-proof N
//   --vanilla FILE (--vk FILE | --param-cache DIR))`: with --params, the
// public inputs from the commitments alone (snap_commands.cpp); otherwise
// through the SnapDeals proof kind like the PoSt kinds.
#include <cstdio>

#include <cuzk/engine/proof_kind.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/io/proof_io.hpp>

#include "client_util.hpp"
#include "commands.hpp"

namespace cuzk::bench_app {
namespace {

struct options {
  std::string type, proof, vanilla, randomness, vk, param_cache, c1, params;
  std::uint64_t registered_proof = 0;
  std::uint32_t partition = 0;
  snap_options snap;
};

int run(const options& o) {
  if (o.type == "porep") {
    if (o.c1.empty() || o.params.empty()) throw std::runtime_error("-t porep needs --c1 FILE and --params DIR");
    return run_porep_verify(o.c1, o.params, o.proof);
  }
  const engine::proof_kind kind = parse_type(o.type);
  if (kind == engine::proof_kind::snap_deals_update && !o.params.empty()) {
    if (o.snap.sector_size.empty()) throw std::runtime_error("-t snap --params DIR needs --sector-size");
    return run_snap_verify(o.snap, o.params, o.proof);
  }
  if (o.vanilla.empty()) throw std::runtime_error("-t " + o.type + " needs --vanilla FILE");
  std::unique_ptr<engine::proof_kind_handler> h;
  if (kind == engine::proof_kind::winning_post) h = engine::make_winning_post_kind();
  else if (kind == engine::proof_kind::window_post_partition) h = engine::make_window_post_kind();
  else if (kind == engine::proof_kind::snap_deals_update) h = engine::make_snap_kind();
  else {
    std::fprintf(stderr, "verify: %s verification is not available in this build\n", o.type.c_str());
    return 2;
  }
  engine::proof_request req;
  req.kind = kind;
  req.registered_proof = o.registered_proof;
  req.partition_index = o.partition;
  req.vanilla_proofs = read_vanilla_file(o.vanilla);
  req.randomness = o.randomness.empty() ? std::vector<std::uint8_t>(32, 0) : from_hex(o.randomness, "--randomness");
  if (!o.snap.comm_r_old.empty()) req.comm_r_old = from_hex(o.snap.comm_r_old, "--comm-r-old");
  if (!o.snap.comm_r_new.empty()) req.comm_r_new = from_hex(o.snap.comm_r_new, "--comm-r-new");
  if (!o.snap.comm_d_new.empty()) req.comm_d_new = from_hex(o.snap.comm_d_new, "--comm-d-new");
  const auto job = h->parse(req);
  std::string vk_path = o.vk;
  if (vk_path.empty()) {
    if (o.param_cache.empty()) throw std::runtime_error("give --vk FILE or --param-cache DIR");
    for (const auto& c : h->circuits())
      if (c.id == job->circuit_id()) vk_path = o.param_cache + "/" + c.file_stem + ".vk";
  }
  const auto vk = io::read_verifying_key(vk_path);
  const auto bytes = read_file_bytes(o.proof);
  const auto proofs = io::read_proofs(bytes, job->num_partitions(), o.proof);
  const auto pvk = groth16::prepare_verifying_key(vk);
  bool ok = true;
  for (std::size_t p = 0; p < proofs.size(); ++p) ok = groth16::verify(pvk, proofs[p], job->public_inputs(p)) && ok;
  std::printf("%s: %s proof (%s, %zu partition(s)) against %s\n", ok ? "valid" : "invalid", o.type.c_str(),
              job->circuit_id().c_str(), proofs.size(), vk_path.c_str());
  return ok ? 0 : 1;
}

}  // namespace

void register_verify(CLI::App& app) {
  static options o;
  auto* cmd = app.add_subcommand("verify", "verify a proof returned by the daemon against its request");
  cmd->add_option("-t,--type", o.type, "porep | snap | winning | wpost")->required();
  cmd->add_option("--c1", o.c1, "PoRep: the C1 output JSON the proof was made for");
  cmd->add_option("--params", o.params, "PoRep / snap: folder with the .vk by its published name");
  cmd->add_option("--sector-size", o.snap.sector_size, "snap with --params: sector size");
  cmd->add_option("--comm-r-old", o.snap.comm_r_old, "snap: comm_r_old, 32-byte LE hex");
  cmd->add_option("--comm-d-new", o.snap.comm_d_new, "snap: comm_d_new, 32-byte LE hex");
  cmd->add_option("--comm-r-new", o.snap.comm_r_new, "snap: comm_r_new, 32-byte LE hex");
  cmd->add_option("--proof", o.proof, "proof bytes (192 per partition)")->required();
  cmd->add_option("--vanilla", o.vanilla, "PoSt / snap: the vanilla proofs sent (JSON array of base64)");
  cmd->add_option("--randomness", o.randomness, "32 bytes hex (default zeros)");
  cmd->add_option("--registered-proof", o.registered_proof, "Go abi registered proof");
  cmd->add_option("--partition", o.partition, "WindowPoSt partition index");
  cmd->add_option("--vk", o.vk, "verifying key file");
  cmd->add_option("--param-cache", o.param_cache, "folder with the .vk by its published name");
  cmd->callback([] { run_subcommand("verify", [] { return run(o); }); });
}

}  // namespace cuzk::bench_app
