// SPDX-License-Identifier: Apache-2.0
// `cuzk-bench compare BASE.json NEW.json [--fail-on METRIC,...] [--alpha A]
//   [--min-effect PCT] [--min-abs MS]`: two `batch --json` files, metric by
// metric (regress_compare.hpp), with the noise rule of regress_stats.hpp.
// Prints
//   1. the files (commit, date, runs, proofs) and the method in one line;
//   2. one row per metric: base and new p50/p90/p99, the change of the
//      medians in %, the Mann-Whitney p, the run-to-run noise band, and a
//      verdict: REGRESSION / improved beyond noise, or "~" (within noise);
//   3. the per-stage breakdown of one partition: each engine stage's change
//      of median in ms and its share of the change of partition.total, and
//      the backend's stages as a split of the "gpu" stage, so "GPU time rose
//      9%" reads as "lock_wait +0.1 ms, gpu +8 ms of which backend.msm_h +7";
//   4. the summary: the stages and metrics beyond noise, regressions and
//      improvements apart, or "no change beyond noise".
// Either side may be a comma-separated list of files (recordings taken in
// turns with the other side's): their runs are pooled, so drift between
// recordings counts as run-to-run noise.
// Exit status: 1 when a --fail-on metric ("any" = every metric) regressed
// beyond noise, 2 on bad input (a file that is not a batch --json, an
// unknown --fail-on name), 0 otherwise. Higher is worse for every metric.
// Cost: milliseconds.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "regress_compare.hpp"

namespace cuzk::bench_app {
namespace {

struct compare_options {
  std::string base, next, fail_on;
  stats::noise_rule rule;
};

bench_file load_one(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) throw std::runtime_error(path + ": not valid JSON");
  return load_bench_json(j, path);
}

/// One side: a file, or a comma-separated list of files pooled run by run.
bench_file load(const std::string& paths) {
  std::stringstream ss(paths);
  std::string p;
  std::optional<bench_file> side;
  while (std::getline(ss, p, ','))
    if (!p.empty()) {
      if (!side) side = load_one(p);
      else merge_into(*side, load_one(p));
    }
  if (!side) throw std::runtime_error("no file given in '" + paths + "'");
  return *side;
}

const char* verdict(const stats::metric_verdict& v) {
  return v.direction > 0 ? "REGRESSION" : v.direction < 0 ? "improved" : "~";
}

std::string num(double v, const std::string& unit) {
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == "s" ? "%.4f" : unit == "MiB" ? "%.1f" : "%.3f", v);
  return buf;
}

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v);
  return buf;
}

std::string describe(const bench_file& f) {
  std::string s = f.path + ": " + (f.commit.empty() ? "commit ?" : f.commit.substr(0, 12)) + (f.dirty ? "+dirty" : "");
  if (!f.date.empty()) s += ", " + f.date;
  if (!f.label.empty()) s += ", \"" + f.label + "\"";
  s += ", " + std::to_string(f.measured_runs) + " measured run(s), " + std::to_string(f.proofs) + " proofs, " +
       std::to_string(f.partitions) + " partitions";
  return s;
}

void print_rows(const compare_report& rep) {
  std::printf("%-34s %4s %9s | %10s %10s %10s | %10s %10s %10s | %8s %8s %7s  %s\n", "metric", "unit", "n b/n",
              "base p50", "p90", "p99", "new p50", "p90", "p99", "d p50", "p", "noise", "verdict");
  for (const auto& r : rep.rows) {
    const auto& v = r.v;
    const std::string n = std::to_string(v.base.n) + "/" + std::to_string(v.next.n);
    char p[32];
    std::snprintf(p, sizeof p, "%.2g", v.test.p);
    char noise[32];
    std::snprintf(noise, sizeof noise, "%.1f%%", v.noise_pct);
    std::printf("%-34s %4s %9s | %10s %10s %10s | %10s %10s %10s | %8s %8s %7s  %s\n", r.metric.c_str(), r.unit.c_str(),
                n.c_str(), num(v.base.p50, r.unit).c_str(), num(v.base.p90, r.unit).c_str(),
                num(v.base.p99, r.unit).c_str(), num(v.next.p50, r.unit).c_str(), num(v.next.p90, r.unit).c_str(),
                num(v.next.p99, r.unit).c_str(), pct(v.delta_pct).c_str(), p, noise, verdict(v));
  }
}

void print_breakdown(const compare_report& rep) {
  const compare_row* total = rep.find("partition.total");
  if (!total) {
    std::printf("\n(no per-stage breakdown: the files hold no partition timings)\n");
    return;
  }
  std::printf("\n=== per-stage breakdown (one partition, medians) ===\n");
  std::printf("%-30s %10s %10s %10s %12s  %s\n", "stage", "base ms", "new ms", "delta ms", "share", "verdict");
  const double dt = total->v.delta;
  const auto line = [](const std::string& name, const compare_row& r, double whole, const char* of) {
    char share[32] = "";
    if (std::abs(whole) >= 1e-9) std::snprintf(share, sizeof share, "%.0f%%%s", r.v.delta / whole * 100.0, of);
    std::printf("%-30s %10.3f %10.3f %+10.3f %12s  %s\n", name.c_str(), r.v.base.p50, r.v.next.p50, r.v.delta, share,
                verdict(r.v));
  };
  line("total", *total, dt, "");
  for (const auto& s : engine_stage_order()) {
    const compare_row* r = rep.find("partition." + s);
    if (!r) continue;
    line("  " + s, *r, dt, "");
    if (s != "gpu") continue;
    for (const auto& b : rep.rows)
      if (b.metric.rfind("partition.backend.", 0) == 0) line("      " + b.metric.substr(10), b, r->v.delta, " of gpu");
  }
  std::printf(
      "(share: the stage's change of median over the change of the partition total; the backend's\n"
      " stages split the gpu stage. Medians do not add up exactly, so shares need not sum to 100%%.)\n");
}

int run_compare(const compare_options& o) {
  const bench_file base = load(o.base), next = load(o.next);
  if (!base.type.empty() && !next.type.empty() && base.type != next.type)
    std::printf("warning: comparing %s proofs with %s proofs\n", base.type.c_str(), next.type.c_str());
  const compare_report rep = compare_files(base, next, o.rule);
  std::vector<std::string> fail_on;
  {
    std::stringstream ss(o.fail_on);
    std::string t;
    while (std::getline(ss, t, ','))
      if (!t.empty()) fail_on.push_back(t);
  }
  for (const auto& m : fail_on)
    if (m != "any" && !rep.find(m)) {
      std::string known;
      for (const auto& r : rep.rows) known += (known.empty() ? "" : ", ") + r.metric;
      throw std::runtime_error("--fail-on: no metric '" + m + "' in both files (have: " + known + ")");
    }

  std::printf("base %s\nnew  %s\n", describe(base).c_str(), describe(next).c_str());
  std::printf(
      "method: Mann-Whitney U (two-sided, normal approximation, tie and continuity corrections) over the\n"
      "samples of the measured runs; beyond noise = p < %g and |d p50| > max(%g%%, run-to-run noise)\n"
      "and |d p50| >= %g ms (%g MiB). noise = the larger spread (max - min) of the per-run medians in\n"
      "either file.\n\n",
      o.rule.alpha, o.rule.min_effect_pct, o.rule.min_effect_abs, o.rule.min_effect_abs_mib);
  print_rows(rep);
  for (const auto& n : rep.only_base) std::printf("(only in base: %s)\n", n.c_str());
  for (const auto& n : rep.only_new) std::printf("(only in new: %s)\n", n.c_str());
  for (const auto& r : rep.rows)
    if (r.v.min_p >= o.rule.alpha && r.v.base.n > 0 && r.v.next.n > 0)
      std::printf(
          "note: %s has %zu/%zu samples; the test cannot reach p < %g with so few (best p %.2g): use more "
          "runs (--repeat)\n",
          r.metric.c_str(), r.v.base.n, r.v.next.n, o.rule.alpha, r.v.min_p);
  print_breakdown(rep);

  std::vector<std::string> worse, better, worse_stages, better_stages;
  for (const auto& r : rep.rows) {
    if (r.v.direction == 0) continue;
    char what[160];
    std::snprintf(what, sizeof what, "%s %s (%s%s %s, p50 %s -> %s)", r.metric.c_str(), pct(r.v.delta_pct).c_str(),
                  r.v.delta > 0 ? "+" : "-", num(std::abs(r.v.delta), r.unit).c_str(), r.unit.c_str(),
                  num(r.v.base.p50, r.unit).c_str(), num(r.v.next.p50, r.unit).c_str());
    const bool stage = r.metric.rfind("partition.", 0) == 0 && r.metric != "partition.total";
    (r.v.direction > 0 ? (stage ? worse_stages : worse) : (stage ? better_stages : better)).push_back(what);
  }
  std::printf("\n=== summary ===\n");
  if (worse.empty() && better.empty() && worse_stages.empty() && better_stages.empty()) {
    std::printf("no change beyond noise\n");
  } else {
    const auto list = [](const char* head, const std::vector<std::string>& v) {
      std::printf("%s:%s\n", head, v.empty() ? " none" : "");
      for (const auto& s : v) std::printf("  %s\n", s.c_str());
    };
    list("stages regressed beyond noise", worse_stages);
    list("stages improved beyond noise", better_stages);
    list("other metrics regressed beyond noise", worse);
    list("other metrics improved beyond noise", better);
  }
  int rc = 0;
  for (const auto& r : rep.rows)
    if (r.v.direction > 0 && std::any_of(fail_on.begin(), fail_on.end(),
                                         [&](const std::string& m) { return m == "any" || m == r.metric; })) {
      std::printf("FAIL: %s regressed beyond noise (%s)\n", r.metric.c_str(), pct(r.v.delta_pct).c_str());
      rc = 1;
    }
  return rc;
}

}  // namespace

void register_compare(CLI::App& app) {
  static compare_options o;
  auto* cmd =
      app.add_subcommand("compare", "compare two `batch --json` files: medians, percentiles, noise-aware verdicts");
  cmd->add_option("base", o.base, "baseline batch --json file (or FILE,FILE,... pooled)")->required();
  cmd->add_option("new", o.next, "new batch --json file (or FILE,FILE,... pooled)")->required();
  cmd->add_option("--fail-on", o.fail_on, "comma-separated metrics (or 'any'): exit 1 when one regressed beyond noise");
  cmd->add_option("--alpha", o.rule.alpha, "significance level of the Mann-Whitney test (default 0.05)");
  cmd->add_option("--min-effect", o.rule.min_effect_pct, "smallest change in % that can count (default 3)");
  cmd->add_option("--min-abs", o.rule.min_effect_abs, "smallest change in ms that can count (default 0.5)");
  cmd->add_option("--min-abs-mib", o.rule.min_effect_abs_mib,
                  "smallest memory change in MiB that can count (default 16)");
  cmd->callback([] { run_subcommand("compare", [] { return run_compare(o); }); });
}

}  // namespace cuzk::bench_app
