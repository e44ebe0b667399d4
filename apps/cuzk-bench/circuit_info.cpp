// SPDX-License-Identifier: Apache-2.0
// `cuzk-bench circuit-info --type <porep|wpost|winning|snap> --sector-size <size>`:
// the size of a circuit, counted by synthesizing its blank form into
// r1cs::counting_cs (no values, no matrices), like rust-fil-proofs'
// circuitinfo / BenchCS. Prints
//   constraints: N   ONE + the circuit (the published figures), without the
//                    num_inputs `input_i * 0 = 0` rows the Groth16 frame appends
//                    (--with-input-constraints adds them: the domain size basis)
//   inputs: N        public inputs, ONE counted
//   aux: N           private variables
// Circuits not implemented yet (porep, snap) are an error (exit code 2).
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/r1cs/counting_cs.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "commands.hpp"

namespace cuzk::bench_app {
namespace {

struct options {
  std::string type;
  std::string sector_size;
  bool with_input_constraints = false;
};

int run(const options& o) {
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
  } else if (o.type == "porep" || o.type == "snap") {
    std::fprintf(stderr, "circuit-info: the %s circuit is not implemented yet\n", o.type.c_str());
    return 2;
  } else {
    std::fprintf(stderr, "circuit-info: unknown --type '%s' (porep, wpost, winning, snap)\n", o.type.c_str());
    return 2;
  }
  const gadgets::merkle_tree_shape shape = params.shape();
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::counting_cs cs;
  const auto circuit = circuits::blank_fallback_post_circuit(params);
  if (o.with_input_constraints)
    r1cs::synthesize_groth16(circuit, cs);
  else
    r1cs::synthesize_circuit(circuit, cs);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("circuit: %s %s (FallbackPoSt, %zu sector slots x %zu challenges, tree %zu-%zu-%zu)\n",
              o.type.c_str(), o.sector_size.c_str(), params.sector_count, params.challenge_count,
              shape.base_arity, shape.sub_arity, shape.top_arity);
  std::printf("constraints: %zu\n", cs.num_constraints());
  std::printf("inputs: %zu\n", cs.num_inputs());
  std::printf("aux: %zu\n", cs.num_aux());
  std::fprintf(stderr, "counted in %.2f s\n", secs);
  return 0;
}

}  // namespace

void register_circuit_info(CLI::App& app) {
  static options o;
  auto* cmd = app.add_subcommand("circuit-info", "constraint, input and aux counts of a Filecoin circuit");
  cmd->add_option("-t,--type", o.type, "porep | wpost | winning | snap")->required();
  cmd->add_option("--sector-size", o.sector_size, "2KiB | 8MiB | 512MiB | 32GiB | 64GiB")->required();
  cmd->add_flag("--with-input-constraints", o.with_input_constraints,
                "also count the input_i * 0 = 0 rows bellperson's prover appends");
  cmd->callback([] {
    int rc = 0;
    try {
      rc = run(o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "circuit-info: %s\n", e.what());
      rc = 2;
    }
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace cuzk::bench_app
