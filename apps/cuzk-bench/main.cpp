// SPDX-License-Identifier: Apache-2.0
// cuzk-bench: client, generators and benchmarks for the cuzk engine.
#include <cstdio>
#include <exception>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cuzk-bench: checks, generators and benchmarks for the cuzk proving engine"};
  app.require_subcommand(1);
  cuzk::bench_app::register_selfcheck(app);
  cuzk::bench_app::register_circom_prove(app);
  cuzk::bench_app::register_circuit_info(app);
  cuzk::bench_app::register_gen_vanilla(app);
  cuzk::bench_app::register_porep_commands(app);
  cuzk::bench_app::register_timeline(app);
  cuzk::bench_app::register_compare(app);
#ifdef CUZK_BENCH_HAVE_CLIENT
  cuzk::bench_app::register_client(app);
  cuzk::bench_app::register_verify(app);
  cuzk::bench_app::register_gen_post(app);
  cuzk::bench_app::register_batch(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
