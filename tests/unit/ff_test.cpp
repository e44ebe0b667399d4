// SPDX-License-Identifier: Apache-2.0
// Fp and Fr: fast path against the portable 32-bit reference, special values,
// algebraic properties, conversions.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/portable_arith.hpp>

#include "common/test_seed.hpp"

namespace {

using cuzk::ff::fp;
using cuzk::ff::fr;
namespace detail = cuzk::ff::detail;

template <class F>
class field_test : public ::testing::Test {};
using field_types = ::testing::Types<fp, fr>;
TYPED_TEST_SUITE(field_test, field_types);

// Values that exercise carries and the final subtraction: 0, 1, 2, p-1, p-2,
// R mod p, R^2 mod p, (p-1)/2, and limbs at 0 / all-ones below the top limb.
template <class F>
std::vector<F> special_values() {
  using L = typename F::limbs;
  std::vector<L> raw;
  raw.push_back(L{});
  raw.push_back(F::one().raw());
  raw.push_back(F::r2_mod_p);
  raw.push_back(detail::sub_small(F::modulus, 1));
  raw.push_back(detail::sub_small(F::modulus, 2));
  raw.push_back(detail::shr(detail::sub_small(F::modulus, 1), 1));
  L one_limb{};
  one_limb[0] = 1;
  raw.push_back(one_limb);
  L ones{};
  for (std::size_t i = 0; i + 1 < F::n_limbs; ++i) ones[i] = ~std::uint64_t(0);
  raw.push_back(ones);
  for (std::size_t k = 0; k < F::n_limbs; ++k) {
    L single{};
    single[k] = k + 1 < F::n_limbs ? ~std::uint64_t(0) : F::modulus[k] - 1;
    raw.push_back(single);
    L bit{};
    bit[k] = std::uint64_t(1) << 63 >> (k + 1 == F::n_limbs ? 8 : 0);
    raw.push_back(bit);
  }
  std::vector<F> out;
  for (auto& r : raw) out.push_back(F::from_raw(r));  // all below p by construction
  return out;
}

template <class F>
F reference_mul(const F& a, const F& b) {
  F r;
  detail::portable_mul_mont_32<F::n_limbs>(r.l, a.l, b.l, F::modulus.data(), F::n0);
  return r;
}
template <class F>
F generic_mul(const F& a, const F& b) {
  F r;
  detail::mul_mont_generic<F::n_limbs>(r.l, a.l, b.l, F::modulus.data(), F::n0);
  return r;
}
template <class F>
bool below_modulus(const F& a) {
  return !detail::geq(a.raw(), F::modulus);
}

TYPED_TEST(field_test, fast_paths_match_portable_reference_on_special_values) {
  using F = TypeParam;
  std::printf("adx path in use: %s\n", detail::use_adx ? "yes" : "no");
  auto vals = special_values<F>();
  for (auto& a : vals) {
    for (auto& b : vals) {
      const F ref = reference_mul(a, b);
      ASSERT_EQ(a * b, ref);
      ASSERT_EQ(generic_mul(a, b), ref);
      ASSERT_TRUE(below_modulus(a * b));
    }
    ASSERT_EQ(a.sqr(), reference_mul(a, a));
  }
}

TYPED_TEST(field_test, fast_paths_match_portable_reference_on_a_million_random_inputs) {
  using F = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("fast-vs-portable"));
  constexpr int n = 1'000'000;
  for (int i = 0; i < n; ++i) {
    const F a = F::random(rng), b = F::random(rng);
    const F ref = reference_mul(a, b);
    ASSERT_EQ(a * b, ref) << "iteration " << i;
    ASSERT_EQ(generic_mul(a, b), ref) << "iteration " << i;
    ASSERT_EQ(a.sqr(), reference_mul(a, a)) << "iteration " << i;
  }
}

TYPED_TEST(field_test, ring_laws_and_special_values) {
  using F = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("ring-laws"));
  for (int i = 0; i < 2000; ++i) {
    const F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    ASSERT_EQ(a + b, b + a);
    ASSERT_EQ(a * b, b * a);
    ASSERT_EQ((a + b) + c, a + (b + c));
    ASSERT_EQ((a * b) * c, a * (b * c));
    ASSERT_EQ(a * (b + c), a * b + a * c);
    ASSERT_EQ(a - a, F::zero());
    ASSERT_EQ(a + (-a), F::zero());
    ASSERT_EQ(a.dbl(), a + a);
    ASSERT_EQ(a.half().dbl(), a);
    ASSERT_EQ(a * F::one(), a);
    ASSERT_EQ(a * F::zero(), F::zero());
    ASSERT_TRUE(below_modulus(a + b) && below_modulus(a - b) && below_modulus(-a));
    // aliasing: result written over an operand
    F x = a;
    x *= x;
    ASSERT_EQ(x, a.sqr());
    x = a;
    x += x;
    ASSERT_EQ(x, a.dbl());
  }
  EXPECT_EQ(-F::zero(), F::zero());
  EXPECT_EQ(F::one() + (-F::one()), F::zero());
  // p-1 = -1
  EXPECT_EQ(F::from_canonical_unchecked(detail::sub_small(F::modulus, 1)), -F::one());
}

TYPED_TEST(field_test, inverse_pow_legendre_sqrt) {
  using F = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("inverse-sqrt"));
  EXPECT_EQ(F::zero().inverse(), F::zero());
  EXPECT_EQ(F::one().inverse(), F::one());
  EXPECT_EQ(F::zero().legendre(), 0);
  int squares = 0;
  for (int i = 0; i < 200; ++i) {
    const F a = F::random(rng);
    ASSERT_EQ(a * a.inverse(), F::one());
    ASSERT_EQ(a.pow(std::uint64_t(5)), a * a * a * a * a);
    // Fermat: a^(p-1) = 1
    ASSERT_TRUE(a.pow(detail::sub_small(F::modulus, 1)).is_one());
    const F sq = a.sqr();
    ASSERT_EQ(sq.legendre(), 1);
    auto s = sq.sqrt();
    ASSERT_TRUE(s.has_value());
    ASSERT_EQ(s->sqr(), sq);
    const int leg = a.legendre();
    auto r = a.sqrt();
    ASSERT_EQ(r.has_value(), leg == 1);
    squares += leg == 1;
  }
  EXPECT_GT(squares, 50);
  EXPECT_LT(squares, 150);
  // the non-residue declared in the parameters really is one
  EXPECT_EQ(F::from_uint(F::n_limbs == 6 ? cuzk::ff::fp_params::quadratic_nonresidue
                                         : cuzk::ff::fr_params::quadratic_nonresidue)
                .legendre(),
            -1);
}

TYPED_TEST(field_test, canonical_conversions_round_trip_and_reject_non_canonical) {
  using F = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("conversions"));
  std::uint8_t buf[F::n_bytes];
  for (int i = 0; i < 1000; ++i) {
    const F a = F::random(rng);
    a.to_bytes_le(buf);
    ASSERT_EQ(F::from_bytes_le(buf).value(), a);
    a.to_bytes_be(buf);
    ASSERT_EQ(F::from_bytes_be(buf).value(), a);
    ASSERT_EQ(F::from_canonical(a.to_canonical()).value(), a);
  }
  EXPECT_EQ(F::from_uint(1), F::one());
  EXPECT_EQ(F::from_uint(12345).to_canonical()[0], 12345u);
  EXPECT_FALSE(F::from_canonical(F::modulus).has_value());
  typename F::limbs all_ones;
  all_ones.fill(~std::uint64_t(0));
  EXPECT_FALSE(F::from_canonical(all_ones).has_value());
}

TEST(fr, two_adicity_and_root_of_unity) {
  // 7^((r-1)/2^32) has order exactly 2^32.
  constexpr auto t = detail::shr(detail::sub_small(fr::modulus, 1), 32);
  fr w = fr::from_uint(cuzk::ff::fr_params::multiplicative_generator).pow(t);
  fr x = w;
  for (int i = 0; i < 31; ++i) x = x.sqr();
  EXPECT_EQ(x, -fr::one());
  EXPECT_TRUE(x.sqr().is_one());
  EXPECT_EQ(fr::from_uint(7).legendre(), -1);
}

TEST(fp, known_answer_bytes) {
  // 2^-1 mod p has a known big-endian encoding: (p+1)/2.
  const fp half = fp::from_uint(2).inverse();
  std::uint8_t be[48];
  half.to_bytes_be(be);
  auto expect = detail::shr(detail::add_small(fp::modulus, 1), 1);
  EXPECT_EQ(fp::limbs_from_be(be), expect);
  EXPECT_EQ(fp::from_uint(2).legendre(), -1);
}

}  // namespace
