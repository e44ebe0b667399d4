// SPDX-License-Identifier: Apache-2.0
// Optimal ate pairing: the known value of e(G1, G2) published by
// zkcrypto/bls12_381, bilinearity with random scalars, non-degeneracy, order r
// of the result, inverses, multi-pairing against products of single
// pairings, and infinity on either side.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/pairing.hpp>

#include "common/test_seed.hpp"

namespace {

using cuzk::ec::g1_affine;
using cuzk::ec::g2_affine;
using cuzk::ec::gt;
using cuzk::ff::fp;
using cuzk::ff::fr;
namespace ec = cuzk::ec;

g1_affine g1_mul(const fr& k) { return ec::mul(ec::g1_generator(), k).to_affine(); }
g2_affine g2_mul(const fr& k) { return ec::mul(ec::g2_generator(), k).to_affine(); }

// e(G1, G2) as published by zkcrypto/bls12_381 (commit 6bb9695): the
// Montgomery limbs of Gt::generator() in src/pairings.rs, whose comment says
// "pairing(&G1Affine::generator(), &G2Affine::generator())" and which is
// checked by the test test_gt_generator in the same file. Same tower, same
// coefficient order and the same Montgomery radix 2^384, so the limbs compare
// directly. Order: c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1.
constexpr std::array<std::array<std::uint64_t, 6>, 12> kGtGenerator{{
    {0x1972e433a01f85c5, 0x97d32b76fd772538, 0xc8ce546fc96bcdf9, 0xcef63e7366d40614, 0xa611342781843780,
     0x13f3448a3fc6d825},
    {0xd26331b02e9d6995, 0x9d68a482f7797e7d, 0x9c9b29248d39ea92, 0xf4801ca2e13107aa, 0xa16c0732bdbcb066,
     0x083ca4afba360478},
    {0x59e261db0916b641, 0x2716b6f4b23e960d, 0xc8e55b10a0bd9c45, 0x0bdb0bd99c4deda8, 0x8cf89ebf57fdaac5,
     0x12d6b7929e777a5e},
    {0x5fc85188b0e15f35, 0x34a06e3a8f096365, 0xdb3126a6e02ad62c, 0xfc6f5aa97d9a990b, 0xa12f55f5eb89c210,
     0x1723703a926f8889},
    {0x93588f2971828778, 0x43f65b8611ab7585, 0x3183aaf5ec279fdf, 0xfa73d7e18ac99df6, 0x64e176a6a64c99b0,
     0x179fa78c58388f1f},
    {0x672a0a11ca2aef12, 0x0d11b9b52aa3f16b, 0xa44412d0699d056e, 0xc01d0177221a5ba5, 0x66e0cede6c735529,
     0x05f5a71e9fddc339},
    {0xd30a88a1b062c679, 0x5ac56a5d35fc8304, 0xd0c834a6a81f290d, 0xcd5430c2da3707c7, 0xf0c27ff780500af0,
     0x09245da6e2d72eae},
    {0x9f2e0676791b5156, 0xe2d1c8234918fe13, 0x4c9e459f3c561bf4, 0xa3e85e53b9d3e3c1, 0x820a121e21a70020,
     0x15af618341c59acc},
    {0x7c95658c24993ab1, 0x73eb38721ca886b9, 0x5256d749477434bc, 0x8ba41902ea504a8b, 0x04a3d3f80c86ce6d,
     0x18a64a87fb686eaa},
    {0xbb83e71bb920cf26, 0x2a5277ac92a73945, 0xfc0ee59f94f046a0, 0x7158cdf3786058f7, 0x7cc1061b82f945f6,
     0x03f847aa9fdbe567},
    {0x8078dba56134e657, 0x1cd7ec9a43998a6e, 0xb1aa599a1a993766, 0xc9a0f62f0842ee44, 0x8e159be3b605dffa,
     0x0c86ba0d4af13fc2},
    {0xe80ff2a06a52ffb1, 0x7694ca48721a906c, 0x7583183e03b08514, 0xf567afdd40cee4e2, 0x9a6d96d2e526a5fc,
     0x197e9f49861f2242},
}};

gt gt_from_limbs(const std::array<std::array<std::uint64_t, 6>, 12>& v) {
  std::array<fp, 12> c;
  for (std::size_t i = 0; i < 12; ++i) c[i] = fp::from_raw(v[i]);
  gt r;
  r.c0.c0 = {c[0], c[1]};
  r.c0.c1 = {c[2], c[3]};
  r.c0.c2 = {c[4], c[5]};
  r.c1.c0 = {c[6], c[7]};
  r.c1.c1 = {c[8], c[9]};
  r.c1.c2 = {c[10], c[11]};
  return r;
}

TEST(pairing_test, known_answer_generators) {
  const gt e = ec::pairing(ec::g1_generator(), ec::g2_generator());
  EXPECT_EQ(e, gt_from_limbs(kGtGenerator));
}

TEST(pairing_test, non_degenerate_and_order_r) {
  const gt e = ec::pairing(ec::g1_generator(), ec::g2_generator());
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(fr::modulus).is_one());
  // in the cyclotomic subgroup: the inverse is the conjugate
  EXPECT_TRUE((e * e.conjugate()).is_one());
}

TEST(pairing_test, bilinearity) {
  std::mt19937_64 rng(cuzk::test::test_seed("pairing_test.bilinearity"));
  for (int i = 0; i < 2; ++i) {
    const fr a = fr::random(rng), b = fr::random(rng);
    const g1_affine p = g1_mul(fr::random(rng));
    const g2_affine q = g2_mul(fr::random(rng));
    const gt e = ec::pairing(p, q);
    const gt e_ab = ec::pairing(ec::mul(p, a).to_affine(), ec::mul(q, b).to_affine());
    EXPECT_EQ(e_ab, e.pow((a * b).to_canonical()));
    EXPECT_EQ(e_ab, ec::pairing(ec::mul(p, a * b).to_affine(), q));
    EXPECT_EQ(e_ab, ec::pairing(p, ec::mul(q, a * b).to_affine()));
    // additivity in each argument
    const g1_affine p2 = g1_mul(fr::random(rng));
    const g1_affine p_sum = (ec::g1_jacobian::from_affine(p) + ec::g1_jacobian::from_affine(p2)).to_affine();
    EXPECT_EQ(ec::pairing(p_sum, q), e * ec::pairing(p2, q));
  }
}

TEST(pairing_test, negation_gives_inverse) {
  std::mt19937_64 rng(cuzk::test::test_seed("pairing_test.negation_gives_inverse"));
  const g1_affine p = g1_mul(fr::random(rng));
  const g2_affine q = g2_mul(fr::random(rng));
  EXPECT_TRUE((ec::pairing(-p, q) * ec::pairing(p, q)).is_one());
  EXPECT_TRUE((ec::pairing(p, -q) * ec::pairing(p, q)).is_one());
  EXPECT_EQ(ec::pairing(-p, -q), ec::pairing(p, q));
  const std::array<g1_affine, 2> ps{p, -p};
  const std::array<g2_affine, 2> qs{q, q};
  EXPECT_TRUE(ec::multi_pairing(ps, qs).is_one());
}

TEST(pairing_test, multi_pairing_equals_product) {
  std::mt19937_64 rng(cuzk::test::test_seed("pairing_test.multi_pairing_equals_product"));
  for (std::size_t n : {1u, 3u, 4u}) {
    std::vector<g1_affine> ps;
    std::vector<g2_affine> qs;
    gt product = gt::one();
    for (std::size_t i = 0; i < n; ++i) {
      ps.push_back(g1_mul(fr::random(rng)));
      qs.push_back(g2_mul(fr::random(rng)));
      product *= ec::pairing(ps.back(), qs.back());
    }
    EXPECT_EQ(ec::multi_pairing(ps, qs), product) << "n=" << n;
    // the prepared path, as a verifier with a prepared key uses it
    std::vector<ec::g2_prepared> prepared;
    for (const auto& q : qs) prepared.emplace_back(q);
    std::vector<ec::miller_term> terms;
    for (std::size_t i = 0; i < n; ++i) terms.push_back({ps[i], &prepared[i]});
    EXPECT_EQ(ec::final_exponentiation(ec::miller_loop(terms)), product) << "n=" << n;
  }
  EXPECT_TRUE(ec::multi_pairing(std::span<const g1_affine>{}, std::span<const g2_affine>{}).is_one());
  const std::array<g1_affine, 2> two{ec::g1_generator(), ec::g1_generator()};
  const std::array<g2_affine, 1> one{ec::g2_generator()};
  EXPECT_THROW(ec::multi_pairing(two, one), std::invalid_argument);
}

TEST(pairing_test, infinity_gives_one) {
  std::mt19937_64 rng(cuzk::test::test_seed("pairing_test.infinity_gives_one"));
  const g1_affine p = g1_mul(fr::random(rng));
  const g2_affine q = g2_mul(fr::random(rng));
  EXPECT_TRUE(ec::pairing(g1_affine::identity(), q).is_one());
  EXPECT_TRUE(ec::pairing(p, g2_affine::identity()).is_one());
  EXPECT_TRUE(ec::pairing(g1_affine::identity(), g2_affine::identity()).is_one());
  const ec::g2_prepared inf_q(g2_affine::identity());
  EXPECT_TRUE(inf_q.is_infinity());
  EXPECT_TRUE(ec::miller_loop(p, inf_q).is_one());
  EXPECT_TRUE(ec::miller_loop(g1_affine::identity(), ec::g2_prepared(q)).is_one());
  // infinity terms inside a multi-pairing drop out
  const std::array<g1_affine, 3> ps{p, g1_affine::identity(), p};
  const std::array<g2_affine, 3> qs{g2_affine::identity(), q, q};
  EXPECT_EQ(ec::multi_pairing(ps, qs), ec::pairing(p, q));
}

}  // namespace
