// SPDX-License-Identifier: Apache-2.0
// cuzk-bench batch and timeline against the real `cuzk` binary on a unix
// socket (2 KiB WindowPoSt, seeded test parameters): a `-c 4 -j 2` batch
// prints 4 OK lines and a summary whose numbers equal its --json file, and
// every returned proof verifies with the .vk; an unreachable address gives a
// FAILED line per proof and still a summary; `timeline` on the daemon's log
// draws one <rect class="stage"> per synthesis, GPU and finalize stage.
// Regression analysis end to end: `batch --repeat 3` keeps 3 runs (the first
// a warm-up) with every partition's stages, and `compare` finds a file equal
// to itself unchanged, and flags partition.synthesis (exit 1 with --fail-on)
// against a daemon started with the test-only CUZK_TEST_DELAY_STAGE=synthesis:40.
// Cost: ~60-80 s on a busy 2-core machine (fourteen 2 KiB WindowPoSt proofs).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include <cuzk/io/base64.hpp>

#include "client_util.hpp"
#include "common/test_seed.hpp"
#include "daemon_test_support.hpp"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

struct run_result {
  int rc = -1;
  std::string out;
};

run_result run(const std::string& cmd) {
  run_result r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

/// The printed "p50=.. p90=.. p99=.. max=.. (n=..)" of a summary line equals the JSON's.
void expect_percentiles(const std::string& out, const std::string& label, const nlohmann::json& j, int digits) {
  ASSERT_TRUE(j.is_object()) << label;
  const std::string want = label + " p50=" + fixed(j["p50"], digits) + " p90=" + fixed(j["p90"], digits) +
                           " p99=" + fixed(j["p99"], digits) + " max=" + fixed(j["max"], digits) +
                           " (n=" + std::to_string(j["n"].get<int>()) + ")";
  std::string line;
  const auto pos = out.find(label);
  ASSERT_NE(pos, std::string::npos) << label << " missing:\n" << out;
  line = out.substr(pos, out.find('\n', pos) - pos);
  std::string collapsed;  // the label is padded with spaces
  for (std::size_t i = 0; i < line.size(); ++i)
    if (!(line[i] == ' ' && i > 0 && line[i - 1] == ' ')) collapsed += line[i];
  EXPECT_EQ(collapsed, want);
}

class bench_batch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = cuzk::test::make_param_cache(true);
    sock = dir / "cuzk.sock";
    std::ofstream c(dir / "cuzk.toml");
    c << "[daemon]\nlisten = \"unix://" << sock.string() << "\"\n[srs]\nparam_cache = \"" << dir.string()
      << "\"\n[memory]\ntotal_budget = \"2GiB\"\n";
    c.close();
    start("");
  }
  /// Starts the daemon (after stopping a running one); |delay| sets CUZK_TEST_DELAY_STAGE.
  void start(const std::string& delay) {
    stop();
    fs::remove(sock);
    pid = fork();
    if (pid == 0) {
      const int fd = ::open((dir / "daemon.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      if (!delay.empty()) setenv("CUZK_TEST_DELAY_STAGE", delay.c_str(), 1);
      execl(CUZK_DAEMON_BINARY, "cuzk", "--config", (dir / "cuzk.toml").c_str(), nullptr);
      _exit(127);
    }
    for (int i = 0; i < 400 && !fs::exists(sock); ++i) std::this_thread::sleep_for(25ms);
    ASSERT_TRUE(fs::exists(sock)) << slurp(dir / "daemon.log");
  }
  void stop() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      int st = 0;
      waitpid(pid, &st, 0);
      pid = -1;
    }
  }
  void TearDown() override {
    stop();
    fs::remove_all(dir);
  }
  /// The WindowPoSt inputs as batch options (vanilla.json written into dir).
  std::string wpost_inputs(std::mt19937_64& rng, cuzk::test::post_case* out = nullptr) {
    const cuzk::test::post_case c = cuzk::test::window_case(rng, "unused");
    nlohmann::json v = nlohmann::json::array();
    for (const auto& p : c.req.vanilla_proofs) v.push_back(cuzk::io::to_base64(p));
    std::ofstream(dir / "vanilla.json") << v.dump();
    std::string rand_hex;
    for (std::uint8_t b : c.req.randomness) {
      char h[3];
      std::snprintf(h, sizeof h, "%02x", b);
      rand_hex += h;
    }
    if (out) *out = c;
    return " --vanilla " + (dir / "vanilla.json").string() + " --registered-proof 10 --randomness " + rand_hex;
  }
  fs::path dir, sock;
  pid_t pid = -1;
};

TEST_F(bench_batch, wpost_batch_json_matches_the_summary_and_proofs_verify_and_timeline_draws_every_stage) {
  std::mt19937_64 rng(cuzk::test::test_seed("bench_batch.wpost"));
  cuzk::test::post_case c;
  const std::string inputs = wpost_inputs(rng, &c);
  const std::string bench = CUZK_BENCH_BINARY;
  const run_result r = run(bench + " batch -t wpost --addr unix://" + sock.string() + inputs + " -c 4 -j 2 --json " +
                           (dir / "batch.json").string() + " --out-dir " + (dir / "proofs").string() +
                           " --daemon-pid " + std::to_string(pid) + " --timeout 120");
  ASSERT_EQ(r.rc, 0) << r.out << slurp(dir / "daemon.log");
  EXPECT_EQ(count_of(r.out, " OK — "), 4u) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\[\d/4\] OK — \d+\.\ds \(prove=\d+ ms, queue=\d+ ms\))")));
  const nlohmann::json j = nlohmann::json::parse(slurp(dir / "batch.json"));
  EXPECT_EQ(j["count"], 4);
  EXPECT_EQ(j["ok"], 4);
  EXPECT_EQ(j["failed"], 0);
  ASSERT_EQ(j["proofs"].size(), 4u);
  EXPECT_NE(r.out.find("wall time:         " + fixed(j["wall_s"], 3) + " s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(fixed(j["s_per_proof"], 3) + " s/proof, " + fixed(j["proofs_per_min"], 3) + " proofs/min"),
            std::string::npos)
      << r.out;
  EXPECT_NEAR(j["s_per_proof"].get<double>(), j["wall_s"].get<double>() / 4, 0.002);
  expect_percentiles(r.out, "latency (s):", j["latency_s"], 3);
  expect_percentiles(r.out, "gpu/partition (ms):", j["gpu_ms_per_partition"], 1);
  expect_percentiles(r.out, "synth/partition (ms):", j["synth_ms_per_partition"], 1);
  EXPECT_EQ(j["latency_s"]["n"], 4);
  EXPECT_LE(j["latency_s"]["p50"].get<double>(), j["latency_s"]["max"].get<double>());
  EXPECT_LE(j["latency_s"]["max"].get<double>(), j["wall_s"].get<double>() + 0.001);
  ASSERT_TRUE(j["daemon_peak_rss_bytes"].is_number()) << r.out;
  EXPECT_NE(r.out.find("daemon peak RSS:   " + fixed(j["daemon_peak_rss_bytes"].get<double>() / 1048576.0, 1) + " MiB"),
            std::string::npos)
      << r.out;
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& p = j["proofs"][i];
    EXPECT_TRUE(p["ok"].get<bool>());
    EXPECT_EQ(p["proof_bytes"], 192);
    EXPECT_EQ(p["prove_ms"].get<std::uint64_t>() + p["queue_ms"].get<std::uint64_t>(), p["total_ms"]);
    const auto bytes =
        cuzk::bench_app::read_file_bytes((dir / "proofs" / ("proof-" + std::to_string(i) + ".bin")).string());
    EXPECT_TRUE(cuzk::test::verify_with_vk(dir, c.vk_stem, bytes, c.public_inputs)) << "proof " << i;
  }

  // timeline: one stage rect per SYNTH_END, GPU_END and FINALIZE line (the
  // daemon's event writer thread puts them into the log a few ms after the event)
  std::string log;
  std::size_t stages = 0;
  for (int i = 0; i < 200 && stages < 12; ++i, std::this_thread::sleep_for(10ms)) {
    log = slurp(dir / "daemon.log");
    stages = count_of(log, ",SYNTH_END,") + count_of(log, ",GPU_END,") + count_of(log, ",FINALIZE,");
  }
  EXPECT_EQ(stages, 12u) << log;
  const run_result t =
      run(bench + " timeline --log " + (dir / "daemon.log").string() + " --svg " + (dir / "t.svg").string());
  ASSERT_EQ(t.rc, 0) << t.out;
  const std::string svg = slurp(dir / "t.svg");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "<rect class=\"stage\""), stages);
  EXPECT_NE(svg.find("gpu 0: busy"), std::string::npos);
}

TEST_F(bench_batch, repeat_keeps_every_run_and_compare_flags_an_injected_synthesis_delay) {
  std::mt19937_64 rng(cuzk::test::test_seed("bench_batch.compare"));
  const std::string inputs = wpost_inputs(rng);
  const std::string bench = CUZK_BENCH_BINARY;
  const std::string base = (dir / "base.json").string(), slow = (dir / "slow.json").string();
  const run_result r = run(bench + " batch -t wpost --addr unix://" + sock.string() + inputs +
                           " -c 2 -j 1 --repeat 3 --label base --json " + base + " --daemon-pid " +
                           std::to_string(pid) + " --daemon-config " + (dir / "cuzk.toml").string() + " --timeout 120");
  ASSERT_EQ(r.rc, 0) << r.out << slurp(dir / "daemon.log");
  EXPECT_NE(r.out.find("=== Run 1/3 (warm-up) ==="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs:              2 measured (+1 warm-up, left out)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("proofs:            4 ok, 0 failed, 4 total"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(base));
  EXPECT_EQ(j["schema"], 2);
  EXPECT_EQ(j["measured_runs"], 2);
  EXPECT_EQ(j["config"]["label"], "base");
  EXPECT_NE(j["config"]["daemon_config"].get<std::string>().find("total_budget"), std::string::npos);
  EXPECT_EQ(j["build"]["commit"].get<std::string>().size(), 40u) << j["build"];
  ASSERT_EQ(j["runs"].size(), 3u);
  EXPECT_TRUE(j["runs"][0]["warmup"].get<bool>());
  EXPECT_FALSE(j["runs"][1]["warmup"].get<bool>());
  EXPECT_EQ(j["proofs"].size(), 4u);  // the measured runs' proofs
  for (const auto& run : j["runs"]) {
    ASSERT_EQ(run["proofs"].size(), 2u);
    EXPECT_TRUE(run["daemon_peak_rss_bytes"].is_number());
    for (const auto& p : run["proofs"]) {
      ASSERT_EQ(p["partitions"].size(), 1u) << p;
      const auto& st = p["partitions"][0]["stages"];
      for (const char* k : {"prep_wait", "synthesis", "gpu_queue_space_wait", "gpu_queue_wait", "lock_wait", "gpu",
                            "finalize_queue_wait", "finalize", "backend.ntt_h", "backend.msm_h", "backend.msm_b2"})
        EXPECT_TRUE(st.contains(k)) << k << " " << st;
      EXPECT_LE(st["synthesis"].get<double>(), double(p["synthesis_ms"].get<int>()) + 1.0);
      EXPECT_GE(st["synthesis"].get<double>() + 1.0, double(p["synthesis_ms"].get<int>()));
      EXPECT_NEAR(st["finalize"].get<double>(), p["finalize_ms"].get<double>(), 0.002);
    }
  }

  const run_result same = run(bench + " compare " + base + " " + base + " --fail-on any");
  EXPECT_EQ(same.rc, 0) << same.out;
  EXPECT_NE(same.out.find("no change beyond noise"), std::string::npos) << same.out;

  start("synthesis:40");
  const run_result s = run(bench + " batch -t wpost --addr unix://" + sock.string() + inputs + " -c 4 -j 1 --json " +
                           slow + " --timeout 120");
  ASSERT_EQ(s.rc, 0) << s.out << slurp(dir / "daemon.log");
  const run_result cmp = run(bench + " compare " + base + " " + slow + " --fail-on proof.queue_ms,partition.synthesis");
  EXPECT_EQ(cmp.rc, 1) << cmp.out;
  EXPECT_NE(cmp.out.find("FAIL: partition.synthesis regressed beyond noise"), std::string::npos) << cmp.out;
  // Not asserted: that proof.queue_ms stays unflagged. Its medians are a
  // few ms, and on the loaded 2-core box they moved 2 -> 6 ms between the
  // two runs (flagged: p = 0.029, above the 0.5 ms floor) while the 40 ms
  // sleep was all the code changed; the other listed metric failing is what
  // the code controls.
  const auto stages_at = cmp.out.find("stages regressed beyond noise:\n  partition.synthesis +");
  EXPECT_NE(stages_at, std::string::npos) << cmp.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(cmp.out, m, std::regex(R"(\n  synthesis +[0-9.]+ +[0-9.]+ +\+([0-9.]+) )"))) << cmp.out;
  // The delta of two runs taken at different moments moves with the load of
  // the machine (it once exceeded an upper bound of 80 ms on the loaded
  // 2-core box), so the bound that matters is asserted on what the code
  // controls: the injected 40 ms sleep lies inside every partition's timed
  // synthesis span of the slow run. The breakdown shows most of it.
  EXPECT_GT(std::stod(m[1]), 20.0) << cmp.out;
  const nlohmann::json sj = nlohmann::json::parse(slurp(slow));
  ASSERT_EQ(sj["proofs"].size(), 4u);
  for (const auto& p : sj["proofs"])
    for (const auto& part : p["partitions"]) EXPECT_GE(part["stages"]["synthesis"].get<double>(), 40.0) << part;
  const run_result bad = run(bench + " compare " + base + " " + slow + " --fail-on no_such_metric");
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_NE(bad.out.find("no metric 'no_such_metric'"), std::string::npos) << bad.out;
}

TEST_F(bench_batch, unreachable_address_fails_every_proof_and_still_summarizes) {
  std::ofstream(dir / "vanilla.json") << "[\"AAAA\"]";
  const run_result r = run(std::string(CUZK_BENCH_BINARY) + " batch -t wpost --addr unix://" +
                           (dir / "nobody.sock").string() + " --vanilla " + (dir / "vanilla.json").string() +
                           " -c 3 -j 2 --timeout 10 --json " + (dir / "bad.json").string());
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_EQ(count_of(r.out, " FAILED — "), 3u) << r.out;
  EXPECT_NE(r.out.find("=== Batch Summary ==="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 ok, 3 failed, 3 total"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(dir / "bad.json"));
  EXPECT_EQ(j["ok"], 0);
  EXPECT_EQ(j["failed"], 3);
  for (const auto& p : j["proofs"]) EXPECT_FALSE(p["error"].get<std::string>().empty());

  // INVALID_ARGUMENT from the live daemon (a truncated vanilla proof): per proof, then a summary
  const run_result bad = run(std::string(CUZK_BENCH_BINARY) + " batch -t wpost --addr unix://" + sock.string() +
                             " --vanilla " + (dir / "vanilla.json").string() + " --registered-proof 10 -c 2 -j 2");
  EXPECT_EQ(bad.rc, 1) << bad.out;
  EXPECT_EQ(count_of(bad.out, " FAILED — "), 2u) << bad.out;
  EXPECT_NE(bad.out.find("gRPC 3:"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("=== Batch Summary ==="), std::string::npos) << bad.out;
}

}  // namespace
