// SPDX-License-Identifier: Apache-2.0
// cuzk-bench's summary statistics and timeline model (header-only, in
// apps/cuzk-bench/report/): nearest-rank percentiles on known samples, TIMELINE line
// parsing (and its errors), lane packing of overlapping synthesis stages,
// GPU lanes from worker=N, and one <rect class="stage"> per stage in the SVG.
// Cost: microseconds.
#include <gtest/gtest.h>

#include <sstream>

#include "bench_stats.hpp"
#include "timeline_svg.hpp"

namespace {

using namespace cuzk::bench_app;

TEST(bench_stats, nearest_rank_percentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // unsorted on purpose
  const percentiles p = summarize(v);
  EXPECT_EQ(p.n, 100u);
  EXPECT_EQ(p.p50, 50);
  EXPECT_EQ(p.p90, 90);
  EXPECT_EQ(p.p99, 99);
  EXPECT_EQ(p.max, 100);
  const percentiles q = summarize({7, 3, 5});
  EXPECT_EQ(q.p50, 5);  // rank ceil(1.5) = 2
  EXPECT_EQ(q.p90, 7);
  EXPECT_EQ(q.max, 7);
  EXPECT_EQ(summarize({}).n, 0u);
  EXPECT_EQ(round_to(2.34567, 3), 2.346);
  EXPECT_EQ(round_to(2.25, 1), 2.3);
}

TEST(bench_timeline, parses_lines_and_rejects_malformed_ones) {
  timeline_event e;
  EXPECT_FALSE(parse_timeline_line("[info] job x queued", e));
  ASSERT_TRUE(parse_timeline_line("TIMELINE,120,GPU_END,job-a,worker=1,partition=3,gpu_ms=40", e));
  EXPECT_EQ(e.ms, 120u);
  EXPECT_EQ(e.event, "GPU_END");
  EXPECT_EQ(e.job, "job-a");
  EXPECT_EQ(e.detail.at("worker"), "1");
  EXPECT_EQ(e.detail.at("gpu_ms"), "40");
  EXPECT_THROW(parse_timeline_line("TIMELINE,12x,GPU_END,a,", e), std::runtime_error);
  EXPECT_THROW(parse_timeline_line("TIMELINE,12", e), std::runtime_error);
}

TEST(bench_timeline, lanes_bars_and_svg) {
  std::istringstream log(
      "noise\n"
      "TIMELINE,0,SYNTH_START,a,partition=0\n"
      "TIMELINE,5,SYNTH_START,b,partition=0\n"
      "TIMELINE,10,SYNTH_END,a,partition=0,synth_ms=10\n"
      "TIMELINE,10,SYNTH_START,a,partition=1\n"  // reuses lane 0 (free at 10)
      "TIMELINE,12,SYNTH_END,b,partition=0,synth_ms=7\n"
      "TIMELINE,11,GPU_START,a,worker=0,partition=0\n"
      "TIMELINE,13,GPU_START,b,worker=1,partition=0\n"
      "TIMELINE,20,SYNTH_END,a,partition=1,synth_ms=10\n"
      "TIMELINE,30,GPU_END,a,worker=0,partition=0,gpu_ms=19\n"
      "TIMELINE,40,GPU_END,b,worker=1,partition=0,gpu_ms=27\n"
      "TIMELINE,45,FINALIZE,a,partition=0,finalize_ms=5,verified=yes\n"
      "TIMELINE,46,JOB_DONE,a,status=COMPLETED,total_ms=46\n");
  const timeline_model m = build_timeline(log);
  ASSERT_EQ(m.bars.size(), 6u);
  EXPECT_EQ(m.jobs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(m.lanes[0], 2u);
  EXPECT_EQ(m.lanes[1], 2u);
  EXPECT_EQ(m.lanes[2], 1u);
  EXPECT_EQ(m.t0, 0u);
  EXPECT_EQ(m.t1, 46u);
  for (const auto& b : m.bars) {
    if (b.kind == stage_kind::synth) {
      EXPECT_EQ(b.lane, b.job == "a" ? 0u : 1u);
    }
    if (b.kind == stage_kind::gpu) {
      EXPECT_EQ(b.lane, b.job == "a" ? 0u : 1u);
    }
    if (b.kind == stage_kind::finalize) {
      EXPECT_EQ(b.start, 40u);
      EXPECT_EQ(b.end, 45u);
    }
  }
  const std::string svg = render_timeline_svg(m);
  std::size_t n = 0;
  for (auto p = svg.find("<rect class=\"stage\""); p != std::string::npos; p = svg.find("<rect class=\"stage\"", p + 1))
    ++n;
  EXPECT_EQ(n, 6u);
  EXPECT_NE(svg.find("gpu 0: busy 19 ms, idle 27 ms"), std::string::npos) << svg;
  EXPECT_NE(svg.find("gpu 1: busy 27 ms, idle 19 ms"), std::string::npos) << svg;
}

}  // namespace
