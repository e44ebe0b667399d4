// SPDX-License-Identifier: Apache-2.0
// Fp6 and Fp12: field axioms on random elements, sparse products against full
// products, Frobenius maps against exponentiation by p, the derived Frobenius
// coefficients against published constants, and cyclotomic squaring against
// plain squaring on the cyclotomic subgroup.
#include <gtest/gtest.h>

#include <random>

#include <cuzk/ff/fp12.hpp>
#include <cuzk/ff/fp6.hpp>

#include "common/test_seed.hpp"

namespace {

using cuzk::ff::fp;
using cuzk::ff::fp12;
using cuzk::ff::fp2;
using cuzk::ff::fp6;
namespace detail = cuzk::ff::detail;

constexpr int kIters = 8;

fp mont(const detail::limbs<6>& raw) { return fp::from_raw(raw); }

// Easy part of the final exponentiation: f^((p^6 - 1)(p^2 + 1)) lies in the
// cyclotomic subgroup.
fp12 to_cyclotomic(const fp12& f) {
  const fp12 t = f.conjugate() * f.inverse();
  return t.frobenius_map(2) * t;
}

template <class F>
void check_field_axioms(std::mt19937_64& rng) {
  for (int i = 0; i < kIters; ++i) {
    const F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ((a + b) - b, a);
    EXPECT_EQ(a + (-a), F::zero());
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_EQ(a * F::one(), a);
    EXPECT_TRUE((a * F::zero()).is_zero());
    EXPECT_TRUE((a * a.inverse()).is_one());
    EXPECT_EQ(a.inverse().inverse(), a);
    // aliasing: the result written over an operand
    F d = a;
    d *= d;
    EXPECT_EQ(d, a.sqr());
  }
  EXPECT_TRUE(F::zero().inverse().is_zero());
  EXPECT_TRUE(F::one().inverse().is_one());
}

TEST(tower_test, fp6_field_axioms) {
  std::mt19937_64 rng(cuzk::test::test_seed("tower_test.fp6_field_axioms"));
  check_field_axioms<fp6>(rng);
}

TEST(tower_test, fp12_field_axioms) {
  std::mt19937_64 rng(cuzk::test::test_seed("tower_test.fp12_field_axioms"));
  check_field_axioms<fp12>(rng);
}

TEST(tower_test, fp6_nonresidue_and_sparse) {
  std::mt19937_64 rng(cuzk::test::test_seed("tower_test.fp6_nonresidue_and_sparse"));
  const fp6 v{fp2::zero(), fp2::one(), fp2::zero()};
  // v^3 = xi = u + 1
  EXPECT_EQ(v * v * v, (fp6{fp2{fp::one(), fp::one()}, fp2::zero(), fp2::zero()}));
  for (int i = 0; i < kIters; ++i) {
    const fp6 a = fp6::random(rng);
    const fp2 b0 = fp2::random(rng), b1 = fp2::random(rng), s = fp2::random(rng);
    EXPECT_EQ(a.mul_by_nonresidue(), a * v);
    EXPECT_EQ(a.mul_by_01(b0, b1), a * (fp6{b0, b1, fp2::zero()}));
    EXPECT_EQ(a.mul_by_1(b1), a * (fp6{fp2::zero(), b1, fp2::zero()}));
    EXPECT_EQ(a * s, a * (fp6{s, fp2::zero(), fp2::zero()}));
  }
}

TEST(tower_test, fp12_sparse_and_conjugate) {
  std::mt19937_64 rng(cuzk::test::test_seed("tower_test.fp12_sparse_and_conjugate"));
  const fp12 w{fp6::zero(), fp6::one()};
  // w^2 = v
  EXPECT_EQ(w.sqr(), (fp12{fp6{fp2::zero(), fp2::one(), fp2::zero()}, fp6::zero()}));
  for (int i = 0; i < kIters; ++i) {
    const fp12 a = fp12::random(rng);
    const fp2 d0 = fp2::random(rng), d1 = fp2::random(rng), d4 = fp2::random(rng);
    const fp12 line{fp6{d0, d1, fp2::zero()}, fp6{fp2::zero(), d4, fp2::zero()}};
    EXPECT_EQ(a.mul_by_014(d0, d1, d4), a * line);
    EXPECT_EQ(a.conjugate(), a.frobenius_map(6));
  }
}

// p as a little-endian limb array for pow.
constexpr detail::limbs<6> p_limbs = fp::modulus;

TEST(tower_test, frobenius_equals_pow_p) {
  std::mt19937_64 rng(cuzk::test::test_seed("tower_test.frobenius_equals_pow_p"));
  for (int i = 0; i < 3; ++i) {
    const fp6 a = fp6::random(rng);
    EXPECT_EQ(a.frobenius_map(1), a.pow(p_limbs));
    const fp12 f = fp12::random(rng);
    EXPECT_EQ(f.frobenius_map(1), f.pow(p_limbs));
  }
}

TEST(tower_test, frobenius_composition) {
  std::mt19937_64 rng(cuzk::test::test_seed("tower_test.frobenius_composition"));
  for (int i = 0; i < 3; ++i) {
    const fp6 a = fp6::random(rng);
    const fp12 f = fp12::random(rng);
    EXPECT_EQ(a.frobenius_map(6), a);
    EXPECT_EQ(a.frobenius_map(0), a);
    EXPECT_EQ(f.frobenius_map(12), f);
    EXPECT_EQ(f.frobenius_map(0), f);
    fp6 ak = a;
    fp12 fk = f;
    for (unsigned k = 1; k <= 12; ++k) {
      ak = ak.frobenius_map(1);
      fk = fk.frobenius_map(1);
      EXPECT_EQ(a.frobenius_map(k), ak) << "k=" << k;
      EXPECT_EQ(f.frobenius_map(k), fk) << "k=" << k;
      for (unsigned j = 0; j < 12; ++j) {
        EXPECT_EQ(f.frobenius_map(j).frobenius_map(k), f.frobenius_map(j + k)) << j << "," << k;
      }
    }
    // Frobenius is a ring homomorphism
    const fp12 g = fp12::random(rng);
    EXPECT_EQ((f * g).frobenius_map(3), f.frobenius_map(3) * g.frobenius_map(3));
  }
}

// Published constants, zkcrypto/bls12_381 (commit 6bb9695), Montgomery limbs:
// src/fp6.rs Fp6::frobenius_map: (u + 1)^((p - 1)/3) and (u + 1)^((2p - 2)/3);
// src/fp12.rs Fp12::frobenius_map: (u + 1)^((p - 1)/6).
TEST(tower_test, frobenius_coefficients_match_published) {
  const auto& t = detail::fp6_frobenius();
  EXPECT_TRUE(t.c1[1].c0.is_zero());
  EXPECT_EQ(t.c1[1].c1, mont({0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e,
                              0x03f97d6e83d050d2, 0x18f0206554638741}));
  EXPECT_EQ(t.c2[1].c0, mont({0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c, 0xa20d1b8c7e881024,
                              0x14e4f04fe2db9068, 0x14e56d3f1564853a}));
  EXPECT_TRUE(t.c2[1].c1.is_zero());
  const fp2 g1 = detail::xi_frobenius_powers()[1];
  EXPECT_EQ(g1.c0, mont({0x07089552b319d465, 0xc6695f92b50a8313, 0x97e83cccd117228f, 0xa35baecab2dc29ee,
                         0x1ce393ea5daace4d, 0x08f2220fb0fb66eb}));
  EXPECT_EQ(g1.c1, mont({0xb2f66aad4ce5d646, 0x5842a06bfc497cec, 0xcf4895d42599d394, 0xc11b9cba40a8e8d0,
                         0x2e3813cbe5a0de89, 0x110eefda88847faf}));
  // gamma_6 = xi^((p^6-1)/6) = -1 (w^(p^6) = -w), gamma_k^6 = xi^(p^k - 1).
  EXPECT_EQ(detail::xi_frobenius_powers()[6], -fp2::one());
  const fp2 xi{fp::one(), fp::one()};
  for (unsigned k = 1; k < 12; ++k) {
    const fp2 g = detail::xi_frobenius_powers()[k];
    fp2 xi_pk = xi;
    for (unsigned j = 0; j < k; ++j) xi_pk = xi_pk.conjugate();
    EXPECT_EQ(g.sqr() * g.sqr() * g.sqr() * xi, xi_pk) << "k=" << k;
  }
  // The constexpr maker and the runtime table agree (evaluated at compile time).
  static_assert(detail::make_xi_frobenius_powers()[1].c1.l[0] == 0xb2f66aad4ce5d646);
}

TEST(tower_test, cyclotomic_sqr_equals_sqr) {
  std::mt19937_64 rng(cuzk::test::test_seed("tower_test.cyclotomic_sqr_equals_sqr"));
  for (int i = 0; i < kIters; ++i) {
    const fp12 g = to_cyclotomic(fp12::random(rng));
    // in G_{Phi_12}: g^(p^4 - p^2 + 1) = 1, and the inverse is the conjugate
    EXPECT_EQ(g.frobenius_map(4) * g, g.frobenius_map(2));
    EXPECT_EQ(g.conjugate(), g.inverse());
    EXPECT_EQ(g.cyclotomic_sqr(), g.sqr());
    EXPECT_EQ(g.cyclotomic_sqr().cyclotomic_sqr(), g.sqr().sqr());
    EXPECT_EQ(g.cyclotomic_pow_x_abs(), g.pow(detail::limbs<1>{0xd201000000010000}));
    EXPECT_EQ(g.cyclotomic_pow_x() * g.cyclotomic_pow_x_abs(), fp12::one());
  }
  EXPECT_EQ(fp12::one().cyclotomic_sqr(), fp12::one());
}

}  // namespace
