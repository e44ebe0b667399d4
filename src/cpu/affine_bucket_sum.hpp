// SPDX-License-Identifier: Apache-2.0
#pragma once
// sum_b (b + 1) bucket[b] over affine buckets by batch-affine running sums
// (the bucket reduction of the CPU MSM, affine_buckets.hpp).
//
// Why: the textbook reduction is two additions per bucket along one chain,
// running += bucket[b] and sum += running, each waiting on the last, so
// they cannot share an inversion and run in Jacobian coordinates
// (~11M + 16M). On a 2^16-term G1 MSM that chain was ~19% of the time.
//
// Method: the buckets are cut into K segments of L consecutive buckets
// (segment k = [kL, kL + L)), and the K segments' running sums advance in
// lockstep, from the top bucket of each segment down: step j does
// T_k += bucket[kL + j] for every k, then W_k += T_k for every k, each of
// the two rounds K independent affine additions with one inversion
// (Montgomery's trick; ~5M + 1S + inversion / K each). Afterwards
// T_k = sum_j bucket[kL + j] and W_k = sum_j (j + 1) bucket[kL + j], and
//   sum_b (b + 1) bucket[b] = sum_k W_k + L sum_k k T_k,
// the last sum by a short Jacobian running sum over the K totals and
// log2(L) doublings (L is a power of two).
// Exact for any input: an infinity operand is a copy or a no-op, equal x
// (Q = +-P) takes the complete Jacobian formulas and one inversion of its
// own (rare on random buckets, correct on degenerate ones).
// Cost: 2 nb affine additions at ~5M + 1S + 60M / K, plus ~3K Jacobian
// additions and log2(L) doublings, against 2 nb Jacobian additions.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <span>
#include <vector>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/jacobian.hpp>

#include "batch_affine_add.hpp"

namespace cuzk::msm::detail {

/// acc[k] += *q[k] for every k < n with q[k] != nullptr, as one round of
/// independent affine additions sharing one inversion (|adder| holds at
/// least n pairs); infinity and equal x are handled off the batch.
template <class F>
void lockstep_round(batch_affine_adder<F>& adder, ec::affine<F>* acc, const ec::affine<F>* const* q, std::size_t n) {
  using jacobian = ec::jacobian<F>;
  for (std::size_t k = 0; k < n; ++k) {
    if (!q[k] || q[k]->is_infinity()) continue;
    ec::affine<F>& a = acc[k];
    if (a.is_infinity()) {
      a = *q[k];
      continue;
    }
    if (a.x == q[k]->x) {  // Q = +-P: doubling or infinity, off the batch
      a = (jacobian::from_affine(a) + jacobian::from_affine(*q[k])).to_affine();
      continue;
    }
    adder.queue(&a, q[k]);
  }
  adder.apply();
}

/// Segments for |nb| buckets: a power of two, at most nb / 16 (at least 16
/// steps per segment, so the 3K Jacobian additions at the end stay small
/// against the 2 nb affine ones) and at most 128 (an inversion, ~60M,
/// shared by 128 additions is under 0.5M each).
inline std::size_t lockstep_segments(std::size_t nb) {
  return std::clamp<std::size_t>(std::bit_floor(std::max<std::size_t>(nb / 16, 1)), 1, 128);
}

/// sum_b (b + 1) bucket[b].
template <class F>
ec::jacobian<F> weighted_bucket_sum(std::span<const ec::affine<F>> bucket) {
  using affine = ec::affine<F>;
  using jacobian = ec::jacobian<F>;
  const std::size_t nb = bucket.size();
  const std::size_t k_seg = lockstep_segments(nb);
  if (k_seg < 2) {
    jacobian running = jacobian::identity(), sum = jacobian::identity();
    for (std::size_t b = nb; b-- > 0;) {
      running += bucket[b];
      sum += running;
    }
    return sum;
  }
  const std::size_t len = std::bit_ceil((nb + k_seg - 1) / k_seg);
  std::vector<affine> t(k_seg, affine::identity()), w(k_seg, affine::identity());
  std::vector<const affine*> q(k_seg);
  batch_affine_adder<F> adder(k_seg);
  for (std::size_t j = len; j-- > 0;) {
    for (std::size_t k = 0; k < k_seg; ++k) {
      const std::size_t b = k * len + j;
      q[k] = b < nb ? &bucket[b] : nullptr;
    }
    lockstep_round(adder, t.data(), q.data(), k_seg);
    for (std::size_t k = 0; k < k_seg; ++k) q[k] = &t[k];
    lockstep_round(adder, w.data(), q.data(), k_seg);
  }
  // sum_k k T_k by a running sum over the segment totals, then times len
  jacobian running = jacobian::identity(), weighted = jacobian::identity(), total = jacobian::identity();
  for (std::size_t k = k_seg; k-- > 1;) {
    running += t[k];
    weighted += running;
  }
  for (std::size_t s = len; s > 1; s /= 2) weighted = weighted.dbl();
  for (std::size_t k = 0; k < k_seg; ++k) total += w[k];
  return total + weighted;
}

}  // namespace cuzk::msm::detail
