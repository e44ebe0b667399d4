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

/// The -t snap inputs shared by gen-vanilla, gen-params, prove, verify and
/// public-inputs (snap_commands.cpp).
struct snap_options {
  std::string sector_size, vanilla, comm_r_old, comm_d_new, comm_r_new;
};
/// Registers --vanilla, --comm-r-old, --comm-d-new, --comm-r-new on |cmd|.
inline void add_snap_options(CLI::App* cmd, snap_options& o) {
  cmd->add_option("--vanilla", o.vanilla, "snap: vanilla partition proofs (JSON array of base64 bincode)");
  cmd->add_option("--comm-r-old", o.comm_r_old, "snap: comm_r_old, 32-byte LE hex");
  cmd->add_option("--comm-d-new", o.comm_d_new, "snap: comm_d_new, 32-byte LE hex");
  cmd->add_option("--comm-r-new", o.comm_r_new, "snap: comm_r_new, 32-byte LE hex");
}
int run_snap_gen_vanilla(const snap_options& o, std::uint64_t seed, const std::string& out, bool check,
                         const std::string& commitments_out);
int run_snap_gen_params(const snap_options& o, const std::string& out, std::uint64_t seed);
int run_snap_prove(const snap_options& o, const std::string& params_dir, const std::string& out, bool check_points);
int run_snap_verify(const snap_options& o, const std::string& params_dir, const std::string& proof_path);
int run_snap_public_inputs(const snap_options& o, int partition);
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
