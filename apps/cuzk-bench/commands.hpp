// SPDX-License-Identifier: Apache-2.0
#pragma once
// cuzk-bench subcommands: each file registers one with the CLI11 app.

#include <CLI/CLI.hpp>

namespace cuzk::bench_app {

void register_selfcheck(CLI::App& app);
void register_circom_prove(CLI::App& app);
void register_circuit_info(CLI::App& app);
void register_gen_vanilla(CLI::App& app);

}  // namespace cuzk::bench_app
