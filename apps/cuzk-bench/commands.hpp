// SPDX-License-Identifier: Apache-2.0
#pragma once
// cuzk-bench subcommands: each file registers one with the CLI11 app.

#include <cstdio>
#include <exception>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace cuzk::bench_app {

/// Runs a subcommand's body from its CLI11 callback: an exception prints
/// "<name>: <what>" and exits 2 (bad input or usage), a non-zero return
/// (e.g. 1 for "invalid") becomes the exit status.
inline void run_subcommand(const char* name, const std::function<int()>& body) {
  int rc = 0;
  try {
    rc = body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    rc = 2;
  }
  if (rc != 0) throw CLI::RuntimeError(rc);
}

void register_selfcheck(CLI::App& app);
void register_circom_prove(CLI::App& app);
void register_circuit_info(CLI::App& app);
void register_gen_vanilla(CLI::App& app);
/// timeline: SVG Gantt chart of a daemon log's TIMELINE lines (timeline.cpp).
void register_timeline(CLI::App& app);
/// compare: two batch --json files, noise-aware verdicts per metric and stage (compare.cpp).
void register_compare(CLI::App& app);
/// gen-params, prove, public-inputs for PoRep (porep_commands.cpp).
void register_porep_commands(CLI::App& app);
/// verify -t porep: prints valid (exit 0) or invalid (exit 1).
int run_porep_verify(const std::string& c1_path, const std::string& params_dir, const std::string& proof_path);
#ifdef CUZK_BENCH_HAVE_CLIENT
/// single, status, preload, metrics (gRPC client of the daemon).
void register_client(CLI::App& app);
/// verify: a PoRep proof against its C1, a PoSt proof against its request.
void register_verify(CLI::App& app);
/// gen-post: 2 KiB PoSt test inputs.
void register_gen_post(CLI::App& app);
/// batch: COUNT proofs with CONCURRENCY through the daemon, percentiles, --json (batch.cpp).
void register_batch(CLI::App& app);
#endif

}  // namespace cuzk::bench_app
