// SPDX-License-Identifier: Apache-2.0
// GPU benchmark: NTT (ntt, intt, coset_ntt, coset_intt, dif_nr, dit_rn,
// compute_h (seven transforms), h_six (six, no c)) at
// 2^24..2^27 on device-resident data; G1 MSM at 2^20..2^26 and G2 MSM at
// 2^20, 2^22, 2^24 (bases resident; scalars resident, timed with CUDA events
// around each call, and scalars from the host, wall clock of the call);
// whole GPU proofs of chain_circuit at 2^20 and 2^24 constraints (wall time
// of prove_start + finalize). Prints median / min / max over the repeats
// after warm-up, one line per case, and a JSON line per case with --json.
//
// prim: field and point arithmetic rates (gpu_prim_bench.cuh).
// Usage: cuzk_gpu_bench [prim] [ntt] [msm] [prove] [--lg-min N] [--lg-max N] [--reps N]
//                       [--no-g2] [--lg-max-g2 N] [--prove-lg N] [--json]
// Inputs are uniformly random (never zeros), generated once per size on the
// host; an NTT is applied in place repeatedly (values stay random).
// A correctness spot check runs first (intt(ntt(x)) == x for the NTT at each
// size; the MSM against the CPU MSM over the first min(n, 2^20) terms at the
// first size), so a timing is never of a wrong kernel.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cuzk/ec/batch_normalize.hpp>
#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/gpu/device.cuh>
#include <cuzk/groth16/gpu_prover.hpp>
#include <cuzk/msm/msm.hpp>
#include <cuzk/msm/msm_gpu.hpp>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/ntt/ntt.hpp>
#include <cuzk/ntt/ntt_gpu.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include <tbb/parallel_for.h>

#include "gpu_prim_bench.cuh"

namespace {

using cuzk::ff::fr;
namespace gpu = cuzk::gpu;
namespace ntt = cuzk::ntt;

struct options {
  bool run_ntt = false, run_msm = false, run_prove = false, run_prim = false, run_g2 = true,
       json = false;
  int lg_min = -1, lg_max = -1, reps = 10, lg_max_g2 = 24;
  std::vector<int> prove_lgs{20, 24};
  std::vector<int> sweep_lgs;  // sizes at which to time every window width
};

struct stats {
  double median, min, max;
};

stats summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return {med, v.front(), v.back()};
}

void report(const options& o, const char* what, unsigned lg, const stats& s, int reps) {
  std::printf("%-12s 2^%-2u  median %9.3f ms  min %9.3f  max %9.3f  (%d reps)\n", what, lg,
              s.median, s.min, s.max, reps);
  if (o.json)
    std::printf("{\"bench\":\"%s\",\"lg\":%u,\"median_ms\":%.4f,\"min_ms\":%.4f,\"max_ms\":%.4f,"
                "\"reps\":%d}\n",
                what, lg, s.median, s.min, s.max, reps);
  std::fflush(stdout);
}

/// Times |fn| (which enqueues work on |s|) with events: |warm| untimed runs,
/// then |reps| timed ones.
template <class Fn>
stats time_it(Fn&& fn, cudaStream_t s, int reps, int warm = 2) {
  for (int i = 0; i < warm; ++i) fn();
  CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
  gpu::event start, stop;
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    start.record(s);
    fn();
    stop.record(s);
    stop.synchronize();
    ms.push_back(stop.elapsed_ms_since(start));
  }
  return summarize(ms);
}

/// Uniform random elements (raw Montgomery words below 2^254 < r: every
/// such word string is a valid element), fast enough for 2^26.
std::vector<fr> random_fr(std::size_t n, std::mt19937_64& rng) {
  std::vector<fr> v(n);
  for (auto& x : v) {
    cuzk::ff::fr::limbs l;
    for (auto& w : l) w = rng();
    l[3] &= (std::uint64_t(1) << 62) - 1;
    x = fr::from_raw(l);
  }
  return v;
}

void bench_ntt(const options& o) {
  const int lg_min = o.lg_min >= 0 ? o.lg_min : 24, lg_max = o.lg_max >= 0 ? o.lg_max : 27;
  std::mt19937_64 rng(1);
  gpu::stream s;
  const ntt::gpu_config cfg{0, s.get()};
  for (int lg = lg_min; lg <= lg_max; ++lg) {
    const auto dom = ntt::evaluation_domain::from_lg(unsigned(lg));
    const std::size_t n = dom.size();
    const std::vector<fr> h = random_fr(n, rng);
    gpu::device_buffer<fr> d_a(n), d_b(n), d_c(n);
    d_a.upload(h.data(), n, s);
    d_b.upload(h.data(), n, s);
    d_c.upload(h.data(), n, s);
    ntt::gpu_prepare(unsigned(lg), cfg);
    // spot check: intt(ntt(x)) == x
    ntt::ntt_gpu(dom, ntt::device_ptr{d_a.data()}, cfg);
    ntt::intt_gpu(dom, ntt::device_ptr{d_a.data()}, cfg);
    std::vector<fr> back(n);
    d_a.download(back.data(), n, s);
    s.synchronize();
    if (back != h) {
      std::printf("NTT 2^%d: intt(ntt(x)) != x -- not timing a wrong kernel\n", lg);
      continue;
    }
    const ntt::device_ptr pa{d_a.data()}, pb{d_b.data()}, pc{d_c.data()};
    report(o, "ntt", lg, time_it([&] { ntt::ntt_gpu(dom, pa, cfg); }, s, o.reps), o.reps);
    report(o, "intt", lg, time_it([&] { ntt::intt_gpu(dom, pa, cfg); }, s, o.reps), o.reps);
    report(o, "coset_ntt", lg, time_it([&] { ntt::coset_ntt_gpu(dom, pa, cfg); }, s, o.reps),
           o.reps);
    report(o, "coset_intt", lg, time_it([&] { ntt::coset_intt_gpu(dom, pa, cfg); }, s, o.reps),
           o.reps);
    report(o, "dif_nr", lg, time_it([&] { ntt::dif_nr_gpu(dom, pa, false, cfg); }, s, o.reps),
           o.reps);  // natural -> bit-reversed, no reversal pass
    report(o, "dit_rn", lg, time_it([&] { ntt::dit_rn_gpu(dom, pa, false, cfg); }, s, o.reps),
           o.reps);  // bit-reversed -> natural
    report(o, "compute_h", lg,
           time_it([&] { ntt::compute_h_gpu(dom, pa, pb, pc, cfg); }, s, o.reps), o.reps);
    // the prover's H: six transforms from a and b (values random, so this
    // times the work, not a true quotient)
    report(o, "h_six", lg,
           time_it([&] { ntt::compute_h_from_ab_gpu(dom, pa, pb, pc, cfg); }, s, o.reps), o.reps);
    if (lg == 24) {  // the host flavour, transfers included (pageable memory)
      std::vector<fr> v = h;
      const auto t0 = std::chrono::steady_clock::now();
      ntt::ntt_gpu(dom, std::span<fr>(v), cfg);
      const auto t1 = std::chrono::steady_clock::now();
      std::printf("ntt (host span, with transfers) 2^24: %.3f ms\n",
                  std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
  }
}

/// n G1 or G2 points: blocks of 4096 consecutive multiples k*G, (k+1)*G, ...
/// from a random k per block, each block normalised in one batch; blocks
/// in parallel (cheap to make, spread over the group).
template <class F>
std::vector<cuzk::ec::affine<F>> make_points(std::size_t n, std::uint64_t seed) {
  using jac = cuzk::ec::jacobian<F>;
  using aff = cuzk::ec::affine<F>;
  std::vector<aff> out(n);
  constexpr std::size_t block = 4096;
  tbb::parallel_for(std::size_t(0), (n + block - 1) / block, [&](std::size_t b) {
    std::mt19937_64 rng(seed * 1000003 + b);
    const std::size_t lo = b * block, len = std::min(block, n - lo);
    std::vector<jac> j(len);
    jac acc = cuzk::ec::mul(jac::generator(), fr::random(rng));
    for (std::size_t i = 0; i < len; ++i) {
      j[i] = acc;
      acc = acc.add_affine(aff::generator());
    }
    cuzk::ec::batch_to_affine<F>(j, std::span<aff>(out.data() + lo, len));
  });
  return out;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// One group's MSM at 2^lg_min..2^lg_max (|step| apart): bases resident;
/// "dev" = scalars resident (CUDA events around the call, which ends with
/// the result on the host), "host" = scalars uploaded from pageable host
/// memory in the call (wall clock of the whole call).
template <class F>
void bench_msm_group(const options& o, const char* name, int lg_min, int lg_max, int step) {
  std::mt19937_64 rng(2);
  const std::size_t n_max = std::size_t(1) << lg_max;
  const auto t_gen = std::chrono::steady_clock::now();
  const auto points = make_points<F>(n_max, 7);
  const auto scalars = random_fr(n_max, rng);
  std::printf("%s: %zu points made in %.0f ms\n", name, n_max, ms_since(t_gen));
  gpu::stream s;
  cuzk::msm::gpu_msm_context_t<F> ctx(0, s.get());
  gpu::device_buffer<fr> d_scalars(n_max);
  d_scalars.upload(scalars.data(), n_max, s);
  s.synchronize();
  for (int lg = lg_min; lg <= lg_max; lg += step) {
    const std::size_t n = std::size_t(1) << lg;
    const std::span<const cuzk::ec::affine<F>> p(points.data(), n);
    const std::span<const fr> k(scalars.data(), n);
    ctx.upload_bases(p);
    if (lg == lg_min) {
      // the first 2^20 terms at most: a CPU MSM of 2^27 would take minutes
      const std::size_t nc = std::min<std::size_t>(n, std::size_t(1) << 20);
      const auto want = cuzk::msm::msm<F>(p.first(nc), k.first(nc));
      if (!(ctx.run(k.first(nc)) == want)) {
        std::printf("%s 2^%d: GPU != CPU -- not timing a wrong kernel\n", name, lg);
        return;
      }
    }
    if (std::find(o.sweep_lgs.begin(), o.sweep_lgs.end(), lg) != o.sweep_lgs.end()) {
      // window widths around the default, scalars resident (tuning data)
      for (unsigned c = 14; c <= 24; ++c) {
        const std::string nm = std::string(name) + "_c" + std::to_string(c);
        report(o, nm.c_str(), unsigned(lg),
               time_it([&] { (void)ctx.run_device(d_scalars.data(), n, 0, c); }, s, 3, 1), 3);
      }
    }
    const std::string dev = std::string(name) + "_dev", host = std::string(name) + "_host";
    report(o, dev.c_str(), unsigned(lg),
           time_it([&] { (void)ctx.run_device(d_scalars.data(), n); }, s, o.reps), o.reps);
    std::vector<double> ms;
    for (int i = 0; i < 1 + o.reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      (void)ctx.run(k);
      if (i >= 1) ms.push_back(ms_since(t0));
    }
    report(o, host.c_str(), unsigned(lg), summarize(ms), o.reps);
  }
}

void bench_msm(const options& o) {
  bench_msm_group<cuzk::ff::fp>(o, "msm_g1", o.lg_min >= 0 ? o.lg_min : 20,
                                o.lg_max >= 0 ? o.lg_max : 26, 1);
  if (o.run_g2)
    bench_msm_group<cuzk::ff::fp2>(o, "msm_g2", 20, o.lg_max_g2, 2);
}

/// Whole GPU proofs of chain_circuit at 2^lg constraints (lg in --prove-lg),
/// with stand-in queries (points from the pools above, not a trusted setup:
/// the timing does not depend on which points they are; correctness of the
/// proof is what tests/gpu/groth16_gpu_test.cu checks). Wall time of
/// prove() (prove_start + finalize), median over the repeats after one
/// warm-up, plus the stage split of prove_start.
void bench_prove(const options& o) {
  namespace groth16 = cuzk::groth16;
  for (const int lg : o.prove_lgs) {
    const std::size_t steps = ((std::size_t(1) << lg) - 5) / 2;
    auto t0 = std::chrono::steady_clock::now();
    auto shape = std::make_shared<const cuzk::r1cs::r1cs_shape>(
        cuzk::r1cs::make_shape(cuzk::r1cs::examples::chain_circuit{steps, std::nullopt}));
    const double shape_ms = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    auto cs = cuzk::r1cs::make_witness(
        cuzk::r1cs::examples::chain_circuit{steps, fr::from_uint(3)}, shape->num_inputs,
        shape->num_aux);
    groth16::witness w{{cs.inputs().begin(), cs.inputs().end()}, {cs.aux().begin(), cs.aux().end()}};
    const double witness_ms = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    const std::size_t m = ntt::evaluation_domain(shape->num_constraints).size();
    const std::size_t a_len = shape->num_inputs + shape->a_aux_density.count();
    const std::size_t b_len = shape->b_input_density.count() + shape->b_aux_density.count();
    const std::size_t g1_max = std::max({a_len, b_len, shape->num_aux, m - 1});
    const auto g1 = make_points<cuzk::ff::fp>(g1_max, 11);
    const auto g2 = make_points<cuzk::ff::fp2>(b_len, 12);
    auto params = std::make_shared<groth16::parameters>();
    params->vk.alpha_g1 = params->vk.beta_g1 = params->vk.delta_g1 = g1[0];
    params->vk.beta_g2 = params->vk.gamma_g2 = params->vk.delta_g2 = g2[0];
    params->vk.ic.assign(g1.begin(), g1.begin() + std::ptrdiff_t(shape->num_inputs));
    params->h.assign(g1.begin(), g1.begin() + std::ptrdiff_t(m - 1));
    params->l.assign(g1.begin(), g1.begin() + std::ptrdiff_t(shape->num_aux));
    params->a.assign(g1.begin(), g1.begin() + std::ptrdiff_t(a_len));
    params->b_g1.assign(g1.begin(), g1.begin() + std::ptrdiff_t(b_len));
    params->b_g2 = g2;
    const double params_ms = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    groth16::gpu_prover prover(params, shape, {.device = 0});
    const double upload_ms = ms_since(t0);
    std::printf("prove 2^%d: %zu constraints, %zu aux; shape %.0f ms, witness %.0f ms, stand-in "
                "params %.0f ms, prover construction (upload) %.0f ms, resident %d, device %.2f GiB\n",
                lg, shape->num_constraints, shape->num_aux, shape_ms, witness_ms, params_ms,
                upload_ms, int(prover.queries_resident()),
                double(prover.device_bytes()) / double(1ull << 30));
    std::vector<double> wall, start_ms;
    std::vector<groth16::gpu_prove_timings> tims;
    for (int i = 0; i < 1 + o.reps; ++i) {
      t0 = std::chrono::steady_clock::now();
      auto pending = prover.prove_start(w);
      const double ts = ms_since(t0);
      (void)prover.finalize(std::move(pending), fr::from_uint(5), fr::from_uint(7));
      if (i >= 1) {
        wall.push_back(ms_since(t0));
        start_ms.push_back(ts);
        tims.push_back(prover.last_timings());
      }
    }
    report(o, "prove_wall", unsigned(lg), summarize(wall), o.reps);
    report(o, "prove_start", unsigned(lg), summarize(start_ms), o.reps);
    const auto& t = tims[tims.size() / 2];
    std::printf("  stages (one run): upload %.1f, spmv %.1f, ntt/h %.1f, H %.1f, L %.1f, A %.1f, "
                "B1 %.1f, B2 %.1f ms\n",
                t.upload_ms, t.spmv_ms, t.ntt_ms, t.msm_h_ms, t.msm_l_ms, t.msm_a_ms, t.msm_b1_ms,
                t.msm_b2_ms);
  }
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "ntt") o.run_ntt = true;
    else if (a == "msm") o.run_msm = true;
    else if (a == "prove") o.run_prove = true;
    else if (a == "prim") o.run_prim = true;
    else if (a == "--no-g2") o.run_g2 = false;
    else if (a == "--lg-max-g2" && i + 1 < argc) o.lg_max_g2 = std::atoi(argv[++i]);
    else if (a == "--prove-lg" && i + 1 < argc) o.prove_lgs = {std::atoi(argv[++i])};
    else if (a == "--sweep-window" && i + 1 < argc) o.sweep_lgs.push_back(std::atoi(argv[++i]));
    else if (a == "--json") o.json = true;
    else if (a == "--lg-min" && i + 1 < argc) o.lg_min = std::atoi(argv[++i]);
    else if (a == "--lg-max" && i + 1 < argc) o.lg_max = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) o.reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [prim] [ntt] [msm] [prove] [--lg-min N] [--lg-max N] [--reps N] [--no-g2]\n"
                   "          [--lg-max-g2 N] [--prove-lg N] [--sweep-window LG]... [--json]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!o.run_ntt && !o.run_msm && !o.run_prove && !o.run_prim)
    o.run_prim = o.run_ntt = o.run_msm = o.run_prove = true;
  if (gpu::device_count() == 0) {
    std::printf("no CUDA device: nothing to benchmark\n");
    return 0;
  }
  std::printf("device: %s\n", gpu::device_description(0).c_str());
  try {
    if (o.run_prim) cuzk::bench_prim::run(std::max(o.reps, 5), o.json);
    if (o.run_ntt) bench_ntt(o);
    if (o.run_msm) bench_msm(o);
    if (o.run_prove) bench_prove(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
