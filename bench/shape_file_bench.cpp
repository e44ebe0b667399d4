// SPDX-License-Identifier: Apache-2.0
// The .shape file (io/shape_file.hpp) on the 2 KiB PoRep shape (1.2e6
// constraints, the same circuit as the 32 GiB PoRep with fewer layers and
// a shorter tree). The shape is built once (timed and printed: the cost a
// cache hit saves) and written to a temp file removed at exit. Measured:
// read_shape_file (the digest and structure checks included; the file stays
// in the page cache, so this is the CPU cost, not the disk's speed),
// write_shape_file (the fsync included) and the header alone.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include <cuzk/circuits/porep_compound.hpp>
#include <cuzk/io/seal_proof.hpp>
#include <cuzk/io/shape_file.hpp>

#include "bench_temp_file.hpp"

namespace {

using namespace cuzk;

const io::shape_key key{"porep-2k", 1};

struct bench_file : bench::temp_file {
  r1cs::r1cs_shape shape;

  bench_file() : temp_file("cuzk-shape-bench", ".shape") {
    const auto t0 = std::chrono::steady_clock::now();
    shape = circuits::porep_shape(*io::find_seal_proof_by_size(2048));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    io::write_shape_file(path, shape, key);
    std::printf("porep-2k shape: %zu constraints, %zu variables, built in %.2f s; file %.1f MB\n",
                shape.num_constraints, shape.num_variables(), s, double(std::filesystem::file_size(path)) / 1e6);
  }
};

const bench_file& file() {
  static const bench_file f;
  return f;
}

void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() * std::int64_t(std::filesystem::file_size(file().path)));
}

void bm_read(benchmark::State& state) {
  const auto& f = file();
  for (auto _ : state) {
    auto s = io::read_shape_file(f.path, key);
    benchmark::DoNotOptimize(s.a.cols.data());
  }
  set_bytes(state);
}

void bm_write(benchmark::State& state) {
  const auto& f = file();
  auto out = f.path;
  out += ".out";
  for (auto _ : state) io::write_shape_file(out, f.shape, key);
  std::error_code ec;
  std::filesystem::remove(out, ec);
  set_bytes(state);
}

void bm_header(benchmark::State& state) {
  const auto& f = file();
  for (auto _ : state) benchmark::DoNotOptimize(io::read_shape_file_header(f.path).payload_bytes);
}

BENCHMARK(bm_read)->Name("read_shape_file/porep-2k")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(bm_write)->Name("write_shape_file/porep-2k")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(bm_header)->Name("read_shape_file_header/porep-2k")->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
