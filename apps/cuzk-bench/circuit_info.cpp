// SPDX-License-Identifier: Apache-2.0
// `cuzk-bench circuit-info [--type] <porep|wpost|winning|snap> [--sector-size] <size>`:
// the size of a circuit, counted by synthesizing its blank form into
// r1cs::counting_cs (no values, no matrices), like rust-fil-proofs'
// circuitinfo / BenchCS. Prints
//   constraints: N   ONE + the circuit (the published figures), without the
//                    num_inputs `input_i * 0 = 0` rows the Groth16 frame appends
//                    (--with-input-constraints adds them: the domain size basis)
//   inputs: N        public inputs, ONE counted
//   aux: N           private variables
// porep takes overrides of its shape: --challenges, --nodes, --layers,
// --base-arity, --sub-arity, --top-arity (e.g. rust-fil-proofs' test shape:
// --nodes 8 --layers 2 --challenges 1 --base-arity 8 -> 1199620 / 22);
// with --nodes the sector size may be left out.
// snap: the SnapDeals (EmptySectorUpdate) partition circuit, SHA-256 tree D;
// --poseidon for the EmptySectorUpdate-Poseidon variant (one partition).
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include <cuzk/circuits/empty_sector_update.hpp>
#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/stacked_porep.hpp>
#include <cuzk/r1cs/counting_cs.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "commands.hpp"

namespace cuzk::bench_app {
namespace {

struct options {
  std::string type;
  std::string sector_size;
  bool with_input_constraints = false;
  bool poseidon = false;  // snap: the Poseidon tree D variant
  // porep overrides (0: the sector size's value)
  std::uint64_t nodes = 0;
  std::uint32_t layers = 0;
  std::size_t challenges = 0, base_arity = 0, sub_arity = 0, top_arity = 0;
};

template <class C>
void count(const C& circuit, bool with_input_constraints, r1cs::counting_cs& cs) {
  if (with_input_constraints) r1cs::synthesize_groth16(circuit, cs);
  else r1cs::synthesize_circuit(circuit, cs);
}

void print_counts(const r1cs::counting_cs& cs, double secs) {
  std::printf("constraints: %zu\n", cs.num_constraints());
  std::printf("inputs: %zu\n", cs.num_inputs());
  std::printf("aux: %zu\n", cs.num_aux());
  std::fprintf(stderr, "counted in %.2f s\n", secs);
}

int run_porep(const options& o) {
  circuits::stacked_porep_params p;
  if (!o.sector_size.empty()) {
    const std::optional<std::uint64_t> size = circuits::parse_sector_size(o.sector_size);
    if (!size) {
      std::fprintf(stderr, "circuit-info: bad --sector-size '%s' (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)\n",
                   o.sector_size.c_str());
      return 2;
    }
    p = circuits::stacked_porep_params_for_size(*size);
  } else if (o.nodes == 0) {
    std::fprintf(stderr, "circuit-info: porep needs --sector-size or --nodes\n");
    return 2;
  } else {
    p = {0, 2, 1, {}};
  }
  if (o.nodes) p.nodes = o.nodes;
  if (o.layers) p.layers = o.layers;
  if (o.challenges) p.challenges = o.challenges;
  const std::size_t base = o.base_arity ? o.base_arity : (o.sector_size.empty() ? 8 : p.tree_shape.base_arity);
  std::size_t sub = o.sub_arity, top = o.top_arity;
  if (!o.sector_size.empty() && !o.base_arity && !o.sub_arity && !o.top_arity && !o.nodes) {
    sub = p.tree_shape.sub_arity;
    top = p.tree_shape.top_arity;
  }
  p.tree_shape = gadgets::merkle_tree_shape::for_leaves(p.nodes, base, sub, top);
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::counting_cs cs;
  count(circuits::blank_stacked_porep_circuit(p), o.with_input_constraints, cs);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("circuit: porep %s (StackedDRG, %zu challenges, %u layers, %llu nodes, tree %zu-%zu-%zu)\n",
              o.sector_size.empty() ? "custom" : o.sector_size.c_str(), p.challenges, p.layers,
              static_cast<unsigned long long>(p.nodes), p.tree_shape.base_arity, p.tree_shape.sub_arity,
              p.tree_shape.top_arity);
  print_counts(cs, secs);
  return 0;
}

int run_snap(const options& o, std::uint64_t size) {
  const circuits::snap_params p =
      circuits::snap_params_for(size, o.poseidon ? circuits::snap_variant::poseidon : circuits::snap_variant::sha256);
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::counting_cs cs;
  count(circuits::blank_snap_circuit(p), o.with_input_constraints, cs);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "circuit: snap %s (EmptySectorUpdate%s, %zu partition(s), %zu challenges per partition, tree R %zu-%zu-%zu)\n",
      o.sector_size.c_str(), o.poseidon ? "-Poseidon" : ", SHA-256 tree D", p.partition_count, p.challenge_count,
      p.tree_r_shape.base_arity, p.tree_r_shape.sub_arity, p.tree_r_shape.top_arity);
  print_counts(cs, secs);
  return 0;
}

int run(const options& o) {
  if (o.type == "porep") return run_porep(o);
  const std::optional<std::uint64_t> size = circuits::parse_sector_size(o.sector_size);
  if (!size) {
    std::fprintf(stderr, "circuit-info: bad --sector-size '%s' (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)\n",
                 o.sector_size.c_str());
    return 2;
  }
  circuits::fallback_post_params params;
  if (o.type == "wpost") {
    params = circuits::window_post_params(*size);
  } else if (o.type == "winning") {
    params = circuits::winning_post_params(*size);
  } else if (o.type == "snap") {
    return run_snap(o, *size);
  } else {
    std::fprintf(stderr, "circuit-info: unknown --type '%s' (porep, wpost, winning, snap)\n", o.type.c_str());
    return 2;
  }
  const gadgets::merkle_tree_shape shape = params.shape();
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::counting_cs cs;
  count(circuits::blank_fallback_post_circuit(params), o.with_input_constraints, cs);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("circuit: %s %s (FallbackPoSt, %zu sector slots x %zu challenges, tree %zu-%zu-%zu)\n", o.type.c_str(),
              o.sector_size.c_str(), params.sector_count, params.challenge_count, shape.base_arity, shape.sub_arity,
              shape.top_arity);
  print_counts(cs, secs);
  return 0;
}

}  // namespace

void register_circuit_info(CLI::App& app) {
  static options o;
  auto* cmd = app.add_subcommand("circuit-info", "constraint, input and aux counts of a Filecoin circuit");
  cmd->add_option("type,-t,--type", o.type, "porep | wpost | winning | snap")->required();
  cmd->add_option("sector-size,--sector-size", o.sector_size,
                  "2KiB | 8MiB | 512MiB | 32GiB | 64GiB (porep: optional with --nodes)");
  cmd->add_option("--nodes", o.nodes, "porep: nodes (sector size / 32)");
  cmd->add_option("--layers", o.layers, "porep: layers (2 or 11)");
  cmd->add_option("--challenges", o.challenges, "porep: challenges per partition");
  cmd->add_option("--base-arity", o.base_arity, "porep: tree R/C base arity");
  cmd->add_option("--sub-arity", o.sub_arity, "porep: tree R/C sub arity (0: none)");
  cmd->add_option("--top-arity", o.top_arity, "porep: tree R/C top arity (0: none)");
  cmd->add_flag("--poseidon", o.poseidon, "snap: the EmptySectorUpdate-Poseidon variant (Poseidon tree D)");
  cmd->add_flag("--with-input-constraints", o.with_input_constraints,
                "also count the input_i * 0 = 0 rows bellperson's prover appends");
  cmd->callback([] { run_subcommand("circuit-info", [] { return run(o); }); });
}

}  // namespace cuzk::bench_app
