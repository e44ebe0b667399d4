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
// spmv: a = A·w, b = B·w (r1cs::gpu_shape::evaluate_ab, the prover's call) on
// the real PoRep partition shape of each --spmv-sector size (default 2KiB
// and 32GiB; building the 32 GiB shape takes ~85 s and ~9 GiB of host
// memory), random w: the row-length histogram, a GPU == CPU check, then the
// default classification, a sweep of gpu_spmv_config values and a
// thread-per-row baseline (the kernel this one replaced), each timed with
// events after warm-up. Neither spmv nor upload is in the default set.
// upload: the coded witness path of the prover (coded_witness.hpp,
// witness_upload_gpu.hpp) on --upload-values values (default 130170221, the
// 32 GiB PoRep partition's inputs + aux) with the PoRep mix (51% zero, 47.7%
// one, 1.3% other, random positions): host encode time (all threads) and the
// upload + expansion on the device (wall clock to a stream sync, as the
// prover's upload_ms), the device copy checked against the original once;
// then the uncoded upload of the same witness (the baseline).
// overlap: whether two partitions' phases can share one GPU: a G1 MSM of
// 2^--lg-max terms (default 27, the 32 GiB H MSM) on one stream and the
// six-transform H of the same size on another, each alone, then both at
// once from two host threads (wall clock until both are done), with both
// streams at default priority and with the MSM's stream at the device's
// highest; prints concurrent / (msm + h).
// Usage: cuzk_gpu_bench [prim] [ntt] [msm] [prove] [spmv] [upload] [overlap] [--lg-min N] [--lg-max N]
//                       [--reps N] [--no-g2] [--lg-max-g2 N] [--prove-lg N] [--spmv-sector S]...
//                       [--upload-values N] [--affine K]... [--variant "NAME=V ..."]... [--json]
// Inputs are uniformly random (never zeros), generated once per size on the
// host; an NTT is applied in place repeatedly (values stay random).
// A correctness spot check runs first (intt(ntt(x)) == x for the NTT at each
// size; the MSM against the CPU MSM over the first min(n, 2^20) terms at the
// first size), so a timing is never of a wrong kernel.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/porep_compound.hpp>
#include <cuzk/ec/batch_normalize.hpp>
#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/gpu/device.cuh>
#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/groth16/prover_gpu.hpp>
#include <cuzk/groth16/witness_upload_gpu.hpp>
#include <cuzk/io/porep_c1.hpp>
#include <cuzk/msm/msm.hpp>
#include <cuzk/msm/msm_gpu.hpp>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/ntt/ntt.hpp>
#include <cuzk/ntt/ntt_gpu.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/spmv_gpu.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include <thread>

#include <tbb/parallel_for.h>

#include "gpu_prim_bench.cuh"

namespace {

using cuzk::ff::fr;
namespace gpu = cuzk::gpu;
namespace ntt = cuzk::ntt;

struct options {
  bool run_ntt = false, run_msm = false, run_prove = false, run_prim = false, run_spmv = false, run_upload = false,
       run_overlap = false, run_g2 = true, json = false;
  std::size_t upload_values = 130170221;  // 32 GiB PoRep: 328 inputs + 130169893 aux
  std::vector<std::string> spmv_sectors;
  int lg_min = -1, lg_max = -1, reps = 10, lg_max_g2 = 24;
  std::vector<int> prove_lgs{20, 24};
  std::vector<int> sweep_lgs;  // sizes at which to time every window width
  // --variant "NAME=VALUE ...": G1 also timed with these environment
  // settings (CUZK_MSM_AFFINE, _WINDOW, _BATCH_MB, _PAIR_MB, ...: the
  // tuning knobs of src/cuda/msm/msm.cu), each checked against the CPU first;
  // --affine K is --variant CUZK_MSM_AFFINE=K
  std::vector<std::string> variants;
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

void report(const options& o, const char* what, unsigned lg, const stats& s, int reps);

/// report() for a case named by a string rather than a size.
void report_named(const options& o, const std::string& what, const stats& s, int reps) {
  std::printf("%-40s median %9.3f ms  min %9.3f  max %9.3f  (%d reps)\n", what.c_str(), s.median, s.min, s.max, reps);
  if (o.json)
    std::printf(
        "{\"bench\":\"%s\",\"median_ms\":%.4f,\"min_ms\":%.4f,\"max_ms\":%.4f,"
        "\"reps\":%d}\n",
        what.c_str(), s.median, s.min, s.max, reps);
  std::fflush(stdout);
}

void report(const options& o, const char* what, unsigned lg, const stats& s, int reps) {
  std::printf("%-12s 2^%-2u  median %9.3f ms  min %9.3f  max %9.3f  (%d reps)\n", what, lg, s.median, s.min, s.max,
              reps);
  if (o.json)
    std::printf(
        "{\"bench\":\"%s\",\"lg\":%u,\"median_ms\":%.4f,\"min_ms\":%.4f,\"max_ms\":%.4f,"
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
    report(o, "coset_ntt", lg, time_it([&] { ntt::coset_ntt_gpu(dom, pa, cfg); }, s, o.reps), o.reps);
    report(o, "coset_intt", lg, time_it([&] { ntt::coset_intt_gpu(dom, pa, cfg); }, s, o.reps), o.reps);
    report(o, "dif_nr", lg, time_it([&] { ntt::dif_nr_gpu(dom, pa, false, cfg); }, s, o.reps),
           o.reps);  // natural -> bit-reversed, no reversal pass
    report(o, "dit_rn", lg, time_it([&] { ntt::dit_rn_gpu(dom, pa, false, cfg); }, s, o.reps),
           o.reps);  // bit-reversed -> natural
    report(o, "compute_h", lg, time_it([&] { ntt::compute_h_gpu(dom, pa, pb, pc, cfg); }, s, o.reps), o.reps);
    // the prover's H: six transforms from a and b (values random, so this
    // times the work, not a true quotient)
    report(o, "h_six", lg, time_it([&] { ntt::compute_h_from_ab_gpu(dom, pa, pb, pc, cfg); }, s, o.reps), o.reps);
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

/// Sets each NAME=VALUE word of |words| in the environment; returns the names.
std::vector<std::string> set_env_words(const std::string& words) {
  std::vector<std::string> names;
  std::size_t i = 0;
  while (i < words.size()) {
    const std::size_t end = std::min(words.find(' ', i), words.size());
    const std::string w = words.substr(i, end - i);
    const std::size_t eq = w.find('=');
    if (eq != std::string::npos && eq > 0) {
      names.push_back(w.substr(0, eq));
      setenv(names.back().c_str(), w.c_str() + eq + 1, 1);
    }
    i = end + 1;
  }
  return names;
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
        report(o, nm.c_str(), unsigned(lg), time_it([&] { (void)ctx.run_device(d_scalars.data(), n, 0, c); }, s, 3, 1),
               3);
      }
    }
    if constexpr (std::is_same_v<F, cuzk::ff::fp>) {
      // each variant's result at every size against the default's (which
      // the CPU checked above at the first size)
      const auto want = o.variants.empty() ? cuzk::ec::jacobian<F>::identity() : ctx.run_device(d_scalars.data(), n);
      for (const std::string& v : o.variants) {
        const std::vector<std::string> names = set_env_words(v);
        const bool ok = ctx.run_device(d_scalars.data(), n) == want;
        if (ok) {
          const std::string nm = std::string(name) + "_dev[" + v + "]";
          report(o, nm.c_str(), unsigned(lg), time_it([&] { (void)ctx.run_device(d_scalars.data(), n); }, s, o.reps),
                 o.reps);
        }
        for (const std::string& e : names) unsetenv(e.c_str());
        if (!ok) {
          std::printf("%s 2^%d [%s]: differs from the default settings\n", name, lg, v.c_str());
          return;
        }
      }
    }
    const std::string dev = std::string(name) + "_dev", host = std::string(name) + "_host";
    report(o, dev.c_str(), unsigned(lg), time_it([&] { (void)ctx.run_device(d_scalars.data(), n); }, s, o.reps),
           o.reps);
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
  bench_msm_group<cuzk::ff::fp>(o, "msm_g1", o.lg_min >= 0 ? o.lg_min : 20, o.lg_max >= 0 ? o.lg_max : 26, 1);
  if (o.run_g2) bench_msm_group<cuzk::ff::fp2>(o, "msm_g2", 20, o.lg_max_g2, 2);
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
    auto cs = cuzk::r1cs::make_witness(cuzk::r1cs::examples::chain_circuit{steps, fr::from_uint(3)}, shape->num_inputs,
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
    std::printf(
        "prove 2^%d: %zu constraints, %zu aux; shape %.0f ms, witness %.0f ms, stand-in "
        "params %.0f ms, prover construction (upload) %.0f ms, resident %d, device %.2f GiB\n",
        lg, shape->num_constraints, shape->num_aux, shape_ms, witness_ms, params_ms, upload_ms,
        int(prover.queries_resident()), double(prover.device_bytes()) / double(1ull << 30));
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
    std::printf(
        "  stages (one run): encode (host, before the lock) %.1f, upload %.1f (%s, %.1f MB), "
        "spmv %.1f, ntt/h %.1f, H %.1f, L %.1f, A %.1f, B1 %.1f, B2 %.1f ms\n",
        t.encode_ms, t.upload_ms, t.witness_coded ? "coded" : "as is", double(t.upload_bytes) / 1e6, t.spmv_ms,
        t.ntt_ms, t.msm_h_ms, t.msm_l_ms, t.msm_a_ms, t.msm_b1_ms, t.msm_b2_ms);
  }
}

/// The SpMV kernel gpu_shape used before its row classification (one thread
/// per row and matrix walking its CSR row), kept here as the baseline the
/// spmv mode times the current one against.
__global__ void spmv_baseline_kernel(const std::uint64_t* const* row_ptr, const std::uint32_t* const* cols,
                                     const std::uint32_t* const* ids, gpu::fr_d* const* out,
                                     const gpu::fr_d* __restrict__ w, const gpu::fr_d* __restrict__ coeffs,
                                     std::uint64_t rows) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const unsigned m = blockIdx.y;
  gpu::fr_d acc = gpu::fr_d::zero();
  for (std::uint64_t k = row_ptr[m][i]; k < row_ptr[m][i + 1]; ++k) {
    const gpu::fr_d x = w[cols[m][k]];
    const std::uint32_t id = ids[m][k];
    if (id == cuzk::r1cs::r1cs_shape::coeff_one) acc += x;
    else if (id == cuzk::r1cs::r1cs_shape::coeff_minus_one) acc -= x;
    else acc += x * coeffs[id];
  }
  out[m][i] = acc;
}

/// Row-length histogram of one matrix (tuning data for gpu_spmv_config).
void print_row_lengths(const char* name, const cuzk::r1cs::csr_matrix& m) {
  const std::uint64_t edges[] = {0, 1, 2, 3, 4, 8, 16, 64, 512, 4096, 65536};
  std::vector<std::uint64_t> count(std::size(edges) + 1, 0);
  std::uint64_t longest = 0;
  for (std::size_t i = 0; i < m.rows(); ++i) {
    const std::uint64_t len = m.row_ptr[i + 1] - m.row_ptr[i];
    longest = std::max(longest, len);
    std::size_t b = 0;
    while (b < std::size(edges) && len > edges[b]) ++b;
    ++count[b];
  }
  std::printf("  %s: %zu rows, %zu non-zeros, longest row %llu; rows by length:", name, m.rows(), m.nnz(),
              static_cast<unsigned long long>(longest));
  for (std::size_t b = 0; b < count.size(); ++b) {
    if (!count[b]) continue;
    if (b == 0) std::printf(" 0:%llu", static_cast<unsigned long long>(count[b]));
    else if (b == std::size(edges))
      std::printf(" >%llu:%llu", static_cast<unsigned long long>(edges[b - 1]),
                  static_cast<unsigned long long>(count[b]));
    else
      std::printf(" %llu-%llu:%llu", static_cast<unsigned long long>(edges[b - 1] + 1),
                  static_cast<unsigned long long>(edges[b]), static_cast<unsigned long long>(count[b]));
  }
  std::printf("\n");
}

void bench_spmv(const options& o) {
  namespace r1cs = cuzk::r1cs;
  const std::vector<std::string> sectors =
      o.spmv_sectors.empty() ? std::vector<std::string>{"2KiB", "32GiB"} : o.spmv_sectors;
  for (const std::string& sector : sectors) {
    const auto size = cuzk::circuits::parse_sector_size(sector);
    const cuzk::io::seal_proof_info* info = size ? cuzk::io::find_seal_proof_by_size(*size) : nullptr;
    if (!info) {
      std::printf("spmv: no PoRep of sector size %s\n", sector.c_str());
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    const r1cs::r1cs_shape shape = cuzk::circuits::porep_shape(*info);
    std::printf("spmv %s: shape built in %.1f s: %zu constraints, %zu variables, %zu coefficients\n", sector.c_str(),
                ms_since(t0) / 1e3, shape.num_constraints, shape.num_variables(), shape.coeffs.size());
    print_row_lengths("A", shape.a);
    print_row_lengths("B", shape.b);
    const std::size_t rows = shape.num_constraints, vars = shape.num_variables();
    std::mt19937_64 rng(3);
    std::vector<fr> w = random_fr(vars, rng);
    w[0] = fr::one();
    t0 = std::chrono::steady_clock::now();
    const auto want = r1cs::evaluate_abc(shape, w);
    std::printf("  CPU evaluate_abc (A, B and C, all cores): %.1f ms\n", ms_since(t0));
    gpu::stream s;
    gpu::device_buffer<fr> d_w(vars), d_a(rows), d_b(rows);
    d_w.upload(w.data(), vars, s);
    s.synchronize();
    const std::string tag = "spmv_" + sector;
    bool all_ok = true;
    const auto check = [&](const std::string& what) {
      std::vector<fr> a(rows), b(rows);
      d_a.download(a.data(), rows, s);
      d_b.download(b.data(), rows, s);
      s.synchronize();
      const bool ok = a == want.a && b == want.b;
      all_ok = all_ok && ok;
      std::printf("  %s: GPU a, b %s the CPU's\n", what.c_str(), ok ? "==" : "!= (FAIL)");
      return ok;
    };
    const r1cs::gpu_spmv_config defaults{};
    std::vector<r1cs::gpu_spmv_config> cfgs{defaults};
    for (const r1cs::gpu_spmv_config c :
         {r1cs::gpu_spmv_config{2, 512}, {4, 512}, {16, 512}, {32, 512}, {8, 128}, {8, 256}, {8, 2048}, {4, 256}})
      cfgs.push_back(c);
    for (std::size_t ci = 0; ci < cfgs.size(); ++ci) {
      const auto& c = cfgs[ci];
      t0 = std::chrono::steady_clock::now();
      const r1cs::gpu_shape gs(shape, 0, /*with_c=*/false, c);
      const double up = ms_since(t0);
      const std::string what = tag + "_s" + std::to_string(c.short_row_max) + "_c" + std::to_string(c.warp_chunk) +
                               (ci == 0 ? "_default" : "");
      std::printf("  %s: upload + plan %.0f ms, %.3f GiB on the device (planned %.3f)\n", what.c_str(), up,
                  double(gs.device_bytes()) / double(1ull << 30),
                  double(r1cs::gpu_shape_bytes(shape, false, c)) / double(1ull << 30));
      CUZK_CUDA_CHECK(cudaMemsetAsync(d_a.data(), 0, rows * sizeof(fr), s));
      CUZK_CUDA_CHECK(cudaMemsetAsync(d_b.data(), 0, rows * sizeof(fr), s));
      gs.evaluate_ab(d_w.data(), d_a.data(), d_b.data(), s.get());
      if (!check(what)) continue;
      report_named(
          o, what,
          time_it([&] { gs.evaluate_ab(d_w.data(), d_a.data(), d_b.data(), s.get()); }, s, std::max(o.reps, 5), 3),
          std::max(o.reps, 5));
    }
    {  // the thread-per-row baseline on its own copy of A and B
      gpu::device_buffer<std::uint64_t> rp[2] = {gpu::device_buffer<std::uint64_t>(rows + 1),
                                                 gpu::device_buffer<std::uint64_t>(rows + 1)};
      gpu::device_buffer<std::uint32_t> cl[2] = {gpu::device_buffer<std::uint32_t>(shape.a.nnz()),
                                                 gpu::device_buffer<std::uint32_t>(shape.b.nnz())};
      gpu::device_buffer<std::uint32_t> id[2] = {gpu::device_buffer<std::uint32_t>(shape.a.nnz()),
                                                 gpu::device_buffer<std::uint32_t>(shape.b.nnz())};
      const r1cs::csr_matrix* ms[2] = {&shape.a, &shape.b};
      for (int k = 0; k < 2; ++k) {
        rp[k].upload(ms[k]->row_ptr.data(), rows + 1, s);
        cl[k].upload(ms[k]->cols.data(), ms[k]->nnz(), s);
        id[k].upload(ms[k]->coeff_ids.data(), ms[k]->nnz(), s);
      }
      gpu::device_buffer<fr> d_coeffs(shape.coeffs.size());
      d_coeffs.upload(shape.coeffs.data(), shape.coeffs.size(), s);
      const std::uint64_t* h_rp[2] = {rp[0].data(), rp[1].data()};
      const std::uint32_t* h_cl[2] = {cl[0].data(), cl[1].data()};
      const std::uint32_t* h_id[2] = {id[0].data(), id[1].data()};
      gpu::fr_d* h_out[2] = {reinterpret_cast<gpu::fr_d*>(d_a.data()), reinterpret_cast<gpu::fr_d*>(d_b.data())};
      gpu::device_buffer<const std::uint64_t*> d_rp(2);
      gpu::device_buffer<const std::uint32_t*> d_cl(2), d_id(2);
      gpu::device_buffer<gpu::fr_d*> d_out(2);
      d_rp.upload(h_rp, 2, s);
      d_cl.upload(h_cl, 2, s);
      d_id.upload(h_id, 2, s);
      d_out.upload(h_out, 2, s);
      const auto run = [&] {
        spmv_baseline_kernel<<<dim3(unsigned((rows + 127) / 128), 2), 128, 0, s>>>(
            d_rp.data(), d_cl.data(), d_id.data(), d_out.data(), reinterpret_cast<const gpu::fr_d*>(d_w.data()),
            reinterpret_cast<const gpu::fr_d*>(d_coeffs.data()), rows);
        CUZK_CUDA_CHECK_LAUNCH();
      };
      CUZK_CUDA_CHECK(cudaMemsetAsync(d_a.data(), 0, rows * sizeof(fr), s));
      CUZK_CUDA_CHECK(cudaMemsetAsync(d_b.data(), 0, rows * sizeof(fr), s));
      run();
      if (check(tag + "_baseline_thread_per_row"))
        report_named(o, tag + "_baseline_thread_per_row", time_it(run, s, std::max(o.reps, 5), 3), std::max(o.reps, 5));
    }
    std::printf("spmv %s: %s\n", sector.c_str(),
                all_ok ? "PASS (every GPU result equals the CPU's)" : "FAIL (a GPU result differs from the CPU's)");
  }
}

void bench_upload(const options& o) {
  namespace groth16 = cuzk::groth16;
  const std::size_t n = o.upload_values;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<fr> w(n);
  constexpr std::size_t block = std::size_t(1) << 16;
  tbb::parallel_for(std::size_t(0), (n + block - 1) / block, [&](std::size_t b) {
    std::mt19937_64 rng(b * 7919 + 1);
    for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) {
      const std::uint64_t r = rng() % 1000;
      w[i] = r < 510 ? fr::zero() : r < 987 ? fr::one() : fr::random(rng);
    }
  });
  w[0] = fr::one();
  std::printf("upload: %zu values (%.2f GB raw) made in %.0f ms\n", n, double(n) * 32 / 1e9, ms_since(t0));
  const std::size_t ni = std::min<std::size_t>(328, n);
  const std::span<const fr> inputs(w.data(), ni), aux(w.data() + ni, n - ni);
  groth16::gpu_witness_uploader up(0, n);
  gpu::stream s;
  gpu::device_buffer<fr> d_w(n);
  std::vector<double> enc, upl;
  gpu::device_buffer<fr> d_others;
  const int reps = std::max(o.reps, 5);
  for (int i = 0; i < 1 + reps; ++i) {
    t0 = std::chrono::steady_clock::now();
    const groth16::coded_witness cw = groth16::encode_witness(inputs, aux);
    const double e = ms_since(t0);
    if (d_others.size() < cw.others.size()) d_others = gpu::device_buffer<fr>(cw.others.size());
    t0 = std::chrono::steady_clock::now();
    up.upload(cw, d_w.data(), d_others.data(), s.get());
    s.synchronize();
    const double u = ms_since(t0);
    if (i == 0) {
      std::printf("upload: coded form %.1f MB (codes %.1f, counts %.1f, %zu other values %.1f)\n",
                  double(cw.bytes()) / 1e6, double(cw.codes.size()) * 8 / 1e6, double(cw.group_others.size()) * 4 / 1e6,
                  cw.others.size(), double(cw.others.size()) * 32 / 1e6);
      std::vector<fr> back(n);
      d_w.download(back.data(), n, s);
      s.synchronize();
      std::printf("upload: device copy %s the original\n", back == w ? "== (PASS)" : "!= (FAIL)");
      continue;  // warm-up (pinned staging made on first use)
    }
    enc.push_back(e);
    upl.push_back(u);
  }
  report_named(o, "upload_encode_host", summarize(enc), reps);
  report_named(o, "upload_coded_copy_and_expand", summarize(upl), reps);
  // the baseline: the same witness as 32-byte values through the same staging
  std::vector<double> raw;
  for (int i = 0; i < 1 + reps; ++i) {
    t0 = std::chrono::steady_clock::now();
    up.upload_raw(inputs, aux, d_w.data(), s.get());
    s.synchronize();
    if (i >= 1) raw.push_back(ms_since(t0));
  }
  report_named(o, "upload_raw_baseline", summarize(raw), reps);
}

/// A non-blocking stream at the device's greatest priority (RAII).
struct priority_stream {
  cudaStream_t s = nullptr;
  priority_stream() {
    int least = 0, greatest = 0;
    CUZK_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUZK_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
  }
  ~priority_stream() { (void)cudaStreamDestroy(s); }
  priority_stream(const priority_stream&) = delete;
  priority_stream& operator=(const priority_stream&) = delete;
};

void bench_overlap(const options& o) {
  const int lg = o.lg_max >= 0 ? o.lg_max : 27;
  const std::size_t n = std::size_t(1) << lg;
  std::mt19937_64 rng(5);
  auto t0 = std::chrono::steady_clock::now();
  const auto points = make_points<cuzk::ff::fp>(n, 9);
  const auto scalars = random_fr(n, rng);
  std::printf("overlap 2^%d: inputs made in %.0f ms\n", lg, ms_since(t0));
  gpu::stream s_ntt, s_msm;
  priority_stream s_hi;
  const auto dom = ntt::evaluation_domain::from_lg(unsigned(lg));
  gpu::device_buffer<fr> d_a(n), d_b(n), d_c(n), d_k(n);
  d_a.upload(scalars.data(), n, s_ntt);
  d_b.upload(scalars.data(), n, s_ntt);
  d_k.upload(scalars.data(), n, s_ntt);
  const ntt::gpu_config ncfg{0, s_ntt.get()};
  ntt::gpu_prepare(unsigned(lg), ncfg);
  s_ntt.synchronize();
  const auto h_once = [&] {
    ntt::compute_h_from_ab_gpu(dom, ntt::device_ptr{d_a.data()}, ntt::device_ptr{d_b.data()},
                               ntt::device_ptr{d_c.data()}, ncfg);
    s_ntt.synchronize();
  };
  const int reps = std::max(o.reps, 5);
  for (const bool high : {false, true}) {
    cuzk::msm::gpu_msm_context ctx(0, high ? s_hi.s : s_msm.get());
    ctx.upload_bases(std::span<const cuzk::ec::g1_affine>(points));
    const auto msm_once = [&] { (void)ctx.run_device(d_k.data(), n); };
    msm_once();  // warm-up: scratch grows here
    h_once();
    std::vector<double> t_msm, t_h, t_both;
    for (int i = 0; i < reps; ++i) {
      t0 = std::chrono::steady_clock::now();
      msm_once();
      t_msm.push_back(ms_since(t0));
      t0 = std::chrono::steady_clock::now();
      h_once();
      t_h.push_back(ms_since(t0));
      t0 = std::chrono::steady_clock::now();
      std::thread th(h_once);
      msm_once();
      th.join();
      t_both.push_back(ms_since(t0));
    }
    const stats m = summarize(t_msm), h = summarize(t_h), b = summarize(t_both);
    const std::string tag = std::string("overlap_") + (high ? "msm_high_" : "");
    report(o, (tag + "msm").c_str(), unsigned(lg), m, reps);
    report(o, (tag + "h_six").c_str(), unsigned(lg), h, reps);
    report(o, (tag + "both").c_str(), unsigned(lg), b, reps);
    std::printf(
        "overlap 2^%d%s: both at once %.1f ms against %.1f one after the other (%.3f); "
        "saved %.1f of the H's %.1f ms\n",
        lg, high ? " (MSM stream at high priority)" : "", b.median, m.median + h.median,
        b.median / (m.median + h.median), m.median + h.median - b.median, h.median);
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
    else if (a == "spmv") o.run_spmv = true;
    else if (a == "upload") o.run_upload = true;
    else if (a == "overlap") o.run_overlap = true;
    else if (a == "--upload-values" && i + 1 < argc) o.upload_values = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--spmv-sector" && i + 1 < argc) o.spmv_sectors.push_back(argv[++i]);
    else if (a == "--no-g2") o.run_g2 = false;
    else if (a == "--lg-max-g2" && i + 1 < argc) o.lg_max_g2 = std::atoi(argv[++i]);
    else if (a == "--prove-lg" && i + 1 < argc) o.prove_lgs = {std::atoi(argv[++i])};
    else if (a == "--sweep-window" && i + 1 < argc) o.sweep_lgs.push_back(std::atoi(argv[++i]));
    else if (a == "--json") o.json = true;
    else if (a == "--affine" && i + 1 < argc) o.variants.push_back(std::string("CUZK_MSM_AFFINE=") + argv[++i]);
    else if (a == "--variant" && i + 1 < argc) o.variants.push_back(argv[++i]);
    else if (a == "--lg-min" && i + 1 < argc) o.lg_min = std::atoi(argv[++i]);
    else if (a == "--lg-max" && i + 1 < argc) o.lg_max = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) o.reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(
          stderr,
          "usage: %s [prim] [ntt] [msm] [prove] [spmv] [overlap] [--lg-min N] [--lg-max N] [--reps N]\n"
          "          [--no-g2] [--lg-max-g2 N] [--prove-lg N] [--sweep-window LG]... [--affine K]... [--variant \"NAME=V ...\"]...\n"
          "          [--spmv-sector 2KiB|8MiB|512MiB|32GiB|64GiB]... [upload] [--upload-values N]\n"
          "          [--json]\n",
          argv[0]);
      return 2;
    }
  }
  if (!o.run_ntt && !o.run_msm && !o.run_prove && !o.run_prim && !o.run_spmv && !o.run_upload && !o.run_overlap)
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
    if (o.run_spmv) bench_spmv(o);
    if (o.run_upload) bench_upload(o);
    if (o.run_overlap) bench_overlap(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
