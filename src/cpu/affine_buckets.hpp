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
// Method: add(b, q, negate) queues q (or -q) for bucket b by pointer, so
// q must stay put until reduce(); when B additions are queued they are
// applied together (flush). A bucket takes at most one queued addition
// per batch (a generation stamp per bucket says whether it has one). A
// second addition for a bucket already queued waits for the next batch;
// one that collides again there, and equal x (q == +-bucket: a doubling or
// infinity), go to a side list. Before the bucket reduction (reduce,
// affine_bucket_sum.hpp) the side list is summed into its buckets by
// complete Jacobian additions and those buckets normalised back to affine
// together, so the result is exact whatever the input. On random scalars
// about B / 2^c of the additions wait a batch and (B / 2^c)^2 go aside;
// on degenerate ones (every term in one bucket) nearly all go aside and
// cost what the Jacobian loop costs. (Sent aside at the first collision,
// 3% of a 2^16-term MSM's additions did, at ~2x the cost of a batched one.)
// Memory: 2^(c-1) affine points and 4-byte stamps; B pending additions
// (a pointer and a sign each);
// reset() empties the set for reuse by the next task.
// Not constant time (public bases, witness scalars in a prover).

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/batch_normalize.hpp>
#include <cuzk/ec/jacobian.hpp>

#include "affine_bucket_sum.hpp"
#include "batch_affine_add.hpp"

namespace cuzk::msm::detail {

template <class F>
class affine_buckets {
 public:
  using affine = ec::affine<F>;
  using jacobian = ec::jacobian<F>;

  affine_buckets(std::size_t n_buckets, std::size_t batch)
      : _acc(n_buckets, affine::identity()),
        _stamp(n_buckets, 0),
        _used(n_buckets),
        _max_cap(std::max<std::size_t>(batch, 1)),
        _cap(_max_cap),
        _adder(_max_cap) {
    _pending.reserve(_cap);
  }

  /// Every bucket back to empty, the memory kept: the next task of the same
  /// thread reuses this set instead of allocating (and faulting in) its own.
  /// The task adds only to buckets [0, used) and applies batches of |batch|
  /// (at most the constructor's): a window that reaches few buckets needs
  /// smaller batches (msm_cpu.cpp, reachable_buckets).
  void reset(std::size_t used, std::size_t batch) {
    _used = std::min(used, _acc.size());
    _cap = std::clamp<std::size_t>(batch, 1, _max_cap);
    std::fill(_acc.begin(), _acc.begin() + std::ptrdiff_t(_used), affine::identity());
    std::fill(_stamp.begin(), _stamp.begin() + std::ptrdiff_t(_used), 0u);
    _gen = 1;
    _pending.clear();
    _deferred.clear();
    _side.clear();
  }

  /// bucket[b] += q, or -q when |negate|; *q is read until reduce().
  void add(std::size_t b, const affine* q, bool negate) { place({std::uint32_t(b), negate, q}, true); }

  /// sum_b (b + 1) bucket[b], after the last add: the side list summed
  /// into its buckets (complete Jacobian additions, then one shared
  /// normalisation back to affine), then weighted_bucket_sum.
  jacobian reduce() {
    flush();
    flush();  // the last batch's deferred additions
    merge_side();
    return weighted_bucket_sum<F>(std::span<const affine>(_acc.data(), _used));
  }

 private:
  struct side_entry {
    std::uint32_t b;
    bool negate;
    const affine* q;
    affine value() const { return negate ? -*q : *q; }
  };

  /// Queues bucket[b] += q in the current batch. A second addition for a
  /// bucket already queued waits for the next batch when |may_defer|
  /// (once: the deferred are placed again after the flush with may_defer
  /// false), else it goes to the side list, as does equal x.
  void place(const side_entry& e, bool may_defer) {
    if (e.q->is_infinity()) return;
    affine& a = _acc[e.b];
    if (_stamp[e.b] == _gen) {
      (may_defer ? _deferred : _side).push_back(e);
      return;
    }
    if (!a.is_infinity() && a.x == e.q->x) {
      _side.push_back(e);
      return;
    }
    if (a.is_infinity()) {
      a = e.value();
      return;
    }
    _stamp[e.b] = _gen;
    _pending.push_back(e);
    if (_pending.size() == _cap) flush();
  }

  /// bucket[b] += every side entry of b, exactly.
  void merge_side() {
    if (_side.empty()) return;
    std::sort(_side.begin(), _side.end(), [](const side_entry& l, const side_entry& r) { return l.b < r.b; });
    std::vector<std::uint32_t> touched;
    std::vector<jacobian> sums;
    for (std::size_t s = 0; s < _side.size();) {
      const std::uint32_t b = _side[s].b;
      jacobian j = jacobian::from_affine(_acc[b]);
      for (; s < _side.size() && _side[s].b == b; ++s) j += _side[s].value();
      touched.push_back(b);
      sums.push_back(j);
    }
    std::vector<affine> normal(sums.size());
    ec::batch_to_affine<F>(sums, normal);
    for (std::size_t i = 0; i < touched.size(); ++i) _acc[touched[i]] = normal[i];
    _side.clear();
  }

  /// Applies the queued additions with one inversion (batch_affine_adder;
  /// place() sent equal x and infinity elsewhere, and a bucket is queued
  /// at most once per batch).
  void flush() {
    if (_pending.empty()) return;
    for (const side_entry& e : _pending) _adder.queue(&_acc[e.b], e.q, e.negate);
    _adder.apply();
    _pending.clear();
    ++_gen;
    // the additions this batch deferred go into the next one; placed with
    // may_defer false, none is deferred again, so a flush from inside this
    // loop finds the list empty, and its buffer is handed back afterwards
    std::vector<side_entry> again;
    again.swap(_deferred);
    for (const side_entry& e : again) place(e, false);
    again.clear();
    _deferred.swap(again);
  }

  std::vector<affine> _acc;
  std::vector<std::uint32_t> _stamp;  // == _gen: queued in the current batch
  std::uint32_t _gen = 1;
  std::size_t _used;           // buckets in use by this task
  std::size_t _max_cap, _cap;  // additions per batch: the most, this task's
  std::vector<side_entry> _pending, _deferred;
  std::vector<side_entry> _side;
  batch_affine_adder<F> _adder;
};

}  // namespace cuzk::msm::detail
