// SPDX-License-Identifier: Apache-2.0
// `cuzk-bench batch -t porep|snap|wpost|winning (--c1 FILE | --vanilla FILE |
//   --synthetic SIZE) -c COUNT -j CONCURRENCY --addr ADDR [--json FILE]`:
// COUNT Prove calls through a running daemon, CONCURRENCY at a time, each
// with its own request id. Prints one line per proof as it ends,
//   [i/N] OK — 12.3s (prove=… ms, queue=… ms)     (prove = total_ms - queue_wait_ms)
//   [i/N] FAILED — 0.0s: <error>
// then a summary: wall time, s/proof, proofs/min, latency p50/p90/p99/max,
// per-partition GPU and synthesis ms p50/p90/p99/max, and the daemon's peak
// RSS. The daemon reports no RSS over gRPC (GetStatus/GetMetrics carry only
// the memory budget's reserved peak, printed beside it), so RSS comes from
// /proc/PID/status VmHWM when --daemon-pid names a local daemon, else "n/a".
// Per-partition times are exact from the TIMELINE lines with --daemon-log;
// otherwise each proof contributes its summed synthesis/GPU ms divided by its
// partition count (1 for PoSt; from the C1 / vanilla proofs otherwise).
// --synthetic SIZE (porep only) generates a C1 per proof (seed base+i);
// each request carries the miner and sector its C1's replica_id was made
// for; with --out-dir each C1 is written there as c1-<i>.json (and its
// --miner-id/--sector-num as c1-<i>.args) beside proof-<i>.bin.
// On a TTY a live progress line (done/total, running s/proof, ETA) is kept
// at the bottom. --json writes every printed number, rounded as printed.
// --repeat R runs the same batch R times (same inputs, fresh request ids);
// with R > 1 the first run is a warm-up (parameters load, caches fill): it
// is printed and kept in the JSON but left out of the summary, which pools
// the measured runs (wall = their sum, s/proof = summed wall / proofs). The
// JSON (schema 2) keeps every run: per proof the total, queue, synthesis,
// GPU and finalize ms, per partition every stage and wait the daemon
// returned (partition_timings: engine stages, backend.<name> GPU/CPU
// stages), the daemon's peak RSS after the run, and what produced it: the
// bench's commit and build, the host, the options and (--daemon-config) the
// daemon's TOML text. `cuzk-bench compare` reads two such files.
// Exit code 0 when every proof completed, 1 otherwise. Cost: the inputs are
// held in memory (COUNT C1s with --synthetic).
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/io/porep_c1.hpp>

#include "bench_stats.hpp"
#include "build_info.hpp"
#include "client_util.hpp"
#include "commands.hpp"
#include "timeline_svg.hpp"

namespace cuzk::bench_app {
namespace {

namespace pb = cuzk::v1;
using clock_type = std::chrono::steady_clock;

struct batch_options {
  std::string addr = "http://127.0.0.1:9820";
  std::string type, c1, vanilla, synthetic, randomness, json, out_dir, daemon_log, daemon_config, label;
  std::string comm_r_old, comm_r_new, comm_d_new;
  std::uint64_t registered_proof = 0, sector_num = 1, miner_id = 1000, sector_size = 0, seed = 1;
  std::uint32_t partition = 0;
  std::size_t count = 1, concurrency = 1, repeat = 1;
  double timeout_s = 0;
  int daemon_pid = 0, priority = 0;
};

struct partition_times {
  std::uint32_t partition = 0;
  std::vector<std::pair<std::string, double>> stages;  ///< as the daemon sent them
  double get(const std::string& name) const {
    for (const auto& [n, ms] : stages)
      if (n == name) return ms;
    return 0;
  }
};

struct proof_result {
  bool done = false, ok = false;
  std::string error, job_id;
  double latency_s = 0;
  std::uint64_t queue_ms = 0, synth_ms = 0, gpu_ms = 0, total_ms = 0, proof_bytes = 0;
  std::vector<partition_times> partitions;  ///< empty from a daemon without partition_timings
  double finalize_ms() const {
    double s = 0;
    for (const auto& p : partitions) s += p.get("finalize");
    return s;
  }
};

/// One pass over the batch.
struct run_data {
  std::vector<proof_result> results;
  double wall = 0;
  std::uint64_t rss = 0;  ///< daemon VmHWM after the run (0: unknown)
  bool warmup = false;
};

std::string request_prefix() {
  std::random_device rd;
  char buf[48];
  std::snprintf(buf, sizeof buf, "batch-%08x%08x-", rd(), rd());
  return buf;
}

/// The request without its id and vanilla payload.
pb::SubmitProofRequest base_request(const batch_options& o, engine::proof_kind kind) {
  pb::SubmitProofRequest s;
  s.set_proof_kind(pb::ProofKind(int(kind)));
  s.set_sector_size(o.sector_size);
  s.set_registered_proof(o.registered_proof);
  s.set_priority(pb::Priority(o.priority));
  s.set_sector_number(o.sector_num);
  s.set_miner_id(o.miner_id);
  s.set_partition_index(o.partition);
  const auto rand = o.randomness.empty() ? std::vector<std::uint8_t>(32, 0) : from_hex(o.randomness, "--randomness");
  s.set_randomness(std::string(rand.begin(), rand.end()));
  const auto hex32 = [](const std::string& v, const char* flag) {
    const auto b = from_hex(v, flag);
    return std::string(b.begin(), b.end());
  };
  if (!o.comm_r_old.empty()) s.set_comm_r_old(hex32(o.comm_r_old, "--comm-r-old"));
  if (!o.comm_r_new.empty()) s.set_comm_r_new(hex32(o.comm_r_new, "--comm-r-new"));
  if (!o.comm_d_new.empty()) s.set_comm_d_new(hex32(o.comm_d_new, "--comm-d-new"));
  return s;
}

/// Peak resident set (VmHWM) of a local process, bytes; 0 when unreadable.
std::uint64_t peak_rss_of(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

/// cuzk_memory_reserved_peak_bytes from GetMetrics; -1 when unavailable.
double budget_peak(const std::string& addr) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  pb::GetMetricsResponse resp;
  if (!make_stub(addr)->GetMetrics(&ctx, pb::GetMetricsRequest(), &resp).ok()) return -1;
  std::istringstream in(resp.prometheus_text());
  std::string line;
  const std::string key = "cuzk_memory_reserved_peak_bytes ";
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(key.size()));
  return -1;
}

std::string fmt_pct(const percentiles& p, int digits) {
  char buf[160];
  if (p.n == 0) return "n/a";
  std::snprintf(buf, sizeof buf, "p50=%.*f p90=%.*f p99=%.*f max=%.*f (n=%zu)", digits, p.p50, digits, p.p90, digits,
                p.p99, digits, p.max, p.n);
  return buf;
}

nlohmann::ordered_json pct_json(const percentiles& p) {
  if (p.n == 0) return nullptr;
  return {{"n", p.n}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}};
}

percentiles rounded(percentiles p, int digits) {
  p.p50 = round_to(p.p50, digits);
  p.p90 = round_to(p.p90, digits);
  p.p99 = round_to(p.p99, digits);
  p.max = round_to(p.max, digits);
  return p;
}

/// One pass of the batch: COUNT Prove calls, CONCURRENCY at a time.
run_data run_once(const batch_options& o, const pb::SubmitProofRequest& base, bool porep,
                  const std::vector<std::string>& c1_texts,
                  const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ids,
                  const std::vector<std::string>& vanilla, const std::string& out_dir) {
  const std::size_t N = o.count;
  const std::string prefix = request_prefix();
  run_data run;
  std::vector<proof_result>& results = run.results;
  results.resize(N);
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  std::size_t finished = 0;
  const bool tty = isatty(fileno(stdout)) != 0;
  const auto t0 = clock_type::now();
  auto stub = make_stub(o.addr);
  const auto progress = [&] {  // under mu
    if (!tty) return;
    const double el = std::chrono::duration<double>(clock_type::now() - t0).count();
    const double per = finished ? el / double(finished) : 0;
    std::printf("\r\033[K  %zu/%zu done, %.1fs elapsed, %s s/proof, ETA %s", finished, N, el,
                finished ? std::to_string(per).substr(0, 6).c_str() : "?",
                finished ? (std::to_string(int(per * double(N - finished))) + "s").c_str() : "?");
    std::fflush(stdout);
  };
  const auto worker = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= N) return;
      pb::ProveRequest req;
      *req.mutable_submit() = base;
      pb::SubmitProofRequest& s = *req.mutable_submit();
      s.set_request_id(prefix + std::to_string(i));
      if (porep) {
        s.set_vanilla_proof(c1_texts[c1_texts.size() == 1 ? 0 : i]);
        if (i < ids.size()) {
          s.set_miner_id(ids[i].first);
          s.set_sector_number(ids[i].second);
        }
      } else
        for (const auto& v : vanilla) s.add_vanilla_proofs(v);
      grpc::ClientContext ctx;
      if (o.timeout_s > 0)
        ctx.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::milliseconds(std::int64_t(o.timeout_s * 1000)));
      pb::ProveResponse resp;
      const auto ts = clock_type::now();
      const grpc::Status st = stub->Prove(&ctx, req, &resp);
      proof_result r;
      r.latency_s = std::chrono::duration<double>(clock_type::now() - ts).count();
      if (!st.ok()) {
        r.error = "gRPC " + std::to_string(int(st.error_code())) + ": " + st.error_message();
      } else {
        const auto& a = resp.result();
        r.job_id = a.job_id();
        r.queue_ms = a.queue_wait_ms();
        r.synth_ms = a.synthesis_ms();
        r.gpu_ms = a.gpu_compute_ms();
        r.total_ms = a.total_ms();
        r.proof_bytes = a.proof().size();
        for (const auto& pt : a.partition_timings()) {
          partition_times p{pt.partition(), {}};
          for (const auto& st2 : pt.stages()) p.stages.emplace_back(st2.name(), st2.ms());
          r.partitions.push_back(std::move(p));
        }
        if (a.status() == pb::AwaitProofResponse::COMPLETED) {
          r.ok = true;
          if (!out_dir.empty()) {
            std::ofstream f(out_dir + "/proof-" + std::to_string(i) + ".bin", std::ios::binary);
            f.write(a.proof().data(), std::streamsize(a.proof().size()));
            if (!f.flush()) {
              r.ok = false;
              r.error = "cannot write the proof into " + out_dir;
            }
          }
        } else {
          r.error = std::string(engine::status_label(engine::await_status(a.status()))) + ": " + a.error_message();
        }
      }
      r.done = true;
      std::lock_guard lk(mu);
      results[i] = r;
      ++finished;
      if (tty) std::printf("\r\033[K");
      if (r.ok)
        std::printf("[%zu/%zu] OK — %.1fs (prove=%llu ms, queue=%llu ms)\n", i + 1, N, r.latency_s,
                    (unsigned long long)(r.total_ms - std::min(r.total_ms, r.queue_ms)),
                    (unsigned long long)r.queue_ms);
      else std::printf("[%zu/%zu] FAILED — %.1fs: %s\n", i + 1, N, r.latency_s, r.error.c_str());
      progress();
      std::fflush(stdout);
      cv.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < std::min(o.concurrency, N); ++k) threads.emplace_back(worker);
  std::thread ticker;
  if (tty)
    ticker = std::thread([&] {
      std::unique_lock lk(mu);
      while (finished < N) {
        cv.wait_for(lk, std::chrono::seconds(1));
        if (finished < N) progress();
      }
    });
  for (auto& t : threads) t.join();
  if (ticker.joinable()) ticker.join();
  run.wall = std::chrono::duration<double>(clock_type::now() - t0).count();
  if (tty) std::printf("\r\033[K");
  run.rss = o.daemon_pid > 0 ? peak_rss_of(o.daemon_pid) : 0;
  return run;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// What produced the numbers: build, host, options, daemon config text.
nlohmann::ordered_json provenance(const batch_options& o) {
  nlohmann::ordered_json p;
  p["date"] = utc_now();
  p["build"] = {
      {"commit", build_commit}, {"dirty", build_dirty}, {"build_type", build_type}, {"compiler", build_compiler}};
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  utsname u{};
  uname(&u);
  p["host"] = {{"hostname", host},
               {"cpus", std::thread::hardware_concurrency()},
               {"kernel", std::string(u.sysname) + " " + u.release + " " + u.machine}};
  nlohmann::ordered_json c = {{"addr", o.addr},
                              {"type", o.type},
                              {"count", o.count},
                              {"concurrency", o.concurrency},
                              {"repeat", o.repeat},
                              {"c1", o.c1},
                              {"vanilla", o.vanilla},
                              {"synthetic", o.synthetic},
                              {"seed", o.seed},
                              {"registered_proof", o.registered_proof},
                              {"sector_size", o.sector_size},
                              {"priority", o.priority},
                              {"timeout_s", o.timeout_s},
                              {"label", o.label}};
  if (!o.daemon_config.empty()) {
    const auto bytes = read_file_bytes(o.daemon_config);
    c["daemon_config_file"] = o.daemon_config;
    c["daemon_config"] = std::string(bytes.begin(), bytes.end());
  }
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  pb::GetStatusResponse st;
  if (make_stub(o.addr)->GetStatus(&ctx, pb::GetStatusRequest(), &st).ok()) {
    auto& d = c["daemon_devices"] = nlohmann::ordered_json::array();
    for (const auto& g : st.gpus()) d.push_back(g.name());
  }
  p["config"] = std::move(c);
  return p;
}

nlohmann::ordered_json proof_json(const proof_result& r, std::size_t i, std::size_t run) {
  nlohmann::ordered_json p = {{"index", i + 1},
                              {"run", run},
                              {"ok", r.ok},
                              {"latency_s", round_to(r.latency_s, 1)},
                              {"latency_ms", round_to(r.latency_s * 1000.0, 3)},
                              {"job_id", r.job_id},
                              {"queue_ms", r.queue_ms},
                              {"prove_ms", r.total_ms - std::min(r.total_ms, r.queue_ms)},
                              {"synthesis_ms", r.synth_ms},
                              {"gpu_ms", r.gpu_ms},
                              {"finalize_ms", round_to(r.finalize_ms(), 3)},
                              {"total_ms", r.total_ms},
                              {"proof_bytes", r.proof_bytes}};
  if (!r.ok) p["error"] = r.error;
  auto& parts = p["partitions"] = nlohmann::ordered_json::array();
  for (const auto& pt : r.partitions) {
    nlohmann::ordered_json st = nlohmann::ordered_json::object();
    for (const auto& [name, ms] : pt.stages) st[name] = round_to(ms, 3);
    parts.push_back({{"partition", pt.partition}, {"stages", std::move(st)}});
  }
  return p;
}

int run_batch(const batch_options& o) {
  const engine::proof_kind kind = parse_type(o.type);
  if (o.count == 0) throw std::runtime_error("-c COUNT must be at least 1");
  if (o.concurrency == 0) throw std::runtime_error("-j CONCURRENCY must be at least 1");
  const bool porep = kind == engine::proof_kind::porep_seal_commit;
  // ---- inputs: one shared payload, or one per proof (--synthetic) ----------
  std::vector<std::string> c1_texts;                         // porep
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ids;  // --synthetic: (miner, sector) of each C1
  std::vector<std::string> vanilla;                          // others
  std::size_t partitions = 1;
  if (porep) {
    if (!o.synthetic.empty()) {
      const auto size = circuits::parse_sector_size(o.synthetic);
      if (!size)
        throw std::runtime_error("bad --synthetic size '" + o.synthetic + "' (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)");
      const io::seal_proof_info* info = io::find_seal_proof_by_size(*size);
      if (!info) throw std::runtime_error("no interactive v1.1 PoRep for --synthetic " + o.synthetic);
      partitions = info->partitions;
      std::fprintf(stderr, "batch: generating %zu synthetic %s C1 inputs...\n", o.count,
                   std::string(info->name).c_str());
      for (std::size_t i = 0; i < o.count; ++i) {
        const auto g = circuits::generate_synthetic_porep(*info, o.seed + i);
        c1_texts.push_back(io::write_c1_json(g.c1));
        ids.push_back({g.miner_id, g.sector_id});  // its replica_id binds these
      }
      // each proof's own C1 beside it, so that it can be verified later
      if (!o.out_dir.empty()) {
        std::filesystem::create_directories(o.out_dir);
        for (std::size_t i = 0; i < c1_texts.size(); ++i) {
          const std::string path = o.out_dir + "/c1-" + std::to_string(i) + ".json";
          std::ofstream f(path, std::ios::binary);
          f.write(c1_texts[i].data(), std::streamsize(c1_texts[i].size()));
          if (!f.flush()) throw std::runtime_error("cannot write " + path);
          std::ofstream a(o.out_dir + "/c1-" + std::to_string(i) + ".args");
          a << "--miner-id " << ids[i].first << " --sector-num " << ids[i].second << "\n";
          if (!a.flush()) throw std::runtime_error("cannot write the .args of " + path);
        }
      }
    } else if (!o.c1.empty()) {
      const auto bytes = read_file_bytes(o.c1);
      c1_texts.emplace_back(bytes.begin(), bytes.end());
      partitions = io::parse_c1_json(c1_texts[0], o.c1).partitions.size();
    } else {
      throw std::runtime_error("porep needs --c1 FILE or --synthetic SIZE");
    }
  } else {
    if (!o.synthetic.empty())
      throw std::runtime_error("--synthetic generates PoRep C1s only; make PoSt inputs with gen-post");
    if (o.vanilla.empty()) throw std::runtime_error(o.type + " needs --vanilla FILE");
    for (const auto& v : read_vanilla_file(o.vanilla)) vanilla.emplace_back(v.begin(), v.end());
    if (kind == engine::proof_kind::snap_deals_update) partitions = std::max<std::size_t>(1, vanilla.size());
  }
  const pb::SubmitProofRequest base = base_request(o, kind);
  if (!o.out_dir.empty()) std::filesystem::create_directories(o.out_dir);

  if (o.repeat == 0) throw std::runtime_error("--repeat must be at least 1");
  const std::size_t N = o.count, R = o.repeat;
  std::vector<run_data> runs;
  for (std::size_t k = 0; k < R; ++k) {
    if (R > 1) std::printf("=== Run %zu/%zu%s ===\n", k + 1, R, k == 0 ? " (warm-up)" : "");
    std::fflush(stdout);
    runs.push_back(run_once(o, base, porep, c1_texts, ids, vanilla, k + 1 == R ? o.out_dir : ""));  // last run's proofs
    runs.back().warmup = R > 1 && k == 0;
    if (R > 1) {
      std::size_t ok_k = 0;
      for (const auto& r : runs.back().results) ok_k += r.ok ? 1 : 0;
      if (ok_k)
        std::printf("run %zu: %zu/%zu ok, wall %.3f s, %.3f s/proof\n", k + 1, ok_k, N, runs.back().wall,
                    runs.back().wall / double(ok_k));
      else std::printf("run %zu: 0/%zu ok, wall %.3f s\n", k + 1, N, runs.back().wall);
    }
  }

  // ---- summary over the measured runs ----------------------------------------
  std::vector<double> lat, gpu, synth;
  std::size_t ok = 0, total = 0;
  double wall = 0;
  std::set<std::string> ok_jobs;
  bool exact_parts = true;
  for (const auto& run : runs) {
    if (run.warmup) continue;
    wall += run.wall;
    for (const auto& r : run.results) {
      ++total;
      if (!r.ok) continue;
      ++ok;
      ok_jobs.insert(r.job_id);
      lat.push_back(r.latency_s);
      if (r.partitions.empty()) exact_parts = false;
    }
  }
  std::string part_source = "response sums / partitions";
  if (!o.daemon_log.empty()) {
    std::ifstream in(o.daemon_log);
    if (!in) throw std::runtime_error("cannot read --daemon-log " + o.daemon_log);
    const timeline_model m = build_timeline(in);
    for (const auto& b : m.bars) {
      if (!ok_jobs.count(b.job)) continue;
      if (b.kind == stage_kind::gpu) gpu.push_back(double(b.end - b.start));
      if (b.kind == stage_kind::synth) synth.push_back(double(b.end - b.start));
    }
    part_source = "daemon TIMELINE";
  } else if (exact_parts && ok > 0) {
    for (const auto& run : runs)
      if (!run.warmup)
        for (const auto& r : run.results)
          if (r.ok)
            for (const auto& p : r.partitions) {
              gpu.push_back(p.get("lock_wait") + p.get("gpu"));  // GPU_START..GPU_END
              synth.push_back(p.get("synthesis"));
            }
    part_source = "daemon partition timings";
  } else {
    for (const auto& run : runs)
      if (!run.warmup)
        for (const auto& r : run.results)
          if (r.ok) {
            gpu.push_back(double(r.gpu_ms) / double(partitions));
            synth.push_back(double(r.synth_ms) / double(partitions));
          }
  }
  const percentiles lat_p = rounded(summarize(lat), 3), gpu_p = rounded(summarize(gpu), 1),
                    synth_p = rounded(summarize(synth), 1);
  const double wall_r = round_to(wall, 3);
  const double s_per = ok ? round_to(wall / double(ok), 3) : 0;
  const double per_min = round_to(double(ok) * 60.0 / wall, 3);
  const std::uint64_t rss = runs.back().rss;
  const double bpeak = budget_peak(o.addr);
  const std::size_t measured = R > 1 ? R - 1 : 1;
  std::printf("\n=== Batch Summary ===\n");
  std::printf("type:              %s\n", std::string(engine::kind_label(kind)).c_str());
  if (R > 1) std::printf("runs:              %zu measured (+1 warm-up, left out), pooled below\n", measured);
  std::printf("proofs:            %zu ok, %zu failed, %zu total (concurrency %zu)\n", ok, total - ok, total,
              std::min(o.concurrency, N));
  std::printf("wall time:         %.3f s\n", wall_r);
  if (ok) std::printf("throughput:        %.3f s/proof, %.3f proofs/min\n", s_per, per_min);
  else std::printf("throughput:        n/a (no proof completed)\n");
  std::printf("latency (s):       %s\n", fmt_pct(lat_p, 3).c_str());
  std::printf("gpu/partition (ms):   %s\n", fmt_pct(gpu_p, 1).c_str());
  std::printf("synth/partition (ms): %s\n", fmt_pct(synth_p, 1).c_str());
  std::printf("  (per-partition source: %s; %zu partition(s) per proof)\n", part_source.c_str(), partitions);
  if (rss) std::printf("daemon peak RSS:   %.1f MiB (VmHWM of pid %d)\n", double(rss) / 1048576.0, o.daemon_pid);
  else std::printf("daemon peak RSS:   n/a (the daemon reports none; pass --daemon-pid for a local daemon)\n");
  if (bpeak >= 0)
    std::printf("budget peak:       %.1f MiB reserved (cuzk_memory_reserved_peak_bytes)\n", bpeak / 1048576.0);
  else std::printf("budget peak:       n/a (GetMetrics failed)\n");

  if (!o.json.empty()) {
    nlohmann::ordered_json j;
    j["schema"] = 2;
    j["type"] = o.type;
    j["count"] = N;
    j["concurrency"] = std::min(o.concurrency, N);
    j["repeat"] = R;
    j["measured_runs"] = measured;
    j["ok"] = ok;
    j["failed"] = total - ok;
    j["partitions_per_proof"] = partitions;
    j["wall_s"] = wall_r;
    j["s_per_proof"] = ok ? nlohmann::ordered_json(s_per) : nlohmann::ordered_json(nullptr);
    j["proofs_per_min"] = ok ? nlohmann::ordered_json(per_min) : nlohmann::ordered_json(nullptr);
    j["latency_s"] = pct_json(lat_p);
    j["gpu_ms_per_partition"] = pct_json(gpu_p);
    j["synth_ms_per_partition"] = pct_json(synth_p);
    j["per_partition_source"] = part_source;
    j["daemon_peak_rss_bytes"] = rss ? nlohmann::ordered_json(rss) : nlohmann::ordered_json(nullptr);
    j["budget_peak_bytes"] =
        bpeak >= 0 ? nlohmann::ordered_json(std::uint64_t(bpeak)) : nlohmann::ordered_json(nullptr);
    const nlohmann::ordered_json prov = provenance(o);
    for (const auto& [k, v] : prov.items()) j[k] = v;
    auto& arr = j["proofs"] = nlohmann::ordered_json::array();  // the measured runs' proofs
    auto& jr = j["runs"] = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const run_data& run = runs[k];
      std::size_t ok_k = 0;
      nlohmann::ordered_json rp = nlohmann::ordered_json::array();
      for (std::size_t i = 0; i < run.results.size(); ++i) {
        ok_k += run.results[i].ok ? 1 : 0;
        rp.push_back(proof_json(run.results[i], i, k));
        if (!run.warmup) arr.push_back(rp.back());
      }
      jr.push_back(
          {{"run", k},
           {"warmup", run.warmup},
           {"wall_s", round_to(run.wall, 3)},
           {"ok", ok_k},
           {"failed", run.results.size() - ok_k},
           {"s_per_proof",
            ok_k ? nlohmann::ordered_json(round_to(run.wall / double(ok_k), 4)) : nlohmann::ordered_json(nullptr)},
           {"daemon_peak_rss_bytes", run.rss ? nlohmann::ordered_json(run.rss) : nlohmann::ordered_json(nullptr)},
           {"proofs", std::move(rp)}});
    }
    std::ofstream f(o.json);
    f << j.dump(2) << "\n";
    if (!f.flush()) throw std::runtime_error("cannot write " + o.json);
  }
  return ok == total ? 0 : 1;
}

}  // namespace

void register_batch(CLI::App& app) {
  static batch_options o;
  auto* cmd =
      app.add_subcommand("batch", "prove COUNT requests through the daemon, CONCURRENCY at a time; percentiles");
  cmd->add_option("-a,--addr", o.addr, "daemon address: host:port, http://host:port or unix:///path");
  cmd->add_option("-t,--type", o.type, "porep | snap | wpost | winning")->required();
  cmd->add_option("--c1", o.c1, "PoRep: the C1 output JSON (every proof uses it)");
  cmd->add_option("--vanilla", o.vanilla, "PoSt/Snap: JSON array of base64 vanilla proofs");
  cmd->add_option("--synthetic", o.synthetic, "PoRep: generate one C1 per proof for this sector size (e.g. 2KiB)");
  cmd->add_option("--seed", o.seed, "first --synthetic seed (proof i uses seed+i)");
  cmd->add_option("-c,--count", o.count, "number of proofs");
  cmd->add_option("-j,--concurrency", o.concurrency, "proofs in flight at once");
  cmd->add_option("--repeat", o.repeat,
                  "run the batch R times; with R > 1 the first is a warm-up, left out of the summary");
  cmd->add_option("--daemon-config", o.daemon_config, "the daemon's TOML file: its text is recorded in --json");
  cmd->add_option("--label", o.label, "free text recorded in --json (what this run is)");
  cmd->add_option("--json", o.json, "write every number of the run as JSON here");
  cmd->add_option(
      "--out-dir", o.out_dir,
      "write proof-<i>.bin (i from 0) for each completed proof (of the last run); --synthetic: and c1-<i>.json");
  cmd->add_option("--timeout", o.timeout_s, "per-proof deadline in seconds (0: none)");
  cmd->add_option("--daemon-pid", o.daemon_pid, "pid of a local daemon: peak RSS from /proc/PID/status");
  cmd->add_option("--daemon-log", o.daemon_log, "the daemon's log: exact per-partition times from TIMELINE lines");
  cmd->add_option("--registered-proof", o.registered_proof,
                  "Go abi registered proof (Window V1_1 2KiB=10, Winning 2KiB=0)");
  cmd->add_option("--sector-size", o.sector_size, "bytes (0: from the registered proof)");
  cmd->add_option("--sector-num", o.sector_num, "sector number");
  cmd->add_option("--miner-id", o.miner_id, "miner id");
  cmd->add_option("--partition", o.partition, "WindowPoSt partition index");
  cmd->add_option("--randomness", o.randomness, "32 bytes hex (default zeros)");
  cmd->add_option("--comm-r-old", o.comm_r_old, "Snap: 32 bytes hex");
  cmd->add_option("--comm-r-new", o.comm_r_new, "Snap: 32 bytes hex");
  cmd->add_option("--comm-d-new", o.comm_d_new, "Snap: 32 bytes hex");
  cmd->add_option("--priority", o.priority, "0 (kind default), 1 low .. 4 critical");
  cmd->callback([] { run_subcommand("batch", [] { return run_batch(o); }); });
}

}  // namespace cuzk::bench_app
