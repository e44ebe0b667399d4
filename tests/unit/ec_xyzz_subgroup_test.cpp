// SPDX-License-Identifier: Apache-2.0
// xyzz bucket coordinates against Jacobian arithmetic (random points, random
// Z, infinity, P == Q, P == -Q); fast subgroup checks against the slow
// [r]P == O oracle on subgroup points, random curve points and pure cofactor
// torsion points; the endomorphism constants; GLV multiplication against mul();
// the G2 GLS decomposition and mul_gls (ec::mul on G2) against the generic wNAF.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/subgroup.hpp>
#include <cuzk/ec/xyzz.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::ec;
using cuzk::ff::fp;
using cuzk::ff::fp2;
using cuzk::ff::fr;
namespace fd = cuzk::ff::detail;

template <class F>
F curve_rhs(const F& x) {
  return x.sqr() * x + curve_params<F>::b();
}

// A random point on the curve, cofactor not cleared.
template <class F, class Rng>
affine<F> random_curve_point(Rng& rng) {
  for (;;) {
    const F x = F::random(rng);
    if (const auto y = curve_rhs(x).sqrt()) return {x, *y};
  }
}

template <class F, class Rng>
F random_nonzero(Rng& rng) {
  for (;;) {
    const F z = F::random(rng);
    if (!z.is_zero()) return z;
  }
}

// The same point in Jacobian coordinates with a random Z.
template <class F, class Rng>
jacobian<F> rescale(const jacobian<F>& p, Rng& rng) {
  if (p.is_infinity()) return p;
  const F z = random_nonzero<F>(rng);
  const F z2 = z.sqr();
  return {p.x * z2, p.y * z2 * z, p.z * z};
}

template <class F>
class xyzz_test : public ::testing::Test {};
using field_types = ::testing::Types<fp, fp2>;
TYPED_TEST_SUITE(xyzz_test, field_types);

TYPED_TEST(xyzz_test, matches_jacobian) {
  using F = TypeParam;
  using J = jacobian<F>;
  using X = xyzz<F>;
  using A = affine<F>;
  std::mt19937_64 rng(cuzk::test::test_seed("xyzz-vs-jacobian"));
  for (int i = 0; i < 24; ++i) {
    // subgroup points and plain curve points: the formulas hold on the whole curve
    const J p = i % 2 ? mul(J::generator(), fr::random(rng)) : J::from_affine(random_curve_point<F>(rng));
    const J q = i % 3 ? mul(J::generator(), fr::random(rng)) : J::from_affine(random_curve_point<F>(rng));
    const A pa = p.to_affine(), qa = q.to_affine();
    const X px = X::from_jacobian(rescale(p, rng)), qx = X::from_jacobian(rescale(q, rng));
    const X px2 = X::from_jacobian(rescale(p, rng));  // P again, other coordinates
    ASSERT_TRUE(px.is_on_curve() && qx.is_on_curve());
    ASSERT_EQ(px, px2);
    ASSERT_EQ(px.to_affine(), pa);
    ASSERT_EQ(px.to_jacobian(), p);
    ASSERT_EQ(X::from_affine(pa), px);

    const J sum = p + q, twice = p.dbl();
    ASSERT_EQ((px + qx).to_jacobian(), sum);
    ASSERT_EQ(X::add_unchecked(px, qx).to_jacobian(), sum);
    ASSERT_EQ(px.add_affine(qa).to_jacobian(), sum);
    ASSERT_EQ(px.add_affine_unchecked(qa).to_jacobian(), sum);
    ASSERT_EQ((px - qx).to_jacobian(), p - q);
    ASSERT_EQ(px.dbl().to_jacobian(), twice);
    ASSERT_EQ(X::dbl_affine(pa).to_jacobian(), twice);
    ASSERT_TRUE((px + qx).is_on_curve());
    ASSERT_TRUE(px.dbl().is_on_curve());

    // P == Q and P == -Q through the complete formulas
    ASSERT_EQ((px + px2).to_jacobian(), twice);
    ASSERT_EQ(px.add_affine(pa).to_jacobian(), twice);
    ASSERT_TRUE((px + (-px2)).is_infinity());
    ASSERT_TRUE(px.add_affine(-pa).is_infinity());
    X t = px;
    t -= pa;
    ASSERT_TRUE(t.is_infinity());

    // infinity on either side
    const X inf = X::identity();
    ASSERT_EQ(inf + px, px);
    ASSERT_EQ(px + inf, px);
    ASSERT_EQ(inf.add_affine(pa), px);
    ASSERT_EQ(px.add_affine(A::identity()), px);
    ASSERT_NE(px, inf);
  }
  const X inf = X::identity();
  ASSERT_TRUE(inf.dbl().is_infinity());
  ASSERT_TRUE(X::dbl_affine(A::identity()).is_infinity());
  ASSERT_TRUE((inf + inf).is_infinity());
  ASSERT_TRUE(inf.to_jacobian().is_infinity());
  ASSERT_TRUE(inf.to_affine().is_infinity());
  ASSERT_TRUE(X::from_jacobian(J::identity()).is_infinity());
  ASSERT_TRUE(X::from_affine(A::identity()).is_infinity());
  ASSERT_TRUE(inf.is_on_curve());
}

// A bucket: accumulating affine points with add_affine, then merging buckets
// with operator+, equals the Jacobian sum; includes repeats and cancellations.
TYPED_TEST(xyzz_test, bucket_accumulation) {
  using F = TypeParam;
  using J = jacobian<F>;
  using X = xyzz<F>;
  std::mt19937_64 rng(cuzk::test::test_seed("xyzz-bucket"));
  std::vector<affine<F>> pts;
  for (int i = 0; i < 24; ++i) pts.push_back(mul(J::generator(), fr::random(rng)).to_affine());
  pts.push_back(pts[3]);
  pts.push_back(-pts[5]);
  pts.push_back(affine<F>::identity());
  X b1 = X::identity(), b2 = X::identity();
  J ref = J::identity();
  for (std::size_t i = 0; i < pts.size(); ++i) {
    (i % 2 ? b1 : b2) += pts[i];
    ref += pts[i];
  }
  ASSERT_EQ((b1 + b2).to_jacobian(), ref);
  ASSERT_EQ((b1 + b2).to_affine(), ref.to_affine());
}

// ---- subgroup checks -------------------------------------------------------

TEST(ec_subgroup, endomorphism_constants) {
  const fp beta = g1_beta();
  EXPECT_FALSE(beta.is_one());
  EXPECT_TRUE((beta.sqr() * beta).is_one());
  const g1_jacobian g1 = g1_jacobian::generator();
  const g2_jacobian g2 = g2_jacobian::generator();
  EXPECT_EQ(phi(g1), -mul_by_x(mul_by_x(g1)));  // eigenvalue -x^2
  EXPECT_EQ(psi(g2), mul_by_x(g2));             // eigenvalue x
  EXPECT_EQ(phi(g1_affine::generator()), phi(g1).to_affine());
  EXPECT_EQ(psi(g2_affine::generator()), psi(g2).to_affine());
  // The definitions cx = (1+u)^-((p-1)/3), cy = (1+u)^-((p-1)/2), with
  // (1+u)^(p-1) = conj(1+u)/(1+u) since the p-power map is conjugation.
  const fp2 xi{fp::one(), fp::one()};
  const fp2 xi_p_minus_1 = xi.conjugate() * xi.inverse();  // xi^(p-1) = conj(xi)/xi
  EXPECT_EQ(g2_psi_coeff_x().pow(fd::limbs<1>{3}) * xi_p_minus_1, fp2::one());
  EXPECT_EQ(g2_psi_coeff_y().sqr() * xi_p_minus_1, fp2::one());
  // mul_by_x agrees with generic scalar multiplication by |x|, negated
  EXPECT_EQ(mul_by_x(g1), -mul_u64(g1, bls_x_abs));
  EXPECT_EQ(mul_by_x(g2), -mul_u64(g2, bls_x_abs));
  EXPECT_EQ(mul_by_x(g1_affine::generator()), mul_by_x(g1));
  EXPECT_TRUE(mul_by_x(g1_jacobian::identity()).is_infinity());
  EXPECT_TRUE(mul_by_x(g2_affine::identity()).is_infinity());
}

template <class F>
class subgroup_test : public ::testing::Test {};
TYPED_TEST_SUITE(subgroup_test, field_types);

TYPED_TEST(subgroup_test, agrees_with_slow_oracle) {
  using F = TypeParam;
  using J = jacobian<F>;
  std::mt19937_64 rng(cuzk::test::test_seed("subgroup-oracle"));
  const J g = J::generator();
  ASSERT_TRUE(is_in_subgroup(g) && is_in_subgroup(g.to_affine()));
  ASSERT_TRUE(is_in_subgroup(J::identity()) && is_in_subgroup(affine<F>::identity()));
  ASSERT_TRUE(is_in_subgroup_slow(J::identity()));
  for (int i = 0; i < 8; ++i) {
    const J p = rescale(mul(g, fr::random(rng)), rng);
    EXPECT_TRUE(is_in_subgroup_slow(p));
    EXPECT_TRUE(is_in_subgroup(p));
    EXPECT_TRUE(is_in_subgroup(p.to_affine()));
  }
  for (int i = 0; i < 6; ++i) {
    const affine<F> ra = random_curve_point<F>(rng);
    const J r = rescale(J::from_affine(ra), rng);
    // [r]R: a non-trivial point of the cofactor torsion only, the case a
    // membership test is most likely to get wrong
    const J torsion = mul(r, fr::modulus);
    const J mixed = torsion + mul(g, fr::random(rng));
    for (const J& q : {r, torsion, mixed}) {
      ASSERT_FALSE(q.is_infinity());
      const bool slow = is_in_subgroup_slow(q);
      EXPECT_FALSE(slow);
      EXPECT_EQ(is_in_subgroup(q), slow);
      EXPECT_EQ(is_in_subgroup(q.to_affine()), slow);
    }
  }
}

// ---- GLV -------------------------------------------------------------------

fr fr_from(const scalar_limbs<2>& k) { return fr::from_canonical_unchecked({k[0], k[1], 0, 0}); }

TEST(ec_glv, decomposition) {
  std::mt19937_64 rng(cuzk::test::test_seed("glv-decompose"));
  const fr x2 = fr_from(bls_x_squared);
  std::vector<fr> ks{fr::zero(), fr::one(), -fr::one(), x2, x2 - fr::one(), x2 + fr::one(), -x2};
  for (int i = 0; i < 64; ++i) ks.push_back(fr::random(rng));
  for (const fr& k : ks) {
    const glv_scalars s = glv_decompose(k.to_canonical());
    EXPECT_FALSE(fd::geq(s.k1, bls_x_squared));
    EXPECT_FALSE(fd::geq(s.k2, bls_x_squared));
    EXPECT_EQ(fr_from(s.k1) + fr_from(s.k2) * x2, k);
  }
}

TEST(ec_glv, matches_mul) {
  std::mt19937_64 rng(cuzk::test::test_seed("glv-mul"));
  const g1_jacobian g = g1_jacobian::generator();
  const fr x2 = fr_from(bls_x_squared);
  std::vector<fr> ks{fr::zero(), fr::one(), -fr::one(), x2, x2 - fr::one(), -x2, fr::from_uint(2), fr::from_uint(16)};
  for (int i = 0; i < 32; ++i) ks.push_back(fr::random(rng));
  for (int i = 0; i < 8; ++i) {
    const g1_jacobian p = rescale(mul(g, fr::random(rng)), rng);
    for (const fr& k : ks) {
      ASSERT_EQ(mul_glv(p, k), mul(p, k));
    }
    ASSERT_EQ(mul_glv(p.to_affine(), ks.back()), mul(p, ks.back()));
  }
  EXPECT_TRUE(mul_glv(g1_jacobian::identity(), fr::random(rng)).is_infinity());
  EXPECT_TRUE(mul_glv(g1_affine::identity(), fr::random(rng)).is_infinity());
}

// ---- GLS (G2) ----------------------------------------------------------------

fr fr_from_u64(std::uint64_t v) { return fr::from_canonical_unchecked({v, 0, 0, 0}); }

TEST(ec_gls, decomposition) {
  std::mt19937_64 rng(cuzk::test::test_seed("gls-decompose"));
  const fr ax = fr_from_u64(bls_x_abs);  // |x|
  const fr x = -ax;                      // the signed parameter
  const fr x2 = x * x, x3 = x2 * x;
  // clang-format off
  std::vector<fr> ks{fr::zero(), fr::one(), -fr::one(), fr::from_uint(2), x, -x, ax - fr::one(),
                     x2, x3, x2 * x2, x2 - fr::one(), x * fr::from_uint(3), x2 * fr::from_uint(5),
                     x3 * fr::from_uint(7), x + x2 + x3, fr::from_canonical_unchecked({0, 0, 0, 1})};
  // clang-format on
  for (int i = 0; i < 8; ++i) ks.push_back(x * fr::random(rng));  // multiples of x
  for (int i = 0; i < 256; ++i) ks.push_back(fr::random(rng));
  for (const fr& k : ks) {
    const gls_scalars s = gls_decompose(k.to_canonical());
    for (const std::uint64_t a : s.a) EXPECT_LT(a, bls_x_abs);
    const fr a0 = fr_from_u64(s.a[0]), a1 = fr_from_u64(s.a[1]), a2 = fr_from_u64(s.a[2]), a3 = fr_from_u64(s.a[3]);
    // base |x| and, equivalently, signed parts in base x
    EXPECT_EQ(a0 + a1 * ax + a2 * ax * ax + a3 * ax * ax * ax, k);
    EXPECT_EQ(a0 - a1 * x + a2 * x2 - a3 * x3, k);
  }
  // exact digits where they are known
  EXPECT_EQ(gls_decompose(fr::one().to_canonical()).a, (std::array<std::uint64_t, 4>{1, 0, 0, 0}));
  EXPECT_EQ(gls_decompose(ax.to_canonical()).a, (std::array<std::uint64_t, 4>{0, 1, 0, 0}));
  EXPECT_EQ(gls_decompose((ax * ax * ax).to_canonical()).a, (std::array<std::uint64_t, 4>{0, 0, 0, 1}));
  // r - 1 = x^4 - x^2: a3 = |x| - 1 is the largest top part
  EXPECT_EQ(gls_decompose((-fr::one()).to_canonical()).a,
            (std::array<std::uint64_t, 4>{0, 0, bls_x_abs - 1, bls_x_abs - 1}));
}

TEST(ec_gls, matches_generic_mul) {
  std::mt19937_64 rng(cuzk::test::test_seed("gls-mul"));
  const g2_jacobian g = g2_jacobian::generator();
  const fr ax = fr_from_u64(bls_x_abs);
  const fr x = -ax;
  // clang-format off
  std::vector<fr> ks{fr::zero(),          fr::one(),         -fr::one(),       fr::from_uint(2),
                     fr::from_uint(15),   fr::from_uint(16), fr::from_uint(17), x,
                     -x,                  ax - fr::one(),    ax + fr::one(),    x * x,
                     x * x * x,           x * x * x * x,     -fr::from_uint(2), x * fr::random(rng)};
  // clang-format on
  for (int i = 0; i < 24; ++i) ks.push_back(fr::random(rng));
  for (int i = 0; i < 6; ++i) {
    const g2_jacobian p = rescale(mul(g, fr::random(rng).to_canonical()), rng);
    for (const fr& k : ks) {
      const g2_jacobian expect = mul(p, k.to_canonical());  // generic wNAF, the reference
      ASSERT_EQ(mul_gls(p, k), expect);
      ASSERT_EQ(mul(p, k), expect);  // ec::mul on G2 is mul_gls
      ASSERT_TRUE(mul_gls(p, k).is_on_curve());
    }
    ASSERT_EQ(mul_gls(p.to_affine(), ks.back()), mul(p, ks.back().to_canonical()));
    ASSERT_EQ(mul(p.to_affine(), ks.back()), mul(p, ks.back().to_canonical()));
    ASSERT_TRUE(mul_gls(p, fr::zero()).is_infinity());
  }
  ASSERT_EQ(mul_gls(g, -fr::one()), -g);
  ASSERT_EQ(mul_gls(g, fr::one()), g);
  EXPECT_TRUE(mul_gls(g2_jacobian::identity(), fr::random(rng)).is_infinity());
  EXPECT_TRUE(mul_gls(g2_affine::identity(), fr::random(rng)).is_infinity());
  EXPECT_TRUE(mul(g2_jacobian::identity(), fr::random(rng)).is_infinity());
}

TEST(ec_gls, algebraic_laws) {
  std::mt19937_64 rng(cuzk::test::test_seed("gls-laws"));
  const g2_jacobian g = g2_jacobian::generator();
  for (int i = 0; i < 8; ++i) {
    const g2_jacobian p = rescale(mul(g, fr::random(rng)), rng);
    const fr a = fr::random(rng), b = fr::random(rng);
    ASSERT_EQ(mul_gls(mul_gls(p, b), a), mul_gls(p, a * b));
    ASSERT_EQ(mul_gls(p, a) + mul_gls(p, b), mul_gls(p, a + b));
    ASSERT_EQ(mul_gls(p, a) + mul_gls(p, -a), g2_jacobian::identity());
    ASSERT_EQ(psi(mul_gls(p, a)), mul_gls(psi(p), a));  // psi commutes with [a]
  }
}

}  // namespace
