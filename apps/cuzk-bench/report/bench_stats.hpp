// SPDX-License-Identifier: Apache-2.0
#pragma once
// Summary statistics of cuzk-bench batch: nearest-rank percentiles
// (p50/p90/p99/max) over a sample, and the rounding shared by the printed
// summary and the --json file so both carry the same numbers. Header-only
// so the unit tests can include it. Cost: one sort per summary.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace cuzk::bench_app {

struct percentiles {
  std::size_t n = 0;
  double p50 = 0, p90 = 0, p99 = 0, max = 0;
};

/// Nearest-rank percentile of an ascending sample: the smallest value with at
/// least p% of the sample at or below it. Empty sample: 0.
inline double nearest_rank(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * double(sorted.size()));
  const std::size_t i = rank < 1 ? 0 : std::min(sorted.size() - 1, std::size_t(rank) - 1);
  return sorted[i];
}

inline percentiles summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  percentiles p;
  p.n = v.size();
  if (v.empty()) return p;
  p.p50 = nearest_rank(v, 50);
  p.p90 = nearest_rank(v, 90);
  p.p99 = nearest_rank(v, 99);
  p.max = v.back();
  return p;
}

/// Rounds to |digits| decimals, as printed with "%.<digits>f".
inline double round_to(double x, int digits) {
  const double f = std::pow(10.0, digits);
  return std::round(x * f) / f;
}

}  // namespace cuzk::bench_app
