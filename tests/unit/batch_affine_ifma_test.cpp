// SPDX-License-Identifier: Apache-2.0
// The eight-lane batch-affine additions (src/cpu/batch_affine_ifma.hpp)
// against complete Jacobian additions, G1 and G2: batch lengths around the
// lane count (16, 17, 23, 64, 255, so the last group has empty lanes), the
// scratch reused by a shorter batch after a longer one, and q aliasing
// another pair's a (every read happens before any write, so the old value
// is added). Points are random multiples of the generator from a printed
// seed (CUZK_TEST_SEED replays); each pair adds q or -q at random.
// Skipped, with a message, without IFMA.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/jacobian.hpp>

#include "common/random_points.hpp"
#include "common/test_seed.hpp"
#include "cpu/batch_affine_ifma.hpp"

namespace {

using namespace cuzk;

template <class J>
class batch_affine_ifma : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!msm::detail::use_ifma_additions())
      GTEST_SKIP() << "IFMA additions off here (no AVX-512 IFMA, or CUZK_NO_IFMA set): nothing to compare";
  }
};
using point_types = ::testing::Types<ec::g1_jacobian, ec::g2_jacobian>;
TYPED_TEST_SUITE(batch_affine_ifma, point_types);

TYPED_TEST(batch_affine_ifma, matches_complete_additions) {
  using J = TypeParam;
  using A = typename J::affine_type;
  std::mt19937_64 rng(cuzk::test::test_seed("batch-affine-ifma"));
  const std::vector<A> pts = cuzk::test::random_points<J>(rng, 2 * 255 + 1);
  msm::detail::ifma_scratch scratch;
  for (std::size_t m : {255u, 16u, 17u, 23u, 64u}) {
    for (bool alias : {false, true}) {
      std::vector<A> acc(pts.begin(), pts.begin() + std::ptrdiff_t(m));
      std::vector<A> add(pts.begin() + 255, pts.begin() + 255 + std::ptrdiff_t(m));
      std::vector<A*> a;
      std::vector<const A*> q;
      for (std::size_t i = 0; i < m; ++i) {
        a.push_back(&acc[i]);
        q.push_back(&add[i]);
      }
      // pair i adds the a of pair i + 1 (its value from before the batch)
      if (alias)
        for (std::size_t i = 0; i + 1 < m; i += 3) q[i] = &acc[i + 1];
      std::vector<A> expect(m);
      std::vector<std::uint8_t> negate(m);
      for (std::size_t i = 0; i < m; ++i) negate[i] = std::uint8_t(rng() & 1);
      for (std::size_t i = 0; i < m; ++i)
        expect[i] = (J::from_affine(*a[i]) + J::from_affine(negate[i] ? -*q[i] : *q[i])).to_affine();
      msm::detail::batch_affine_apply_ifma(a.data(), q.data(), negate.data(), m, scratch);
      for (std::size_t i = 0; i < m; ++i) ASSERT_EQ(acc[i], expect[i]) << "m=" << m << " alias=" << alias << " i=" << i;
    }
  }
}

}  // namespace
