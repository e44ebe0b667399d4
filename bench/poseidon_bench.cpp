// SPDX-License-Identifier: Apache-2.0
// Poseidon micro-benchmarks: the native hash (neptune's optimized static
// form) at the arities Filecoin uses, and the circuit (neptune's legacy
// circuit::poseidon_hash) in witness_cs, the per-proof synthesis mode, and in
// shape_cs. Constants are built before timing starts.
#include <benchmark/benchmark.h>

#include <optional>
#include <random>
#include <vector>

#include <cuzk/gadgets/poseidon.hpp>
#include <cuzk/r1cs/r1cs.hpp>

namespace {

using cuzk::ff::fr;
using cuzk::gadgets::allocated_num;

void bm_native(benchmark::State& state) {
  const auto arity = static_cast<std::size_t>(state.range(0));
  cuzk::gadgets::poseidon_constants_for(arity);
  std::mt19937_64 rng(arity);
  std::vector<fr> in(arity);
  for (auto& x : in) x = fr::random(rng);
  for (auto _ : state) {
    in[0] = cuzk::gadgets::poseidon_hash(in);  // chained: each hash feeds the next
    benchmark::DoNotOptimize(in[0]);
  }
}

template <class CS>
void bm_gadget(benchmark::State& state) {
  const auto arity = static_cast<std::size_t>(state.range(0));
  cuzk::gadgets::poseidon_constants_for(arity);
  std::mt19937_64 rng(arity);
  std::vector<fr> values(arity);
  for (auto& x : values) x = fr::random(rng);
  const std::size_t per_hash = cuzk::gadgets::poseidon_hash_constraints(arity);
  for (auto _ : state) {
    CS cs;
    if constexpr (requires { cs.reserve(std::size_t(1), std::size_t(1)); }) cs.reserve(1, arity + per_hash);
    cuzk::r1cs::alloc_one(cs);
    std::vector<allocated_num> data;
    data.reserve(arity);
    for (std::size_t i = 0; i < arity; ++i) data.push_back(allocated_num::alloc(cs, [&] { return values[i]; }));
    const allocated_num out = cuzk::gadgets::poseidon_hash(cs, data);
    benchmark::DoNotOptimize(out);
    benchmark::DoNotOptimize(cs.num_constraints());
  }
  state.counters["constraints"] = static_cast<double>(per_hash);
}

BENCHMARK(bm_native)->Name("poseidon_native")->Arg(2)->Arg(8)->Arg(11)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_gadget<cuzk::r1cs::witness_cs>)->Name("poseidon_gadget_witness")->Arg(8)->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_gadget<cuzk::r1cs::shape_cs>)->Name("poseidon_gadget_shape")->Arg(8)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
