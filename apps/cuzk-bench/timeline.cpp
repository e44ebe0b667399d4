// SPDX-License-Identifier: Apache-2.0
// `cuzk-bench timeline --log DAEMON_LOG --svg out.svg`: a Gantt chart of the
// daemon's pipeline from its TIMELINE log lines (see timeline_svg.hpp for the
// lanes, bars and legend). Prints one line with the stage and lane counts.
// Cost: one pass over the log; the SVG is ~250 bytes per stage.
#include <cstdio>
#include <fstream>

#include "commands.hpp"
#include "timeline_svg.hpp"

namespace cuzk::bench_app {
namespace {

int run_timeline(const std::string& log, const std::string& svg) {
  std::ifstream in(log);
  if (!in) throw std::runtime_error("cannot read daemon log " + log);
  const timeline_model m = build_timeline(in);
  if (m.bars.empty()) throw std::runtime_error(log + ": no complete TIMELINE stages (is it a cuzk daemon's stderr?)");
  const std::string text = render_timeline_svg(m);
  std::ofstream out(svg, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + svg);
  std::printf("wrote %s: %zu proofs, %zu stages, %llu ms, lanes: %zu synthesis, %zu GPU, %zu finalize\n", svg.c_str(),
              m.jobs.size(), m.bars.size(), (unsigned long long)(m.t1 - m.t0), m.lanes[0], m.lanes[1], m.lanes[2]);
  return 0;
}

}  // namespace

void register_timeline(CLI::App& app) {
  static std::string log, svg;
  auto* cmd = app.add_subcommand("timeline", "draw the daemon's TIMELINE log lines as an SVG Gantt chart");
  cmd->add_option("--log", log, "the daemon's log (its stderr)")->required();
  cmd->add_option("--svg", svg, "output SVG file")->required();
  cmd->callback([] {
    int rc = 0;
    try {
      rc = run_timeline(log, svg);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "timeline: %s\n", e.what());
      rc = 2;
    }
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace cuzk::bench_app
