// SPDX-License-Identifier: Apache-2.0
// CPU MSM against the naive sum of scalar multiplications, and closed forms.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <cuzk/msm/msm.hpp>

#include "common/random_points.hpp"
#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using ff::fr;

template <class J>
class msm_test : public ::testing::Test {};
using msm_types = ::testing::Types<ec::g1_jacobian, ec::g2_jacobian>;
TYPED_TEST_SUITE(msm_test, msm_types);

template <class J>
J naive(const std::vector<typename J::affine_type>& bases, const std::vector<fr>& scalars) {
  J acc = J::identity();
  for (std::size_t i = 0; i < bases.size(); ++i) acc += ec::mul(J::from_affine(bases[i]), scalars[i]);
  return acc;
}

TYPED_TEST(msm_test, equals_naive_sum_with_special_scalars_duplicates_and_infinity) {
  using J = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("msm-naive"));
  for (std::size_t n : {1u, 2u, 7u, 64u, 300u}) {
    auto bases = cuzk::test::random_points<J>(rng, n);
    std::vector<fr> scalars;
    for (std::size_t i = 0; i < n; ++i) scalars.push_back(fr::random(rng));
    if (n >= 7) {
      scalars[0] = fr::zero();
      scalars[1] = fr::one();
      scalars[2] = -fr::one();  // r - 1
      scalars[3] = fr::one();
      bases[4] = bases[5];  // duplicate point
      bases[6] = J::affine_type::identity();
    }
    const J expect = naive<J>(bases, scalars);
    for (unsigned c : {0u, 2u, 5u, 9u}) {
      for (bool split : {true, false}) {
        const msm::config cfg{.window_bits = c, .split_trivial_scalars = split};
        ASSERT_EQ((msm::msm<typename J::field>(bases, scalars, cfg)), expect)
            << "n=" << n << " c=" << c << " split=" << split;
      }
    }
  }
}

// Windows of at least 128 buckets fill them by batch-affine additions
// (src/cpu/affine_buckets.hpp): against the naive sum and the Jacobian
// buckets, with the additions a batch cannot take (a bucket twice in one
// batch, equal x: P + P and P + (-P), infinity bases) on purpose: all
// scalars equal (every term in one bucket per window), a repeated base with
// equal scalars, P / -P pairs, and random scalars with planted 0, 1, r - 1.
TYPED_TEST(msm_test, batch_affine_buckets_match_naive_and_jacobian) {
  using J = TypeParam;
  using A = typename J::affine_type;
  std::mt19937_64 rng(cuzk::test::test_seed("msm-batch-affine"));
  const std::size_t n = 1500;
  const auto bases = cuzk::test::random_points<J>(rng, n);
  std::vector<fr> random;
  for (std::size_t i = 0; i < n; ++i) random.push_back(fr::random(rng));
  random[0] = fr::zero(), random[1] = fr::one(), random[2] = -fr::one();
  std::vector<A> mixed = bases;
  std::vector<fr> pairs = random;
  for (std::size_t i = 3; i < n; ++i) {
    const unsigned k = unsigned(rng() % 8);
    if (k == 0) mixed[i] = A::identity();
    else if (k == 1) mixed[i] = mixed[i - 1], pairs[i] = pairs[i - 1];   // P + P in one bucket
    else if (k == 2) mixed[i] = -mixed[i - 1], pairs[i] = pairs[i - 1];  // P + (-P)
  }
  const std::vector<fr> equal(n, fr::random(rng));
  const std::vector<A> same(n, bases[5]);
  struct case_t {
    const char* name;
    const std::vector<A>* b;
    const std::vector<fr>* k;
  };
  for (const case_t& cs : {case_t{"random", &bases, &random}, case_t{"mixed bases", &mixed, &pairs},
                           case_t{"all equal", &bases, &equal}, case_t{"same base", &same, &random}}) {
    const J expect = naive<J>(*cs.b, *cs.k);
    for (unsigned c : {8u, 12u, 13u}) {
      for (bool batch : {true, false}) {
        const msm::config cfg{.window_bits = c, .batch_affine = batch};
        ASSERT_EQ((msm::msm<typename J::field>(*cs.b, *cs.k, cfg)), expect)
            << cs.name << " c=" << c << " batch_affine=" << batch;
      }
    }
  }
}

// The signed digits need a window above ceil(255/c) only when the top
// window is c bits wide (c = 15, 17: the top digit of r - 1 exceeds 2^(c-1)
// and borrows); at c = 16 the top window has 15 bits and no borrow can reach
// past it. Scalars that borrow in every window (each c-bit digit just above
// 2^(c-1)), r - 1, r - 2 and (r - 1) / 2, against the naive sum.
TEST(msm_windows, borrows_into_the_top_window_at_every_window_width_boundary) {
  using J = ec::g1_jacobian;
  std::mt19937_64 rng(cuzk::test::test_seed("msm-top-window"));
  const auto bases = cuzk::test::random_points<J>(rng, 40);
  for (unsigned c : {15u, 16u, 17u}) {
    std::vector<fr> scalars;
    const fr half = (-fr::one()) * fr::from_uint(2).inverse();
    for (const fr& k : {-fr::one(), -fr::from_uint(2), half}) scalars.push_back(k);
    // sum_w (2^(c-1) + 1) 2^(c w), reduced mod r by the field
    fr borrowing = fr::zero(), shift = fr::one();
    for (unsigned w = 0; w * c < 255; ++w) {
      borrowing += fr::from_uint((std::uint64_t(1) << (c - 1)) + 1) * shift;
      for (unsigned b = 0; b < c; ++b) shift = shift + shift;
    }
    scalars.push_back(borrowing);
    scalars.push_back(-borrowing);
    while (scalars.size() < bases.size()) scalars.push_back(fr::random(rng));
    const msm::config cfg{.window_bits = c};
    ASSERT_EQ((msm::msm<ff::fp>(bases, scalars, cfg)), naive<J>(bases, scalars)) << "c=" << c;
  }
}

TYPED_TEST(msm_test, sum_of_squares_closed_form) {
  // bases i*G, scalars i: result (sum i^2) * G = n(n+1)(2n+1)/6 * G
  using J = TypeParam;
  const std::size_t n = 2000;
  std::vector<typename J::affine_type> bases;
  std::vector<fr> scalars;
  J p = J::generator();
  for (std::size_t i = 1; i <= n; ++i) {
    bases.push_back(p.to_affine());
    scalars.push_back(fr::from_uint(i));
    p += J::generator();
  }
  const std::uint64_t total = n * (n + 1) * (2 * n + 1) / 6;
  EXPECT_EQ(msm::msm<typename J::field>(bases, scalars), ec::mul_u64(J::generator(), total));
}

TYPED_TEST(msm_test, density_selects_bases_by_rank) {
  using J = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("msm-density"));
  const std::size_t n_vars = 150;
  std::vector<std::uint64_t> words((n_vars + 63) / 64, 0);
  std::vector<fr> scalars;
  for (std::size_t i = 0; i < n_vars; ++i) {
    if (rng() % 3) words[i / 64] |= std::uint64_t(1) << (i % 64);
    scalars.push_back(i % 5 == 0 ? fr::one() : fr::random(rng));
  }
  const msm::density_view density{words, n_vars};
  auto bases = cuzk::test::random_points<J>(rng, density.count());
  J expect = J::identity();
  for (std::size_t i = 0, j = 0; i < n_vars; ++i) {
    if (!density.test(i)) continue;
    expect += ec::mul(J::from_affine(bases[j++]), scalars[i]);
  }
  EXPECT_EQ((msm::msm_dense<typename J::field>(bases, scalars, density)), expect);
  // wrong base count is an error, not a silent mismatch
  bases.pop_back();
  EXPECT_THROW((msm::msm_dense<typename J::field>(bases, scalars, density)), std::invalid_argument);
}

// Every base the same point, at a size where a window's side list (every
// addition: the bucket's x equals the base's) touches more buckets than one
// normalisation chunk (4096), so the side list's batch normalisation splits
// into parallel work inside an MSM task. A thread waiting there must not
// take another task of the same MSM, which would reset the bucket set it
// shares (seen as a wrong G1 MSM on a 16-core host, in the GPU test's CPU
// reference). Against (sum of the scalars) * P.
TEST(msm_windows, one_repeated_base_with_a_side_list_wider_than_a_normalisation_chunk) {
  using J = ec::g1_jacobian;
  std::mt19937_64 rng(cuzk::test::test_seed("msm-same-base-wide"));
  const std::size_t n = std::size_t(1) << 17;
  const auto base = cuzk::test::random_points<J>(rng, 1)[0];
  const std::vector<ec::g1_affine> same(n, base);
  std::vector<fr> scalars(n);
  fr sum = fr::zero();
  for (auto& k : scalars) {
    k = fr::random(rng);
    sum += k;
  }
  const J expect = ec::mul(J::from_affine(base), sum);
  // 16 threads whatever the machine has, as on the host where it was seen
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 16);
  tbb::task_arena arena(16);
  for (int round = 0; round < 5; ++round) {
    J got;
    arena.execute([&] { got = msm::msm<ff::fp>(same, scalars, msm::config{.window_bits = 14}); });
    ASSERT_EQ(got, expect) << "round " << round;
  }
}

}  // namespace
