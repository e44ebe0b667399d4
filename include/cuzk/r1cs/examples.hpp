// SPDX-License-Identifier: Apache-2.0
#pragma once
// Tiny example circuits for tests of the R1CS, Groth16 and prover layers,
// and the reference for how a circuit is written (see constraint_system.hpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::r1cs::examples {

/// Knowledge of x with x^3 + x + 5 = y, y public (the classic example).
/// Inputs: ONE, y. Aux: x, x_sq, x_cu. Constraints (under "cubic/"):
///   x * x = x_sq;  x_sq * x = x_cu;  (x_cu + x + 5) * ONE = y.
/// A blank circuit (x empty) synthesizes in the shape and counting modes.
struct cubic_circuit {
  std::optional<fr> x;

  static fr evaluate(const fr& x) { return x.sqr() * x + x + fr::from_uint(5); }

  template <constraint_system CS>
  void synthesize(CS& cs) const {
    namespace_guard ns(cs, [] { return "cubic"; });
    const variable vx = cs.alloc("x", [&] { return require(x); });
    const variable vx_sq = cs.alloc("x_sq", [&] { return require(x).sqr(); });
    cs.enforce([] { return "x_sq = x * x"; },  //
               [&](linear_combination lc) { return lc + vx; }, [&](linear_combination lc) { return lc + vx; },
               [&](linear_combination lc) { return lc + vx_sq; });
    const variable vx_cu = cs.alloc("x_cu", [&] { return require(x).sqr() * require(x); });
    cs.enforce([] { return "x_cu = x_sq * x"; },  //
               [&](linear_combination lc) { return lc + vx_sq; }, [&](linear_combination lc) { return lc + vx; },
               [&](linear_combination lc) { return lc + vx_cu; });
    const variable vy = cs.alloc_input("y", [&] { return evaluate(require(x)); });
    cs.enforce([] { return "y = x_cu + x + 5"; },
               [&](linear_combination lc) { return lc + vx_cu + vx + fr::from_uint(5) * CS::one(); },
               [&](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + vy; });
  }
};

/// A squaring chain used by Groth16 tests and benchmarks at any size:
/// x_{i+1} = x_i^2 + i for |steps| steps from a public x_0, with a public
/// output. Each step also allocates a boolean (b * (1 - b) = 0, so b is in
/// A and B and half of the witness values are 0 or 1, the trivial MSM
/// scalars), and one aux variable appears only in C, so every density case
/// occurs. Constraints: 2 * steps + 2 (+ 3 input constraints in Groth16).
struct chain_circuit {
  std::size_t steps = 0;
  std::optional<fr> x0;

  template <constraint_system CS>
  void synthesize(CS& cs) const {
    std::optional<fr> x = x0;
    const variable vx0 = cs.alloc_input("x0", [&] { return require(x0); });
    variable cur = vx0;
    for (std::size_t i = 0; i < steps; ++i) {
      namespace_guard ns(cs, [i] { return "step " + std::to_string(i); });
      std::optional<fr> next;
      if constexpr (CS::has_values) next = x->sqr() + fr::from_uint(i);
      const variable vn = cs.alloc("next", [&] { return *next; });
      cs.enforce(
          "square", [&](linear_combination lc) { return lc + cur; }, [&](linear_combination lc) { return lc + cur; },
          [&](linear_combination lc) { return lc + vn - fr::from_uint(i) * CS::one(); });
      const std::uint64_t bit = i & 1;
      const variable vb = cs.alloc("bit", [&] { return fr::from_uint(bit); });
      cs.enforce(
          "boolean", [&](linear_combination lc) { return lc + vb; },
          [&](linear_combination lc) { return lc + CS::one() - vb; }, [&](linear_combination lc) { return lc; });
      cur = vn;
      x = next;
    }
    const variable vc = cs.alloc("c_only", [&] { return require(x); });
    cs.enforce(
        "c_only = out", [&](linear_combination lc) { return lc + cur; },
        [&](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + vc; });
    const variable out = cs.alloc_input("out", [&] { return require(x); });
    cs.enforce(
        "out", [&](linear_combination lc) { return lc + cur; }, [&](linear_combination lc) { return lc + CS::one(); },
        [&](linear_combination lc) { return lc + out; });
  }
};

}  // namespace cuzk::r1cs::examples
