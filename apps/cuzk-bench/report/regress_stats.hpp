// SPDX-License-Identifier: Apache-2.0
#pragma once
// The statistics of `cuzk-bench compare`: is a metric's change between two
// benchmark files beyond run-to-run noise? No I/O; header-only so the unit
// tests include it.
//
// Method (stated once, printed by compare, explained in docs/REGRESSION.md):
//  1. Mann-Whitney U test, two-sided, over every sample of the measured runs
//     of each file (runs pooled): U of the new sample against the base, its
//     normal approximation with the tie correction of the variance,
//       sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))),
//     and a continuity correction of 0.5 toward the mean; p = erfc(|z|/sqrt 2).
//     (The same as scipy.stats.mannwhitneyu(method="asymptotic").)
//  2. Run-to-run noise: in each file the median of the metric is taken per
//     run; the noise band is the larger of the two files' spreads
//     (max - min of the run medians, in % of the file's pooled median).
//  3. A change is beyond noise when p < alpha AND |delta of the medians| is
//     larger than max(min_effect_pct, noise band) AND at least min_effect_abs
//     in the metric's unit. The first guards against chance, the second
//     against drifts between runs that pooling hides (a busy machine), the
//     third against ties of coarse units.
// With few samples a test cannot reach small p at all (min_attainable_p:
// 4 runs against 4 give 0.030, 2 against 2 only 0.25); compare says so.
// Cost: one sort of n1 + n2 values per metric.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <span>
#include <vector>

#include "bench_stats.hpp"

namespace cuzk::bench_app::stats {

struct mann_whitney {
  std::size_t n1 = 0, n2 = 0;
  double u = 0;  ///< U of the second sample (y) against the first (x): pairs with y > x, ties count 1/2
  double z = 0;  ///< standardized, continuity-corrected; > 0 when y tends to be larger
  double p = 1;  ///< two-sided
};

/// Mann-Whitney U of |y| against |x| (normal approximation, tie and
/// continuity corrections). Empty samples or all values tied give p = 1.
inline mann_whitney mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  mann_whitney r;
  r.n1 = x.size();
  r.n2 = y.size();
  if (x.empty() || y.empty()) return r;
  struct item {
    double v;
    bool from_y;
  };
  std::vector<item> all;
  all.reserve(x.size() + y.size());
  for (double v : x) all.push_back({v, false});
  for (double v : y) all.push_back({v, true});
  std::sort(all.begin(), all.end(), [](const item& a, const item& b) { return a.v < b.v; });
  const double n = double(all.size()), n1 = double(r.n1), n2 = double(r.n2);
  double rank_sum_y = 0, tie_term = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].v == all[i].v) ++j;
    const double t = double(j - i);
    const double mid_rank = (double(i + 1) + double(j)) / 2.0;  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k)
      if (all[k].from_y) rank_sum_y += mid_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  r.u = rank_sum_y - n2 * (n2 + 1) / 2.0;
  const double mu = n1 * n2 / 2.0;
  const double var = n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
  if (var <= 0) return r;  // every value tied
  const double d = r.u - mu;
  const double corrected = std::abs(d) <= 0.5 ? 0.0 : (d > 0 ? d - 0.5 : d + 0.5);
  r.z = corrected / std::sqrt(var);
  r.p = std::min(1.0, std::erfc(std::abs(r.z) / std::sqrt(2.0)));
  return r;
}

/// The smallest two-sided p the test can give for sample sizes n1, n2 (no
/// ties, complete separation): below alpha or the test can never fire.
inline double min_attainable_p(std::size_t n1, std::size_t n2) {
  if (n1 == 0 || n2 == 0) return 1;
  std::vector<double> x(n1), y(n2);
  std::iota(x.begin(), x.end(), 0.0);
  std::iota(y.begin(), y.end(), double(n1));
  return mann_whitney_u(x, y).p;
}

/// The decision rule's knobs (compare's --alpha, --min-effect, --min-abs).
struct noise_rule {
  double alpha = 0.05;
  double min_effect_pct = 3.0;
  double min_effect_abs = 0.5;  ///< in the metric's unit (ms for times)
  /// Memory metrics (MiB): two daemons of one build differ by a few MiB of
  /// thread stacks and allocator arenas (5-8 MiB seen at 60 MiB, RESULTS.md).
  double min_effect_abs_mib = 16.0;
};

/// A metric's samples, grouped by run (measured runs only).
using runs_of = std::vector<std::vector<double>>;

inline std::vector<double> pooled(const runs_of& runs) {
  std::vector<double> v;
  for (const auto& r : runs) v.insert(v.end(), r.begin(), r.end());
  return v;
}

inline double median_of(std::vector<double> v) { return summarize(std::move(v)).p50; }

/// Spread of the run medians in % of the pooled median (0 with fewer than
/// two non-empty runs, or a zero median).
inline double run_spread_pct(const runs_of& runs) {
  std::vector<double> meds;
  for (const auto& r : runs)
    if (!r.empty()) meds.push_back(median_of(r));
  if (meds.size() < 2) return 0;
  const double m = median_of(pooled(runs));
  if (m == 0) return 0;
  const auto [lo, hi] = std::minmax_element(meds.begin(), meds.end());
  return (*hi - *lo) / std::abs(m) * 100.0;
}

struct metric_verdict {
  percentiles base, next;
  double delta = 0;      ///< next.p50 - base.p50, in the metric's unit
  double delta_pct = 0;  ///< of base.p50 (0 when base.p50 is 0 and next too; +inf-safe: 100 per unit otherwise)
  mann_whitney test;
  double noise_pct = 0;      ///< the run-to-run band
  double threshold_pct = 0;  ///< max(min_effect_pct, noise_pct)
  double min_p = 1;          ///< min_attainable_p for these sizes
  bool beyond_noise = false;
  int direction = 0;  ///< +1 rose, -1 fell, 0 within noise
};

/// Compares one metric between two files (see the method above).
inline metric_verdict judge(const runs_of& base, const runs_of& next, const noise_rule& rule) {
  metric_verdict v;
  const std::vector<double> b = pooled(base), n = pooled(next);
  v.base = summarize(b);
  v.next = summarize(n);
  if (b.empty() || n.empty()) return v;
  v.delta = v.next.p50 - v.base.p50;
  v.delta_pct = v.base.p50 != 0 ? v.delta / std::abs(v.base.p50) * 100.0 : (v.delta == 0 ? 0.0 : 100.0);
  v.test = mann_whitney_u(b, n);
  v.noise_pct = std::max(run_spread_pct(base), run_spread_pct(next));
  v.threshold_pct = std::max(rule.min_effect_pct, v.noise_pct);
  v.min_p = min_attainable_p(b.size(), n.size());
  v.beyond_noise =
      v.test.p < rule.alpha && std::abs(v.delta_pct) > v.threshold_pct && std::abs(v.delta) >= rule.min_effect_abs;
  if (v.beyond_noise) v.direction = v.delta > 0 ? 1 : -1;
  return v;
}

}  // namespace cuzk::bench_app::stats
