// SPDX-License-Identifier: Apache-2.0
// Parameter-file I/O on a generated ~2^16-constraint .params (65,530
// squarings x <- x * x with one public input: |h| = 2^16 - 1, |l| = |a| =
// |b_g1| = |b_g2| ~ 2^16, about 37 MB). The file is generated once, on first
// use, into a unique temp file that is removed at exit; setup takes a few
// seconds and is not timed. Measured: read_parameters with and without the
// subgroup check (the difference is the cost of check_points), the layout
// walk of mapped_parameter_file alone, write_parameters, and file_digest.
// The file stays in the page cache, so these are CPU costs, not disk speed.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include <cuzk/groth16/setup.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "bench_temp_file.hpp"

namespace {

using namespace cuzk;
using r1cs::linear_combination;
using r1cs::variable;

struct square_chain {
  std::size_t steps;

  template <r1cs::constraint_system CS>
  void synthesize(CS& cs) const {
    variable cur = cs.alloc_input("x0", [] { return ff::fr::from_uint(3); });
    for (std::size_t i = 0; i < steps; ++i) {
      const variable next = cs.alloc("next", [] { return ff::fr::zero(); });
      cs.enforce(
          "square", [&](linear_combination lc) { return lc + cur; }, [&](linear_combination lc) { return lc + cur; },
          [&](linear_combination lc) { return lc + next; });
      cur = next;
    }
  }
};

/// The generated file; removed when the process exits.
struct bench_file : bench::temp_file {
  groth16::parameters params;

  bench_file() : temp_file("cuzk-params-bench", ".params") {
    // 2 inputs' constraints + 65,530 = 65,532 <= 2^16: domain 2^16
    params = groth16::generate_parameters(r1cs::make_shape(square_chain{65530}), 1);
    io::write_parameters(params, path);
  }
};

const bench_file& file() {
  static const bench_file f;
  return f;
}

void set_counters(benchmark::State& state) {
  const auto bytes = std::filesystem::file_size(file().path);
  state.SetBytesProcessed(state.iterations() * std::int64_t(bytes));
  state.counters["points"] = double(file().params.h.size() + file().params.l.size() + file().params.a.size() +
                                    file().params.b_g1.size() + file().params.b_g2.size());
}

void bm_read(benchmark::State& state) {
  const io::read_options opt{.check_points = state.range(0) != 0};
  const auto& f = file();
  for (auto _ : state) {
    auto p = io::read_parameters(f.path, opt);
    benchmark::DoNotOptimize(p.h.data());
  }
  set_counters(state);
}

void bm_map_layout(benchmark::State& state) {
  const auto& f = file();
  for (auto _ : state) {
    io::mapped_parameter_file m(f.path);
    benchmark::DoNotOptimize(m.sections().data());
  }
  set_counters(state);
}

void bm_write(benchmark::State& state) {
  const auto& f = file();
  auto out = f.path;
  out += ".out";
  for (auto _ : state) io::write_parameters(f.params, out);
  std::error_code ec;
  std::filesystem::remove(out, ec);
  set_counters(state);
}

void bm_digest(benchmark::State& state) {
  const auto& f = file();
  for (auto _ : state) benchmark::DoNotOptimize(io::file_digest(f.path));
  set_counters(state);
}

BENCHMARK(bm_read)
    ->Name("read_parameters/2^16")
    ->ArgName("check_points")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_map_layout)->Name("map_layout/2^16")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(bm_write)->Name("write_parameters/2^16")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(bm_digest)->Name("file_digest/2^16")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
