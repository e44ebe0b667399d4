// SPDX-License-Identifier: Apache-2.0
// GPU field arithmetic (cuda_arith.cuh) against the host mont_field, bit for
// bit: mul, sqr, add, sub, neg and mul_sub (a b - c d: one reduction for Fp
// and per coordinate for Fp2, whose mul also sums two products per
// reduction; the generic form for Fr) for Fr, Fp and Fp2 (cuda_fp2.cuh, and
// over lane pairs, cuda_fp2_pair.cuh, with is_zero and == too) on 10^6 random
// pairs plus every pair of special values (0, 1, p-1, R, R^2 as field
// elements and as raw limbs, limb-edge values). Also checks the layout contract: a host array
// copied to the device and back is unchanged, and device one() equals the
// host one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <cuzk/ec/xyzz.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_fp2.cuh>
#include <cuzk/ff/detail/cuda_fp2_pair.cuh>
#include <cuzk/gpu/device.cuh>

#include "common/field_special_values.hpp"
#include "common/test_seed.hpp"
#include "gpu/gpu_test_util.hpp"

namespace {

using cuzk::ff::fp;
using cuzk::ff::fr;
namespace gpu = cuzk::gpu;

template <class D>
__global__ void field_ops_kernel(const D* a, const D* b, const D* c, const D* d, D* mul, D* sqr, D* add, D* sub, D* neg,
                                 D* msub, D* one, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i == 0) *one = D::one();
  if (i >= n) return;
  const D x = a[i], y = b[i];
  mul[i] = x * y;
  sqr[i] = x.sqr();
  add[i] = x + y;
  sub[i] = x - y;
  neg[i] = -x;
  using cuzk::ec::mul_sub;  // the device overload wins where there is one, as in xyzz
  msub[i] = mul_sub(x, y, c[i], d[i]);
}

/// field_ops_kernel over lane pairs (gpu::fp2_pair_d): threads 2i and 2i + 1
/// compute element i's results, coordinate c0 on the even lane and c1 on
/// the odd one; |flags| gets element i's is_zero(a) (bit 0) and a == b (bit
/// 1), each answered by both lanes (bit 2 set where the lanes disagreed).
__global__ void fp2_pair_ops_kernel(const gpu::fp2_d* a, const gpu::fp2_d* b, const gpu::fp2_d* c, const gpu::fp2_d* d,
                                    gpu::fp2_d* mul, gpu::fp2_d* sqr, gpu::fp2_d* add, gpu::fp2_d* sub, gpu::fp2_d* neg,
                                    gpu::fp2_d* msub, gpu::fp2_d* one, unsigned* flags, std::size_t n) {
  using pair = gpu::fp2_pair_d;
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t i = t / 2;
  const bool odd = t & 1;
  if (i >= n) return;  // both lanes of a pair (n elements, 2n threads)
  auto in = [&](const gpu::fp2_d* v) { return pair{odd ? v[i].c1 : v[i].c0}; };
  auto out = [&](gpu::fp2_d* v, const pair& r) { (odd ? v[i].c1 : v[i].c0) = r.v; };
  if (i == 0) (odd ? one->c1 : one->c0) = pair::one().v;
  const pair x = in(a), y = in(b);
  out(mul, x * y);
  out(sqr, x.sqr());
  out(add, x + y);
  out(sub, x - y);
  out(neg, -x);
  using cuzk::ec::mul_sub;
  out(msub, mul_sub(x, y, in(c), in(d)));
  const unsigned f = unsigned(x.is_zero()) | unsigned(x == y) << 1;
  const unsigned partner = __shfl_xor_sync(pair::pair_mask(), f, 1);
  if (!odd) flags[i] = f | (f != partner ? 4u : 0u);
}

/// |Pair|: D is gpu::fp2_pair_d, run by fp2_pair_ops_kernel (two threads an
/// element), which also reports is_zero and == for the host to check.
template <class F, class D, bool Pair = false>
void run_field_test(const char* name) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed(name));
  const std::vector<F> sp = cuzk::test::field_specials<F>();
  std::vector<F> a, b;
  for (const F& x : sp)
    for (const F& y : sp) a.push_back(x), b.push_back(y);
  const std::size_t n_random = 1000000;
  for (std::size_t i = 0; i < n_random; ++i) {
    a.push_back(F::random(rng));
    // every 16th right operand repeats the left one (a*a, a-a, a+a paths)
    b.push_back(i % 16 == 0 ? a.back() : F::random(rng));
  }
  const std::size_t n = a.size();
  // mul_sub's second product: every third one equals the first (b a: the
  // result is exactly 0, the reduction's p -> 0 edge), the others pair
  // neighbouring specials and random values
  std::vector<F> c(n), d(n);
  for (std::size_t i = 0; i < n; ++i) {
    c[i] = i % 3 == 0 ? b[i] : a[(i + 1) % n];
    d[i] = i % 3 == 0 ? a[i] : b[(i + 2) % n];
  }

  gpu::device_buffer<F> d_a(n), d_b(n), d_c(n), d_d(n), d_mul(n), d_sqr(n), d_add(n), d_sub(n), d_neg(n), d_msub(n),
      d_one(1);
  d_a.upload(a.data(), n, nullptr);
  d_b.upload(b.data(), n, nullptr);
  d_c.upload(c.data(), n, nullptr);
  d_d.upload(d.data(), n, nullptr);
  // poison the outputs: every element must be written
  for (auto* d : {&d_mul, &d_sqr, &d_add, &d_sub, &d_neg, &d_msub})
    CUZK_CUDA_CHECK(cudaMemset(d->data(), 0xa5, d->bytes()));
  const unsigned threads = 256;
  gpu::device_buffer<unsigned> d_flags(n);
  if constexpr (Pair) {
    const unsigned blocks = unsigned((2 * n + threads - 1) / threads);
    auto dp = [](gpu::device_buffer<F>& x) { return reinterpret_cast<gpu::fp2_d*>(x.data()); };
    fp2_pair_ops_kernel<<<blocks, threads>>>(dp(d_a), dp(d_b), dp(d_c), dp(d_d), dp(d_mul), dp(d_sqr), dp(d_add),
                                             dp(d_sub), dp(d_neg), dp(d_msub), dp(d_one), d_flags.data(), n);
  } else {
    const unsigned blocks = unsigned((n + threads - 1) / threads);
    auto dp = [](gpu::device_buffer<F>& x) { return reinterpret_cast<D*>(x.data()); };
    field_ops_kernel<D><<<blocks, threads>>>(dp(d_a), dp(d_b), dp(d_c), dp(d_d), dp(d_mul), dp(d_sqr), dp(d_add),
                                             dp(d_sub), dp(d_neg), dp(d_msub), dp(d_one), n);
  }
  CUZK_CUDA_CHECK_LAUNCH();
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  if constexpr (Pair) {
    std::vector<unsigned> flags(n);
    d_flags.download(flags.data(), n, nullptr);
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
    std::size_t bad_flags = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned want = unsigned(a[i].is_zero()) | unsigned(a[i] == b[i]) << 1;
      if (flags[i] != want && bad_flags++ < 3)
        ADD_FAILURE() << name << " is_zero / == at " << i << ": device " << flags[i] << ", host " << want;
    }
    EXPECT_EQ(bad_flags, 0u) << "is_zero / == mismatches of " << n;
  }

  auto fetch = [&](const gpu::device_buffer<F>& d) {
    std::vector<F> h(d.size());
    d.download(h.data(), h.size(), nullptr);
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
    return h;
  };
  const auto g_mul = fetch(d_mul), g_sqr = fetch(d_sqr), g_add = fetch(d_add), g_sub = fetch(d_sub),
             g_neg = fetch(d_neg), g_msub = fetch(d_msub), g_one = fetch(d_one), g_a = fetch(d_a);
  ASSERT_TRUE(g_a == a) << "round trip host -> device -> host changed the bytes";
  EXPECT_TRUE(g_one[0] == F::one()) << "device one() differs from host one()";

  std::size_t bad_mul = 0, bad_sqr = 0, bad_add = 0, bad_sub = 0, bad_neg = 0, bad_msub = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(g_mul[i] == a[i] * b[i]) && bad_mul++ < 3) ADD_FAILURE() << name << " mul mismatch at " << i;
    if (!(g_sqr[i] == a[i].sqr()) && bad_sqr++ < 3) ADD_FAILURE() << name << " sqr mismatch at " << i;
    if (!(g_add[i] == a[i] + b[i]) && bad_add++ < 3) ADD_FAILURE() << name << " add mismatch at " << i;
    if (!(g_sub[i] == a[i] - b[i]) && bad_sub++ < 3) ADD_FAILURE() << name << " sub mismatch at " << i;
    if (!(g_neg[i] == -a[i]) && bad_neg++ < 3) ADD_FAILURE() << name << " neg mismatch at " << i;
    if (!(g_msub[i] == a[i] * b[i] - c[i] * d[i]) && bad_msub++ < 3)
      ADD_FAILURE() << name << " mul_sub mismatch at " << i;
  }
  EXPECT_EQ(bad_mul + bad_sqr + bad_add + bad_sub + bad_neg + bad_msub, 0u)
      << "mismatches: mul " << bad_mul << " sqr " << bad_sqr << " add " << bad_add << " sub " << bad_sub << " neg "
      << bad_neg << " mul_sub " << bad_msub << " of " << n;
}

TEST(gpu_field, FrMatchesHost) { run_field_test<fr, gpu::fr_d>("gpu_field.FrMatchesHost"); }
TEST(gpu_field, FpMatchesHost) { run_field_test<fp, gpu::fp_d>("gpu_field.FpMatchesHost"); }
TEST(gpu_field, Fp2MatchesHost) { run_field_test<cuzk::ff::fp2, gpu::fp2_d>("gpu_field.Fp2MatchesHost"); }
// The lane-pair Fp2 (the G2 window sums' field) on the same inputs.
TEST(gpu_field, Fp2OverLanePairsMatchesHost) {
  run_field_test<cuzk::ff::fp2, gpu::fp2_pair_d, true>("gpu_field.Fp2OverLanePairsMatchesHost");
}

// The device queries of gpu/runtime.hpp keep their contract on every machine
// (no CUZK_REQUIRE_GPU(): without a device, CI checks the refusals): the count
// is the runtime's own and cached; each device has a description and memory
// figures; an ordinal outside [0, count) gets an empty description and false
// with both figures zeroed; with a device, no query leaves a CUDA error
// behind (without a driver every runtime call, cudaPeekAtLastError too,
// reports cudaErrorInsufficientDriver, so there is nothing to check there).
TEST(gpu_field, DeviceQueriesKeepTheirContract) {
  const int n = gpu::device_count();
  if (n > 0) EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << "device_count() left a CUDA error behind";
  int runtime_n = 0;
  if (cudaGetDeviceCount(&runtime_n) != cudaSuccess) {
    (void)cudaGetLastError();
    runtime_n = 0;
  }
  EXPECT_EQ(n, runtime_n);
  EXPECT_EQ(gpu::device_count(), n);
  for (int i = 0; i < n; ++i) {
    const std::string description = gpu::device_description(i);
    std::printf("[gpu] device %d: %s\n", i, description.c_str());
    EXPECT_FALSE(description.empty()) << "device " << i;
    std::size_t free_bytes = 0, total_bytes = 0;
    ASSERT_TRUE(gpu::device_memory(i, &free_bytes, &total_bytes)) << "device " << i;
    EXPECT_GT(total_bytes, 0u) << "device " << i;
    EXPECT_LE(free_bytes, total_bytes) << "device " << i;
  }
  for (const int outside : {-1, n}) {
    EXPECT_TRUE(gpu::device_description(outside).empty()) << "ordinal " << outside;
    std::size_t free_bytes = 1, total_bytes = 1;
    EXPECT_FALSE(gpu::device_memory(outside, &free_bytes, &total_bytes)) << "ordinal " << outside;
    EXPECT_EQ(free_bytes, 0u) << "ordinal " << outside;
    EXPECT_EQ(total_bytes, 0u) << "ordinal " << outside;
  }
  if (n > 0) EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << "a refused query left a CUDA error behind";
}

}  // namespace
