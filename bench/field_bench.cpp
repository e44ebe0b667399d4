// SPDX-License-Identifier: Apache-2.0
// Field arithmetic micro-benchmarks: Fp/Fr mul and sqr (dependent chains, so
// the figure is latency per operation), Fp/Fr inverse (the variable-time
// default and the constant-time Fermat one), Fp2 mul.
#include <benchmark/benchmark.h>

#include <random>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/fp2.hpp>

namespace {

template <class F>
void bm_mul(benchmark::State& state) {
  std::mt19937_64 rng(1);
  F a = F::random(rng);
  const F b = F::random(rng);
  for (auto _ : state) {
    a = a * b;
    benchmark::DoNotOptimize(a);
  }
}

template <class F>
void bm_sqr(benchmark::State& state) {
  std::mt19937_64 rng(2);
  F a = F::random(rng);
  for (auto _ : state) {
    a = a.sqr();
    benchmark::DoNotOptimize(a);
  }
}

template <class F>
void bm_add(benchmark::State& state) {
  std::mt19937_64 rng(3);
  F a = F::random(rng);
  const F b = F::random(rng);
  for (auto _ : state) {
    a = a + b;
    benchmark::DoNotOptimize(a);
  }
}

template <class F>
void bm_inverse(benchmark::State& state) {
  std::mt19937_64 rng(4);
  F a = F::random(rng);
  for (auto _ : state) {
    a = a.inverse() + F::one();
    benchmark::DoNotOptimize(a);
  }
}

template <class F>
void bm_inverse_fermat(benchmark::State& state) {
  std::mt19937_64 rng(4);
  F a = F::random(rng);
  for (auto _ : state) {
    a = a.inverse_fermat() + F::one();
    benchmark::DoNotOptimize(a);
  }
}

using cuzk::ff::fp;
using cuzk::ff::fp2;
using cuzk::ff::fr;

BENCHMARK(bm_mul<fp>)->Name("fp_mul");
BENCHMARK(bm_sqr<fp>)->Name("fp_sqr");
BENCHMARK(bm_add<fp>)->Name("fp_add");
BENCHMARK(bm_inverse<fp>)->Name("fp_inverse");
BENCHMARK(bm_inverse_fermat<fp>)->Name("fp_inverse_fermat");
BENCHMARK(bm_mul<fr>)->Name("fr_mul");
BENCHMARK(bm_sqr<fr>)->Name("fr_sqr");
BENCHMARK(bm_add<fr>)->Name("fr_add");
BENCHMARK(bm_inverse<fr>)->Name("fr_inverse");
BENCHMARK(bm_inverse_fermat<fr>)->Name("fr_inverse_fermat");
BENCHMARK(bm_mul<fp2>)->Name("fp2_mul");

}  // namespace

BENCHMARK_MAIN();
