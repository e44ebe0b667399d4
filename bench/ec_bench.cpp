// SPDX-License-Identifier: Apache-2.0
// Curve-layer microbenchmarks: G1 group operations (Jacobian and xyzz),
// scalar multiplication (wNAF, GLV), subgroup checks and point decoding.
// Inputs are fixed-seed random points so runs are comparable.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/serialization.hpp>
#include <cuzk/ec/subgroup.hpp>
#include <cuzk/ec/xyzz.hpp>

namespace {

using namespace cuzk::ec;
using cuzk::ff::fr;

constexpr std::size_t n_inputs = 64;  // rotate through a few inputs per benchmark

std::mt19937_64& rng() {
  static std::mt19937_64 r(0x6375'7a6b'6563'0001);
  return r;
}

template <class J>
std::vector<J> random_points(std::size_t n) {
  std::vector<J> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(mul(J::generator(), fr::random(rng())));
  return v;
}

std::vector<fr> random_scalars(std::size_t n) {
  std::vector<fr> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(fr::random(rng()));
  return v;
}

void bm_g1_add_jacobian(benchmark::State& st) {
  const auto p = random_points<g1_jacobian>(n_inputs);
  g1_jacobian acc = p[0];
  std::size_t i = 0;
  for (auto _ : st) {
    acc = acc + p[++i % n_inputs];
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(bm_g1_add_jacobian);

void bm_g1_madd_jacobian(benchmark::State& st) {
  const auto pj = random_points<g1_jacobian>(n_inputs);
  std::vector<g1_affine> p;
  for (const auto& q : pj) p.push_back(q.to_affine());
  g1_jacobian acc = pj[0].dbl();
  std::size_t i = 0;
  for (auto _ : st) {
    acc = acc.add_affine(p[++i % n_inputs]);
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(bm_g1_madd_jacobian);

void bm_g1_dbl_jacobian(benchmark::State& st) {
  g1_jacobian acc = random_points<g1_jacobian>(1)[0];
  for (auto _ : st) {
    acc = acc.dbl();
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(bm_g1_dbl_jacobian);

void bm_g1_madd_xyzz(benchmark::State& st) {
  const auto pj = random_points<g1_jacobian>(n_inputs);
  std::vector<g1_affine> p;
  for (const auto& q : pj) p.push_back(q.to_affine());
  g1_xyzz acc = g1_xyzz::from_jacobian(pj[0].dbl());
  std::size_t i = 0;
  for (auto _ : st) {
    acc = acc.add_affine(p[++i % n_inputs]);
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(bm_g1_madd_xyzz);

void bm_g1_add_xyzz(benchmark::State& st) {
  const auto pj = random_points<g1_jacobian>(n_inputs);
  std::vector<g1_xyzz> p;
  for (const auto& q : pj) p.push_back(g1_xyzz::from_jacobian(q));
  g1_xyzz acc = p[0].dbl();
  std::size_t i = 0;
  for (auto _ : st) {
    acc = acc + p[++i % n_inputs];
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(bm_g1_add_xyzz);

void bm_g1_dbl_xyzz(benchmark::State& st) {
  g1_xyzz acc = g1_xyzz::from_jacobian(random_points<g1_jacobian>(1)[0]);
  for (auto _ : st) {
    acc = acc.dbl();
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(bm_g1_dbl_xyzz);

// The generic wNAF (mul on canonical limbs) for both groups, and ec::mul on
// an fr, which is the wNAF on G1 and mul_gls (psi endomorphism) on G2.
template <class J, bool Generic>
void bm_mul(benchmark::State& st) {
  const auto p = random_points<J>(8);
  const auto k = random_scalars(n_inputs);
  std::size_t i = 0;
  for (auto _ : st) {
    ++i;
    if constexpr (Generic) {
      benchmark::DoNotOptimize(mul(p[i % 8], k[i % n_inputs].to_canonical()));
    } else {
      benchmark::DoNotOptimize(mul(p[i % 8], k[i % n_inputs]));
    }
  }
}
BENCHMARK(bm_mul<g1_jacobian, true>)->Name("bm_g1_mul_wnaf")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_mul<g2_jacobian, true>)->Name("bm_g2_mul_wnaf")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_mul<g2_jacobian, false>)->Name("bm_g2_mul_gls")->Unit(benchmark::kMicrosecond);

void bm_g1_mul_glv(benchmark::State& st) {
  const auto p = random_points<g1_jacobian>(8);
  const auto k = random_scalars(n_inputs);
  std::size_t i = 0;
  for (auto _ : st) {
    ++i;
    benchmark::DoNotOptimize(mul_glv(p[i % 8], k[i % n_inputs]));
  }
}
BENCHMARK(bm_g1_mul_glv)->Unit(benchmark::kMicrosecond);

template <class J, bool Slow>
void bm_subgroup(benchmark::State& st) {
  std::vector<typename J::affine_type> p;
  for (const auto& q : random_points<J>(8)) p.push_back(q.to_affine());
  std::size_t i = 0;
  for (auto _ : st) {
    const auto& q = p[++i % 8];
    benchmark::DoNotOptimize(Slow ? is_in_subgroup_slow(q) : is_in_subgroup(q));
  }
}
BENCHMARK(bm_subgroup<g1_jacobian, false>)->Name("bm_g1_subgroup_check")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_subgroup<g2_jacobian, false>)->Name("bm_g2_subgroup_check")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_subgroup<g1_jacobian, true>)->Name("bm_g1_subgroup_check_slow")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_subgroup<g2_jacobian, true>)->Name("bm_g2_subgroup_check_slow")->Unit(benchmark::kMicrosecond);

// arg 0: subgroup check off, 1: on
void bm_g1_decode_compressed(benchmark::State& st) {
  std::vector<std::array<std::uint8_t, g1_compressed_size>> enc;
  for (const auto& q : random_points<g1_jacobian>(8)) enc.push_back(encode_g1_compressed(q.to_affine()));
  const decode_options opt{.check_subgroup = st.range(0) != 0};
  std::size_t i = 0;
  for (auto _ : st) benchmark::DoNotOptimize(decode_g1_compressed(enc[++i % 8], opt));
}
BENCHMARK(bm_g1_decode_compressed)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void bm_g1_decode_uncompressed(benchmark::State& st) {
  std::vector<std::array<std::uint8_t, g1_uncompressed_size>> enc;
  for (const auto& q : random_points<g1_jacobian>(8)) enc.push_back(encode_g1_uncompressed(q.to_affine()));
  const decode_options opt{.check_subgroup = st.range(0) != 0};
  std::size_t i = 0;
  for (auto _ : st) benchmark::DoNotOptimize(decode_g1_uncompressed(enc[++i % 8], opt));
}
BENCHMARK(bm_g1_decode_uncompressed)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void bm_g2_decode_compressed(benchmark::State& st) {
  std::vector<std::array<std::uint8_t, g2_compressed_size>> enc;
  for (const auto& q : random_points<g2_jacobian>(8)) enc.push_back(encode_g2_compressed(q.to_affine()));
  const decode_options opt{.check_subgroup = st.range(0) != 0};
  std::size_t i = 0;
  for (auto _ : st) benchmark::DoNotOptimize(decode_g2_compressed(enc[++i % 8], opt));
}
BENCHMARK(bm_g2_decode_compressed)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
