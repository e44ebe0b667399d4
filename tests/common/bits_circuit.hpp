// SPDX-License-Identifier: Apache-2.0
#pragma once
// A circuit whose witness looks like a PoRep's to the GPU prover: |bits|
// booleans (b (1 - b) = 0, a seeded pattern) and one public x copied into
// aux, so every aux value is 0 or 1 but one, and the coded witness is within
// the GPU prover's bound of other values (gpu_coded_witness_max_others).
// Shared by the GPU prover's tests and the memory plan's host tests.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::test {

struct bits_circuit {
  std::size_t bits = 0;
  std::optional<std::uint64_t> seed;

  template <r1cs::constraint_system CS>
  void synthesize(CS& cs) const {
    using r1cs::linear_combination;
    const std::optional<ff::fr> x = seed ? std::optional<ff::fr>(ff::fr::from_uint(*seed)) : std::nullopt;
    const r1cs::variable vx = cs.alloc_input("x", [&] { return r1cs::require(x); });
    const r1cs::variable vc = cs.alloc("x copy", [&] { return r1cs::require(x); });
    cs.enforce(
        "copy", [&](linear_combination lc) { return lc + vx; }, [&](linear_combination lc) { return lc + CS::one(); },
        [&](linear_combination lc) { return lc + vc; });
    std::mt19937_64 pattern(seed.value_or(0));
    for (std::size_t i = 0; i < bits; ++i) {
      const std::uint64_t bit = pattern() & 1;
      const r1cs::variable vb = cs.alloc("bit", [&] { return ff::fr::from_uint(bit); });
      cs.enforce(
          "boolean", [&](linear_combination lc) { return lc + vb; },
          [&](linear_combination lc) { return lc + CS::one() - vb; }, [&](linear_combination lc) { return lc; });
    }
  }
};

}  // namespace cuzk::test
