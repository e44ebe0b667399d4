// SPDX-License-Identifier: Apache-2.0
#pragma once
// `cuzk-gpu-bench prim`: throughput of the device arithmetic the MSM and NTT
// kernels are built from, beside the rates measured for sppark (commit
// 17278d7) on an H200 on 2026-12-01: Fp mul 27.0, Fp sqr 33.5, Fr mul 59.1
// G/s, G1 mixed (XYZZ += affine) addition 2.63 G/s.
//
// fp_mul_self / fr_mul_self (x * x through the multiplication) show what the
// dedicated squaring saves. fp_inv / fr_inv time the variable-time device inversion
// (ff/detail/cuda_inverse.cuh) and fp_inv_fermat its constant-time baseline
// a^(p-2); each is also printed as "inverse in multiplications" = the
// field's mul rate / the inversion rate, the figure the batch-affine MSM's
// choice of batch size K rests on.
// Method: every thread runs |iters| dependent steps on kChains independent
// values (so the scheduler has some instruction-level parallelism, as in a
// real kernel), over a grid of 16 blocks of 256 threads per SM; each case
// is timed with CUDA events, median / min / max over |reps| runs after one
// warm-up. Additions add affine points from a 64-entry table of random
// points (L1-resident) into an XYZZ accumulator with the complete mixed
// addition of ec/xyzz.hpp, the formula the MSM's bucket loop runs. Results
// are written out so that nothing is optimised away; values are random
// Montgomery elements, never zeros. An inversion case runs one chain per
// thread, x <- x^-1 (x and x^-1 alternate, both random), so a warp takes as
// long as its slowest lane, as in a kernel.
// Rate = threads * iters * chains / median time.

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/jacobian.hpp>
#include <cuzk/ec/scalar_mul.hpp>
#include <cuzk/ec/xyzz.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_fp2.cuh>
#include <cuzk/ff/detail/cuda_inverse.cuh>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>

namespace cuzk::bench_prim {

inline constexpr int kChains = 4;
inline constexpr int kTable = 64;

enum class field_op { mul, sqr, mul_self };

template <class D, field_op Op>
__global__ void __launch_bounds__(256) field_kernel(const D* in, D* out, int iters) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  D x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = in[(t * kChains + c) % 4096];
  const D y = in[t % 4096];
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      if constexpr (Op == field_op::mul) x[c] = x[c] * y;
      else if constexpr (Op == field_op::mul_self) x[c] = x[c] * x[c];
      else x[c] = x[c].sqr();
    }
  }
#pragma unroll
  for (int c = 1; c < kChains; ++c) x[0] = x[0] + x[c];
  out[t] = x[0];
}

/// One inversion chain per thread: x <- x^-1, |iters| times.
template <class D, bool Fermat>
__global__ void __launch_bounds__(256) inv_kernel(const D* in, D* out, int iters) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  D x = in[t % 4096];
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
    if constexpr (Fermat) x = gpu::inverse_fermat(x);
    else x = gpu::inverse(x);
  }
  out[t] = x;
}

/// One XYZZ accumulator per thread; the table is in global memory (cached).
/// Each step's point is loaded one step ahead, as the MSM's level 0 loads
/// its bases (src/cuda/msm/msm_kernels.cuh): with the load in the same step,
/// ptxas splits the first two multiplications' products into separate lo
/// and hi multiplies plus carry adds (sm_90 SASS of this loop, read on the
/// dev VM 2026-12-06: 1604 instead of 821 instructions before the P = 0
/// branch, 4537 against 3743 on the addition path), so the rate measured
/// the load's placement, not the addition the MSM runs.
template <class Fd>
__global__ void __launch_bounds__(256) madd_kernel(const ec::affine<Fd>* table, ec::xyzz<Fd>* out, int iters) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  ec::xyzz<Fd> acc = ec::xyzz<Fd>::from_affine(table[t % kTable]);
  ec::affine<Fd> q = table[(t + 1) % kTable];
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
    const ec::affine<Fd> next = table[(t + 7 * i + 8) % kTable];
    acc = acc.add_affine(q);
    q = next;
  }
  out[t] = acc;
}

struct rate {
  double median_ms, min_ms, max_ms, g_per_s;
};

template <class Launch>
rate time_rate(Launch&& launch, double ops, int reps, cudaStream_t s) {
  launch();
  CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
  gpu::event a, b;
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    a.record(s);
    launch();
    b.record(s);
    b.synchronize();
    ms.push_back(b.elapsed_ms_since(a));
  }
  std::sort(ms.begin(), ms.end());
  const double med = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  return {med, ms.front(), ms.back(), ops / (med * 1e-3) / 1e9};
}

inline void print_rate(const char* what, const rate& r, double sppark, bool json) {
  if (sppark > 0)
    std::printf(
        "prim %-10s %8.2f G/s  (median %.3f ms, min %.3f, max %.3f)  sppark %.2f G/s  "
        "ratio %.2fx\n",
        what, r.g_per_s, r.median_ms, r.min_ms, r.max_ms, sppark, r.g_per_s / sppark);
  else
    std::printf("prim %-10s %8.2f G/s  (median %.3f ms, min %.3f, max %.3f)\n", what, r.g_per_s, r.median_ms, r.min_ms,
                r.max_ms);
  if (json)
    std::printf(
        "{\"bench\":\"prim_%s\",\"g_per_s\":%.4f,\"median_ms\":%.4f,\"min_ms\":%.4f,"
        "\"max_ms\":%.4f,\"sppark_g_per_s\":%.2f}\n",
        what, r.g_per_s, r.median_ms, r.min_ms, r.max_ms, sppark);
  std::fflush(stdout);
}

/// An inversion's cost in multiplications of its field: mul rate / inversion rate.
inline void print_inv_ratio(const char* what, const rate& inv, const rate& mul, bool json) {
  const double ratio = mul.g_per_s / inv.g_per_s;
  std::printf("prim %-10s inverse in multiplications: %.1f\n", what, ratio);
  if (json) std::printf("{\"bench\":\"prim_%s_in_mul\",\"ratio\":%.2f}\n", what, ratio);
  std::fflush(stdout);
}

/// Random host elements of F (4096 of them) as the device type D.
template <class F, class D>
gpu::device_buffer<D> random_elements(std::mt19937_64& rng, cudaStream_t s) {
  std::vector<F> h(4096);
  for (auto& x : h) x = F::random(rng);
  gpu::device_buffer<D> d(h.size());
  CUZK_CUDA_CHECK(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(F), cudaMemcpyHostToDevice, s));
  return d;
}

/// kTable random affine points of the group over F (multiples of the generator).
template <class F>
std::vector<ec::affine<F>> random_points(std::mt19937_64& rng) {
  std::vector<ec::affine<F>> v;
  for (int i = 0; i < kTable; ++i) v.push_back(ec::mul(ec::jacobian<F>::generator(), ff::fr::random(rng)).to_affine());
  return v;
}

inline void run(int reps, bool json) {
  int sms = 0;
  CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned threads = 256, blocks = unsigned(sms) * 16;
  const double n_threads = double(threads) * blocks;
  gpu::stream st;
  cudaStream_t s = st.get();
  std::mt19937_64 rng(42);
  const int field_iters = 256, g1_iters = 64, g2_iters = 16;
  // ~30 and ~460 multiplications each: about the work of a field case
  const int inv_iters = 32, fermat_iters = 2;

  auto fp_in = random_elements<ff::fp, gpu::fp_d>(rng, s);
  auto fr_in = random_elements<ff::fr, gpu::fr_d>(rng, s);
  auto fp2_in = random_elements<ff::fp2, gpu::fp2_d>(rng, s);
  gpu::device_buffer<gpu::fp_d> fp_out{std::size_t(n_threads)};
  gpu::device_buffer<gpu::fr_d> fr_out{std::size_t(n_threads)};
  gpu::device_buffer<gpu::fp2_d> fp2_out{std::size_t(n_threads)};
  auto field_case = [&](const char* name, auto kernel, auto& in, auto& out, double sppark, int iters, int chains) {
    const rate r = time_rate(
        [&] {
          kernel<<<blocks, threads, 0, s>>>(in.data(), out.data(), iters);
          CUZK_CUDA_CHECK_LAUNCH();
        },
        n_threads * iters * chains, reps, s);
    print_rate(name, r, sppark, json);
    return r;
  };
  using gpu::fp_d;
  using gpu::fr_d;
  const rate fp_mul =
      field_case("fp_mul", field_kernel<fp_d, field_op::mul>, fp_in, fp_out, 27.0, field_iters, kChains);
  field_case("fp_sqr", field_kernel<fp_d, field_op::sqr>, fp_in, fp_out, 33.5, field_iters, kChains);
  field_case("fp_mul_self", field_kernel<fp_d, field_op::mul_self>, fp_in, fp_out, 0, field_iters, kChains);
  const rate fr_mul =
      field_case("fr_mul", field_kernel<fr_d, field_op::mul>, fr_in, fr_out, 59.1, field_iters, kChains);
  field_case("fr_sqr", field_kernel<fr_d, field_op::sqr>, fr_in, fr_out, 0, field_iters, kChains);
  field_case("fr_mul_self", field_kernel<fr_d, field_op::mul_self>, fr_in, fr_out, 0, field_iters, kChains);
  // Fp2 (G2's field): a multiplication is about 3 Fp ones in Karatsuba form,
  // 2 x 6W^2 / (4W^2 + 3W) = 2.8 in the one-reduction-per-coordinate form
  field_case("fp2_mul", field_kernel<gpu::fp2_d, field_op::mul>, fp2_in, fp2_out, 0, field_iters / 4, kChains);
  field_case("fp2_sqr", field_kernel<gpu::fp2_d, field_op::sqr>, fp2_in, fp2_out, 0, field_iters / 4, kChains);
  const rate fp_inv = field_case("fp_inv", inv_kernel<fp_d, false>, fp_in, fp_out, 0, inv_iters, 1);
  print_inv_ratio("fp_inv", fp_inv, fp_mul, json);
  const rate fp_fermat = field_case("fp_inv_fermat", inv_kernel<fp_d, true>, fp_in, fp_out, 0, fermat_iters, 1);
  print_inv_ratio("fp_inv_fermat", fp_fermat, fp_mul, json);
  const rate fr_inv = field_case("fr_inv", inv_kernel<fr_d, false>, fr_in, fr_out, 0, inv_iters, 1);
  print_inv_ratio("fr_inv", fr_inv, fr_mul, json);

  const auto g1_pts = random_points<ff::fp>(rng);
  const auto g2_pts = random_points<ff::fp2>(rng);
  gpu::device_buffer<ec::affine<gpu::fp_d>> g1_table(kTable);
  gpu::device_buffer<ec::affine<gpu::fp2_d>> g2_table(kTable);
  CUZK_CUDA_CHECK(
      cudaMemcpyAsync(g1_table.data(), g1_pts.data(), kTable * sizeof(g1_pts[0]), cudaMemcpyHostToDevice, s));
  CUZK_CUDA_CHECK(
      cudaMemcpyAsync(g2_table.data(), g2_pts.data(), kTable * sizeof(g2_pts[0]), cudaMemcpyHostToDevice, s));
  gpu::device_buffer<ec::xyzz<gpu::fp_d>> g1_out{std::size_t(n_threads)};
  gpu::device_buffer<ec::xyzz<gpu::fp2_d>> g2_out{std::size_t(n_threads)};
  auto madd_case = [&](const char* name, auto kernel, auto& table, auto& out, int iters, double sppark) {
    print_rate(name,
               time_rate(
                   [&] {
                     kernel<<<blocks, threads, 0, s>>>(table.data(), out.data(), iters);
                     CUZK_CUDA_CHECK_LAUNCH();
                   },
                   n_threads * iters, reps, s),
               sppark, json);
  };
  madd_case("g1_madd", madd_kernel<gpu::fp_d>, g1_table, g1_out, g1_iters, 2.63);
  madd_case("g2_madd", madd_kernel<gpu::fp2_d>, g2_table, g2_out, g2_iters, 0);
  // spot check: the last G1 accumulator equals the host's sum of the same points
  {
    std::vector<ec::xyzz<ff::fp>> got(1);
    const unsigned t = unsigned(n_threads) - 1;
    CUZK_CUDA_CHECK(cudaMemcpyAsync(got.data(), g1_out.data() + t, sizeof(got[0]), cudaMemcpyDeviceToHost, s));
    st.synchronize();
    ec::xyzz<ff::fp> want = ec::xyzz<ff::fp>::from_affine(g1_pts[t % kTable]);
    for (int i = 0; i < g1_iters; ++i) want = want.add_affine(g1_pts[(t + 7 * i + 1) % kTable]);
    std::printf("prim g1_madd spot check: %s\n", got[0] == want ? "device == host" : "MISMATCH");
  }
}

}  // namespace cuzk::bench_prim
