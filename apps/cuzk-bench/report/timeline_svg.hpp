// SPDX-License-Identifier: Apache-2.0
#pragma once
// The daemon's TIMELINE log lines (docs/DAEMON.md) turned into a Gantt chart:
//   TIMELINE,<ms since start>,<EVENT>,<job>,<k=v,...>
// Stages drawn, one bar each: synthesis (SYNTH_START..SYNTH_END of a job's
// partition), GPU (GPU_START..GPU_END, lane = the worker=N the line names) and
// finalize (the FINALIZE line's time minus its finalize_ms). The synthesis
// and finalize lines name no worker, so their lanes are rebuilt by interval
// packing (each bar into the lowest lane free at its start), which gives as
// many lanes as there were stages running at once, i.e. the busy workers.
// Bars are coloured by proof (job); GPU idle gaps are the empty spans of a
// GPU lane; the legend gives span, per-lane busy time and per-proof totals.
// Header-only (plain SVG text, no library) so tests can include it.
// Cost: O(lines log lines) parsing, one string of ~200 bytes per bar.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <istream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuzk::bench_app {

struct timeline_event {
  std::uint64_t ms = 0;
  std::string event, job;
  std::map<std::string, std::string> detail;
};

/// Parses one line; returns false when it holds no TIMELINE record. A line
/// that has "TIMELINE," but a malformed record throws, naming the line.
inline bool parse_timeline_line(const std::string& line, timeline_event& out) {
  const auto pos = line.find("TIMELINE,");
  if (pos == std::string::npos) return false;
  std::vector<std::string> f;
  std::stringstream ss(line.substr(pos + 9));
  std::string tok;
  while (std::getline(ss, tok, ',')) f.push_back(tok);
  if (f.size() < 3) throw std::runtime_error("TIMELINE line with fewer than 3 fields: " + line);
  try {
    std::size_t used = 0;
    out.ms = std::stoull(f[0], &used);
    if (used != f[0].size()) throw std::invalid_argument("ms");
  } catch (const std::exception&) {
    throw std::runtime_error("TIMELINE line with a bad time '" + f[0] + "': " + line);
  }
  out.event = f[1];
  out.job = f[2];
  out.detail.clear();
  for (std::size_t i = 3; i < f.size(); ++i) {
    const auto eq = f[i].find('=');
    if (eq == std::string::npos) continue;
    out.detail[f[i].substr(0, eq)] = f[i].substr(eq + 1);
  }
  return true;
}

enum class stage_kind { synth, gpu, finalize };

struct stage_bar {
  stage_kind kind{};
  std::string job;
  std::uint32_t partition = 0;
  std::uint64_t start = 0, end = 0;
  std::size_t lane = 0;  ///< within its kind
};

struct timeline_model {
  std::vector<stage_bar> bars;
  std::vector<std::string> jobs;  ///< in order of first appearance
  std::uint64_t t0 = 0, t1 = 0;
  std::size_t lanes[3] = {0, 0, 0};  ///< synth, gpu, finalize
};

namespace timeline_detail {
inline std::uint32_t num(const std::map<std::string, std::string>& d, const char* k, std::uint32_t dflt = 0) {
  const auto it = d.find(k);
  if (it == d.end()) return dflt;
  try {
    return std::uint32_t(std::stoul(it->second));
  } catch (const std::exception&) {
    throw std::runtime_error(std::string("TIMELINE detail ") + k + "='" + it->second + "' is not a number");
  }
}
inline void pack(std::vector<stage_bar*>& v, std::size_t& lanes) {
  std::sort(v.begin(), v.end(), [](const stage_bar* a, const stage_bar* b) {
    return a->start != b->start ? a->start < b->start : a->end < b->end;
  });
  std::vector<std::uint64_t> free_at;
  for (stage_bar* b : v) {
    std::size_t l = 0;
    while (l < free_at.size() && free_at[l] > b->start) ++l;
    if (l == free_at.size()) free_at.push_back(0);
    free_at[l] = b->end;
    b->lane = l;
  }
  lanes = free_at.size();
}
}  // namespace timeline_detail

/// Builds the bars from a daemon log (other lines are skipped).
inline timeline_model build_timeline(std::istream& in) {
  using timeline_detail::num;
  timeline_model m;
  std::map<std::pair<std::string, std::uint32_t>, std::uint64_t> synth_open, gpu_open;
  std::map<std::string, bool> seen;
  bool any = false;
  std::string line;
  timeline_event e;
  while (std::getline(in, line)) {
    if (!parse_timeline_line(line, e)) continue;
    if (!any) m.t0 = m.t1 = e.ms;
    any = true;
    m.t0 = std::min(m.t0, e.ms);
    m.t1 = std::max(m.t1, e.ms);
    if (!seen[e.job]) {
      seen[e.job] = true;
      m.jobs.push_back(e.job);
    }
    const std::uint32_t part = num(e.detail, "partition");
    const auto key = std::make_pair(e.job, part);
    if (e.event == "SYNTH_START") {
      synth_open[key] = e.ms;
    } else if (e.event == "SYNTH_END") {
      const auto it = synth_open.find(key);
      if (it == synth_open.end()) continue;  // the log began mid-stage
      m.bars.push_back({stage_kind::synth, e.job, part, it->second, e.ms, 0});
      synth_open.erase(it);
    } else if (e.event == "GPU_START") {
      gpu_open[key] = e.ms;
    } else if (e.event == "GPU_END") {
      const auto it = gpu_open.find(key);
      if (it == gpu_open.end()) continue;
      // the bar is the time holding the device: GPU_START..GPU_END less lock_wait_ms
      const std::uint64_t wait = num(e.detail, "lock_wait_ms");
      const std::uint64_t start = std::min(e.ms, it->second + wait);
      m.bars.push_back({stage_kind::gpu, e.job, part, start, e.ms, num(e.detail, "worker")});
      gpu_open.erase(it);
    } else if (e.event == "FINALIZE") {
      const std::uint32_t fms = num(e.detail, "finalize_ms");
      const std::uint64_t start = e.ms >= fms ? e.ms - fms : 0;
      m.t0 = std::min(m.t0, start);
      m.bars.push_back({stage_kind::finalize, e.job, part, start, e.ms, 0});
    }
  }
  std::vector<stage_bar*> synth, fin;
  for (auto& b : m.bars) {
    if (b.kind == stage_kind::synth) synth.push_back(&b);
    if (b.kind == stage_kind::finalize) fin.push_back(&b);
    if (b.kind == stage_kind::gpu) m.lanes[1] = std::max(m.lanes[1], b.lane + 1);
  }
  timeline_detail::pack(synth, m.lanes[0]);
  timeline_detail::pack(fin, m.lanes[2]);
  return m;
}

/// A distinct colour per proof (golden-angle hues).
inline std::string proof_colour(std::size_t i) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "hsl(%d,65%%,55%%)", int((i * 137.508)) % 360);
  return buf;
}

inline std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

/// The SVG document: each stage is one <rect class="stage">; lane
/// backgrounds and legend swatches use other classes.
inline std::string render_timeline_svg(const timeline_model& m) {
  const double W = 1200, left = 130, right = 20, top = 30, lane_h = 22;
  const std::uint64_t span = std::max<std::uint64_t>(1, m.t1 - m.t0);
  const double sx = (W - left - right) / double(span);
  std::map<std::string, std::size_t> job_index;
  for (std::size_t i = 0; i < m.jobs.size(); ++i) job_index[m.jobs[i]] = i;
  static const char* names[3] = {"synth", "gpu", "finalize"};
  // lane rows: synth 0..a-1, gpu, finalize
  std::size_t row0[3] = {0, m.lanes[0], m.lanes[0] + m.lanes[1]};
  const std::size_t rows = m.lanes[0] + m.lanes[1] + m.lanes[2];
  std::vector<std::uint64_t> busy(rows, 0);
  std::map<std::string, std::uint64_t> job_synth, job_gpu;
  for (const auto& b : m.bars) {
    busy[row0[int(b.kind)] + b.lane] += b.end - b.start;
    if (b.kind == stage_kind::synth) job_synth[b.job] += b.end - b.start;
    if (b.kind == stage_kind::gpu) job_gpu[b.job] += b.end - b.start;
  }
  const double chart_h = top + double(rows) * lane_h + 30;
  const double legend_h = 20.0 * double(rows + m.jobs.size() + 3);
  const double H = chart_h + legend_h;
  std::string o;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\" "
                "font-size=\"12\">\n",
                W, H);
  o += buf;
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.0f\" y=\"18\">cuzk pipeline timeline: %zu proofs, %zu stages, %llu ms</text>\n", left,
                m.jobs.size(), m.bars.size(), (unsigned long long)span);
  o += buf;
  for (int k = 0; k < 3; ++k)
    for (std::size_t l = 0; l < m.lanes[k]; ++l) {
      const double y = top + double(row0[k] + l) * lane_h;
      std::snprintf(buf, sizeof buf,
                    "<rect class=\"lane\" x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"/>\n"
                    "<text x=\"4\" y=\"%.1f\">%s %zu</text>\n",
                    left, y, W - left - right, lane_h - 2, k == 1 ? "#eeeeee" : "#f8f8f8", y + 15, names[k], l);
      o += buf;
    }
  for (const auto& b : m.bars) {
    const double x = left + double(b.start - m.t0) * sx;
    const double w = std::max(1.0, double(b.end - b.start) * sx);
    const double y = top + double(row0[int(b.kind)] + b.lane) * lane_h;
    std::snprintf(buf, sizeof buf,
                  "<rect class=\"stage\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\" "
                  "stroke=\"#333\" stroke-width=\"0.5\"><title>",
                  x, y + 1, w, lane_h - 4, proof_colour(job_index[b.job]).c_str());
    o += buf;
    std::snprintf(buf, sizeof buf, " partition %u %s %llu..%llu ms (%llu ms)</title></rect>\n", b.partition,
                  names[int(b.kind)], (unsigned long long)(b.start - m.t0), (unsigned long long)(b.end - m.t0),
                  (unsigned long long)(b.end - b.start));
    o += xml_escape(b.job) + buf;
  }
  double y = chart_h;
  std::snprintf(buf, sizeof buf, "<text x=\"4\" y=\"%.0f\">span %llu ms (log time %llu..%llu ms)</text>\n", y,
                (unsigned long long)span, (unsigned long long)m.t0, (unsigned long long)m.t1);
  o += buf;
  for (int k = 0; k < 3; ++k)
    for (std::size_t l = 0; l < m.lanes[k]; ++l) {
      y += 20;
      const std::uint64_t bz = busy[row0[k] + l];
      std::snprintf(buf, sizeof buf,
                    "<text x=\"4\" y=\"%.0f\">%s %zu: busy %llu ms, idle %llu ms (%.1f%% busy)</text>\n", y, names[k],
                    l, (unsigned long long)bz, (unsigned long long)(span - std::min(span, bz)),
                    100.0 * double(bz) / double(span));
      o += buf;
    }
  for (std::size_t i = 0; i < m.jobs.size(); ++i) {
    y += 20;
    std::snprintf(buf, sizeof buf,
                  "<rect class=\"legend\" x=\"4\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                  "<text x=\"22\" y=\"%.0f\">",
                  y - 11, proof_colour(i).c_str(), y);
    o += buf;
    std::snprintf(buf, sizeof buf, ": synth %llu ms, gpu %llu ms</text>\n", (unsigned long long)job_synth[m.jobs[i]],
                  (unsigned long long)job_gpu[m.jobs[i]]);
    o += xml_escape(m.jobs[i]) + buf;
  }
  o += "</svg>\n";
  return o;
}

}  // namespace cuzk::bench_app
