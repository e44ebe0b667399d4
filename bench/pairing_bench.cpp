// SPDX-License-Identifier: Apache-2.0
// Pairing benchmarks: one full pairing (prepare + Miller loop + final
// exponentiation), the G2 line precomputation, the Miller loop alone (with a
// prepared Q), the final exponentiation alone, a 4-pair multi-pairing from
// affine points, and the Fp12 building blocks (mul, sqr, cyclotomic sqr,
// sparse line mul).
#include <benchmark/benchmark.h>

#include <array>
#include <random>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/pairing.hpp>

namespace {

using cuzk::ec::g1_affine;
using cuzk::ec::g2_affine;
using cuzk::ff::fp12;
using cuzk::ff::fp2;
using cuzk::ff::fr;
namespace ec = cuzk::ec;

g1_affine random_g1(std::mt19937_64& rng) { return ec::mul(ec::g1_generator(), fr::random(rng)).to_affine(); }
g2_affine random_g2(std::mt19937_64& rng) { return ec::mul(ec::g2_generator(), fr::random(rng)).to_affine(); }

void bm_pairing(benchmark::State& state) {
  std::mt19937_64 rng(1);
  const g1_affine p = random_g1(rng);
  const g2_affine q = random_g2(rng);
  for (auto _ : state) {
    auto e = ec::pairing(p, q);
    benchmark::DoNotOptimize(e);
  }
}

void bm_g2_prepare(benchmark::State& state) {
  std::mt19937_64 rng(2);
  const g2_affine q = random_g2(rng);
  for (auto _ : state) {
    ec::g2_prepared qp(q);
    benchmark::DoNotOptimize(qp);
  }
}

void bm_miller_loop(benchmark::State& state) {
  std::mt19937_64 rng(3);
  const g1_affine p = random_g1(rng);
  const ec::g2_prepared qp(random_g2(rng));
  for (auto _ : state) {
    auto f = ec::miller_loop(p, qp);
    benchmark::DoNotOptimize(f);
  }
}

void bm_final_exponentiation(benchmark::State& state) {
  std::mt19937_64 rng(4);
  const fp12 f = ec::miller_loop(random_g1(rng), ec::g2_prepared(random_g2(rng)));
  for (auto _ : state) {
    auto e = ec::final_exponentiation(f);
    benchmark::DoNotOptimize(e);
  }
}

void bm_multi_pairing_4(benchmark::State& state) {
  std::mt19937_64 rng(5);
  std::array<g1_affine, 4> ps;
  std::array<g2_affine, 4> qs;
  for (auto& p : ps) p = random_g1(rng);
  for (auto& q : qs) q = random_g2(rng);
  for (auto _ : state) {
    auto e = ec::multi_pairing(ps, qs);
    benchmark::DoNotOptimize(e);
  }
}

void bm_multi_miller_loop_4_prepared(benchmark::State& state) {
  std::mt19937_64 rng(6);
  std::vector<ec::g2_prepared> prepared;
  for (int i = 0; i < 4; ++i) prepared.emplace_back(random_g2(rng));
  std::vector<ec::miller_term> terms;
  for (int i = 0; i < 4; ++i) terms.push_back({random_g1(rng), &prepared[std::size_t(i)]});
  for (auto _ : state) {
    auto f = ec::miller_loop(terms);
    benchmark::DoNotOptimize(f);
  }
}

void bm_fp12_mul(benchmark::State& state) {
  std::mt19937_64 rng(7);
  fp12 a = fp12::random(rng);
  const fp12 b = fp12::random(rng);
  for (auto _ : state) {
    a = a * b;
    benchmark::DoNotOptimize(a);
  }
}

void bm_fp12_sqr(benchmark::State& state) {
  std::mt19937_64 rng(8);
  fp12 a = fp12::random(rng);
  for (auto _ : state) {
    a = a.sqr();
    benchmark::DoNotOptimize(a);
  }
}

void bm_fp12_cyclotomic_sqr(benchmark::State& state) {
  std::mt19937_64 rng(9);
  fp12 a = fp12::random(rng);  // the cost does not depend on membership
  for (auto _ : state) {
    a = a.cyclotomic_sqr();
    benchmark::DoNotOptimize(a);
  }
}

void bm_fp12_mul_by_014(benchmark::State& state) {
  std::mt19937_64 rng(10);
  fp12 a = fp12::random(rng);
  const fp2 d0 = fp2::random(rng), d1 = fp2::random(rng), d4 = fp2::random(rng);
  for (auto _ : state) {
    a = a.mul_by_014(d0, d1, d4);
    benchmark::DoNotOptimize(a);
  }
}

void bm_fp12_inverse(benchmark::State& state) {
  std::mt19937_64 rng(11);
  fp12 a = fp12::random(rng);
  for (auto _ : state) {
    a = a.inverse();
    benchmark::DoNotOptimize(a);
  }
}

}  // namespace

BENCHMARK(bm_pairing)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_g2_prepare)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_miller_loop)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_final_exponentiation)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_multi_pairing_4)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_multi_miller_loop_4_prepared)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_fp12_mul)->Unit(benchmark::kNanosecond);
BENCHMARK(bm_fp12_sqr)->Unit(benchmark::kNanosecond);
BENCHMARK(bm_fp12_cyclotomic_sqr)->Unit(benchmark::kNanosecond);
BENCHMARK(bm_fp12_mul_by_014)->Unit(benchmark::kNanosecond);
BENCHMARK(bm_fp12_inverse)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
