// SPDX-License-Identifier: Apache-2.0
// GPU NTT (cuzk/ntt/ntt_gpu.hpp) against the CPU NTT (cuzk/ntt/ntt.hpp), bit
// for bit: ntt, intt, coset_ntt, coset_intt at every size 2^0..2^24
// (host-span flavour), every ordering the GPU uses at every size 2^1..2^24
// (DIF natural -> bit-reversed and DIT bit-reversed -> natural, forward and
// inverse, device flavour on a non-default stream), bit_reverse, the
// pointwise steps, the whole h = (a*b - c)/Z computation (both flavours),
// the six-transform h (no c) against the seven-transform h and the CPU on
// satisfied random systems, round trips, and argument errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/ntt/ntt.hpp>
#include <cuzk/ntt/ntt_gpu.hpp>

#include "common/test_seed.hpp"
#include "gpu/gpu_test_util.hpp"

namespace {

using cuzk::ff::fr;
using cuzk::ntt::evaluation_domain;
namespace ntt = cuzk::ntt;
namespace gpu = cuzk::gpu;
using cuzk::test::random_elements;

/// Largest size the sweeps test: 2^24, or CUZK_NTT_TEST_LG_MAX (small
/// sizes only under compute-sanitizer).
unsigned lg_max_tested() {
  if (const char* e = std::getenv("CUZK_NTT_TEST_LG_MAX"); e && *e) return unsigned(std::atoi(e));
  return 24;
}

std::vector<unsigned> test_sizes() {
  std::vector<unsigned> lgs;
  for (unsigned lg = 0; lg <= lg_max_tested(); ++lg) lgs.push_back(lg);
  return lgs;
}

#define EXPECT_SAME_VECTORS(gpu_v, cpu_v, what, lg)                                              \
  do {                                                                                           \
    const std::size_t at_ = cuzk::test::first_mismatch(gpu_v, cpu_v);                            \
    EXPECT_EQ(at_, (cpu_v).size()) << (what) << " at 2^" << lg << ": first mismatch at " << at_; \
  } while (0)

TEST(gpu_ntt, TransformsMatchCpuEverySize) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_ntt.TransformsMatchCpuEverySize"));
  for (const unsigned lg : test_sizes()) {
    const auto dom = evaluation_domain::from_lg(lg);
    const std::vector<fr> input = random_elements<fr>(dom.size(), rng);
    struct named {
      const char* name;
      void (*cpu)(const evaluation_domain&, std::span<fr>);
      void (*gpu_fn)(const evaluation_domain&, std::span<fr>, const ntt::gpu_config&);
    };
    const named ops[] = {{"ntt", ntt::ntt, ntt::ntt_gpu},
                         {"intt", ntt::intt, ntt::intt_gpu},
                         {"coset_ntt", ntt::coset_ntt, ntt::coset_ntt_gpu},
                         {"coset_intt", ntt::coset_intt, ntt::coset_intt_gpu}};
    for (const auto& o : ops) {
      std::vector<fr> want = input, got = input;
      o.cpu(dom, want);
      o.gpu_fn(dom, got, {});
      EXPECT_SAME_VECTORS(got, want, o.name, lg);
    }
  }
}

TEST(gpu_ntt, BuildingBlocksMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_ntt.BuildingBlocksMatchCpu"));
  gpu::stream s;
  const ntt::gpu_config cfg{0, s.get()};
  for (const unsigned lg : {1u, 2u, 3u, 5u, 9u, 10u, 11u, 12u, 16u, 19u, 20u, 21u}) {
    const auto dom = evaluation_domain::from_lg(lg);
    const std::size_t n = dom.size();
    const std::vector<fr> input = random_elements<fr>(n, rng);
    gpu::device_buffer<fr> d(n);
    std::vector<fr> got(n);
    for (const bool inverse : {false, true}) {
      std::vector<fr> want = input;
      ntt::dif_nr(dom, want, inverse ? ntt::direction::inverse : ntt::direction::forward);
      d.upload(input.data(), n, s);
      ntt::dif_nr_gpu(dom, ntt::device_ptr{d.data()}, inverse, cfg);
      d.download(got.data(), n, s);
      s.synchronize();
      EXPECT_SAME_VECTORS(got, want, inverse ? "dif_nr inverse" : "dif_nr forward", lg);
    }
    std::vector<fr> want = input;
    ntt::bit_reverse(want);
    d.upload(input.data(), n, s);
    ntt::bit_reverse_gpu(dom, ntt::device_ptr{d.data()}, cfg);
    d.download(got.data(), n, s);
    s.synchronize();
    EXPECT_SAME_VECTORS(got, want, "bit_reverse", lg);

    // device flavour of every transform, on the same stream
    for (int which = 0; which < 4; ++which) {
      std::vector<fr> w = input;
      d.upload(input.data(), n, s);
      const ntt::device_ptr p{d.data()};
      switch (which) {
        case 0: ntt::ntt(dom, w), ntt::ntt_gpu(dom, p, cfg); break;
        case 1: ntt::intt(dom, w), ntt::intt_gpu(dom, p, cfg); break;
        case 2: ntt::coset_ntt(dom, w), ntt::coset_ntt_gpu(dom, p, cfg); break;
        default: ntt::coset_intt(dom, w), ntt::coset_intt_gpu(dom, p, cfg); break;
      }
      d.download(got.data(), n, s);
      s.synchronize();
      EXPECT_SAME_VECTORS(got, w, "device-flavour transform", lg);
    }
  }
}

TEST(gpu_ntt, OrderingsMatchCpuEverySize) {
  // DIF (natural -> bit-reversed, dif_nr) and DIT (bit-reversed -> natural:
  // ntt(bit_reverse(x)), n intt(bit_reverse(x))), both directions.
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_ntt.OrderingsMatchCpuEverySize"));
  gpu::stream s;
  const ntt::gpu_config cfg{0, s.get()};
  for (unsigned lg = 1; lg <= lg_max_tested(); ++lg) {
    const auto dom = evaluation_domain::from_lg(lg);
    const std::size_t n = dom.size();
    const std::vector<fr> input = random_elements<fr>(n, rng);
    gpu::device_buffer<fr> d(n);
    std::vector<fr> got(n);
    for (const bool dit : {false, true})
      for (const bool inverse : {false, true}) {
        std::vector<fr> want = input;
        if (!dit) {
          ntt::dif_nr(dom, want, inverse ? ntt::direction::inverse : ntt::direction::forward);
        } else {
          ntt::bit_reverse(want);
          if (inverse) {
            ntt::intt(dom, want);
            const fr nn = fr::from_uint(std::uint64_t(n));
            for (auto& v : want) v = v * nn;
          } else {
            ntt::ntt(dom, want);
          }
        }
        d.upload(input.data(), n, s);
        if (dit) ntt::dit_rn_gpu(dom, ntt::device_ptr{d.data()}, inverse, cfg);
        else ntt::dif_nr_gpu(dom, ntt::device_ptr{d.data()}, inverse, cfg);
        d.download(got.data(), n, s);
        s.synchronize();
        EXPECT_SAME_VECTORS(
            got, want, dit ? (inverse ? "dit inverse" : "dit forward") : (inverse ? "dif inverse" : "dif forward"), lg);
      }
  }
}

TEST(gpu_ntt, PointwiseStepsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_ntt.PointwiseStepsMatchCpu"));
  for (const unsigned lg : {0u, 1u, 7u, 16u, 20u}) {
    const auto dom = evaluation_domain::from_lg(lg);
    const std::size_t n = dom.size();
    const auto a = random_elements<fr>(n, rng), b = random_elements<fr>(n, rng), c = random_elements<fr>(n, rng);
    std::vector<fr> want = a, got = a;
    ntt::divide_by_z_on_coset(dom, want);
    ntt::divide_by_z_on_coset_gpu(dom, got);
    EXPECT_SAME_VECTORS(got, want, "divide_by_z_on_coset", lg);
    want = a, got = a;
    ntt::mul_sub(want, b, c);
    ntt::mul_sub_gpu(got, b, c);
    EXPECT_SAME_VECTORS(got, want, "mul_sub", lg);
  }
}

/// The CPU prover's sequence (src/groth16/prover.cpp compute_h, before the
/// final resize).
std::vector<fr> cpu_h(const evaluation_domain& dom, std::vector<fr> a, std::vector<fr> b, std::vector<fr> c) {
  for (auto* v : {&a, &b, &c}) {
    ntt::intt(dom, *v);
    ntt::coset_ntt(dom, *v);
  }
  ntt::mul_sub(a, b, c);
  ntt::divide_by_z_on_coset(dom, a);
  ntt::coset_intt(dom, a);
  return a;
}

TEST(gpu_ntt, ComputeHMatchesCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_ntt.ComputeHMatchesCpu"));
  for (const unsigned lg : test_sizes()) {
    const auto dom = evaluation_domain::from_lg(lg);
    const std::size_t n = dom.size();
    const auto a = random_elements<fr>(n, rng), b = random_elements<fr>(n, rng), c = random_elements<fr>(n, rng);
    const std::vector<fr> want = cpu_h(dom, a, b, c);
    std::vector<fr> got = a;
    ntt::compute_h_gpu(dom, got, b, c);
    EXPECT_SAME_VECTORS(got, want, "compute_h (host)", lg);
  }
}

TEST(gpu_ntt, ComputeHSatisfiedSystemHasZeroTopCoefficient) {
  // a, b, c evaluations of a satisfied system (c = a*b pointwise): A*B - C
  // vanishes on H, so h has degree <= n - 2 and its top coefficient is zero.
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_ntt.ComputeHSatisfied"));
  for (const unsigned lg : {1u, 4u, 12u, 18u}) {
    const auto dom = evaluation_domain::from_lg(lg);
    const std::size_t n = dom.size();
    const auto a = random_elements<fr>(n, rng), b = random_elements<fr>(n, rng);
    std::vector<fr> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
    gpu::stream s;
    gpu::device_buffer<fr> d_a(n), d_b(n), d_c(n);
    d_a.upload(a.data(), n, s);
    d_b.upload(b.data(), n, s);
    d_c.upload(c.data(), n, s);
    ntt::compute_h_gpu(dom, ntt::device_ptr{d_a.data()}, ntt::device_ptr{d_b.data()}, ntt::device_ptr{d_c.data()},
                       ntt::gpu_config{0, s.get()});
    std::vector<fr> got(n);
    d_a.download(got.data(), n, s);
    s.synchronize();
    EXPECT_TRUE(got[n - 1].is_zero()) << "2^" << lg;
    EXPECT_SAME_VECTORS(got, cpu_h(dom, a, b, c), "compute_h (device)", lg);
  }
}

TEST(gpu_ntt, SixTransformHEqualsSevenTransformH) {
  // Satisfied random systems (a, b random, c = a o b): the six-transform h
  // (no c) equals the seven-transform h (GPU, device flavour) and the CPU
  // prover's h, all n coefficients (the top one zero).
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_ntt.SixTransformHEqualsSevenTransformH"));
  gpu::stream s;
  const ntt::gpu_config cfg{0, s.get()};
  for (const unsigned lg : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 9u, 10u, 11u, 12u, 13u, 16u, 17u, 19u, 20u, 21u, 22u}) {
    if (lg > lg_max_tested()) continue;
    const auto dom = evaluation_domain::from_lg(lg);
    const std::size_t n = dom.size();
    auto a = random_elements<fr>(n, rng), b = random_elements<fr>(n, rng);
    if (n >= 4) {  // zero-padded rows, as the prover has them
      for (std::size_t i = n - n / 4; i < n; ++i) a[i] = b[i] = fr::zero();
    }
    std::vector<fr> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
    gpu::device_buffer<fr> d_a(n), d_b(n), d_c(n);
    std::vector<fr> seven(n), six(n);
    d_a.upload(a.data(), n, s);
    d_b.upload(b.data(), n, s);
    d_c.upload(c.data(), n, s);
    ntt::compute_h_gpu(dom, ntt::device_ptr{d_a.data()}, ntt::device_ptr{d_b.data()}, ntt::device_ptr{d_c.data()}, cfg);
    d_a.download(seven.data(), n, s);
    d_a.upload(a.data(), n, s);
    d_b.upload(b.data(), n, s);
    CUZK_CUDA_CHECK(cudaMemsetAsync(d_c.data(), 0xA5, n * sizeof(fr), s.get()));  // poison
    ntt::compute_h_from_ab_gpu(dom, ntt::device_ptr{d_a.data()}, ntt::device_ptr{d_b.data()},
                               ntt::device_ptr{d_c.data()}, cfg);
    d_a.download(six.data(), n, s);
    s.synchronize();
    EXPECT_SAME_VECTORS(six, seven, "six-transform h vs seven-transform h", lg);
    EXPECT_TRUE(six[n - 1].is_zero()) << "2^" << lg;
    if (lg <= 20) {
      EXPECT_SAME_VECTORS(six, cpu_h(dom, a, b, c), "six-transform h vs CPU h", lg);
    }
    if (lg == 13) {  // host flavour
      std::vector<fr> h = a;
      ntt::compute_h_from_ab_gpu(dom, h, b);
      EXPECT_SAME_VECTORS(h, seven, "six-transform h (host)", lg);
    }
  }
}

TEST(gpu_ntt, RoundTrips) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(cuzk::test::test_seed("gpu_ntt.RoundTrips"));
  for (const unsigned lg : {1u, 8u, 13u, 21u}) {
    const auto dom = evaluation_domain::from_lg(lg);
    const auto a = random_elements<fr>(dom.size(), rng);
    std::vector<fr> v = a;
    ntt::ntt_gpu(dom, v);
    ntt::intt_gpu(dom, v);
    EXPECT_TRUE(v == a) << "intt(ntt(a)) at 2^" << lg;
    ntt::coset_ntt_gpu(dom, v);
    ntt::coset_intt_gpu(dom, v);
    EXPECT_TRUE(v == a) << "coset_intt(coset_ntt(a)) at 2^" << lg;
  }
}

TEST(gpu_ntt, RejectsBadArguments) {
  CUZK_REQUIRE_GPU();
  const auto dom = evaluation_domain::from_lg(4);
  std::vector<fr> wrong(15, fr::one());
  EXPECT_THROW(ntt::ntt_gpu(dom, wrong), std::invalid_argument);
  EXPECT_THROW(ntt::intt_gpu(dom, ntt::device_ptr{nullptr}), std::invalid_argument);
  std::vector<fr> a(16, fr::one()), b(16, fr::one()), c(8, fr::one());
  EXPECT_THROW(ntt::mul_sub_gpu(a, b, c), std::invalid_argument);
}

}  // namespace
