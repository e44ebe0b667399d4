// SPDX-License-Identifier: Apache-2.0
// cuzk-porep-scale: full-size PoRep C2 batches through the engine on GPUs,
// with parameters computed on the GPUs and kept there.
//
//   cuzk-porep-scale [--sector-size 32GiB] [--proofs 3] [--concurrency 2]
//                    [--devices 0,1] [--gpu-workers 2] [--synthesis N]
//                    [--batches "0;0,1"] [--h-windows 17,19,20]
//                    [--seed 20261130] [--vram-limit 16GiB,24GiB]
//                    [--max-batch-size 1,2,4] [--variant NAME=VALUE]...
//                    [--out DIR]
//
// Why a program of its own: the parameters of a 32 GiB PoRep are ~47 GB of
// points; no published file is available to us and writing ours to the
// device host's disk and reading them back would not fit its disk or time.
// So this process builds the circuit's shape, computes seeded test
// parameters on every GPU (groth16::generate_parameters_gpu: the same
// points as the CPU setup), installs them in the engine's SRS manager
// (verifying key on the host, queries in VRAM through the gpu backend's
// make_prover hook) and then drives the same engine the daemon runs: the
// PoRep kind parses each C1 JSON, synthesis workers build the witnesses,
// device workers prove under the per-GPU lock, finalizers verify every
// partition proof against the public inputs derived from the graph. At the
// end every whole proof is verified again here from its bytes.
//
// Runs: one warm-up partition straight on the prover (prints the GPU stage
// times), then one batch per device set of --batches (default: every
// device; "0;0,1" runs on GPU 0 alone, then on GPUs 0 and 1, for the
// scaling factor; --h-windows times the warm-up's H MSM at each width and
// the batches use the fastest; --sparse-windows times the L, A and B MSMs at
// each width and prints them, the batches keep the count-based default), each a fresh engine given the same --proofs C1s
// (generated, one seed each) submitted by --concurrency clients. Prints and writes (under --out) s/proof, per-proof
// latency, GPU ms per partition p50/p99/max, synthesis ms per partition,
// host-to-device GB per partition, peak RSS, and the TIMELINE lines.
//
// --vram-limit: the small-card case. The parameters move to the host once
// (downloaded, pinned) and the devices free them; then, for each limit in
// turn, the warm-up and the batches run with provers held to it
// (gpu_prover_config::vram_limit_bytes: queries that do not fit stream over
// PCIe every partition). A limit the 32 GiB PoRep cannot fit under is
// reported ("warm-up failed: ...") and the next one runs.
//
// --variant NAME=VALUE: a GPU tuning setting the code reads at every call
// (CUZK_MSM_AFFINE=32, CUZK_MSM_WINDOW=...), set in the environment before
// its own warm-up and batches; several compare settings on one shape and
// one set of parameters (the shape alone takes ~80 s at 32 GiB).
//
// --max-batch-size: cross-sector batching (scheduler.max_batch_size). The
// warm-up also proves the largest size the prover takes
// (gpu_prover::batch_capacity) straight on it, from copies of its witness,
// and prints each member's stages; then each batch runs once per size, the
// engine given that max_batch_size (label suffix -b<size>).
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/porep_compound.hpp>
#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/engine/engine.hpp>
#include <cuzk/engine/prover_backend.hpp>
#include <cuzk/groth16/prover_gpu.hpp>
#include <cuzk/groth16/setup_gpu.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/porep_c1.hpp>
#include <cuzk/io/proof_io.hpp>

namespace {

using namespace cuzk;
using clock_type = std::chrono::steady_clock;

double secs_since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

double peak_rss_gib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / (1024.0 * 1024.0);
}

struct options {
  std::string sector_size = "32GiB";
  std::size_t proofs = 3, concurrency = 2, gpu_workers = 2, synthesis = 0;
  std::vector<int> devices;               // empty: every visible device
  std::vector<std::vector<int>> batches;  // device set of each batch; default: all devices
  std::vector<unsigned> h_windows;        // H MSM widths to time in the warm-up
  std::vector<unsigned> sparse_windows;   // L/A/B MSM widths to time in the warm-up
  std::uint64_t seed = 20261130;
  std::filesystem::path out = "scale-out";
  // --vram-limit: the provers get this limit and the parameters from the
  // host (downloaded after the GPU setup), as on a card that cannot hold
  // them: queries that do not fit are streamed (gpu_memory_plan)
  std::vector<std::uint64_t> vram_limits;  // each one a warm-up and the batches
  // --max-batch-size: the engine's cross-sector batching
  // (scheduler.max_batch_size), one run of the batch per size
  std::vector<std::size_t> max_batch_sizes{1};
  // --variant NAME=VALUE (repeatable): each one set in the environment for
  // its own pass over the limits and batch sizes (tuning settings the GPU
  // code reads at every call, e.g. CUZK_MSM_AFFINE=32); none: one pass as is
  std::vector<std::string> variants;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(
      stderr,
      "cuzk-porep-scale: %s\nusage: cuzk-porep-scale [--sector-size 32GiB] [--proofs N] "
      "[--concurrency N] [--devices 0,1] [--batches \"0;0,1\"] [--h-windows 17,19] [--sparse-windows 15,16] [--gpu-workers N] [--synthesis N] [--seed N] "
      "[--vram-limit 16GiB,24GiB] [--max-batch-size 1,2,4] [--variant NAME=VALUE]... [--out DIR]\n",
      why.c_str());
  std::exit(2);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage("missing value after " + a);
    const std::string v = argv[++i];
    try {
      if (a == "--sector-size") o.sector_size = v;
      else if (a == "--proofs") o.proofs = std::stoul(v);
      else if (a == "--concurrency") o.concurrency = std::stoul(v);
      else if (a == "--gpu-workers") o.gpu_workers = std::stoul(v);
      else if (a == "--synthesis") o.synthesis = std::stoul(v);
      else if (a == "--seed") o.seed = std::stoull(v);
      else if (a == "--out") o.out = v;
      else if (a == "--variant") {
        const std::size_t eq = v.find('=');
        if (eq == 0 || eq == std::string::npos) usage("--variant takes NAME=VALUE");
        o.variants.push_back(v);
      } else if (a == "--vram-limit") {
        std::stringstream ss(v);
        for (std::string one; std::getline(ss, one, ',');) {
          std::size_t pos = 0;
          const double gib = std::stod(one, &pos);
          if (one.substr(pos) != "GiB" || gib <= 0) usage("--vram-limit takes GiB, e.g. 16GiB,24GiB");
          o.vram_limits.push_back(std::uint64_t(gib * double(1ull << 30)));
        }
      } else if (a == "--max-batch-size") {
        o.max_batch_sizes.clear();
        std::stringstream ss(v);
        for (std::string t; std::getline(ss, t, ',');) o.max_batch_sizes.push_back(std::stoul(t));
        if (o.max_batch_sizes.empty() ||
            std::find(o.max_batch_sizes.begin(), o.max_batch_sizes.end(), 0u) != o.max_batch_sizes.end())
          usage("--max-batch-size takes sizes of at least 1, e.g. 1,2,4");
      } else if (a == "--devices") {
        std::stringstream ss(v);
        for (std::string t; std::getline(ss, t, ',');) o.devices.push_back(std::stoi(t));
      } else if (a == "--h-windows") {
        std::stringstream ss(v);
        for (std::string t; std::getline(ss, t, ',');) o.h_windows.push_back(unsigned(std::stoul(t)));
      } else if (a == "--sparse-windows") {
        std::stringstream ss(v);
        for (std::string t; std::getline(ss, t, ',');) o.sparse_windows.push_back(unsigned(std::stoul(t)));
      } else if (a == "--batches") {
        std::stringstream ss(v);
        for (std::string set; std::getline(ss, set, ';');) {
          std::vector<int> one;
          std::stringstream s2(set);
          for (std::string t; std::getline(s2, t, ',');) one.push_back(std::stoi(t));
          if (one.empty()) usage("empty device set in --batches");
          o.batches.push_back(one);
        }
      } else usage("unknown option " + a);
    } catch (const std::logic_error&) {
      usage("bad value '" + v + "' for " + a);
    }
  }
  if (o.proofs == 0 || o.concurrency == 0) usage("--proofs and --concurrency must be at least 1");
  return o;
}

struct percentiles {
  double p50 = 0, p99 = 0, max = 0, min = 0;
  std::size_t n = 0;
};
percentiles summarize(std::vector<double> v) {
  percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::min(v.size() - 1, std::size_t(q * double(v.size() - 1) + 0.5))]; };
  p.p50 = at(0.5);
  p.p99 = at(0.99);
  p.max = v.back();
  p.min = v.front();
  p.n = v.size();
  return p;
}

/// Value of "key=<number>" in a TIMELINE detail field, or nullopt.
std::optional<double> field(const std::string& line, const std::string& key) {
  const std::size_t at = line.find(key + "=");
  if (at == std::string::npos) return std::nullopt;
  return std::stod(line.substr(at + key.size() + 1));
}

}  // namespace

int main(int argc, char** argv) try {
  options opt = parse(argc, argv);
  std::filesystem::create_directories(opt.out);
  const auto t_start = clock_type::now();
  const std::optional<std::uint64_t> size = circuits::parse_sector_size(opt.sector_size);
  if (!size) usage("unknown sector size " + opt.sector_size);
  const io::seal_proof_info* info = io::find_seal_proof_by_size(*size);
  if (!info) usage("no PoRep for sector size " + opt.sector_size);
  const std::vector<int> devices = groth16::select_gpu_devices(opt.devices);
  if (devices.empty()) throw std::runtime_error("no CUDA device visible");
  if (opt.batches.empty()) opt.batches.push_back(devices);

  // 1. the shape, built once (~9 GB at 32 GiB)
  auto t0 = clock_type::now();
  r1cs::r1cs_shape shape = circuits::porep_shape(*info);
  const double shape_s = secs_since(t0);
  std::printf("shape %s: %zu constraints, %zu inputs, %zu aux, nnz %zu / %zu / %zu, %.1f s, RSS peak %.1f GiB\n",
              std::string(info->name).c_str(), shape.num_constraints, shape.num_inputs, shape.num_aux, shape.a.nnz(),
              shape.b.nnz(), shape.c.nnz(), shape_s, peak_rss_gib());
  std::fflush(stdout);

  // 2. parameters on every GPU, in parallel (same seed: the same points)
  t0 = clock_type::now();
  const groth16::toxic_waste tw = groth16::toxic_waste_from_seed(opt.seed);
  std::vector<groth16::gpu_parameters> gp(devices.size());
  std::vector<groth16::gpu_setup_timings> setup_t(devices.size());
  {
    std::vector<std::thread> ts;
    std::vector<std::exception_ptr> errs(devices.size());
    for (std::size_t d = 0; d < devices.size(); ++d)
      ts.emplace_back([&, d] {
        try {
          gp[d] = groth16::generate_parameters_gpu(shape, tw, {.device = devices[d]}, &setup_t[d]);
        } catch (...) {
          errs[d] = std::current_exception();
        }
      });
    for (auto& t : ts) t.join();
    for (auto& e : errs)
      if (e) std::rethrow_exception(e);
  }
  const double setup_s = secs_since(t0);
  std::printf("gpu setup on %zu device(s): %.1f s, %.1f GiB of queries per device\n", devices.size(), setup_s,
              double(groth16::device_bytes(gp[0])) / double(1ull << 30));
  {
    const groth16::gpu_setup_timings& t = setup_t[0];
    std::printf(
        "  device 0 steps (ms): lagrange %.0f, uvw %.0f, H %.0f, L %.0f, A %.0f, B_G1 %.0f, B_G2 %.0f, "
        "vk %.0f, total %.0f; planned peak %.1f GiB\n",
        t.lagrange_ms, t.uvw_ms, t.h_ms, t.l_ms, t.a_ms, t.b_g1_ms, t.b_g2_ms, t.vk_ms, t.total_ms,
        double(t.planned_peak_bytes) / double(1ull << 30));
  }
  for (std::size_t d = 1; d < devices.size(); ++d)
    if (!(gp[d].vk == gp[0].vk)) throw std::runtime_error("GPU setups on two devices disagree");
  const groth16::verifying_key vk = gp[0].vk;
  // limited VRAM: the parameters move to the host (one copy: every device
  // has the same points) and leave the devices
  std::shared_ptr<const groth16::parameters> host_params;
  std::shared_ptr<const void> host_pins;  // released before host_params (declared after)
  if (!opt.vram_limits.empty()) {
    t0 = clock_type::now();
    host_params = std::make_shared<const groth16::parameters>(groth16::download_parameters(gp[0]));
    for (auto& g : gp) g = groth16::gpu_parameters{};
    const double download_s = secs_since(t0);
    t0 = clock_type::now();
    host_pins = groth16::pin_host_queries(*host_params);
    std::printf("parameters to the host for --vram-limit: %.1f s, pinned %s in %.1f s\n", download_s,
                host_pins ? "yes" : "NO (pageable)", secs_since(t0));
  }
  // device |d|'s prover (index into |devices|), under the limit of this round
  std::uint64_t vram_limit = 0;
  auto make_prover = [&](std::size_t d, std::shared_ptr<const r1cs::r1cs_shape> sh, unsigned h_window) {
    const groth16::gpu_prover_config pc{
        .device = devices[d], .vram_limit_bytes = vram_limit, .h_window_bits = h_window};
    if (host_params) return std::make_shared<groth16::gpu_prover>(host_params, std::move(sh), pc);
    return std::make_shared<groth16::gpu_prover>(gp[d], std::move(sh), pc);
  };
  std::fflush(stdout);

  // 3. generated C1s (one seed each), generated while nothing else runs
  t0 = clock_type::now();
  std::vector<io::c1_output> c1s(opt.proofs);
  std::vector<std::string> c1_json(opt.proofs);
  {
    std::vector<std::thread> ts;
    for (std::size_t i = 0; i < opt.proofs; ++i)
      ts.emplace_back([&, i] {
        c1s[i] = circuits::generate_synthetic_porep(*info, opt.seed + 1 + i).c1;
        c1_json[i] = io::write_c1_json(c1s[i]);
      });
    for (auto& t : ts) t.join();
  }
  std::printf("generated %zu C1s (%zu partitions each) in %.1f s\n", opt.proofs, c1s[0].partitions.size(),
              secs_since(t0));

  // 4. warm-up: one partition straight on device 0's prover, stage times
  unsigned h_window = 0;
  const auto shape_ptr = std::make_shared<const r1cs::r1cs_shape>(std::move(shape));
  auto warm_up = [&] {
    const std::shared_ptr<groth16::gpu_prover> warm_ptr = make_prover(0, shape_ptr, 0);
    groth16::gpu_prover& warm = *warm_ptr;
    {
      const groth16::gpu_memory_plan mp = warm.memory_plan();
      std::printf(
          "memory plan: %s vectors, resident H %d L %d A %d B_G1 %d B_G2 %d matrices %d, chunk %zu terms%s, "
          "H chunk %zu terms, L beside H in chunks of %zu terms, matrix block %zu non-zeros, planned %.1f of %.1f "
          "GiB usable\n",
          mp.compact_vectors ? "compact" : "separate", mp.h, mp.l, mp.a, mp.b_g1, mp.b_g2, mp.matrices, mp.chunk_terms,
          mp.chunk_terms ? (mp.streamed_pinned ? " (pinned)" : " (pageable)") : "", mp.h_chunk_terms,
          mp.l_beside_h_chunk_terms, mp.spmv_block_nnz, double(mp.planned_bytes) / double(1ull << 30),
          double(mp.usable_bytes) / double(1ull << 30));
    }
    t0 = clock_type::now();
    const groth16::witness w = circuits::porep_witness(c1s[0], 0);
    const double synth_s = secs_since(t0);
    t0 = clock_type::now();
    auto pending = warm.prove_start(w);
    const double gpu_s = secs_since(t0);
    const groth16::gpu_prove_timings t = warm.last_timings();
    t0 = clock_type::now();
    const groth16::proof pi = warm.finalize(std::move(pending), ff::fr::one(), ff::fr::one());
    const double fin_s = secs_since(t0);
    const bool ok = groth16::verify(groth16::prepare_verifying_key(vk), pi,
                                    std::span<const ff::fr>(circuits::porep_public_inputs(c1s[0], 0)));
    std::printf(
        "warm-up partition: synthesis %.2f s, GPU %.3f s (upload %.0f, spmv %.0f, ntt %.0f, H %.0f, L %.0f%s, "
        "A %.0f, B1 %.0f, B2 %.0f ms), finalize %.3f s, verifies: %s; prover holds %.1f GiB VRAM; "
        "host to device %.2f GB\n",
        synth_s, gpu_s, t.upload_ms, t.spmv_ms, t.ntt_ms, t.msm_h_ms, t.msm_l_ms, t.l_beside_h ? " beside H" : "",
        t.msm_a_ms, t.msm_b1_ms, t.msm_b2_ms, fin_s, ok ? "yes" : "NO",
        double(warm.device_bytes()) / double(1ull << 30), double(t.h2d_bytes) / 1e9);
    if (!ok) throw std::runtime_error("warm-up proof does not verify");
    // H-window sweep on the same witness: the fastest width serves the batches
    double best_ms = t.msm_h_ms;
    for (const unsigned c : opt.h_windows) {
      warm.set_h_window_bits(c);
      auto p2 = warm.prove_start(w);
      const groth16::gpu_prove_timings tc = warm.last_timings();
      const bool same = warm.finalize(std::move(p2), ff::fr::one(), ff::fr::one()) == pi;
      std::printf("  H window %u: H %.0f ms, GPU total %.0f ms%s\n", c, tc.msm_h_ms, tc.total_ms,
                  same ? "" : " -- PROOF DIFFERS");
      if (!same) throw std::runtime_error("H window sweep changed the proof");
      if (tc.msm_h_ms < best_ms) {
        best_ms = tc.msm_h_ms;
        h_window = c;
      }
    }
    if (!opt.h_windows.empty()) std::printf("H window for the batches: %u (0 = default)\n", h_window);
    // L/A/B window sweep (witness scalars): printed for tuning; the batches
    // keep the count-based default
    if (!opt.sparse_windows.empty()) warm.set_h_window_bits(h_window);
    for (const unsigned c : opt.sparse_windows) {
      warm.set_sparse_window_bits(c);
      auto p2 = warm.prove_start(w);
      const groth16::gpu_prove_timings tc = warm.last_timings();
      const bool same = warm.finalize(std::move(p2), ff::fr::one(), ff::fr::one()) == pi;
      std::printf("  L/A/B window %u: L %.0f, A %.0f, B1 %.0f, B2 %.0f ms, GPU total %.0f ms%s\n", c, tc.msm_l_ms,
                  tc.msm_a_ms, tc.msm_b1_ms, tc.msm_b2_ms, tc.total_ms, same ? "" : " -- PROOF DIFFERS");
      if (!same) throw std::runtime_error("L/A/B window sweep changed the proof");
    }
    warm.set_sparse_window_bits(0);
    // cross-sector batching straight on the prover: the largest size asked
    // that it takes, copies of the warm-up witness (each proof checked)
    const std::size_t biggest = *std::max_element(opt.max_batch_sizes.begin(), opt.max_batch_sizes.end());
    const std::size_t k = std::min(biggest, warm.batch_capacity());
    std::printf("batch capacity of the prover: %zu\n", warm.batch_capacity());
    if (k > 1) {
      const auto coded = groth16::encode_witness(w.inputs, w.aux,
                                                 groth16::gpu_coded_witness_max_others(w.inputs.size() + w.aux.size()));
      std::vector<groth16::gpu_batch_member> members(k);
      for (auto& m : members) {
        if (coded) m.coded = &*coded;
        else m.raw = &w;
      }
      t0 = clock_type::now();
      auto sums = warm.prove_start_batch(members);
      const double batch_s = secs_since(t0);
      const std::vector<groth16::gpu_prove_timings> bt = warm.last_batch_timings();
      for (std::size_t i = 0; i < k; ++i) {
        const bool same = sums[i] && warm.finalize(std::move(*sums[i]), ff::fr::one(), ff::fr::one()) == pi;
        const groth16::gpu_prove_timings& ti = bt[i];
        std::printf(
            "  batch of %zu, member %zu: GPU %.0f ms (upload %.0f, spmv %.0f, ntt %.0f, H %.0f, L %.0f, A %.0f, "
            "B1 %.0f, B2 %.0f ms: the witness MSMs a share of a %s pass of %zu), host to device %.2f GB%s\n",
            k, i, ti.total_ms, ti.upload_ms, ti.spmv_ms, ti.ntt_ms, ti.msm_h_ms, ti.msm_l_ms, ti.msm_a_ms, ti.msm_b1_ms,
            ti.msm_b2_ms, ti.coded_pass ? "coded" : "vector", ti.pass_members, double(ti.h2d_bytes) / 1e9,
            same ? "" : " -- PROOF DIFFERS");
        if (!same) throw std::runtime_error("a batched proof differs from the warm-up proof");
      }
      std::printf("  batch of %zu: %.3f s on the device, %.0f ms per partition; prover holds %.1f GiB VRAM\n", k,
                  batch_s, batch_s * 1e3 / double(k), double(warm.device_bytes()) / double(1ull << 30));
    }
    std::fflush(stdout);
  };

  // 5.-8. one batch per device set: the engine as the daemon builds it
  const std::string circuit_id = engine::porep_circuit_id(*size);
  auto run_batch = [&](const std::string& label, const std::vector<int>& subset, std::size_t max_batch) -> bool {
    std::printf("== batch %s: devices", label.c_str());
    for (int d : subset) std::printf(" %d", d);
    std::printf("\n");
    engine::engine_config cfg;
    cfg.param_cache = opt.out / "no-param-files";
    cfg.gpu_workers_per_device = opt.gpu_workers;
    cfg.max_parallel_synthesis = opt.synthesis;
    cfg.verify = engine::verify_mode::all;
    cfg.max_batch_size = max_batch;
    engine::gpu_backend_options bo;
    bo.devices = subset;
    bo.make_prover = [&](int ordinal, const groth16::parameters& params,
                         const r1cs::r1cs_shape& sh) -> std::shared_ptr<groth16::gpu_prover> {
      for (std::size_t d = 0; d < devices.size(); ++d)
        if (devices[d] == ordinal && params.vk == vk) {
          std::shared_ptr<const r1cs::r1cs_shape> s(&sh, [](const r1cs::r1cs_shape*) {});
          return make_prover(d, std::move(s), h_window);
        }
      return nullptr;
    };
    engine::engine eng(cfg, engine::make_gpu_backend(bo));
    std::mutex tl_mu;
    std::vector<std::string> timeline;
    eng.set_timeline([&](const std::string& line) {
      std::lock_guard lk(tl_mu);
      timeline.push_back(line);
    });
    eng.set_log([](int level, const std::string& m) {
      if (level >= 2) std::fprintf(stderr, "engine: %s\n", m.c_str());
    });
    eng.register_kind(engine::make_porep_kind());
    {
      groth16::parameters vk_only;
      vk_only.vk = vk;
      // the engine's copy of the shape (the provers it makes point at it)
      eng.srs().install(circuit_id, std::move(vk_only), r1cs::r1cs_shape(*shape_ptr));
    }
    eng.start();

    // 6. the batch: --concurrency clients, each submit + await in turn
    std::atomic<std::size_t> next{0};
    std::vector<engine::job_result> results(opt.proofs);
    std::vector<double> latency(opt.proofs);
    const auto t_batch = clock_type::now();
    {
      std::vector<std::thread> clients;
      for (std::size_t c = 0; c < opt.concurrency; ++c)
        clients.emplace_back([&] {
          for (std::size_t i; (i = next++) < opt.proofs;) {
            engine::proof_request req;
            req.request_id = "scale-" + std::to_string(i);
            req.kind = engine::proof_kind::porep_seal_commit;
            req.vanilla_proof.assign(c1_json[i].begin(), c1_json[i].end());
            const auto t_job = clock_type::now();
            eng.submit(std::move(req));
            results[i] = eng.await("scale-" + std::to_string(i), std::nullopt);
            latency[i] = secs_since(t_job);
          }
        });
      for (auto& t : clients) t.join();
    }
    const double batch_s = secs_since(t_batch);
    eng.shutdown(std::chrono::seconds(10));

    // 7. every whole proof verified here from its bytes
    const auto pvk = groth16::prepare_verifying_key(vk);
    std::size_t verified = 0;
    for (std::size_t i = 0; i < opt.proofs; ++i) {
      const engine::job_result& r = results[i];
      if (r.status != engine::await_status::completed) {
        std::printf("proof %zu: %s %s\n", i, std::string(engine::status_label(r.status)).c_str(),
                    r.error_message.c_str());
        continue;
      }
      const auto proofs = io::read_proofs(r.proof, c1s[i].partitions.size(), "proof " + std::to_string(i));
      const bool ok = circuits::verify_porep(pvk, c1s[i], proofs);
      verified += ok;
      // a proof checked against another C1 must fail (a run of one proof
      // has no other C1, and says so)
      if (opt.proofs < 2) {
        std::printf("proof %zu: %zu bytes, latency %.1f s, verifies: %s, against another C1: not checked (one proof)\n",
                    i, r.proof.size(), latency[i], ok ? "yes" : "NO");
        continue;
      }
      const std::size_t other = (i + 1) % opt.proofs;
      const bool cross = circuits::verify_porep(pvk, c1s[other], proofs);
      std::printf("proof %zu: %zu bytes, latency %.1f s, verifies: %s, against C1 %zu: %s\n", i, r.proof.size(),
                  latency[i], ok ? "yes" : "NO", other, cross ? "VERIFIES (bad)" : "rejected");
      if (cross) verified -= ok;
    }

    // 8. summary from the timeline
    std::vector<double> gpu_ms, synth_ms, fin_ms, h2d_gb;
    for (const std::string& l : timeline) {
      if (l.find(",GPU_END,") != std::string::npos) {
        if (auto v = field(l, "gpu_ms")) gpu_ms.push_back(*v);
        if (auto v = field(l, "h2d_bytes")) h2d_gb.push_back(*v / 1e9);
      } else if (l.find(",SYNTH_END,") != std::string::npos) {
        if (auto v = field(l, "synth_ms")) synth_ms.push_back(*v);
      } else if (l.find(",FINALIZE,") != std::string::npos) {
        if (auto v = field(l, "finalize_ms")) fin_ms.push_back(*v);
      }
    }
    const percentiles g = summarize(gpu_ms), sy = summarize(synth_ms), fi = summarize(fin_ms), la = summarize(latency),
                      hd = summarize(h2d_gb);
    std::ostringstream sum;
    sum << "batch " << label << ": sector_size " << opt.sector_size << ", devices " << subset.size() << ", proofs "
        << opt.proofs << ", concurrency " << opt.concurrency << ", gpu_workers/device " << opt.gpu_workers
        << ", max_batch_size " << max_batch << "\n"
        << "s/proof (batch wall / proofs): " << batch_s / double(opt.proofs) << " (batch " << batch_s << " s)\n"
        << "latency s: p50 " << la.p50 << " min " << la.min << " max " << la.max << "\n"
        << "GPU ms per partition (" << g.n << "): p50 " << g.p50 << " p99 " << g.p99 << " max " << g.max << " min "
        << g.min << "\n"
        << "synthesis ms per partition (" << sy.n << "): p50 " << sy.p50 << " p99 " << sy.p99 << " max " << sy.max
        << "\n"
        << "finalize ms per partition (" << fi.n << "): p50 " << fi.p50 << " max " << fi.max << "\n"
        << "host-to-device GB per partition (" << hd.n << "): p50 " << hd.p50 << " max " << hd.max << "\n"
        << "proofs verified: " << verified << " / " << opt.proofs << "\n"
        << "peak RSS: " << peak_rss_gib() << " GiB\n"
        << "setup: shape " << shape_s << " s, gpu params " << setup_s << " s; whole run " << secs_since(t_start)
        << " s\n";
    std::printf("%s", sum.str().c_str());
    std::ofstream(opt.out / ("summary-" + label + ".txt")) << sum.str();
    std::ofstream tl(opt.out / ("timeline-" + label + ".csv"));
    for (const std::string& l : timeline) tl << l << "\n";
    std::fflush(stdout);
    return verified == opt.proofs;
  };
  bool all_ok = true;
  std::vector<std::uint64_t> limits = opt.vram_limits;
  if (limits.empty()) limits.push_back(0);  // the device-resident parameters
  std::vector<std::string> variants = opt.variants;
  if (variants.empty()) variants.emplace_back();
  for (const std::string& variant : variants)
    for (const std::uint64_t limit : limits) {
      std::string suffix = limit ? "-v" + std::to_string(limit >> 30) : "";
      if (!variant.empty()) {
        const std::size_t eq = variant.find('=');
        setenv(variant.substr(0, eq).c_str(), variant.substr(eq + 1).c_str(), 1);
        std::printf("==== --variant %s\n", variant.c_str());
        std::string tag = variant;
        for (char& ch : tag)
          if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        suffix += "-" + tag;
      }
      vram_limit = limit;
      if (limit) std::printf("==== --vram-limit %.1f GiB\n", double(limit) / double(1ull << 30));
      try {
        warm_up();
      } catch (const std::exception& e) {  // e.g. too little VRAM: said, and the next limit
        std::printf("warm-up failed: %s\n", e.what());
        std::fflush(stdout);
        all_ok = false;
        continue;
      }
      for (std::size_t b = 0; b < opt.batches.size(); ++b) {
        std::vector<int> subset;
        for (int d : opt.batches[b])
          if (std::find(devices.begin(), devices.end(), d) == devices.end())
            throw std::runtime_error("batch device " + std::to_string(d) + " has no parameters (not in --devices)");
          else subset.push_back(d);
        for (const std::size_t max_batch : opt.max_batch_sizes) {
          std::string label = std::to_string(subset.size()) + "gpu" + suffix;
          if (opt.max_batch_sizes.size() > 1 || max_batch > 1) label += "-b" + std::to_string(max_batch);
          all_ok = run_batch(label, subset, max_batch) && all_ok;
        }
      }
    }
  return all_ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "cuzk-porep-scale: %s\n", e.what());
  return 2;
}
