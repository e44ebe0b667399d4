// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Groth16 prover on the CPU backend, bellperson's algorithm.
//
// Inputs: the parameters, the circuit's shape (A, B, C matrices and density
// masks, shared by every partition of a circuit) and one witness per proof
// (input assignment with inputs[0] = 1, and the aux assignment).
// Steps per proof:
//   1. a, b, c = A·w, B·w, C·w (sparse products, zero-padded to m = 2^k)
//   2. h = coefficients of (a·b − c)/Z: iNTT, coset NTT, pointwise
//      (a·b − c)/Z(g), inverse coset NTT; the first m − 1 coefficients
//   3. MSMs: A over inputs and dense aux, B in G1 and G2 over the B
//      densities, L over aux, H over h
//   4. A = α + ΣA + rδ, B = β + ΣB + sδ, C = ΣL + ΣH + sA + rB₁ − rsδ
//      (assemble.hpp, shared with the GPU and circom provers)
// Memory: three m-element Fr vectors (96·m bytes) besides the inputs.

#include <atomic>
#include <functional>
#include <random>
#include <span>
#include <vector>

#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/proof.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::groth16 {

struct witness {
  std::vector<ff::fr> inputs;  ///< inputs[0] = 1
  std::vector<ff::fr> aux;
};

/// Coefficients of h(X) = (a(X)·b(X) − c(X)) / Z(X), m − 1 of them.
std::vector<ff::fr> compute_h(const r1cs::r1cs_shape& shape, const witness& w);

/// Milliseconds of prove()'s steps (diagnostics, regression analysis).
struct prove_timings {
  double spmv_ms = 0, ntt_h_ms = 0, msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0, msm_l_ms = 0, msm_h_ms = 0,
         total_ms = 0;
};

/// One proof with explicit randomizers (deterministic; r = s = 0 allowed for
/// tests). Throws std::invalid_argument when the sizes of the parameters,
/// shape and witness disagree. |timings|, when given, receives the step times.
/// |stop|, when given, is polled between the steps and inside every MSM
/// (msm::config::stop); once true, prove throws msm::stopped. The longest
/// stretch without a poll is one NTT (or the SpMV) over the 2^k domain.
/// |between_steps|, when set, runs between the steps (before each of H's
/// transform pairs, after H and after each MSM but the last) and
/// may throw to abandon the proof or block (the engine lends the CPU to a
/// more urgent partition there); its time is left out of |timings|.
proof prove(const parameters& params, const r1cs::r1cs_shape& shape, const witness& w, const ff::fr& r, const ff::fr& s,
            prove_timings* timings = nullptr, const std::atomic<bool>* stop = nullptr,
            const std::function<void()>& between_steps = {});

/// One proof per witness (partitions of one circuit), fresh r, s from |rng|.
template <class Rng>
std::vector<proof> prove_many(const parameters& params, const r1cs::r1cs_shape& shape,
                              std::span<const witness> witnesses, Rng& rng) {
  std::vector<proof> out;
  out.reserve(witnesses.size());
  for (const auto& w : witnesses) {
    const ff::fr r = ff::fr::random(rng);
    const ff::fr s = ff::fr::random(rng);
    out.push_back(prove(params, shape, w, r, s));
  }
  return out;
}

}  // namespace cuzk::groth16
