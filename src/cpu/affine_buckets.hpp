// SPDX-License-Identifier: Apache-2.0
#pragma once
// Pippenger buckets kept in affine coordinates and filled by batch-affine
// additions (the CPU MSM's bucket accumulation, src/cpu/msm_cpu.cpp).
//
// Why: a Jacobian mixed addition is 7M + 4S; an affine addition is
// lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2,
// y3 = lambda (x1 - x3) - y1: 2M + 1S once 1/(x2 - x1) is known, and
// Montgomery's trick gives the inverses of a batch of B differences for one
// inversion (~60 M, mont_field::inverse) and 3(B - 1) multiplications:
// ~5M + 1S + 60/B M per addition.
//
// Method: add(b, q) queues q for bucket b; when B additions are queued they
// are applied together (flush). A bucket takes at most one queued addition
// per batch (a generation stamp per bucket says whether it has one). An
// addition the batch cannot take goes to a side list instead: a second one
// for a bucket already queued, or equal x (q == +-bucket: a doubling or
// infinity). The side list is added into the running sums of the bucket
// reduction (reduce) by complete mixed additions, in bucket order, so the
// result is exact whatever the input; on random scalars it holds up to
// ~B / 2^(c-1) of the additions (msm_cpu.cpp's batches: a quarter at 128
// buckets, under 1% from 2^15), on degenerate ones (every term in one
// bucket) nearly all, which then cost what the Jacobian loop costs.
// Memory: 2^(c-1) affine points and 4-byte stamps; B pending additions.
// Not constant time (public bases, witness scalars in a prover).

#include <algorithm>
#include <cstdint>
#include <vector>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/jacobian.hpp>

namespace cuzk::msm::detail {

template <class F>
class affine_buckets {
 public:
  using affine = ec::affine<F>;
  using jacobian = ec::jacobian<F>;

  affine_buckets(std::size_t n_buckets, std::size_t batch)
      : _acc(n_buckets, affine::identity()), _stamp(n_buckets, 0), _cap(std::max<std::size_t>(batch, 1)) {
    _pending.reserve(_cap);
    _prefix.resize(_cap);
    _dx.resize(_cap);
  }

  /// bucket[b] += q.
  void add(std::size_t b, const affine& q) {
    if (q.is_infinity()) return;
    affine& a = _acc[b];
    if (_stamp[b] == _gen || (!a.is_infinity() && a.x == q.x)) {
      _side.push_back({std::uint32_t(b), q});
      return;
    }
    if (a.is_infinity()) {
      a = q;
      return;
    }
    _stamp[b] = _gen;
    _pending.push_back({std::uint32_t(b), q});
    if (_pending.size() == _cap) flush();
  }

  /// sum_b (b + 1) bucket[b] by running sums from the top bucket
  /// (2 additions per bucket, the side list merged in), after the last add.
  jacobian reduce() {
    flush();
    std::sort(_side.begin(), _side.end(), [](const side_entry& l, const side_entry& r) { return l.b > r.b; });
    jacobian running = jacobian::identity(), sum = jacobian::identity();
    std::size_t s = 0;
    for (std::size_t b = _acc.size(); b-- > 0;) {
      running += _acc[b];
      for (; s < _side.size() && _side[s].b == b; ++s) running += _side[s].q;
      sum += running;
    }
    return sum;
  }

 private:
  struct side_entry {
    std::uint32_t b;
    affine q;
  };

  /// Applies the queued additions with one inversion (Montgomery's trick).
  void flush() {
    const std::size_t m = _pending.size();
    if (m == 0) return;
    F prod = F::one();
    for (std::size_t k = 0; k < m; ++k) {
      _prefix[k] = prod;
      _dx[k] = _pending[k].q.x - _acc[_pending[k].b].x;  // non-zero: add() sent equal x aside
      prod = prod * _dx[k];
    }
    F inv = prod.inverse();
    for (std::size_t k = m; k-- > 0;) {
      const F inv_dx = inv * _prefix[k];
      inv = inv * _dx[k];
      affine& a = _acc[_pending[k].b];
      const affine& q = _pending[k].q;
      const F lambda = (q.y - a.y) * inv_dx;
      const F x3 = lambda.sqr() - a.x - q.x;
      a.y = lambda * (a.x - x3) - a.y;
      a.x = x3;
    }
    _pending.clear();
    ++_gen;
  }

  std::vector<affine> _acc;
  std::vector<std::uint32_t> _stamp;  // == _gen: queued in the current batch
  std::uint32_t _gen = 1;
  std::size_t _cap;
  std::vector<side_entry> _pending;
  std::vector<F> _prefix, _dx;
  std::vector<side_entry> _side;
};

}  // namespace cuzk::msm::detail
