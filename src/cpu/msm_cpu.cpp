// SPDX-License-Identifier: Apache-2.0
// CPU Pippenger MSM with signed-digit windows.
//
// Method:
//  1. Scalars leave Montgomery form once (canonical little-endian limbs).
//     With split_trivial_scalars, 0 is dropped and 1 is summed by mixed
//     additions on the side (one add per term instead of a bucket add plus
//     its share of the reduction).
//  2. Each remaining scalar is recoded into signed digits in
//     [-2^(c-1), 2^(c-1)] (a digit above 2^(c-1) borrows from the next
//     window), halving the bucket count to 2^(c-1): ceil(255/c) windows,
//     plus one for the last borrow only when the top window is c bits wide
//     (signed_windows below).
//  3. Work is split into tasks of (window, chunk of points); each task fills
//     its own 2^(c-1) buckets (negated base for negative digits) and
//     reduces them with the running-sum trick (2 * 2^(c-1) additions).
//     From 128 buckets on (c >= 8) the buckets are affine, filled by
//     batch-affine additions (affine_buckets.hpp: ~5M + 1S each against
//     7M + 4S; on CPUs with AVX-512 IFMA eight lanes at a time,
//     batch_affine_ifma.hpp, measured 1.9x the G1 and 2.0x the G2 MSM rate
//     at 2^16 on Zen 5); below, Jacobian buckets by mixed additions. Chunk results
//     of a window are summed, then windows are combined from the top with c
//     doublings each.
// Cost: about (256/c) * (n + 2^c) group additions for n terms; c is chosen
// from n by default_window_bits. Memory: the kept terms (a base pointer and
// a 32-byte scalar each) and digits n * windows int32, both allocated
// untouched and advised for huge pages (a 2^16-term MSM faulted ~6,000
// 4 KiB pages in before), plus one set of 2^(c-1) buckets per worker
// thread, reused by its tasks (c = 16: 4.7 MB per G1 set).
// Not constant time; for public bases and witness scalars in a prover.
// Cancellation: config::stop is polled once per block of terms (msm.hpp).

#include <cuzk/msm/msm.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <cuzk/sys/huge_pages.hpp>

#include "affine_buckets.hpp"

namespace cuzk::msm {

std::size_t density_view::count() const {
  std::size_t full = n_bits / 64, c = 0;
  for (std::size_t i = 0; i < full; ++i) c += std::popcount(words[i]);
  if (n_bits % 64) c += std::popcount(words[full] & ((std::uint64_t(1) << (n_bits % 64)) - 1));
  return c;
}

unsigned default_window_bits(std::size_t n) {
  if (n < 32) return 3;
  // Minimises (256/c) * (n + 2^c) over c; the fit 0.65*log2(n)+3 tracks the
  // minimum within a few percent from 2^8 to 2^26 terms.
  const double lg = std::log2(double(n));
  return std::clamp(unsigned(0.65 * lg + 3.0), 4u, 20u);
}

namespace {

using scalar = ff::fr::limbs;

/// Bits [bit, bit + c) of k (c <= 32).
inline std::uint32_t window_of(const scalar& k, unsigned bit, unsigned c) {
  const unsigned limb = bit / 64, shift = bit % 64;
  if (limb >= k.size()) return 0;
  std::uint64_t v = k[limb] >> shift;
  if (shift + c > 64 && limb + 1 < k.size()) v |= k[limb + 1] << (64 - shift);
  return std::uint32_t(v & ((std::uint64_t(1) << c) - 1));
}

/// Signed-digit windows of c bits for scalars below 2^255: ceil(255/c),
/// plus one when the top window is c bits wide, since only then can its
/// digit (at most 2^t - 1 for a t-bit top window, plus a borrow of 1)
/// exceed 2^(c-1) and borrow from a window above it.
constexpr unsigned signed_windows(unsigned c) {
  const unsigned w = (255 + c - 1) / c;
  const unsigned top_bits = 255 - (w - 1) * c;
  return top_bits == c ? w + 1 : w;
}
static_assert(signed_windows(13) == 20 && signed_windows(15) == 18 && signed_windows(16) == 16 &&
              signed_windows(17) == 16 && signed_windows(5) == 52);

/// Buckets that window w's digits can reach: 2^(c-1), but 2^t in a top
/// window of t < c bits (digits up to 2^t - 1 plus a borrow) and 1 in the
/// extra window above bit 255 (a borrow only). Why it matters: at c = 13
/// the top window has 8 bits, so its n terms share 256 buckets; batches
/// sized for 4096 buckets then collided on nearly every addition and sent
/// ~5% of a 2^16 MSM's additions (the whole top window) down the slow
/// Jacobian side path, ~20% of the MSM's time.
constexpr std::size_t reachable_buckets(unsigned w, unsigned c) {
  const unsigned lo = w * c;
  if (lo >= 255) return 1;
  const unsigned bits = std::min(c, 255 - lo);
  return std::min(std::size_t(1) << (c - 1), std::size_t(1) << bits);
}
static_assert(reachable_buckets(19, 13) == 256 && reachable_buckets(18, 13) == 4096 && reachable_buckets(17, 15) == 1 &&
              reachable_buckets(16, 15) == 16384);

/// The terms left after the trivial scalars are taken out: |count| base
/// pointers and canonical scalars in arrays sized for every input term.
template <class F>
struct term_set {
  std::unique_ptr<const ec::affine<F>*[]> bases;
  std::unique_ptr<scalar[]> scalars;
  std::size_t count = 0;
};

// cfg.stop: checked once per block of every pass (4096 terms; 8192 in the
// classification pass, which costs a fraction of an addition per term).
inline void check_stop(const std::atomic<bool>* stop) {
  if (stop && stop->load(std::memory_order_relaxed)) throw stopped("msm stopped (its proof was cancelled)");
}

/// Additions per batch of the affine buckets for windows of |n_buckets|
/// buckets, 0 for Jacobian buckets: one inversion (~60 M) per batch must
/// stay small against the ~5 M of each addition, and a batch must leave
/// most buckets free (a second addition for a queued bucket goes the slow
/// way). Measured on the 2-core dev VM (2026-12-03, 10^5 to 5 10^5 random
/// additions into one set of buckets, bucket sums included), batch-affine
/// against Jacobian: 1.3x at 128 buckets with batches of 32, 1.44x at 256
/// with 64, 1.5x at 512 with 128, 1.55x at 1024 with 256, 1.7x at 32768
/// with 256 (128 / 512 / 1024 there: 176 / 177 / 183 ms against 169). Below
/// 128 buckets (c < 8, MSMs of a few dozen terms) the Jacobian loop is kept.
std::size_t affine_batch_size(std::size_t n_buckets) {
  if (n_buckets < 128) return 0;
  return std::min<std::size_t>(n_buckets / 4, 256);
}

template <class F>
ec::jacobian<F> pippenger(const term_set<F>& terms, unsigned c, bool batch_affine, const std::atomic<bool>* stop) {
  using J = ec::jacobian<F>;
  const std::size_t n = terms.count;
  if (n == 0) return J::identity();
  const unsigned n_windows = signed_windows(c);
  const std::size_t n_buckets = std::size_t(1) << (c - 1);

  // Signed digits, window-major: digits[w * n + i]; every entry written below.
  const auto digits = sys::make_huge_array_for_overwrite<std::int32_t>(std::size_t(n_windows) * n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 4096), [&](const auto& r) {
    check_stop(stop);
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      std::int64_t carry = 0;
      for (unsigned w = 0; w < n_windows; ++w) {
        std::int64_t d = std::int64_t(window_of(terms.scalars[i], w * c, c)) + carry;
        carry = 0;
        if (d > std::int64_t(n_buckets)) {
          d -= std::int64_t(1) << c;
          carry = 1;
        }
        digits[std::size_t(w) * n + i] = std::int32_t(d);
      }
      // signed_windows: no borrow is left over the top window
      if (carry != 0) throw std::logic_error("msm: signed digits left a borrow above the top window");
    }
  });

  const std::size_t threads = std::max<std::size_t>(1, std::size_t(tbb::this_task_arena::max_concurrency()));
  const std::size_t want_tasks = 4 * threads;
  const std::size_t chunks = std::min<std::size_t>(std::max<std::size_t>(1, (want_tasks + n_windows - 1) / n_windows),
                                                   std::max<std::size_t>(1, n / 1024));
  const std::size_t chunk_len = (n + chunks - 1) / chunks;
  std::vector<J> partial(std::size_t(n_windows) * chunks, J::identity());

  const std::size_t batch = batch_affine ? affine_batch_size(n_buckets) : 0;
  // one bucket set per worker thread, emptied for each of its tasks. A task
  // body runs isolated: its own nested parallel work (the side list's batch
  // normalisation splits above 4096 buckets) may not let the waiting thread
  // take another task of this loop, which would reset the set in use (seen
  // as wrong sums for one repeated base with 16 threads)
  tbb::enumerable_thread_specific<std::optional<detail::affine_buckets<F>>> bucket_sets;
  tbb::parallel_for(std::size_t(0), partial.size(), [&](std::size_t task) {
    tbb::this_task_arena::isolate([&] {
      const unsigned w = unsigned(task / chunks);
      const std::size_t begin = (task % chunks) * chunk_len;
      const std::size_t end = std::min(n, begin + chunk_len);
      const std::int32_t* d = digits.get() + std::size_t(w) * n;
      const std::size_t reach = reachable_buckets(w, c);
      const std::size_t window_batch = std::min(batch, affine_batch_size(reach));
      if (window_batch) {
        std::optional<detail::affine_buckets<F>>& set = bucket_sets.local();
        if (!set) set.emplace(n_buckets, batch);
        set->reset(reach, window_batch);
        detail::affine_buckets<F>& ab = *set;
        for (std::size_t i = begin; i < end; ++i) {
          if ((i & 4095) == 0) check_stop(stop);
          const std::int32_t di = d[i];
          if (di > 0) ab.add(std::size_t(di - 1), terms.bases[i], false);
          else if (di < 0) ab.add(std::size_t(-di - 1), terms.bases[i], true);
        }
        partial[task] = ab.reduce();
        return;
      }
      std::vector<J> buckets(reach, J::identity());
      for (std::size_t i = begin; i < end; ++i) {
        if ((i & 4095) == 0) check_stop(stop);
        const std::int32_t di = d[i];
        if (di > 0) {
          buckets[std::size_t(di - 1)] += *terms.bases[i];
        } else if (di < 0) {
          buckets[std::size_t(-di - 1)] += -*terms.bases[i];
        }
      }
      // running sum: sum_b (b+1) * bucket[b]
      J running = J::identity(), sum = J::identity();
      for (std::size_t b = reach; b-- > 0;) {
        running += buckets[b];
        sum += running;
      }
      partial[task] = sum;
    });
  });

  J acc = J::identity();
  for (unsigned w = n_windows; w-- > 0;) {
    for (unsigned k = 0; k < c; ++k) acc = acc.dbl();
    for (std::size_t ch = 0; ch < chunks; ++ch) acc += partial[std::size_t(w) * chunks + ch];
  }
  return acc;
}

template <class F, class Pairs>
ec::jacobian<F> run(std::size_t n, Pairs&& pair_at, const config& cfg) {
  using J = ec::jacobian<F>;
  // Pass 1 (parallel): classify scalars; sum the ones; collect the rest.
  // Each block (at most |block| terms: the simple partitioner splits down
  // to the grain) gathers its kept terms in its thread's staging arrays,
  // then copies them into the shared arrays at an offset it claims; the
  // order of the terms does not matter to the sum.
  constexpr std::size_t block = 8192;
  term_set<F> terms;
  terms.bases = sys::make_huge_array_for_overwrite<const ec::affine<F>*>(n);
  terms.scalars = sys::make_huge_array_for_overwrite<scalar>(n);
  std::atomic<std::size_t> kept{0};
  tbb::enumerable_thread_specific<J> ones_sum(J::identity());
  tbb::enumerable_thread_specific<term_set<F>> staging([] {
    return term_set<F>{std::make_unique<const ec::affine<F>*[]>(block), std::make_unique<scalar[]>(block), 0};
  });
  const auto classify = [&](const tbb::blocked_range<std::size_t>& r) {
    check_stop(cfg.stop);
    J& ones = ones_sum.local();
    term_set<F>& t = staging.local();
    t.count = 0;
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      const auto [base, k] = pair_at(i);
      if (base->is_infinity()) continue;
      const scalar s = k->to_canonical();
      if (cfg.split_trivial_scalars) {
        if (ff::detail::is_zero(s)) continue;
        bool is_one = s[0] == 1;
        for (std::size_t j = 1; j < s.size() && is_one; ++j) is_one = s[j] == 0;
        if (is_one) {
          ones += *base;
          continue;
        }
      }
      t.bases[t.count] = base;
      t.scalars[t.count] = s;
      ++t.count;
    }
    const std::size_t at = kept.fetch_add(t.count, std::memory_order_relaxed);
    std::copy_n(t.bases.get(), t.count, terms.bases.get() + at);
    std::copy_n(t.scalars.get(), t.count, terms.scalars.get() + at);
  };
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, block), classify, tbb::simple_partitioner{});
  terms.count = kept.load();
  J result = J::identity();
  for (auto& o : ones_sum) result += o;
  const unsigned c = cfg.window_bits ? cfg.window_bits : default_window_bits(terms.count);
  if (c < 2 || c > 30) throw std::invalid_argument("msm: window_bits must be in [2, 30]");
  return result + pippenger(terms, c, cfg.batch_affine, cfg.stop);
}

}  // namespace

template <class F>
ec::jacobian<F> msm(std::span<const ec::affine<F>> bases, std::span<const ff::fr> scalars, const config& cfg) {
  if (bases.size() != scalars.size())
    throw std::invalid_argument("msm: " + std::to_string(bases.size()) + " bases but " +
                                std::to_string(scalars.size()) + " scalars");
  return run<F>(
      bases.size(),
      [&](std::size_t i) {
        return std::pair{&bases[i], &scalars[i]};
      },
      cfg);
}

template <class F>
ec::jacobian<F> msm_dense(std::span<const ec::affine<F>> bases, std::span<const ff::fr> scalars,
                          const density_view& density, const config& cfg) {
  if (scalars.size() != density.n_bits)
    throw std::invalid_argument("msm_dense: " + std::to_string(scalars.size()) + " scalars but density covers " +
                                std::to_string(density.n_bits));
  // rank of each set bit, so the work can be split anywhere
  std::vector<std::uint32_t> scalar_index;
  scalar_index.reserve(bases.size());
  for (std::size_t i = 0; i < density.n_bits; ++i)
    if (density.test(i)) scalar_index.push_back(std::uint32_t(i));
  if (scalar_index.size() != bases.size())
    throw std::invalid_argument("msm_dense: density has " + std::to_string(scalar_index.size()) + " set bits but " +
                                std::to_string(bases.size()) + " bases");
  return run<F>(
      bases.size(),
      [&](std::size_t j) {
        return std::pair{&bases[j], &scalars[scalar_index[j]]};
      },
      cfg);
}

template ec::jacobian<ff::fp> msm(std::span<const ec::affine<ff::fp>>, std::span<const ff::fr>, const config&);
template ec::jacobian<ff::fp2> msm(std::span<const ec::affine<ff::fp2>>, std::span<const ff::fr>, const config&);
template ec::jacobian<ff::fp> msm_dense(std::span<const ec::affine<ff::fp>>, std::span<const ff::fr>,
                                        const density_view&, const config&);
template ec::jacobian<ff::fp2> msm_dense(std::span<const ec::affine<ff::fp2>>, std::span<const ff::fr>,
                                         const density_view&, const config&);

}  // namespace cuzk::msm
