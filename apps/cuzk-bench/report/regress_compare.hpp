// SPDX-License-Identifier: Apache-2.0
#pragma once
// The model of `cuzk-bench compare`: a `batch --json` file turned into
// metrics (each a list of runs, each run a list of samples), and two files
// compared metric by metric with the rule of regress_stats.hpp. No I/O:
// compare.cpp reads the files and prints; the unit tests feed JSON directly.
//
// Metrics (warm-up runs left out; the unit follows from the name):
//   s_per_proof            s    one sample per run: run wall / proofs ok
//   peak_rss_mib           MiB  one sample per run: daemon VmHWM after it
//   proof.latency_ms       ms   per proof: client-side Prove round trip
//   proof.total_ms, proof.queue_ms, proof.synthesis_ms, proof.gpu_ms,
//   proof.finalize_ms      ms   per proof, as the daemon returned them
//   partition.total        ms   per partition: sum of the engine stages
//   partition.<stage>      ms   per partition: every stage the daemon sent
//                               (engine stages, backend.<name>)
// A schema-1 file (no "runs") counts as one run of its "proofs".
// Cost: linear in the files' proofs and partitions.
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "regress_stats.hpp"

namespace cuzk::bench_app {

/// The engine's stages in pipeline order (their sum is partition.total).
inline const std::vector<std::string>& engine_stage_order() {
  static const std::vector<std::string> v = {
      "prep_wait", "synthesis", "gpu_queue_space_wait", "gpu_queue_wait", "prepare",
      "lock_wait", "gpu",       "finalize_queue_wait",  "finalize"};
  return v;
}

struct bench_file {
  std::string path, type, commit, date, label;
  bool dirty = false;
  std::size_t measured_runs = 0, proofs = 0, partitions = 0;
  std::map<std::string, stats::runs_of> metrics;
};

inline std::string metric_unit(const std::string& name) {
  if (name == "s_per_proof") return "s";
  if (name == "peak_rss_mib") return "MiB";
  return "ms";
}

namespace compare_detail {
inline double num(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) throw std::runtime_error(where + ": '" + key + "' is missing or not a number");
  return it->get<double>();
}
inline void add(bench_file& f, std::size_t run, const std::string& name, double v) {
  auto& runs = f.metrics[name];
  if (runs.size() <= run) runs.resize(run + 1);
  runs[run].push_back(v);
}
}  // namespace compare_detail

/// Reads a `batch --json` document (schema 1 or 2). Throws std::runtime_error
/// naming |path| and the field when the document is not one.
inline bench_file load_bench_json(const nlohmann::json& j, const std::string& path) {
  using compare_detail::add;
  using compare_detail::num;
  if (!j.is_object() || !j.contains("proofs"))
    throw std::runtime_error(path + ": not a cuzk-bench batch --json file (no \"proofs\")");
  bench_file f;
  f.path = path;
  f.type = j.value("type", "");
  f.label = j.value("config", nlohmann::json::object()).value("label", "");
  if (const auto b = j.find("build"); b != j.end() && b->is_object()) {
    f.commit = b->value("commit", "");
    f.dirty = b->value("dirty", false);
  }
  f.date = j.value("date", "");
  std::vector<nlohmann::json> runs;  // measured only
  if (const auto r = j.find("runs"); r != j.end()) {
    if (!r->is_array()) throw std::runtime_error(path + ": \"runs\" is not an array");
    for (const auto& run : *r)
      if (!run.value("warmup", false)) runs.push_back(run);
  } else {
    nlohmann::json one = {{"proofs", j["proofs"]}, {"wall_s", j.value("wall_s", 0.0)}};
    if (j.contains("daemon_peak_rss_bytes")) one["daemon_peak_rss_bytes"] = j["daemon_peak_rss_bytes"];
    runs.push_back(std::move(one));
  }
  if (runs.empty()) throw std::runtime_error(path + ": no measured run");
  f.measured_runs = runs.size();
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const auto& run = runs[k];
    const std::string where = path + " run " + std::to_string(k);
    const auto ps = run.find("proofs");
    if (ps == run.end() || !ps->is_array()) throw std::runtime_error(where + ": no \"proofs\" array");
    std::size_t ok = 0;
    for (const auto& p : *ps) {
      if (!p.value("ok", false)) continue;
      ++ok;
      ++f.proofs;
      const std::string pw = where + " proof " + std::to_string(p.value("index", 0));
      add(f, k, "proof.latency_ms",
          p.contains("latency_ms") ? num(p, "latency_ms", pw) : num(p, "latency_s", pw) * 1000.0);
      add(f, k, "proof.total_ms", num(p, "total_ms", pw));
      add(f, k, "proof.queue_ms", num(p, "queue_ms", pw));
      add(f, k, "proof.synthesis_ms", num(p, "synthesis_ms", pw));
      add(f, k, "proof.gpu_ms", num(p, "gpu_ms", pw));
      if (p.contains("finalize_ms")) add(f, k, "proof.finalize_ms", num(p, "finalize_ms", pw));
      if (const auto parts = p.find("partitions"); parts != p.end() && parts->is_array())
        for (const auto& part : *parts) {
          const auto st = part.find("stages");
          if (st == part.end() || !st->is_object()) throw std::runtime_error(pw + ": a partition without \"stages\"");
          ++f.partitions;
          double total = 0;
          for (const auto& [name, v] : st->items()) {
            if (!v.is_number()) throw std::runtime_error(pw + ": stage '" + name + "' is not a number");
            add(f, k, "partition." + name, v.get<double>());
            if (name.rfind("backend.", 0) != 0) total += v.get<double>();
          }
          add(f, k, "partition.total", total);
        }
    }
    const double wall = run.value("wall_s", 0.0);
    if (ok > 0 && wall > 0) add(f, k, "s_per_proof", wall / double(ok));
    if (const auto rss = run.find("daemon_peak_rss_bytes"); rss != run.end() && rss->is_number())
      add(f, k, "peak_rss_mib", rss->get<double>() / 1048576.0);
  }
  // a metric every run has; runs without a sample stay empty (ignored by the spread)
  for (auto& [name, r] : f.metrics) r.resize(f.measured_runs);
  return f;
}

/// Pools |more| into |into| (runs appended): several recordings of one side,
/// e.g. taken in turns with the other side's, so that drift between
/// recordings shows up as run-to-run noise. Provenance is kept from |into|;
/// a different commit makes it "mixed".
inline void merge_into(bench_file& into, const bench_file& more) {
  const std::size_t r0 = into.measured_runs;
  into.path += "," + more.path;
  if (into.commit != more.commit) into.commit = "mixed";
  into.dirty = into.dirty || more.dirty;
  into.measured_runs += more.measured_runs;
  into.proofs += more.proofs;
  into.partitions += more.partitions;
  for (auto& [name, runs] : into.metrics) runs.resize(into.measured_runs);
  for (const auto& [name, runs] : more.metrics) {
    auto& dst = into.metrics[name];
    dst.resize(into.measured_runs);
    for (std::size_t k = 0; k < runs.size(); ++k) dst[r0 + k] = runs[k];
  }
}

struct compare_row {
  std::string metric, unit;
  stats::metric_verdict v;
};

struct compare_report {
  std::vector<compare_row> rows;  ///< metrics in both files, display order
  std::vector<std::string> only_base, only_new;
  const compare_row* find(const std::string& metric) const {
    for (const auto& r : rows)
      if (r.metric == metric) return &r;
    return nullptr;
  }
};

/// Display order: throughput and memory, per proof, per partition (engine
/// stages in pipeline order, then backend stages by name, then the rest).
inline std::vector<std::string> metric_order(const std::set<std::string>& names) {
  std::vector<std::string> out;
  const auto take = [&](const std::string& n) {
    if (names.count(n) && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  for (const char* n : {"s_per_proof", "peak_rss_mib", "proof.latency_ms", "proof.total_ms", "proof.queue_ms",
                        "proof.synthesis_ms", "proof.gpu_ms", "proof.finalize_ms", "partition.total"})
    take(n);
  for (const auto& s : engine_stage_order()) take("partition." + s);
  for (const auto& n : names)
    if (n.rfind("partition.backend.", 0) == 0) take(n);
  for (const auto& n : names) take(n);
  return out;
}

/// The rule's absolute floor in a metric's unit (|rule.min_effect_abs| is in
/// ms, |rule.min_effect_abs_mib| for memory).
inline stats::noise_rule rule_for(const std::string& metric, stats::noise_rule rule) {
  const std::string u = metric_unit(metric);
  if (u == "s") rule.min_effect_abs /= 1000.0;
  if (u == "MiB") rule.min_effect_abs = rule.min_effect_abs_mib;
  return rule;
}

inline compare_report compare_files(const bench_file& base, const bench_file& next, const stats::noise_rule& rule) {
  compare_report rep;
  std::set<std::string> both;
  for (const auto& [n, r] : base.metrics)
    if (next.metrics.count(n)) both.insert(n);
    else rep.only_base.push_back(n);
  for (const auto& [n, r] : next.metrics)
    if (!base.metrics.count(n)) rep.only_new.push_back(n);
  for (const auto& n : metric_order(both))
    rep.rows.push_back({n, metric_unit(n), stats::judge(base.metrics.at(n), next.metrics.at(n), rule_for(n, rule))});
  return rep;
}

}  // namespace cuzk::bench_app
