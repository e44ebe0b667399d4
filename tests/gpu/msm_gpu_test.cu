// SPDX-License-Identifier: Apache-2.0
// GPU G1 MSM (cuzk/msm/msm_gpu.hpp) against the CPU MSM (cuzk/msm/msm.hpp)
// as group elements: random scalars (with 0, 1, r - 1 planted) at every size
// 2^1..2^22; witness-like scalars
// (zeros, ones, -1, powers of two, one repeated value) with repeated bases,
// P/-P pairs and infinity bases at the same sizes; degenerate inputs (all
// zero, all one, all equal: one hot bucket per window); every window width
// the API accepts at 2^12; the one-shot entry point; argument errors; the
// count of multi-digit scalars and the sparse window on a witness mix; the
// direct and the partitioned scatter on both sides of their threshold; the
// batch-affine level 0 with every K on random and degenerate inputs; the
// streamed MSM, its buckets held across chunks, and its window and scratch.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuzk/ec/batch_normalize.hpp>
#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/msm/msm.hpp>
#include <cuzk/gpu/device.cuh>
#include <cuzk/gpu/runtime.hpp>
#include <cuzk/gpu/tuning.hpp>
#include <cuzk/msm/msm_gpu.hpp>

#include "common/test_seed.hpp"
#include "gpu/gpu_test_util.hpp"

namespace {

using cuzk::ec::g1_affine;
using cuzk::ec::g1_jacobian;
using cuzk::ff::fp;
using cuzk::ff::fr;
namespace msm = cuzk::msm;

/// n points: blocks of 4096 consecutive multiples k*G, k*G + G, ... from a
/// random k per block, normalised in one batch.
std::vector<g1_affine> make_points(std::size_t n, std::mt19937_64& rng) {
  std::vector<g1_jacobian> jac(n);
  const g1_affine g = g1_affine::generator();
  g1_jacobian acc;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 4096 == 0) acc = cuzk::ec::mul(g1_jacobian::generator(), fr::random(rng));
    jac[i] = acc;
    acc = acc.add_affine(g);
  }
  std::vector<g1_affine> out(n);
  cuzk::ec::batch_to_affine<fp>(jac, out);
  return out;
}

/// The shared pool of bases (the biggest test's size), built once.
const std::vector<g1_affine>& pool() {
  static const std::vector<g1_affine> p = [] {
    std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm point pool"));
    return make_points(std::size_t(1) << 22, rng);
  }();
  return p;
}

void expect_same(const g1_jacobian& got, const g1_jacobian& want, const std::string& what) {
  EXPECT_TRUE(got == want) << what << ": GPU MSM differs from the CPU MSM"
                           << (want.is_infinity() ? " (CPU result is infinity)" : "")
                           << (got.is_infinity() ? " (GPU result is infinity)" : "");
}

TEST(gpu_msm, RandomScalarsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.RandomScalarsMatchCpu"));
  msm::gpu_msm_context ctx;
  for (unsigned lg = 1; lg <= 22; ++lg) {
    const std::size_t n = std::size_t(1) << lg;
    const std::span<const g1_affine> bases(pool().data(), n);
    auto scalars = cuzk::test::random_elements<fr>(n, rng);
    // the special scalars 0, 1 and r - 1 at fixed positions
    scalars[0] = fr::zero();
    scalars[n - 1] = -fr::one();
    if (n > 2) scalars[n / 2] = fr::one();
    ctx.upload_bases(bases);
    expect_same(ctx.run(scalars), msm::msm<fp>(bases, scalars), "random 2^" + std::to_string(lg));
  }
}

TEST(gpu_msm, WitnessLikeInputsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.WitnessLikeInputsMatchCpu"));
  msm::gpu_msm_context ctx;
  for (unsigned lg = 10; lg <= 20; lg += 2) {
    const std::size_t n = std::size_t(1) << lg;
    std::vector<g1_affine> bases(pool().begin(), pool().begin() + std::ptrdiff_t(n));
    std::vector<fr> scalars(n);
    const fr repeated = fr::random(rng);
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned kind = unsigned(rng() % 16);
      // clang-format off
      switch (kind) {
        case 0: case 1: case 2: case 3: case 4: scalars[i] = fr::zero(); break;
        case 5: case 6: case 7: case 8: scalars[i] = fr::one(); break;
        case 9: scalars[i] = -fr::one(); break;
        case 10: scalars[i] = fr::from_uint(std::uint64_t(1) << (rng() % 64)); break;
        case 11: scalars[i] = repeated; break;
        default: scalars[i] = fr::random(rng); break;
      }
      // clang-format on
      const unsigned base_kind = unsigned(rng() % 32);
      if (base_kind == 0) bases[i] = g1_affine::identity();                                     // infinity
      else if (base_kind == 1 && i > 0) bases[i] = bases[rng() % i];                            // repeated base
      else if (base_kind == 2 && i > 0) bases[i] = -bases[i - 1], scalars[i] = scalars[i - 1];  // P, -P
    }
    ctx.upload_bases(bases);
    expect_same(ctx.run(scalars), msm::msm<fp>(bases, scalars), "witness-like 2^" + std::to_string(lg));
  }
}

TEST(gpu_msm, CountsMultiDigitScalarsAndSparseWindowsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.CountsMultiDigitScalars"));
  msm::gpu_msm_context ctx;
  EXPECT_EQ(ctx.count_multi_digit_scalars(nullptr, 0), 0u);
  for (const std::size_t n : {std::size_t(1), std::size_t(31), std::size_t(1000), std::size_t(1) << 20}) {
    const std::span<const g1_affine> bases(pool().data(), n);
    // the PoRep witness mix: ~51% zero, ~47% one, the rest other (with the
    // neighbours of 0 and 1: 2 and r - 1, which are multi-digit)
    std::vector<fr> scalars(n);
    std::size_t want = 0;
    for (auto& k : scalars) {
      const unsigned u = unsigned(rng() % 1000);
      if (u < 513) k = fr::zero();
      else if (u < 987) k = fr::one();
      else {
        k = u == 987 ? fr::from_uint(2) : u == 988 ? -fr::one() : fr::random(rng);
        want += !(k == fr::zero() || k == fr::one());
      }
    }
    cuzk::gpu::device_buffer<fr> d(n);
    d.upload(scalars.data(), n, nullptr);
    ctx.upload_bases(bases);
    const std::size_t got = ctx.count_multi_digit_scalars(d.data(), n);
    EXPECT_EQ(got, want) << "n = " << n;
    const unsigned c = msm::gpu_sparse_window_bits(got);
    EXPECT_GE(c, cuzk::gpu::tuning::msm::min_window);
    EXPECT_LE(c, msm::gpu_default_window_bits(n)) << "a sparse window never exceeds the dense one";
    const g1_jacobian cpu = msm::msm<fp>(bases, scalars);
    expect_same(ctx.run_device(d.data(), n, 0, c), cpu, "sparse window, n = " + std::to_string(n));
    // the mostly_binary call: counts itself, sizes its batches from the count
    expect_same(ctx.run_device(d.data(), n, 0, 0, msm::gpu_scalar_mix::mostly_binary), cpu,
                "mostly_binary, n = " + std::to_string(n));
    expect_same(ctx.run(scalars, 0, msm::gpu_scalar_mix::mostly_binary), cpu,
                "mostly_binary from host scalars, n = " + std::to_string(n));
  }
}

TEST(gpu_msm, DegenerateScalarsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.DegenerateScalarsMatchCpu"));
  msm::gpu_msm_context ctx;
  for (const std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(1) << 12, std::size_t(1) << 18}) {
    const std::span<const g1_affine> bases(pool().data(), n);
    ctx.upload_bases(bases);
    const fr one_value = fr::random(rng);
    const std::pair<const char*, fr> cases[] = {
        {"all zero", fr::zero()}, {"all one", fr::one()}, {"all -1", -fr::one()}, {"all equal", one_value}};
    for (const auto& [name, v] : cases) {
      const std::vector<fr> scalars(n, v);
      const g1_jacobian want = msm::msm<fp>(bases, scalars);
      expect_same(ctx.run(scalars), want, std::string(name) + " n=" + std::to_string(n));
      if (v.is_zero()) EXPECT_TRUE(want.is_infinity());
    }
    // every base the same point: one bucket sum of n equal points
    const std::vector<g1_affine> same(n, pool()[7]);
    const auto scalars = cuzk::test::random_elements<fr>(n, rng);
    msm::gpu_msm_context ctx2;
    ctx2.upload_bases(same);
    expect_same(ctx2.run(scalars), msm::msm<fp>(same, scalars), "same base n=" + std::to_string(n));
  }
}

TEST(gpu_msm, EveryWindowWidth) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.EveryWindowWidth"));
  const std::size_t n = std::size_t(1) << 12;
  const std::span<const g1_affine> bases(pool().data(), n);
  auto scalars = cuzk::test::random_elements<fr>(n, rng);
  for (std::size_t i = 0; i < n; i += 5) scalars[i] = fr::one();
  const g1_jacobian want = msm::msm<fp>(bases, scalars);
  msm::gpu_msm_context ctx;
  ctx.upload_bases(bases);
  for (unsigned c = cuzk::gpu::tuning::msm::min_explicit_window; c <= cuzk::gpu::tuning::msm::max_window; ++c)
    expect_same(ctx.run(scalars, c), want, "window " + std::to_string(c));
  // a prefix of the resident bases
  const std::span<const fr> half(scalars.data(), n / 2);
  expect_same(ctx.run(half), msm::msm<fp>(bases.first(n / 2), half), "prefix");
}

// A PoRep witness is ~98% zeros and ones: zero digits never reach a bucket,
// and every scalar 1 lands in bucket 1 of window 0, which the segmented tree
// spreads over many threads (tuning::msm::bucket_segment entries each, then
// partial_segment partial sums per level). Sizes on both sides of one
// segment and of one segment of segments, with the few "big" scalars at the
// ends and in the middle.
TEST(gpu_msm, BitHeavyScalarsAcrossSegmentSizes) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.BitHeavyScalarsAcrossSegmentSizes"));
  msm::gpu_msm_context ctx;
  const std::size_t t = cuzk::gpu::tuning::msm::bucket_segment;
  const std::size_t tt = t * cuzk::gpu::tuning::msm::partial_segment;
  for (const std::size_t n : {t - 1, t, t + 1, 2 * tt - 1, 2 * tt + 1, std::size_t(1) << 20, std::size_t(1) << 22}) {
    const std::span<const g1_affine> bases(pool().data(), n);
    std::vector<fr> scalars(n);
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned k = unsigned(rng() % 100);
      scalars[i] = k < 51 ? fr::zero() : k < 98 ? fr::one() : fr::random(rng);
    }
    scalars.front() = fr::random(rng);
    scalars.back() = fr::random(rng);
    ctx.upload_bases(bases);
    expect_same(ctx.run(scalars), msm::msm<fp>(bases, scalars), "bit-heavy n=" + std::to_string(n));
    // only ones, and only zeros and ones (no Pippenger part at all)
    for (std::size_t i = 0; i < n; ++i) scalars[i] = (rng() & 1) ? fr::one() : fr::zero();
    expect_same(ctx.run(scalars), msm::msm<fp>(bases, scalars), "0/1 only n=" + std::to_string(n));
  }
}

// The two scatter paths (msm_kernels.cuh): the direct one while a batch's
// entries fit a share of the L2, the partitioned one (bins of keys, then
// buckets) above it. CUZK_MSM_BIN_ENTRIES moves the threshold, so both run
// at small sizes: 1 entry per bin (as many bins as the shared counters
// allow), 37 (bins of a few keys, uneven), and 10^9 (direct at every size).
// Random scalars, the witness mix (one bin holding nearly every entry) and
// every scalar 1; the 2^27 linearity test below reaches the partitioned
// path in several stages per batch.
TEST(gpu_msm, PartitionedAndDirectScatterMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.PartitionedAndDirectScatterMatchCpu"));
  const cuzk::test::unset_env_at_exit restore("CUZK_MSM_BIN_ENTRIES");
  msm::gpu_msm_context ctx;
  for (const std::size_t n : {std::size_t(5), std::size_t(1) << 9, std::size_t(1) << 13, (std::size_t(1) << 17) + 3}) {
    const std::span<const g1_affine> bases(pool().data(), n);
    ctx.upload_bases(bases);
    auto random = cuzk::test::random_elements<fr>(n, rng);
    random[0] = fr::zero();
    random[n - 1] = -fr::one();
    std::vector<fr> witness(n), ones(n, fr::one());
    for (auto& k : witness) {
      const unsigned u = unsigned(rng() % 100);
      k = u < 51 ? fr::zero() : u < 97 ? fr::one() : fr::random(rng);
    }
    const g1_jacobian want_random = msm::msm<fp>(bases, random);
    const g1_jacobian want_witness = msm::msm<fp>(bases, witness);
    const g1_jacobian want_ones = msm::msm<fp>(bases, ones);
    for (const char* per_bin : {"1", "37", "1000000000"}) {
      setenv("CUZK_MSM_BIN_ENTRIES", per_bin, 1);
      const std::string at = " n=" + std::to_string(n) + " entries per bin " + per_bin;
      expect_same(ctx.run(random), want_random, "random" + at);
      expect_same(ctx.run(random, 9), want_random, "random c=9" + at);
      expect_same(ctx.run(witness, 0, msm::gpu_scalar_mix::mostly_binary), want_witness, "witness mix" + at);
      expect_same(ctx.run(ones), want_ones, "all one" + at);
    }
  }
}

// A pair buffer lent to the workspace (the Groth16 prover lends its free b
// vector to the H MSM): taken when it holds the MSM's pairs, so the
// workspace grows no pair buffer of its own, with the same results; one
// too small is passed over (the workspace grows its own), and after the
// loan ends the workspace grows its own again.
TEST(gpu_msm, LentPairBufferIsUsedWhenItFitsAndResultsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.LentPairBufferIsUsedWhenItFitsAndResultsMatchCpu"));
  const cuzk::test::unset_env_at_exit restore("CUZK_MSM_BIN_ENTRIES");
  setenv("CUZK_MSM_BIN_ENTRIES", "37", 1);  // partitioned at this size
  const std::size_t n = (std::size_t(1) << 15) + 7;
  const std::span<const g1_affine> bases(pool().data(), n);
  auto ws = std::make_shared<msm::gpu_msm_workspace>(0);
  msm::gpu_msm_context ctx(0, nullptr, ws);
  ctx.upload_bases(bases);
  const auto scalars = cuzk::test::random_elements<fr>(n, rng);
  const g1_jacobian want = msm::msm<fp>(bases, scalars);
  // every window's digits at once, 8 bytes each: more than enough
  cuzk::gpu::device_buffer<std::uint64_t> big(40 * n), small(16);
  ws->lend_pair_buffer(big.data(), big.bytes());
  expect_same(ctx.run(scalars), want, "lent buffer");
  const std::size_t with_loan = ws->bytes();
  ws->lend_pair_buffer(small.data(), small.bytes());
  expect_same(ctx.run(scalars), want, "lent buffer too small");
  const std::size_t own = ws->bytes();
  EXPECT_GT(own, with_loan) << "a loan that cannot hold the pairs is passed over: the workspace grows its own";
  ws->lend_pair_buffer(nullptr, 0);
  expect_same(ctx.run(scalars), want, "loan ended");
  EXPECT_THROW(ws->lend_pair_buffer(reinterpret_cast<char*>(big.data()) + 4, 64), std::invalid_argument);
}

// The batch-affine level 0 (msm_affine_kernels.cuh; off by default,
// tuning::msm::affine_by_default): CUZK_MSM_AFFINE forces it with each K at
// small sizes, so every K runs whatever the default. Besides random scalars: the additions a batch cannot take,
// done one by one with the complete formula (an accumulator at infinity
// after P + (-P), infinity bases, equal x: every base the same point, so
// every addition is a doubling, and P, -P pairs with equal scalars), the
// witness mix and all-equal scalars (one bucket per window holding every
// term).
void check_batch_affine(std::initializer_list<std::size_t> sizes, std::mt19937_64& rng) {
  const cuzk::test::unset_env_at_exit restore("CUZK_MSM_AFFINE");
  for (const std::size_t n : sizes) {
    std::vector<g1_affine> mixed(pool().begin(), pool().begin() + std::ptrdiff_t(n));
    auto random = cuzk::test::random_elements<fr>(n, rng);
    random[0] = fr::zero();
    random[n - 1] = -fr::one();
    if (n > 2) random[n / 2] = fr::one();
    std::vector<fr> pairs = random, equal(n, fr::random(rng)), witness(n);
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned u = unsigned(rng() % 100);
      witness[i] = u < 51 ? fr::zero() : u < 97 ? fr::one() : fr::random(rng);
      const unsigned b = unsigned(rng() % 16);
      if (b == 0) mixed[i] = g1_affine::identity();
      else if (b == 1 && i > 0) mixed[i] = mixed[rng() % i];
      else if (b == 2 && i > 0) mixed[i] = -mixed[i - 1], pairs[i] = pairs[i - 1];
    }
    const std::vector<g1_affine> same(n, pool()[11]);
    const std::span<const g1_affine> plain(pool().data(), n);
    struct case_t {
      const char* name;
      std::span<const g1_affine> bases;
      const std::vector<fr>* scalars;
      unsigned c;
      msm::gpu_scalar_mix mix = msm::gpu_scalar_mix::random;
    };
    // "witness plan": the L/A/B MSMs' mix, whose ones all sit in one bucket
    // (the forced affine level 0 takes it as the prover's witness MSMs would)
    const case_t cases[] = {
        {"random", plain, &random, 0},       {"random c=9", plain, &random, 9},
        {"mixed bases", mixed, &pairs, 0},   {"same base", same, &random, 0},
        {"witness mix", mixed, &witness, 0}, {"witness plan", mixed, &witness, 0, msm::gpu_scalar_mix::mostly_binary},
        {"all equal", plain, &equal, 0}};
    for (const case_t& cs : cases) {
      const g1_jacobian want = msm::msm<fp>(cs.bases, *cs.scalars);
      msm::gpu_msm_context ctx;
      ctx.upload_bases(cs.bases);
      for (const char* k : {"16", "32"}) {
        setenv("CUZK_MSM_AFFINE", k, 1);
        expect_same(ctx.run(*cs.scalars, cs.c, cs.mix), want,
                    std::string(cs.name) + " n=" + std::to_string(n) + " K=" + k);
      }
      setenv("CUZK_MSM_AFFINE", "0", 1);
      expect_same(ctx.run(*cs.scalars, cs.c, cs.mix), want,
                  std::string(cs.name) + " n=" + std::to_string(n) + " XYZZ level 0");
    }
  }
}

// The small sizes alone: the memcheck run's case.
TEST(gpu_msm, BatchAffineLevelZeroSmallMatchesCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.BatchAffineLevelZeroSmallMatchesCpu"));
  check_batch_affine({std::size_t(1), std::size_t(5), std::size_t(1) << 9}, rng);
}

TEST(gpu_msm, BatchAffineLevelZeroMatchesCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.BatchAffineLevelZeroMatchesCpu"));
  check_batch_affine({std::size_t(1) << 13, (std::size_t(1) << 17) + 3}, rng);
}

// Bases that live in device memory owned by someone else (parameters made
// on the GPU): used in place, kept alive by the owner handle.
TEST(gpu_msm, UsesDeviceBasesInPlace) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.UsesDeviceBasesInPlace"));
  const std::size_t n = std::size_t(1) << 16;
  const std::span<const g1_affine> bases(pool().data(), n);
  auto owner = std::make_shared<cuzk::gpu::device_buffer<g1_affine>>(n);
  owner->upload(bases.data(), n, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  msm::gpu_msm_context ctx;
  ctx.use_device_bases(owner, owner->data(), n);
  EXPECT_EQ(ctx.n_bases(), n);
  const g1_affine* raw = owner->data();
  owner.reset();  // the context's handle keeps the memory
  (void)raw;
  const auto scalars = cuzk::test::random_elements<fr>(n, rng);
  expect_same(ctx.run(scalars), msm::msm<fp>(bases, scalars), "device bases");
  EXPECT_THROW(ctx.run(std::vector<fr>(n + 1, fr::one())), std::invalid_argument);
  ctx.release_bases();
  EXPECT_EQ(ctx.n_bases(), std::size_t(0));
}

// Cross-sector batching: several scalar vectors over one stream of bases
// (one copy per chunk) give each vector's own MSM, for random, witness-like
// (mostly 0/1) and all-zero scalars, from pageable and pinned bases, with an
// uneven last chunk; an empty list gives nothing, a null vector is refused.
TEST(gpu_msm, StreamedBatchEqualsEachVectorsMsm) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.StreamedBatchEqualsEachVectorsMsm"));
  const std::size_t n = 70001, chunk = 16384;
  const std::span<const g1_affine> bases(pool().data(), n);
  std::vector<std::vector<fr>> scalars(3);
  scalars[0] = cuzk::test::random_elements<fr>(n, rng);
  scalars[1].assign(n, fr::zero());
  for (std::size_t i = 0; i < n; ++i) {
    const auto u = rng() % 100;
    scalars[1][i] = u < 2 ? fr::random(rng) : u < 45 ? fr::one() : fr::zero();
  }
  scalars[2].assign(n, fr::zero());
  std::vector<cuzk::gpu::device_buffer<fr>> d(3);
  std::vector<const fr*> ptrs;
  for (std::size_t v = 0; v < 3; ++v) {
    d[v] = cuzk::gpu::device_buffer<fr>(n);
    d[v].upload(scalars[v].data(), n, nullptr);
    ptrs.push_back(d[v].data());
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<g1_jacobian> want;
  for (const auto& v : scalars) want.push_back(msm::msm<fp>(bases, v));
  msm::gpu_msm_context ctx;
  for (const auto mix : {msm::gpu_scalar_mix::random, msm::gpu_scalar_mix::mostly_binary}) {
    const auto got = ctx.run_streamed_batch(bases, ptrs, chunk, 0, mix);
    ASSERT_EQ(got.size(), 3u);
    for (std::size_t v = 0; v < 3; ++v)
      expect_same(got[v], want[v], "vector " + std::to_string(v) + " of the batch, mix " + std::to_string(int(mix)));
  }
  {
    const auto pin = cuzk::gpu::pin_host_range(bases.data(), bases.size_bytes());
    const auto got = ctx.run_streamed_batch(bases, ptrs, chunk, 0, msm::gpu_scalar_mix::mostly_binary);
    for (std::size_t v = 0; v < 3; ++v) expect_same(got[v], want[v], "pinned bases, vector " + std::to_string(v));
  }
  EXPECT_TRUE(ctx.run_streamed_batch(bases, std::span<const fr* const>(), chunk).empty());
  const fr* with_null[2] = {ptrs[0], nullptr};
  EXPECT_THROW(ctx.run_streamed_batch(bases, with_null, chunk), std::invalid_argument);
}

// run_streamed holds every window's buckets across its chunks: later chunks
// add into them (level 0 starting from a bucket's sum, the later levels
// adding it to their total), buckets a chunk leaves empty keep theirs, and
// the window sums run once. Chunks from 1 term to more than n, an uneven
// last chunk, several windows, buckets split over several segments within
// one chunk (all scalars equal), both mixes, pageable and pinned bases.
TEST(gpu_msm, StreamedMsmHoldsItsBucketsAcrossChunks) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.StreamedMsmHoldsItsBucketsAcrossChunks"));
  const std::size_t n = 40003;
  const std::span<const g1_affine> bases(pool().data(), n);
  std::vector<std::pair<std::string, std::vector<fr>>> vectors;
  vectors.emplace_back("random", cuzk::test::random_elements<fr>(n, rng));
  {
    std::vector<fr> w(n);
    for (auto& x : w) {
      const auto u = rng() % 100;
      x = u < 2 ? fr::random(rng) : u < 47 ? fr::one() : u < 49 ? -fr::one() : fr::zero();
    }
    vectors.emplace_back("witness-like", std::move(w));
  }
  vectors.emplace_back("all equal", std::vector<fr>(n, fr::random(rng)));
  {
    // only the first chunk has non-zero scalars: every later chunk leaves
    // every bucket empty
    std::vector<fr> f(n, fr::zero());
    for (std::size_t i = 0; i < 5000; ++i) f[i] = fr::random(rng);
    vectors.emplace_back("first chunk only", std::move(f));
  }
  vectors.emplace_back("all zero", std::vector<fr>(n, fr::zero()));
  msm::gpu_msm_context ctx;
  for (const auto& [name, v] : vectors) {
    const g1_jacobian want = msm::msm<fp>(bases, v);
    cuzk::gpu::device_buffer<fr> d(n);
    d.upload(v.data(), n, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (const std::size_t chunk : {std::size_t(777), std::size_t(8192), n, 2 * n}) {
      for (const unsigned c : {0u, 8u, 13u})
        for (const auto mix : {msm::gpu_scalar_mix::random, msm::gpu_scalar_mix::mostly_binary}) {
          const std::string what = name + ", chunk " + std::to_string(chunk) + ", c " + std::to_string(c) + ", mix " +
                                   std::to_string(int(mix));
          expect_same(ctx.run_streamed(bases, d.data(), chunk, c, mix), want, what);
        }
    }
    // chunks of one and two terms over the first 61
    const g1_jacobian want61 = msm::msm<fp>(bases.first(61), std::span<const fr>(v).first(61));
    for (const std::size_t chunk : {std::size_t(1), std::size_t(2)})
      expect_same(ctx.run_streamed(bases.first(61), d.data(), chunk), want61,
                  name + ", 61 terms in chunks of " + std::to_string(chunk));
    const auto pin = cuzk::gpu::pin_host_range(bases.data(), bases.size_bytes());
    expect_same(ctx.run_streamed(bases, d.data(), 8192), want, name + ", pinned bases");
  }
}

// A held (streamed) MSM with the batch-affine level 0 forced: each chunk's
// sums are added to what the buckets hold (a chunk's accumulators, made
// affine, joined to the held XYZZ sums), over random scalars, scalars only
// in the first chunk (later chunks leave every bucket alone), and bases
// with infinity, repeats and P, -P pairs (the additions outside the batch).
TEST(gpu_msm, StreamedMsmWithBatchAffineLevelZero) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.StreamedMsmWithBatchAffineLevelZero"));
  const cuzk::test::unset_env_at_exit restore("CUZK_MSM_AFFINE");
  const std::size_t n = 30011;
  std::vector<g1_affine> mixed(pool().begin(), pool().begin() + std::ptrdiff_t(n));
  std::vector<fr> random = cuzk::test::random_elements<fr>(n, rng), first(n, fr::zero()), pairs = random;
  for (std::size_t i = 0; i < 4000; ++i) first[i] = random[i];
  for (std::size_t i = 1; i < n; ++i) {
    const unsigned b = unsigned(rng() % 16);
    if (b == 0) mixed[i] = g1_affine::identity();
    else if (b == 1) mixed[i] = mixed[rng() % i];
    else if (b == 2) mixed[i] = -mixed[i - 1], pairs[i] = pairs[i - 1];
  }
  const std::span<const g1_affine> plain(pool().data(), n);
  struct case_t {
    const char* name;
    std::span<const g1_affine> bases;
    const std::vector<fr>* scalars;
  };
  const case_t cases[] = {
      {"random", plain, &random}, {"first chunk only", plain, &first}, {"mixed bases", mixed, &pairs}};
  msm::gpu_msm_context ctx;
  for (const case_t& cs : cases) {
    const g1_jacobian want = msm::msm<fp>(cs.bases, *cs.scalars);
    cuzk::gpu::device_buffer<fr> d(n);
    d.upload(cs.scalars->data(), n, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (const char* k : {"16", "32"}) {
      setenv("CUZK_MSM_AFFINE", k, 1);
      for (const std::size_t chunk : {std::size_t(777), std::size_t(8192), n})
        expect_same(ctx.run_streamed(cs.bases, d.data(), chunk), want,
                    std::string(cs.name) + ", chunk " + std::to_string(chunk) + ", K=" + k);
    }
  }
}

// The streamed window: the width of all n terms, at most
// tuning::msm::streamed_window_extra bits above a chunk's default, never a
// width that takes as many windows as a narrower one; and the scratch the
// MSM reserves stays within gpu_msm_streamed_scratch_bytes.
TEST(gpu_msm, StreamedWindowAndScratch) {
  CUZK_REQUIRE_GPU();
  const std::size_t h = (std::size_t(1) << 27) - 1;  // the 32 GiB PoRep's H
  EXPECT_EQ(msm::gpu_streamed_window_bits(h, 5592405), 20u) << "a chunk's 18 + 2";
  EXPECT_EQ(msm::gpu_streamed_window_bits(h, 22369621), 22u) << "the whole MSM's default";
  EXPECT_EQ(msm::gpu_streamed_window_bits(h, h), msm::gpu_default_window_bits(h));
  for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(1) << 20, h})
    for (std::size_t chunk : {std::size_t(1), std::size_t(4096), std::size_t(1) << 22, h}) {
      const unsigned c = msm::gpu_streamed_window_bits(n, chunk);
      EXPECT_LE(c, msm::gpu_default_window_bits(n));
      EXPECT_LE(c, msm::gpu_default_window_bits(std::min(n, chunk)) + cuzk::gpu::tuning::msm::streamed_window_extra);
      EXPECT_NE((256 + c - 2) / (c - 1), (256 + c - 1) / c) << "c " << c << " takes as many windows as c - 1";
    }
  EXPECT_LT(msm::gpu_msm_streamed_scratch_bytes<fp>(h, 5592405, 19),
            msm::gpu_msm_streamed_scratch_bytes<fp>(h, 5592405, 20));
  EXPECT_EQ(msm::gpu_msm_streamed_scratch_bytes<fp>(0, 100), 0u);

  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.StreamedWindowAndScratch"));
  const std::size_t n = std::size_t(1) << 20, chunk = std::size_t(1) << 18;
  const std::span<const g1_affine> bases(pool().data(), n);
  const auto v = cuzk::test::random_elements<fr>(n, rng);
  cuzk::gpu::device_buffer<fr> d(n);
  d.upload(v.data(), n, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto ws = std::make_shared<msm::gpu_msm_workspace>(0);
  msm::gpu_msm_context ctx(0, nullptr, ws);
  expect_same(ctx.run_streamed(bases, d.data(), chunk), msm::msm<fp>(bases, v), "2^20 in chunks of 2^18");
  const std::size_t chunk_buffers = 2 * chunk * sizeof(g1_affine);
  EXPECT_LE(ws->bytes(), msm::gpu_msm_streamed_scratch_bytes<fp>(n, chunk) + chunk_buffers)
      << "the streamed MSM reserved more than its scratch estimate";
}

TEST(gpu_msm, OneShotEntryPoint) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.OneShotEntryPoint"));
  const std::size_t n = 5000;  // not a power of two
  const std::span<const g1_affine> bases(pool().data(), n);
  const auto scalars = cuzk::test::random_elements<fr>(n, rng);
  expect_same(msm::msm_gpu(bases, scalars), msm::msm<fp>(bases, scalars), "one-shot");
  expect_same(msm::msm_gpu(bases.first(0), std::span<const fr>()), g1_jacobian::identity(), "empty");
}

TEST(gpu_msm, RejectsBadArguments) {
  CUZK_REQUIRE_GPU();
  const std::span<const g1_affine> bases(pool().data(), 8);
  const std::vector<fr> scalars(7, fr::one());
  EXPECT_THROW(msm::msm_gpu(bases, scalars), std::invalid_argument);
  const std::vector<fr> eight(8, fr::one());
  EXPECT_THROW(msm::msm_gpu(bases, eight, {.window_bits = 1}), std::invalid_argument);
  EXPECT_THROW(msm::msm_gpu(bases, eight, {.window_bits = cuzk::gpu::tuning::msm::max_window + 1}),
               std::invalid_argument);
  msm::gpu_msm_context ctx;
  ctx.upload_bases(bases.first(4));
  EXPECT_THROW(ctx.run(eight), std::invalid_argument);
}

// Linearity at 2^27 terms (the H MSM's size for a 32 GiB PoRep partition):
// MSM(x + y) == MSM(x) + MSM(y) on the GPU alone (a CPU MSM of 2^27 terms
// would take minutes), bases = the 2^22 pool tiled 32 times in device
// memory (repeated bases are legal input), random scalars: every window
// batch, the 32-bit offsets and the level count of the largest size.
TEST(gpu_msm, LinearityAt2p27) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_msm.LinearityAt2p27"));
  const std::size_t n = std::size_t(1) << 27, m = pool().size();
  auto bases = std::make_shared<cuzk::gpu::device_buffer<g1_affine>>(n);
  for (std::size_t k = 0; k < n / m; ++k) bases->upload(pool().data(), m, nullptr, k * m);
  std::vector<fr> x(n), y(n), sum(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = fr::random(rng);
    y[i] = i % 3 == 0 ? fr::one() : fr::random(rng);  // ones too: the hot bucket
    sum[i] = x[i] + y[i];
  }
  msm::gpu_msm_context ctx;
  ctx.use_device_bases(bases, bases->data(), n);
  const g1_jacobian gx = ctx.run(x), gy = ctx.run(y), gs = ctx.run(sum);
  EXPECT_FALSE(gs.is_infinity());
  expect_same(gs, gx + gy, "linearity at 2^27");
}

}  // namespace
