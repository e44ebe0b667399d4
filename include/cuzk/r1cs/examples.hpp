// SPDX-License-Identifier: Apache-2.0
#pragma once
// Tiny example circuits for tests of the R1CS, Groth16 and prover layers,
// and the reference for how a circuit is written (see constraint_system.hpp).

#include <optional>

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
               [&](linear_combination lc) { return lc + vx; },
               [&](linear_combination lc) { return lc + vx; },
               [&](linear_combination lc) { return lc + vx_sq; });
    const variable vx_cu = cs.alloc("x_cu", [&] { return require(x).sqr() * require(x); });
    cs.enforce([] { return "x_cu = x_sq * x"; },  //
               [&](linear_combination lc) { return lc + vx_sq; },
               [&](linear_combination lc) { return lc + vx; },
               [&](linear_combination lc) { return lc + vx_cu; });
    const variable vy = cs.alloc_input("y", [&] { return evaluate(require(x)); });
    cs.enforce([] { return "y = x_cu + x + 5"; },
               [&](linear_combination lc) { return lc + vx_cu + vx + fr::from_uint(5) * CS::one(); },
               [&](linear_combination lc) { return lc + CS::one(); },
               [&](linear_combination lc) { return lc + vy; });
  }
};

}  // namespace cuzk::r1cs::examples
