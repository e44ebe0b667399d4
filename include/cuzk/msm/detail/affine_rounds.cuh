// SPDX-License-Identifier: Apache-2.0
#pragma once
// The per-thread rule of the GPU MSM's batch-affine level 0
// (src/cuda/msm/msm_affine_kernels.cuh runs it on the device): one thread
// sums K bucket segments at once, one affine addition per segment and round,
// the K inversions of a round shared by Montgomery's trick. Written once for
// the host and the device (CUZK_HD) over a memory policy |M|, so that
// tests/device_host runs the same code on the CPU over the emulated device
// field, against the XYZZ sums.
//
// Why the rounds are woven: a round's forward pass (the prefix products of
// the dx) and its backward pass (each 1/dx peeled off, the additions made)
// were two passes over the K segments, each waiting on memory: the forward
// pass read a base's x and the accumulator's x, the backward pass the same
// points again (measured slower than the XYZZ loop, bench/RESULTS.md
// 2026-12-03). Here segment k's step of round r makes its addition and at
// once forms the dx of round r + 1 from the new accumulator, still in
// registers, and the next point's x: one pass per round. The prefix products
// of round r + 1 are then formed in round r's order, so round r + 1 walks
// the segments the other way (the direction flips every round), and the
// round's one inversion is taken between the two.
//
// Why the policy stages: each step's data (the accumulator, the point to
// add, the next point's x, the prefix product: 288 bytes) lives in global
// memory, K steps apart. The device policy copies step i + 1's data into
// shared memory by asynchronous copies (cp.async) issued at the top of step
// i, together with the entries that name step i + 2's points: every load
// lands behind a whole step of multiplications instead of stalling one,
// and the compiler cannot sink a load to its use (a plain load of the
// entries was sunk to just before the copies that needed it). A round's
// first step and the second's entries are read directly.
//
// Per addition: 5M + 1S (1/dx, the running inverse, lambda, lambda^2, y3 and
// the next round's prefix) plus 1/K of an inversion (~25 M), against the
// XYZZ mixed addition's 8M + 2S. Additions a batch cannot take (either side
// at infinity, equal x: a doubling or P + (-P)) are made at once by the
// complete formula with an inversion of their own (M::outside), before the
// segment joins the round: never on random data, often in tests.
//
// Memory policy M (one thread's view; k < K a segment slot):
//   entry(i)                 the i-th sorted entry (term index | sign bit)
//   point(v), point_x(v)     the base of entry v, its sign applied; its x
//   load_acc(k), store_acc(k, a), store_prefix(k, p)
//   cur(k), set_cur(k, c), end(k)   the segment's next entry and its end
//   load_entries(k)                 slot k's step_entries, read at once
//   load_step(k, e)                 slot k's step data for entries e, read at once
//   stage(k, e, then, k2)           slot k's step data for entries e, and
//                                   when |then| slot k2's step_entries,
//                                   fetched in the background
//   take_staged(), take_entries()   what the last stage() fetched
// (entries carry the digit's sign; the policy negates the points it reads)
//   invert(a), outside(acc, q)      1/a; acc + q by the complete formula
// where v1 is the entry to add this round and v2 the next one (has_next).

#include <cstdint>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/xyzz.hpp>
#include <cuzk/ff/detail/host_device.hpp>

namespace cuzk::msm::detail {

/// One step's data: the accumulator, the point to add (its entry's sign
/// applied), the x of the point after it, and the prefix product of the
/// round's dx before this segment.
template <class Fd>
struct affine_step {
  ec::affine<Fd> acc, q;
  Fd qn_x, prefix;
};

/// A segment's entries for its next step: the one to add (v1) and, when
/// the segment has one more (has_next), the one after it (v2).
struct step_entries {
  std::uint32_t v1 = 0, v2 = 0;
  bool has_next = false;
};

/// acc + q by the complete formula, back to affine with an inversion of
/// its own (|invert|): the additions a batch cannot take.
CUZK_HD_TEMPLATE
template <class Fd, class Invert>
CUZK_HD_ATTR ec::affine<Fd> add_complete_affine(const ec::affine<Fd>& acc, const ec::affine<Fd>& q, Invert&& invert) {
  if (q.is_infinity()) return acc;
  if (acc.is_infinity()) return q;
  const ec::xyzz<Fd> s = ec::xyzz<Fd>::from_affine(acc).add_affine(q);
  if (s.is_infinity()) return ec::affine<Fd>::identity();
  const Fd inv = invert(s.zz * s.zzz);  // 1/ZZ = ZZZ inv, 1/ZZZ = ZZ inv
  ec::affine<Fd> r;
  r.x = s.x * s.zzz * inv;
  r.y = s.y * s.zz * inv;
  return r;
}

/// Highest (down) or lowest set bit of non-zero |m|.
CUZK_HD_ATTR unsigned end_bit(unsigned m, bool down) {
#if defined(__CUDA_ARCH__)
  return down ? 31u - unsigned(__clz(m)) : unsigned(__ffs(int(m))) - 1u;
#else
  return down ? 31u - unsigned(__builtin_clz(m)) : unsigned(__builtin_ctz(m));
#endif
}

/// Segment k's accumulator |acc| against its points from entry |c| on:
/// the first addition a batch can take joins the next round (its prefix
/// product stored, |prod| and |mask| updated); any before it are made at
/// once. |staged|: the caller has entry c's x already (|staged_x|; by
/// value, so that the step's data can stay in registers).
/// Stores the accumulator and the segment's new position.
CUZK_HD_TEMPLATE
template <class Fd, class M>
CUZK_HD_ATTR void join_next_round(M& m, unsigned k, ec::affine<Fd> acc, std::uint32_t c, bool staged, Fd staged_x,
                                  Fd& prod, unsigned& mask) {
  const std::uint32_t e = m.end(k);
  for (; c < e; ++c, staged = false) {
    const Fd qx = staged ? staged_x : m.point_x(m.entry(c));
    const Fd dx = qx - acc.x;
    // x = 0 may be infinity (stored as x = y = 0): the complete formula
    if (qx.is_zero() || acc.x.is_zero() || dx.is_zero()) {
      acc = m.outside(acc, m.point(m.entry(c)));
      continue;
    }
    m.store_prefix(k, prod);
    prod = prod * dx;
    mask |= 1u << k;
    break;
  }
  m.set_cur(k, c);
  m.store_acc(k, acc);
}

/// Starts segment slot k on entries [begin, end) (begin < end): its first
/// point is the accumulator. Slots must be started in increasing k.
CUZK_HD_TEMPLATE
template <class Fd, class M>
CUZK_HD_ATTR void start_segment(M& m, unsigned k, std::uint32_t begin, Fd& prod, unsigned& mask) {
  join_next_round<Fd>(m, k, m.point(m.entry(begin)), begin + 1, false, Fd::zero(), prod, mask);
}

/// Runs the rounds until every segment has added all its points; each
/// accumulator is then its segment's sum (M::load_acc). |prod| and |mask|
/// come from start_segment over slots 0, 1, ... in that order.
/// Pipeline: at the top of a step, the next segment's data is staged (its
/// entries were fetched a step earlier) and the entries of the segment
/// after it are fetched; both land while this step's multiplications run.
CUZK_HD_TEMPLATE
template <class Fd, class M>
CUZK_HD_ATTR void run_affine_rounds(M& m, Fd prod, unsigned mask) {
  bool down = true;  // the slots were started upwards
  CUZK_HD_NO_UNROLL
  while (mask) {
    Fd inv = m.invert(prod);  // 1 / (product of this round's dx)
    prod = Fd::one();
    unsigned next_mask = 0, left = mask;
    // the round's first segment and the entries of its second, read at once
    unsigned k = end_bit(left, down);
    left &= ~(1u << k);
    const step_entries e0 = m.load_entries(k);
    bool has_next = e0.has_next;
    affine_step<Fd> st = m.load_step(k, e0);
    bool has_kn = left != 0;
    unsigned kn = has_kn ? end_bit(left, down) : 0u;
    if (has_kn) left &= ~(1u << kn);
    step_entries en = has_kn ? m.load_entries(kn) : step_entries{};
    CUZK_HD_NO_UNROLL
    for (;;) {
      const bool has_knn = left != 0;
      const unsigned knn = has_knn ? end_bit(left, down) : 0u;
      if (has_knn) left &= ~(1u << knn);
      if (has_kn) m.stage(kn, en, has_knn, knn);
      const ec::affine<Fd>& q = st.q;
      const ec::affine<Fd>& a = st.acc;
      const Fd inv_dx = inv * st.prefix;
      inv = inv * (q.x - a.x);
      const Fd lambda = (q.y - a.y) * inv_dx;
      ec::affine<Fd> r;
      r.x = lambda.sqr() - a.x - q.x;
      r.y = lambda * (a.x - r.x) - a.y;
      join_next_round<Fd>(m, k, r, m.cur(k) + 1, has_next, st.qn_x, prod, next_mask);
      if (!has_kn) break;
      st = m.take_staged();
      k = kn, has_next = en.has_next;
      if (has_knn) en = m.take_entries();
      kn = knn, has_kn = has_knn;
    }
    mask = next_mask;
    down = !down;
  }
}

}  // namespace cuzk::msm::detail
