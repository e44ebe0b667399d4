// SPDX-License-Identifier: Apache-2.0
#pragma once
// *a += *q for a batch of affine additions with one field inversion
// (Montgomery's trick): the one copy of the batch-affine step that the CPU
// MSM's bucket filling (affine_buckets.hpp) and bucket reduction
// (affine_bucket_sum.hpp) share.
//
// Per addition: lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2,
// y3 = lambda (x1 - x3) - y1, with every 1 / (x2 - x1) from one inversion of
// the product of the differences: ~5M + 1S + (inversion, ~60M) / m.
// A pair may add -q instead of q (a sign bit per pair), so the MSM queues
// a pointer to its base for a negative digit instead of a negated copy.
// Preconditions (the callers filter): neither point of a pair is infinity,
// a->x != q->x (so no doubling and no P + (-P)), the a of a batch are
// distinct objects, and no q is an a of the same batch.

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <cuzk/ec/affine.hpp>

#include "batch_affine_ifma.hpp"

namespace cuzk::msm::detail {

/// Queued additions *a += *q, applied together by apply(); holds the
/// pointers and the Montgomery-trick scratch, sized once for |cap| pairs.
template <class F>
class batch_affine_adder {
 public:
  using affine = ec::affine<F>;

  explicit batch_affine_adder(std::size_t cap) : _a(cap), _q(cap), _neg(cap), _prefix(cap), _dx(cap) {}

  std::size_t size() const { return _m; }

  /// Queues *a += *q, or *a += -*q when |negate| (preconditions above; at
  /// most cap pairs per apply()).
  void queue(affine* a, const affine* q, bool negate = false) {
    _a[_m] = a;
    _q[_m] = q;
    _neg[_m] = negate;
    ++_m;
  }

  /// Every queued addition, with one inversion; the queue is empty after.
  /// From |ifma_min_batch| additions on, on CPUs with AVX-512 IFMA, eight
  /// at a time by the vector kernel (batch_affine_ifma.hpp).
  void apply() {
    if (_m == 0) return;
    if constexpr (std::is_same_v<F, ff::fp> || std::is_same_v<F, ff::fp2>) {
      if (_m >= ifma_min_batch && use_ifma_additions()) {
        batch_affine_apply_ifma(_a.data(), _q.data(), _neg.data(), _m, _ifma);
        _m = 0;
        return;
      }
    }
    F prod = F::one();
    for (std::size_t i = 0; i < _m; ++i) {
      _prefix[i] = prod;
      _dx[i] = _q[i]->x - _a[i]->x;
      prod = prod * _dx[i];
    }
    F inv = prod.inverse();
    for (std::size_t i = _m; i-- > 0;) {
      const F inv_dx = inv * _prefix[i];
      inv = inv * _dx[i];
      affine& p = *_a[i];
      const affine& r = *_q[i];
      const F lambda = ((_neg[i] ? -r.y : r.y) - p.y) * inv_dx;
      const F x3 = lambda.sqr() - p.x - r.x;
      p.y = lambda * (p.x - x3) - p.y;
      p.x = x3;
    }
    _m = 0;
  }

 private:
  // Below this the lanes of the last group, mostly empty, and the
  // eight-way inversion cost more than the vector multiplications save.
  static constexpr std::size_t ifma_min_batch = 16;

  std::vector<affine*> _a;
  std::vector<const affine*> _q;
  std::vector<std::uint8_t> _neg;
  std::vector<F> _prefix, _dx;
  std::size_t _m = 0;
  ifma_scratch _ifma;
};

}  // namespace cuzk::msm::detail
