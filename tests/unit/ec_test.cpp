// SPDX-License-Identifier: Apache-2.0
// G1/G2 group law and scalar multiplication: algebraic properties.
#include <gtest/gtest.h>

#include <random>

#include <cuzk/ec/bls12_381.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::ec;
using cuzk::ff::fr;

template <class J>
class group_test : public ::testing::Test {};
using group_types = ::testing::Types<g1_jacobian, g2_jacobian>;
TYPED_TEST_SUITE(group_test, group_types);

TYPED_TEST(group_test, generator_on_curve_and_group_laws) {
  using J = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("group-laws"));
  const J g = J::generator();
  ASSERT_TRUE(g.is_on_curve());
  ASSERT_TRUE(g.to_affine().is_on_curve());
  for (int i = 0; i < 20; ++i) {
    const fr a = fr::random(rng), b = fr::random(rng);
    const J p = mul(g, a), q = mul(g, b);
    ASSERT_TRUE(p.is_on_curve());
    ASSERT_EQ(p + q, q + p);
    ASSERT_EQ(p + q, mul(g, a + b));
    ASSERT_EQ(mul(p, b), mul(g, a * b));
    ASSERT_EQ(p + p, p.dbl());
    ASSERT_EQ(p.add_affine(q.to_affine()), p + q);
    ASSERT_EQ(p.add_affine(p.to_affine()), p.dbl());
    ASSERT_TRUE((p - p).is_infinity());
    ASSERT_TRUE(p.add_affine((-p).to_affine()).is_infinity());
    ASSERT_EQ(p + J::identity(), p);
    ASSERT_EQ(J::identity() + p, p);
    ASSERT_EQ(p.add_affine(J::identity().to_affine()), p);
    ASSERT_EQ(J::from_affine(p.to_affine()), p);
  }
  ASSERT_TRUE(J::identity().dbl().is_infinity());
  ASSERT_TRUE(J::identity().to_affine().is_infinity());
}

TYPED_TEST(group_test, order_of_generator_is_r) {
  using J = TypeParam;
  const J g = J::generator();
  ASSERT_TRUE(mul(g, fr::modulus).is_infinity());
  ASSERT_EQ(mul(g, cuzk::ff::detail::sub_small(fr::modulus, 1)), -g);
  ASSERT_TRUE(mul(g, fr::zero()).is_infinity());
  ASSERT_EQ(mul(g, fr::one()), g);
  ASSERT_EQ(mul_u64(g, 5), g.dbl().dbl() + g);
}

}  // namespace
