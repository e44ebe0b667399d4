// SPDX-License-Identifier: Apache-2.0
// CPU MSM: G1 at 2^16..2^22 and G2 at 2^16..2^20 terms, random scalars
// (no trivial ones), all threads. Bases are consecutive multiples built by
// additions and one batch normalization, so setup stays cheap. The *_jacobian
// cases fill the buckets by Jacobian mixed additions (config::batch_affine
// off), the others by batch-affine additions where the window is wide
// enough (the default).
#include <benchmark/benchmark.h>

#include <map>
#include <random>
#include <vector>

#include <cuzk/ec/batch_normalize.hpp>
#include <cuzk/msm/msm.hpp>

namespace {

using namespace cuzk;

template <class F>
const std::vector<ec::affine<F>>& bases(std::size_t n) {
  static std::map<std::size_t, std::vector<ec::affine<F>>> cache;
  auto& v = cache[n];
  if (v.empty()) {
    std::mt19937_64 rng(11);
    using J = ec::jacobian<F>;
    std::vector<J> proj(n);
    J p = ec::mul(J::generator(), ff::fr::random(rng));
    const J step = ec::mul(J::generator(), ff::fr::random(rng));
    for (auto& x : proj) {
      x = p;
      p += step;
    }
    v.resize(n);
    ec::batch_to_affine<F>(proj, v);
  }
  return v;
}

template <class F, bool BatchAffine>
void bm_msm(benchmark::State& state) {
  const std::size_t n = std::size_t(1) << state.range(0);
  const auto& b = bases<F>(n);
  std::mt19937_64 rng(12);
  std::vector<ff::fr> s(n);
  for (auto& x : s) x = ff::fr::random(rng);
  for (auto _ : state) {
    auto r = msm::msm<F>(b, s, msm::config{.batch_affine = BatchAffine});
    benchmark::DoNotOptimize(r);
  }
}

}  // namespace

BENCHMARK(bm_msm<cuzk::ff::fp, true>)
    ->Name("msm_g1")
    ->DenseRange(16, 22, 2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<cuzk::ff::fp, false>)
    ->Name("msm_g1_jacobian")
    ->DenseRange(16, 22, 2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<cuzk::ff::fp2, true>)
    ->Name("msm_g2")
    ->DenseRange(16, 20, 2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<cuzk::ff::fp2, false>)
    ->Name("msm_g2_jacobian")
    ->DenseRange(16, 20, 2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
