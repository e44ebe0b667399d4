// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fixed-base scalar multiplication: many k_i * G for one base G.
//
// Method: a table of T[w][d] = d * 2^(c*w) * G for every window w and digit
// d in [1, 2^c), so k * G = sum_w T[w][k_w] costs ceil(255/c) additions and
// no doublings. c = 8 (the default, the layout the GPU setup uploads): 32
// windows x 255 entries = 8160 affine points (0.8 MB for G1, 1.6 MB for G2).
// The CPU setup uses c = 13: 20 windows x 8191 entries (16 MB for G1, 31 MB
// for G2, ~0.2 s / 0.4 s to build on 2 cores) for 19 additions per point;
// measured on a 2-core EPYC VM, c = 13 beat 12, 14 and 16 (at 16 the 100 MB
// table makes the lookups wait on DRAM and the TLB).
//
// mul() sums in Jacobian coordinates (7M + 4S per window) and leaves the
// normalization to the caller. mul_many() sums a batch of scalars in affine
// coordinates instead, one window at a time for the whole batch, so the
// batch shares one inversion per window (Montgomery's trick): an affine
// addition is then 5M + 1S plus (one inversion) / batch, and the result is
// already affine. For c = 13 that is ~19 x 6 = 114 M per G1 point against
// ~32 x 11 + 6 = 358 M for the Jacobian sum at c = 8 and its normalization.

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cuzk/ec/batch_normalize.hpp>
#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::ec {

template <class F, unsigned WindowBits = 8>
class fixed_base_table {
 public:
  static constexpr unsigned window_bits = WindowBits;
  static constexpr unsigned n_windows = (255 + window_bits - 1) / window_bits;
  static constexpr std::size_t per_window = (std::size_t(1) << window_bits) - 1;
  /// Points summed together in mul_many: large enough that the inversion
  /// per window (~60 M) costs < 0.1 M per point, small enough that the
  /// batch's accumulators and table rows stay in L2.
  static constexpr std::size_t batch = 1024;
  /// Table rows are fetched this many points ahead: at c >= 12 the table
  /// outgrows L2 and the lookups would otherwise wait on L3/DRAM (~30% of
  /// the time of c = 16 on a 2-core EPYC VM).
  static constexpr std::size_t prefetch_distance = 8;

  /// The windows are independent (window w needs only 2^(c w) G, c doublings
  /// per window from the previous one), so they are filled in parallel, each
  /// by mixed additions and one batch normalization.
  explicit fixed_base_table(const jacobian<F>& base) : _table(n_windows * per_window) {
    std::array<jacobian<F>, n_windows> window_base;
    window_base[0] = base;
    for (unsigned w = 1; w < n_windows; ++w) {
      window_base[w] = window_base[w - 1];
      for (unsigned b = 0; b < window_bits; ++b) window_base[w] = window_base[w].dbl();
    }
    tbb::parallel_for(0u, n_windows, [&](unsigned w) {
      const affine<F> step = window_base[w].to_affine();  // mixed additions below
      std::vector<jacobian<F>> proj(per_window);          // one window at a time: 2.4 MB for G2, c = 13
      jacobian<F> acc = window_base[w];
      for (std::size_t d = 0; d < per_window; ++d) {
        proj[d] = acc;
        acc += step;
      }
      batch_to_affine<F>(proj, std::span(_table).subspan(w * per_window, per_window));
    });
  }

  /// k * G in Jacobian coordinates (k = 0 gives infinity).
  jacobian<F> mul(const ff::fr& k) const {
    const auto c = k.to_canonical();
    jacobian<F> acc = jacobian<F>::identity();
    for (unsigned w = 0; w < n_windows; ++w)
      if (const unsigned d = digit(c, w)) acc += entry(w, d);
    return acc;
  }

  /// out[i] = scalars[i] * base (affine; infinity as x = y = 0, as
  /// batch_to_affine writes it), batches in parallel.
  void mul_many(std::span<const ff::fr> scalars, std::span<affine<F>> out) const {
    if (scalars.size() != out.size()) throw std::invalid_argument("fixed_base_table::mul_many: size mismatch");
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, scalars.size(), batch), [&](const auto& r) {
      mul_batch(scalars.subspan(r.begin(), r.size()), out.subspan(r.begin(), r.size()));
    });
  }

  /// The table itself, T[w][d - 1] at w * per_window + d - 1 (the GPU setup
  /// uploads it and runs the same lookup on the device).
  std::span<const affine<F>> table() const noexcept { return _table; }

 private:
  static_assert(window_bits >= 1 && window_bits <= 24, "2^c table points per window");
  using limbs = decltype(ff::fr::zero().to_canonical());

  static unsigned digit(const limbs& c, unsigned w) {
    const unsigned bit = w * window_bits, limb = bit / 64, shift = bit % 64;
    std::uint64_t v = c[limb] >> shift;
    if (shift + window_bits > 64 && limb + 1 < c.size()) v |= c[limb + 1] << (64 - shift);
    return unsigned(v & per_window);
  }
  const affine<F>& entry(unsigned w, unsigned d) const { return _table[w * per_window + d - 1]; }

  /// acc[i] = k[i] * G for one batch, window by window from the lowest.
  /// After windows 0..w-1, acc[i] = (k mod 2^(c w)) G =: k_low G, and window
  /// w adds T = d 2^(c w) G with 1 <= d. The chord formula needs acc != +-T,
  /// i.e. k_low != +-d 2^(c w) mod r; for a canonical k < r both k_low and
  /// d 2^(c w) lie in [1, r) with k_low < d 2^(c w) and k_low + d 2^(c w) <= k
  /// < r, so neither can hold: the additions never meet a doubling or a
  /// cancellation (checked anyway, as the denominator being non-zero).
  void mul_batch(std::span<const ff::fr> k, std::span<affine<F>> acc) const {
    const std::size_t n = k.size();
    std::vector<limbs> c(n);
    std::vector<std::uint8_t> started(n, 0);  // acc[i] holds a point (not infinity)
    std::vector<const affine<F>*> t(n);       // this window's addend, or null
    std::vector<F> dx(n), prefix(n);
    for (std::size_t i = 0; i < n; ++i) {
      c[i] = k[i].to_canonical();
      acc[i] = affine<F>::identity();
    }
    std::vector<std::uint32_t> dig(n);
    for (unsigned w = 0; w < n_windows; ++w) {
      for (std::size_t i = 0; i < n; ++i) dig[i] = digit(c[i], w);
      // pass 1: denominators x_T - x_acc and their prefix products
      F prod = F::one();
      for (std::size_t i = 0; i < n; ++i) {
        if (i + prefetch_distance < n && dig[i + prefetch_distance]) {
          const char* e = reinterpret_cast<const char*>(&entry(w, dig[i + prefetch_distance]));
          for (std::size_t off = 0; off < sizeof(affine<F>); off += 64) __builtin_prefetch(e + off);
        }
        t[i] = nullptr;
        const unsigned d = dig[i];
        if (!d) continue;
        const affine<F>& q = entry(w, d);
        if (!started[i]) {  // the first non-zero digit: a copy, no addition
          acc[i] = q;
          started[i] = 1;
          continue;
        }
        dx[i] = q.x - acc[i].x;
        if (dx[i].is_zero()) throw std::logic_error("fixed_base_table: acc == +-T (non-canonical scalar?)");
        prefix[i] = prod;
        prod *= dx[i];
        t[i] = &q;
      }
      // pass 2: one inversion, then each 1/dx by back-substitution (2M) and
      // the chord: lambda = dy/dx, x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1
      F inv = prod.inverse();
      for (std::size_t i = n; i-- > 0;) {
        const affine<F>* q = t[i];
        if (!q) continue;
        const F dx_inv = inv * prefix[i];
        inv *= dx[i];
        const F lambda = (q->y - acc[i].y) * dx_inv;
        const F x3 = lambda.sqr() - acc[i].x - q->x;
        acc[i].y = lambda * (acc[i].x - x3) - acc[i].y;
        acc[i].x = x3;
      }
    }
  }

  std::vector<affine<F>> _table;
};

}  // namespace cuzk::ec
