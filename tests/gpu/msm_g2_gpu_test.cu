// SPDX-License-Identifier: Apache-2.0
// GPU G2 MSM (cuzk/msm/msm_gpu.hpp, gpu_msm_g2_context) against the CPU MSM
// on G2 as group elements: random scalars at every size 2^1..2^20;
// witness-like scalars (0, 1, r - 1, powers of two, a
// repeated value) with repeated bases, P/-P pairs and infinity bases;
// degenerate inputs (all zero, all one, all r - 1, one base repeated); device
// scalars over a sub-range of the resident bases; a shared workspace between
// a G1 and a G2 context; chunk-streamed bases equal to resident ones; the
// window sums over lane pairs (opt-in) on random, witness-like and
// degenerate inputs.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cuzk/ec/batch_normalize.hpp>
#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/gpu/device.cuh>
#include <cuzk/msm/msm.hpp>
#include <cuzk/msm/msm_gpu.hpp>

#include "common/test_seed.hpp"
#include "gpu/gpu_test_util.hpp"

namespace {

using cuzk::ec::g1_affine;
using cuzk::ec::g2_affine;
using cuzk::ec::g2_jacobian;
using cuzk::ff::fp;
using cuzk::ff::fp2;
using cuzk::ff::fr;
namespace msm = cuzk::msm;

/// n G2 points: blocks of 4096 consecutive multiples from a random start.
std::vector<g2_affine> make_points(std::size_t n, std::mt19937_64& rng) {
  std::vector<g2_jacobian> jac(n);
  const g2_affine g = g2_affine::generator();
  g2_jacobian acc;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 4096 == 0) acc = cuzk::ec::mul(g2_jacobian::generator(), fr::random(rng));
    jac[i] = acc;
    acc = acc.add_affine(g);
  }
  std::vector<g2_affine> out(n);
  cuzk::ec::batch_to_affine<fp2>(jac, out);
  return out;
}

const std::vector<g2_affine>& pool() {
  static const std::vector<g2_affine> p = [] {
    std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm_g2 point pool"));
    return make_points(std::size_t(1) << 20, rng);
  }();
  return p;
}

void expect_same(const g2_jacobian& got, const g2_jacobian& want, const std::string& what) {
  EXPECT_TRUE(got == want) << what << ": GPU G2 MSM differs from the CPU MSM"
                           << (want.is_infinity() ? " (CPU result is infinity)" : "")
                           << (got.is_infinity() ? " (GPU result is infinity)" : "");
}

TEST(gpu_msm_g2, RandomScalarsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm_g2.RandomScalarsMatchCpu"));
  msm::gpu_msm_g2_context ctx;
  std::vector<unsigned> lgs;
  for (unsigned lg = 1; lg <= 20; ++lg) lgs.push_back(lg);
  for (const unsigned lg : lgs) {
    const std::size_t n = std::size_t(1) << lg;
    const std::span<const g2_affine> bases(pool().data(), n);
    const auto scalars = cuzk::test::random_elements<fr>(n, rng);
    ctx.upload_bases(bases);
    expect_same(ctx.run(scalars), msm::msm<fp2>(bases, scalars), "random 2^" + std::to_string(lg));
  }
}

/// 2^lg witness-like terms: scalars 0, 1, r - 1, powers of two, a repeated
/// value and random ones; bases with infinity, repeats and P/-P pairs.
std::pair<std::vector<g2_affine>, std::vector<fr>> witness_like(unsigned lg, std::mt19937_64& rng) {
  const std::size_t n = std::size_t(1) << lg;
  std::vector<g2_affine> bases(pool().begin(), pool().begin() + std::ptrdiff_t(n));
  std::vector<fr> scalars(n);
  const fr repeated = fr::random(rng);
  for (std::size_t i = 0; i < n; ++i) {
    // clang-format off
    switch (unsigned(rng() % 16)) {
      case 0: case 1: case 2: case 3: case 4: scalars[i] = fr::zero(); break;
      case 5: case 6: case 7: case 8: scalars[i] = fr::one(); break;
      case 9: scalars[i] = -fr::one(); break;  // r - 1
      case 10: scalars[i] = fr::from_uint(std::uint64_t(1) << (rng() % 64)); break;
      case 11: scalars[i] = repeated; break;
      default: scalars[i] = fr::random(rng); break;
    }
    // clang-format on
    const unsigned base_kind = unsigned(rng() % 32);
    if (base_kind == 0) bases[i] = g2_affine::identity();
    else if (base_kind == 1 && i > 0) bases[i] = bases[rng() % i];
    else if (base_kind == 2 && i > 0) bases[i] = -bases[i - 1], scalars[i] = scalars[i - 1];
  }
  return {std::move(bases), std::move(scalars)};
}

TEST(gpu_msm_g2, WitnessLikeInputsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm_g2.WitnessLikeInputsMatchCpu"));
  msm::gpu_msm_g2_context ctx;
  for (unsigned lg = 2; lg <= 18; lg += 4) {
    const auto [bases, scalars] = witness_like(lg, rng);
    ctx.upload_bases(bases);
    expect_same(ctx.run(scalars), msm::msm<fp2>(bases, scalars), "witness-like 2^" + std::to_string(lg));
  }
}

// The window sums over lane pairs (reduce_buckets_pair_kernel): random
// scalars from one term (one window-sum thread, a block of one lane pair) to
// 2^20, witness-like inputs, one repeated base (every window sum adds equal
// points: the doubling branch), all scalars equal (one bucket per window,
// the rest infinity).
TEST(gpu_msm_g2, WindowSumsOverLanePairsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm_g2.WindowSumsOverLanePairsMatchCpu"));
  msm::gpu_msm_g2_context ctx;
  for (const unsigned lg : {0u, 1u, 5u, 9u, 14u, 20u}) {
    const std::size_t n = std::size_t(1) << lg;
    const std::span<const g2_affine> bases(pool().data(), n);
    const auto scalars = cuzk::test::random_elements<fr>(n, rng);
    ctx.upload_bases(bases);
    expect_same(ctx.run(scalars), msm::msm<fp2>(bases, scalars), "random 2^" + std::to_string(lg));
  }
  const auto [wb, ws] = witness_like(12, rng);
  ctx.upload_bases(wb);
  expect_same(ctx.run(ws), msm::msm<fp2>(wb, ws), "witness-like 2^12");
  const std::vector<g2_affine> same(std::size_t(1) << 12, pool()[11]);
  const auto rs = cuzk::test::random_elements<fr>(same.size(), rng);
  ctx.upload_bases(same);
  expect_same(ctx.run(rs), msm::msm<fp2>(same, rs), "one base repeated");
  const std::span<const g2_affine> bases(pool().data(), std::size_t(1) << 12);
  const std::vector<fr> equal(bases.size(), fr::random(rng));
  ctx.upload_bases(bases);
  expect_same(ctx.run(equal), msm::msm<fp2>(bases, equal), "all scalars equal");
}

TEST(gpu_msm_g2, DegenerateScalarsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm_g2.DegenerateScalarsMatchCpu"));
  msm::gpu_msm_g2_context ctx;
  for (const std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(1) << 12}) {
    const std::span<const g2_affine> bases(pool().data(), n);
    ctx.upload_bases(bases);
    const std::pair<const char*, fr> cases[] = {
        {"all zero", fr::zero()}, {"all one", fr::one()}, {"all r-1", -fr::one()}, {"all equal", fr::random(rng)}};
    for (const auto& [name, v] : cases) {
      const std::vector<fr> scalars(n, v);
      const g2_jacobian want = msm::msm<fp2>(bases, scalars);
      expect_same(ctx.run(scalars), want, std::string(name) + " n=" + std::to_string(n));
      if (v.is_zero()) EXPECT_TRUE(want.is_infinity());
    }
    const std::vector<g2_affine> same(n, pool()[11]);
    const auto scalars = cuzk::test::random_elements<fr>(n, rng);
    msm::gpu_msm_g2_context ctx2;
    ctx2.upload_bases(same);
    expect_same(ctx2.run(scalars), msm::msm<fp2>(same, scalars), "same base n=" + std::to_string(n));
  }
}

TEST(gpu_msm_g2, DeviceScalarsSharedWorkspaceAndStreaming) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm_g2.DeviceScalarsSharedWorkspaceAndStreaming"));
  const std::size_t n = 5000, first = 123, len = 3001;
  const std::span<const g2_affine> bases(pool().data(), n);
  auto scalars = cuzk::test::random_elements<fr>(len, rng);
  for (std::size_t i = 0; i < len; i += 7) scalars[i] = fr::one();
  cuzk::gpu::device_buffer<fr> d_scalars(len);
  d_scalars.upload(scalars.data(), len, nullptr);
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());

  auto ws = std::make_shared<msm::gpu_msm_workspace>(0);
  msm::gpu_msm_g2_context g2(0, nullptr, ws);
  msm::gpu_msm_context g1(0, nullptr, ws);
  g2.upload_bases(bases);
  const auto want = msm::msm<fp2>(bases.subspan(first, len), scalars);
  expect_same(g2.run_device(d_scalars.data(), len, first), want, "device scalars, sub-range");
  // a G1 MSM on the same workspace in between must not disturb the G2 one
  std::vector<g1_affine> g1_bases(len, g1_affine::generator());
  g1.upload_bases(g1_bases);
  EXPECT_TRUE(g1.run(scalars) == msm::msm<fp>(g1_bases, scalars)) << "G1 on shared workspace";
  expect_same(g2.run_device(d_scalars.data(), len, first), want, "again after G1");
  EXPECT_GT(ws->bytes(), 0u);
  // bases streamed from the host in chunks (uneven last chunk)
  msm::gpu_msm_g2_context streamed(0, nullptr, ws);
  for (const std::size_t chunk : {std::size_t(1000), std::size_t(len), std::size_t(4096)})
    expect_same(streamed.run_streamed(bases.subspan(first, len), d_scalars.data(), chunk), want,
                "streamed, chunk " + std::to_string(chunk));
  // a batch of two vectors over one stream of the bases: each its own MSM
  {
    const auto others = cuzk::test::random_elements<fr>(len, rng);
    cuzk::gpu::device_buffer<fr> d_others(len);
    d_others.upload(others.data(), len, nullptr);
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
    const fr* ptrs[2] = {d_scalars.data(), d_others.data()};
    const auto got = streamed.run_streamed_batch(bases.subspan(first, len), ptrs, 1000);
    ASSERT_EQ(got.size(), 2u);
    expect_same(got[0], want, "batch, vector 0");
    expect_same(got[1], msm::msm<fp2>(bases.subspan(first, len), others), "batch, vector 1");
  }
  EXPECT_THROW(g2.run_device(d_scalars.data(), len, n - len + 1), std::invalid_argument);
  EXPECT_THROW((msm::gpu_msm_g2_context(1, nullptr, ws)), std::invalid_argument);
}

TEST(gpu_msm_g2, OneShotEntryPoint) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm_g2.OneShotEntryPoint"));
  const std::span<const g2_affine> bases(pool().data(), 777);
  const auto scalars = cuzk::test::random_elements<fr>(777, rng);
  expect_same(msm::msm_gpu(bases, std::span<const fr>(scalars)), msm::msm<fp2>(bases, scalars), "one-shot");
}

}  // namespace
