// SPDX-License-Identifier: Apache-2.0
#pragma once
// a[i] += q[i] for a batch of affine additions with one field inversion
// (Montgomery's trick): the one copy of the batch-affine step that the CPU
// MSM's bucket filling (affine_buckets.hpp) and bucket reduction
// (affine_bucket_sum.hpp) share.
//
// Per addition: lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2,
// y3 = lambda (x1 - x3) - y1, with every 1 / (x2 - x1) from one inversion of
// the product of the differences: ~5M + 1S + (inversion, ~60M) / m.
// Preconditions (the callers filter): neither point of a pair is infinity,
// a[i]->x != q[i]->x (so no doubling and no P + (-P)), and the a[i] are
// distinct objects (a q[i] may be another pair's a[j] only if j's addition
// need not see i's result).

#include <cstddef>

#include <cuzk/ec/affine.hpp>

namespace cuzk::msm::detail {

/// *a[i] += *q[i] for i < m; |prefix| and |dx| are scratch of m elements.
template <class F>
void batch_affine_add(ec::affine<F>* const* a, const ec::affine<F>* const* q, std::size_t m, F* prefix, F* dx) {
  if (m == 0) return;
  F prod = F::one();
  for (std::size_t i = 0; i < m; ++i) {
    prefix[i] = prod;
    dx[i] = q[i]->x - a[i]->x;
    prod = prod * dx[i];
  }
  F inv = prod.inverse();
  for (std::size_t i = m; i-- > 0;) {
    const F inv_dx = inv * prefix[i];
    inv = inv * dx[i];
    ec::affine<F>& p = *a[i];
    const ec::affine<F>& r = *q[i];
    const F lambda = (r.y - p.y) * inv_dx;
    const F x3 = lambda.sqr() - p.x - r.x;
    p.y = lambda * (p.x - x3) - p.y;
    p.x = x3;
  }
}

}  // namespace cuzk::msm::detail
