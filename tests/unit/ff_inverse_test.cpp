// SPDX-License-Identifier: Apache-2.0
// mont_field::inverse() (variable-time divstep inversion) for Fp and Fr,
// against three oracles: known answers, the constant-time Fermat inverse on
// seeded random and edge inputs, and algebraic identities.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>

#include "common/test_seed.hpp"

namespace {

using cuzk::ff::fp;
using cuzk::ff::fr;
namespace detail = cuzk::ff::detail;

template <class F>
class field_inverse_test : public ::testing::Test {};
using field_types = ::testing::Types<fp, fr>;
TYPED_TEST_SUITE(field_inverse_test, field_types);

// The fast path is constexpr too: constant evaluation runs the same code.
static_assert((fp::from_uint(2).inverse() * fp::from_uint(2)).is_one());
static_assert((fr::from_uint(12345).inverse() * fr::from_uint(12345)).is_one());
static_assert(fp::zero().inverse().is_zero() && fr::zero().inverse().is_zero());

/// Canonical integer 2^k (k < bits).
template <class F>
typename F::limbs pow2(unsigned k) {
  typename F::limbs c{};
  c[k / 64] = std::uint64_t(1) << (k % 64);
  return c;
}

/// Edge inputs: 1, p-1, p-2, 2^k (as canonical values and as raw Montgomery
/// limbs), values with all but one limb zero, all-ones low limbs, R and R^-1
/// (raw limbs R^2 mod p and 1), (p-1)/2, (p+1)/2.
template <class F>
std::vector<F> edge_values() {
  using L = typename F::limbs;
  std::vector<F> out{F::one(), -F::one(), -F::from_uint(2), F::from_raw(F::r2_mod_p)};
  L one_raw{};
  one_raw[0] = 1;
  out.push_back(F::from_raw(one_raw));  // represents R^-1
  out.push_back(F::from_canonical_unchecked(detail::shr(detail::sub_small(F::modulus, 1), 1)));
  out.push_back(F::from_canonical_unchecked(detail::shr(detail::add_small(F::modulus, 1), 1)));
  for (unsigned k = 0; k < F::bits - 1; ++k) {
    out.push_back(F::from_canonical_unchecked(pow2<F>(k)));
    out.push_back(F::from_raw(pow2<F>(k)));  // raw 2^k < p
  }
  for (std::size_t i = 0; i < F::n_limbs; ++i) {
    L single{};
    single[i] = i + 1 < F::n_limbs ? ~std::uint64_t(0) : F::modulus[i] - 1;
    out.push_back(F::from_raw(single));
    out.push_back(F::from_canonical_unchecked(single));
    L low{};
    for (std::size_t j = 0; j <= i && j + 1 < F::n_limbs; ++j) low[j] = ~std::uint64_t(0);
    out.push_back(F::from_raw(low));
  }
  for (std::uint64_t v = 3; v < 300; ++v) out.push_back(F::from_uint(v));
  return out;
}

TYPED_TEST(field_inverse_test, known_answers) {
  using F = TypeParam;
  using L = typename F::limbs;
  // 0 -> 0, 1 -> 1, -1 -> -1 (identities).
  EXPECT_EQ(F::zero().inverse(), F::zero());
  EXPECT_EQ(F::one().inverse(), F::one());
  EXPECT_EQ((-F::one()).inverse(), -F::one());
  // 2^-1 = (p+1)/2, since 2 (p+1)/2 = p + 1.
  EXPECT_EQ(F::from_uint(2).inverse().to_canonical(), detail::shr(detail::add_small(F::modulus, 1), 1));
  // Montgomery constants (checked against published values in bls12_381.hpp):
  // raw R^2 mod p is the element R, raw 1 is R^-1; each is the other's inverse.
  L one_raw{};
  one_raw[0] = 1;
  EXPECT_EQ(F::from_raw(F::r2_mod_p).inverse().raw(), one_raw);
  EXPECT_EQ(F::from_raw(one_raw).inverse().raw(), F::r2_mod_p);
  // k^-1 = (m p + 1) / k for the m in [1, k) that makes it divide exactly.
  for (std::uint64_t k = 3; k < 200; ++k) {
    bool found = false;
    for (std::uint64_t m = 1; m < k && !found; ++m) {
      detail::limbs<F::n_limbs + 1> mp1{};  // one limb more: m p + 1 may exceed N limbs
      for (std::uint64_t j = 0; j < m; ++j) {
        detail::limbs<F::n_limbs + 1> pw{};
        for (std::size_t i = 0; i < F::n_limbs; ++i) pw[i] = F::modulus[i];
        detail::add_in_place(mp1, pw);
      }
      mp1 = detail::add_small(mp1, 1);
      const auto qr = detail::div_small(mp1, k);
      if (qr.r != 0) continue;
      found = true;
      ASSERT_EQ(qr.q[F::n_limbs], 0u);
      L expect{};
      for (std::size_t i = 0; i < F::n_limbs; ++i) expect[i] = qr.q[i];
      ASSERT_EQ(F::from_uint(k).inverse().to_canonical(), expect) << "k = " << k;
    }
    ASSERT_TRUE(found) << "k = " << k;
  }
}

TYPED_TEST(field_inverse_test, matches_fermat_on_edge_and_random_values) {
  using F = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("inverse-vs-fermat"));
  std::vector<F> vals = edge_values<F>();
  const std::size_t n_edge = vals.size();
  while (vals.size() < n_edge + 3000) vals.push_back(F::random(rng));
  for (std::size_t i = 0; i < vals.size(); ++i) {
    const F& a = vals[i];
    const F inv = a.inverse();
    ASSERT_FALSE(detail::geq(inv.raw(), F::modulus)) << "not fully reduced, value " << i;
    ASSERT_EQ(inv, a.inverse_fermat()) << "value " << i << (i < n_edge ? " (edge)" : " (random)");
  }
}

TYPED_TEST(field_inverse_test, algebraic_identities) {
  using F = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("inverse-identities"));
  for (int i = 0; i < 2000; ++i) {
    const F a = F::random(rng), b = F::random(rng);
    if (a.is_zero() || b.is_zero()) continue;
    const F ai = a.inverse();
    ASSERT_TRUE((a * ai).is_one());
    ASSERT_EQ(ai.inverse(), a);
    ASSERT_EQ((a * b).inverse(), ai * b.inverse());
    ASSERT_EQ((-a).inverse(), -ai);
  }
}

TYPED_TEST(field_inverse_test, s62_limb_conversion_round_trips) {
  using F = TypeParam;
  constexpr std::size_t M = detail::s62_len(F::n_limbs);
  std::mt19937_64 rng(cuzk::test::test_seed("s62"));
  for (int i = 0; i < 1000; ++i) {
    typename F::limbs a;
    for (auto& x : a) x = rng();
    std::int64_t v[M];
    detail::to_s62<F::n_limbs>(v, a);
    for (std::size_t j = 0; j < M; ++j) ASSERT_EQ(std::uint64_t(v[j]) >> 62, 0u);
    ASSERT_EQ(detail::from_s62<F::n_limbs>(v), a);
  }
}

}  // namespace
