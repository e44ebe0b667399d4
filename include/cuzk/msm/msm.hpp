// SPDX-License-Identifier: Apache-2.0
#pragma once
// Multi-scalar multiplication sum_i k_i * P_i on the CPU (G1 and G2).
//
// Front end of the MSM module: the config struct and the public entry points.
// The CPU backend (src/cpu/msm_cpu.cpp) is Pippenger's bucket method with
// signed-digit windows; see that file for the algorithm and its costs.
//
// Density: Groth16 parameter files store the A and B bases only for variables
// that occur in the A (or B) matrices. `msm_dense` takes the full scalar
// vector, the compressed base vector and the density bitmap, and pairs the
// j-th set bit's scalar with the j-th base, as bellperson's multiexp does.

#include <atomic>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>

namespace cuzk::msm {

struct config {
  /// Window width in bits; 0 chooses from the number of non-trivial terms.
  unsigned window_bits = 0;
  /// Skip scalars equal to 0 and sum the bases of scalars equal to 1 directly
  /// instead of sending them through buckets (most Filecoin witness values
  /// are bits).
  bool split_trivial_scalars = true;
  /// Fill the buckets by batch-affine additions (one inversion shared by a
  /// batch) where the window has at least 128 buckets; off: Jacobian mixed
  /// additions everywhere (the reference path for tests and benchmarks).
  bool batch_affine = true;
  /// Set: the MSM reads it (relaxed) every 4096 terms of every pass and
  /// throws msm::stopped once it is true, so a cancelled proof leaves an MSM
  /// of 2^27 terms within a few milliseconds instead of running to its end.
  /// Cost: one relaxed load per 4096 point additions (not measurable).
  const std::atomic<bool>* stop = nullptr;
};

/// Thrown by an MSM (and groth16::prove) whose config::stop became true.
class stopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A bitmap over variables: bit i set when variable i has a base.
struct density_view {
  std::span<const std::uint64_t> words;
  std::size_t n_bits = 0;
  bool test(std::size_t i) const { return (words[i / 64] >> (i % 64)) & 1; }
  std::size_t count() const;
};

/// sum_i scalars[i] * bases[i]; sizes must match (std::invalid_argument otherwise).
template <class F>
ec::jacobian<F> msm(std::span<const ec::affine<F>> bases, std::span<const ff::fr> scalars, const config& cfg = {});

/// sum over set bits j of density: scalars[j] * bases[rank(j)], where rank(j)
/// is the number of set bits before j. bases.size() must equal density.count()
/// and scalars.size() must equal density.n_bits.
template <class F>
ec::jacobian<F> msm_dense(std::span<const ec::affine<F>> bases, std::span<const ff::fr> scalars,
                          const density_view& density, const config& cfg = {});

/// The window width the backend picks for |n| non-trivial terms.
unsigned default_window_bits(std::size_t n);

extern template ec::jacobian<ff::fp> msm(std::span<const ec::affine<ff::fp>>, std::span<const ff::fr>, const config&);
extern template ec::jacobian<ff::fp2> msm(std::span<const ec::affine<ff::fp2>>, std::span<const ff::fr>, const config&);
extern template ec::jacobian<ff::fp> msm_dense(std::span<const ec::affine<ff::fp>>, std::span<const ff::fr>,
                                               const density_view&, const config&);
extern template ec::jacobian<ff::fp2> msm_dense(std::span<const ec::affine<ff::fp2>>, std::span<const ff::fr>,
                                                const density_view&, const config&);

}  // namespace cuzk::msm
