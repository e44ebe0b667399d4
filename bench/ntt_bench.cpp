// SPDX-License-Identifier: Apache-2.0
// CPU NTT over Fr: ntt, coset_ntt and intt at 2^16..2^24 (Arg = lg_n), all
// threads oneTBB gives the process. Twiddle tables are built before timing.
// Inputs are transformed in place repeatedly (the values stay uniformly
// random), so each iteration is exactly one transform.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/ntt/ntt.hpp>

namespace {

using cuzk::ff::fr;
using cuzk::ntt::evaluation_domain;

std::vector<fr> random_input(std::size_t n) {
  std::mt19937_64 rng(42);
  std::vector<fr> v(n);
  for (auto& x : v) x = fr::random(rng);
  return v;
}

template <void (*Op)(const evaluation_domain&, std::span<fr>)>
void bm_transform(benchmark::State& state) {
  const auto d = evaluation_domain::from_lg(unsigned(state.range(0)));
  auto v = random_input(d.size());
  Op(d, v);  // warm-up: builds the twiddle tables, faults the pages in
  for (auto _ : state) {
    Op(d, v);
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(d.size()));
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int lg = 16; lg <= 24; ++lg) b->Arg(lg);
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(bm_transform<cuzk::ntt::ntt>)->Name("ntt")->Apply(sizes);
BENCHMARK(bm_transform<cuzk::ntt::coset_ntt>)->Name("coset_ntt")->Apply(sizes);
BENCHMARK(bm_transform<cuzk::ntt::intt>)->Name("intt")->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
