// SPDX-License-Identifier: Apache-2.0
// GPU benchmark: NTT (ntt, intt, coset_ntt, coset_intt, compute_h) at
// 2^20..2^26 on device-resident data, and G1 MSM at 2^20..2^24 (bases and
// scalars resident), timed with CUDA events around each call after warm-up;
// prints median / min / max over the repeats, one line per case, and a JSON
// line per case when --json is given.
//
// Usage: cuzk_gpu_bench [ntt] [msm] [--lg-min N] [--lg-max N] [--reps N] [--json]
// Inputs are uniformly random (never zeros), generated once per size on the
// host; an NTT is applied in place repeatedly (values stay random).
// A correctness spot check runs first at each size (intt(ntt(x)) == x for the
// NTT; the MSM against the CPU MSM at 2^20), so a timing is never of a wrong
// kernel.
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
#include <cuzk/msm/msm.hpp>
#include <cuzk/msm/msm_gpu.hpp>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/ntt/ntt.hpp>
#include <cuzk/ntt/ntt_gpu.hpp>

namespace {

using cuzk::ff::fr;
namespace gpu = cuzk::gpu;
namespace ntt = cuzk::ntt;

struct options {
  bool run_ntt = false, run_msm = false, json = false;
  int lg_min = -1, lg_max = -1, reps = 10;
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
  const int lg_min = o.lg_min >= 0 ? o.lg_min : 20, lg_max = o.lg_max >= 0 ? o.lg_max : 26;
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
    report(o, "compute_h", lg,
           time_it([&] { ntt::compute_h_gpu(dom, pa, pb, pc, cfg); }, s, o.reps), o.reps);
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

/// n distinct-ish G1 points: multiples k*G for consecutive k from a random
/// start, normalised in one batch (cheap to make, uniformly spread).
std::vector<cuzk::ec::g1_affine> make_points(std::size_t n, std::mt19937_64& rng) {
  using cuzk::ec::g1_jacobian;
  std::vector<g1_jacobian> jac(n);
  const g1_jacobian g = g1_jacobian::generator();
  g1_jacobian acc = cuzk::ec::mul(g, fr::random(rng));
  for (std::size_t i = 0; i < n; ++i) {
    jac[i] = acc;
    acc = acc.add_affine(cuzk::ec::g1_affine::generator());
  }
  std::vector<cuzk::ec::g1_affine> out(n);
  cuzk::ec::batch_to_affine<cuzk::ff::fp>(jac, out);
  return out;
}

void bench_msm(const options& o) {
  const int lg_min = o.lg_min >= 0 ? o.lg_min : 20, lg_max = o.lg_max >= 0 ? o.lg_max : 24;
  std::mt19937_64 rng(2);
  const std::size_t n_max = std::size_t(1) << lg_max;
  const auto points = make_points(n_max, rng);
  const auto scalars = random_fr(n_max, rng);
  gpu::stream s;
  cuzk::msm::gpu_msm_context ctx(0);
  for (int lg = lg_min; lg <= lg_max; ++lg) {
    const std::size_t n = std::size_t(1) << lg;
    const std::span<const cuzk::ec::g1_affine> p(points.data(), n);
    const std::span<const fr> k(scalars.data(), n);
    ctx.upload_bases(p);
    if (lg == lg_min) {
      const auto want = cuzk::msm::msm<cuzk::ff::fp>(p, k);
      const auto got = ctx.run(k);
      if (!(got == want)) {
        std::printf("MSM 2^%d: GPU != CPU -- not timing a wrong kernel\n", lg);
        return;
      }
    }
    std::vector<double> ms;
    for (int i = 0; i < 2 + o.reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      (void)ctx.run(k);
      const auto t1 = std::chrono::steady_clock::now();
      if (i >= 2) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    report(o, "msm_g1", unsigned(lg), summarize(ms), o.reps);
  }
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "ntt") o.run_ntt = true;
    else if (a == "msm") o.run_msm = true;
    else if (a == "--json") o.json = true;
    else if (a == "--lg-min" && i + 1 < argc) o.lg_min = std::atoi(argv[++i]);
    else if (a == "--lg-max" && i + 1 < argc) o.lg_max = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) o.reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [ntt] [msm] [--lg-min N] [--lg-max N] [--reps N] [--json]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!o.run_ntt && !o.run_msm) o.run_ntt = o.run_msm = true;
  if (gpu::device_count() == 0) {
    std::printf("no CUDA device: nothing to benchmark\n");
    return 0;
  }
  std::printf("device: %s\n", gpu::device_description(0).c_str());
  try {
    if (o.run_ntt) bench_ntt(o);
    if (o.run_msm) bench_msm(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
