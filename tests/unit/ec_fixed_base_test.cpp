// SPDX-License-Identifier: Apache-2.0
// Fixed-base tables (ec/fixed_base.hpp): mul() and the batch-affine
// mul_many() against the plain double-and-add scalar multiplication, for
// both window sizes the setups use (8: the GPU table; 13: the CPU setup,
// whose windows straddle the 64-bit limbs of the scalar).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/fixed_base.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::ec;
using cuzk::ff::fr;

/// 2^e as a field element.
fr pow2(unsigned e) {
  fr v = fr::one();
  for (unsigned i = 0; i < e; ++i) v = v + v;
  return v;
}

/// The edge scalars (0, 1, r - 1, r - 2, digits at their extremes, values
/// whose low windows are all zero, so the first addition comes late), then
/// random ones up to |n| in all.
std::vector<fr> test_scalars(std::mt19937_64& rng, unsigned window_bits, std::size_t n) {
  const fr minus_one = fr::zero() - fr::one();
  // clang-format off
  std::vector<fr> k = {fr::zero(), fr::one(), fr::from_uint(2), minus_one, minus_one - fr::one(),
                       pow2(window_bits) - fr::one(), pow2(window_bits), pow2(254), pow2(254) + fr::one()};
  // clang-format on
  for (unsigned e = window_bits; e < 255; e += window_bits) k.push_back(pow2(e));
  while (k.size() < n) k.push_back(fr::random(rng));
  return k;
}

template <class F, unsigned C>
void check_table(const char* name, std::size_t n) {
  std::mt19937_64 rng(cuzk::test::test_seed(name));
  const jacobian<F> g = jacobian<F>::generator();
  const fixed_base_table<F, C> table(g);
  const std::vector<fr> k = test_scalars(rng, C, n);
  std::vector<affine<F>> got(k.size());
  table.mul_many(k, got);
  for (std::size_t i = 0; i < k.size(); ++i) {
    const affine<F> want = mul(g, k[i]).to_affine();  // double-and-add, no table
    ASSERT_EQ(got[i], want) << "mul_many, scalar #" << i;
    ASSERT_EQ(table.mul(k[i]).to_affine(), want) << "mul, scalar #" << i;
  }
  EXPECT_TRUE(got[0].is_infinity()) << "0 * G must come back as x = y = 0";
  EXPECT_EQ(got[1], g.to_affine());
  EXPECT_EQ(got[3], (-g).to_affine());
}

// more scalars than one batch (1024), so a second, partial batch runs too
TEST(fixed_base, g1_window_8) { check_table<cuzk::ff::fp, 8>("fixed_base.g1_window_8", 1300); }
TEST(fixed_base, g2_window_8) { check_table<cuzk::ff::fp2, 8>("fixed_base.g2_window_8", 300); }
TEST(fixed_base, g1_window_13) { check_table<cuzk::ff::fp, 13>("fixed_base.g1_window_13", 1300); }
TEST(fixed_base, g2_window_13) { check_table<cuzk::ff::fp2, 13>("fixed_base.g2_window_13", 300); }

TEST(fixed_base, size_mismatch_throws) {
  const fixed_base_table<cuzk::ff::fp> table(g1_jacobian::generator());
  std::vector<fr> k(3, fr::one());
  std::vector<g1_affine> out(2);
  EXPECT_THROW(table.mul_many(k, out), std::invalid_argument);
}

}  // namespace
