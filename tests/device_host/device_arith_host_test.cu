// SPDX-License-Identifier: Apache-2.0
// The device field code and the point formulas over it, run on the CPU:
// cuda_arith.cuh's host pass emulates each PTX carry instruction
// (mad.lo.cc, madc.hi, add.cc, subc, ...) with the carry flag in a
// thread_local, so gpu::fr_d / fp_d / fp2_d execute the device's limb
// routines step for step. Each operation is compared bit for bit with the
// host field (ff::mont_field, ff::fp2), on every pair of edge values and on
// seeded random ones (the seed is printed), and the XYZZ formulas of
// ec/xyzz.hpp instantiated with the device fields are compared with the
// same formulas over the host fields, edge cases (P + P, P - P, infinity)
// included. This checks the device arithmetic without a GPU; the gpu-label
// tests (tests/gpu/field_gpu_test.cu) still check what ptxas makes of it.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/jacobian.hpp>
#include <cuzk/ec/xyzz.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_fp2.cuh>

#include "common/field_special_values.hpp"
#include "common/random_points.hpp"
#include "common/test_seed.hpp"

namespace {

namespace gpu = cuzk::gpu;
namespace ec = cuzk::ec;
namespace ff = cuzk::ff;

/// The device type's bytes read as the host type (they are one layout).
template <class To, class From>
To same_bytes(const From& x) {
  static_assert(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<From>);
  To r;
  std::memcpy(static_cast<void*>(&r), &x, sizeof r);
  return r;
}

// Each emulated operation in a function of its own: inlined into one test
// body they make a function GCC takes many minutes to optimise.
template <class D>
__noinline__ D mul_of(const D& a, const D& b) {
  return a * b;
}
template <class D>
__noinline__ D sqr_of(const D& a) {
  return a.sqr();
}
template <class D>
__noinline__ D add_of(const D& a, const D& b) {
  return a + b;
}
template <class D>
__noinline__ D sub_of(const D& a, const D& b) {
  return a - b;
}
template <class D>
__noinline__ D neg_of(const D& a) {
  return -a;
}
template <class D>
__noinline__ D mul_sub_of(const D& a, const D& b, const D& c, const D& d) {
  using ec::mul_sub;  // the device overloads win where they exist, as in xyzz
  return mul_sub(a, b, c, d);
}
template <class D>
__noinline__ bool equal_of(const D& a, const D& b) {
  return a == b;
}
template <class D>
__noinline__ bool is_zero_of(const D& a) {
  return a.is_zero();
}

template <class F, class D>
void check_field_ops(const char* name, std::size_t n_random) {
  std::mt19937_64 rng(cuzk::test::test_seed(name));
  const std::vector<F> sp = cuzk::test::field_specials<F>();
  std::vector<F> a, b;
  for (const F& x : sp)
    for (const F& y : sp) a.push_back(x), b.push_back(y);
  for (std::size_t i = 0; i < n_random; ++i) {
    a.push_back(F::random(rng));
    b.push_back(i % 16 == 0 ? a.back() : F::random(rng));  // a*a, a-a, a+a
  }
  std::size_t bad = 0;
  auto expect_same = [&](const char* op, std::size_t i, const D& got, const F& want) {
    if (same_bytes<F>(got) == want) return;
    if (bad++ < 5) ADD_FAILURE() << name << " " << op << " differs at input " << i;
  };
  EXPECT_TRUE(same_bytes<F>(D::one()) == F::one());
  EXPECT_TRUE(same_bytes<F>(D::zero()) == F::zero());
  const std::size_t n = a.size();
  for (std::size_t i = 0; i < n; ++i) {
    const D x = same_bytes<D>(a[i]), y = same_bytes<D>(b[i]);
    // the second product of mul_sub: every third equals the first (a
    // result of exactly 0), the others neighbouring inputs
    const F c = i % 3 == 0 ? b[i] : a[(i + 1) % n], d = i % 3 == 0 ? a[i] : b[(i + 2) % n];
    expect_same("mul", i, mul_of(x, y), a[i] * b[i]);
    expect_same("sqr", i, sqr_of(x), a[i].sqr());
    expect_same("add", i, add_of(x, y), a[i] + b[i]);
    expect_same("sub", i, sub_of(x, y), a[i] - b[i]);
    expect_same("neg", i, neg_of(x), -a[i]);
    expect_same("mul_sub", i, mul_sub_of(x, y, same_bytes<D>(c), same_bytes<D>(d)), a[i] * b[i] - c * d);
    if (equal_of(x, y) != (a[i] == b[i]) || is_zero_of(x) != a[i].is_zero()) {
      if (bad++ < 5) ADD_FAILURE() << name << " == / is_zero differ at input " << i;
    }
  }
  EXPECT_EQ(bad, 0u) << "mismatches of " << n << " inputs";
}

TEST(device_arith_on_host, fr_matches_the_host_field) { check_field_ops<ff::fr, gpu::fr_d>("device-host-fr", 20000); }
TEST(device_arith_on_host, fp_matches_the_host_field) { check_field_ops<ff::fp, gpu::fp_d>("device-host-fp", 20000); }
TEST(device_arith_on_host, fp2_matches_the_host_field) {
  check_field_ops<ff::fp2, gpu::fp2_d>("device-host-fp2", 5000);
}

template <class X, class A>
__noinline__ X add_affine_of(const X& p, const A& q) {
  return p.add_affine(q);
}
template <class X, class A>
__noinline__ X add_affine_unchecked_of(const X& p, const A& q) {
  return p.add_affine_unchecked(q);
}
template <class X>
__noinline__ X add_xyzz_of(const X& p, const X& q) {
  return p + q;
}
template <class X>
__noinline__ X dbl_of(const X& p) {
  return p.dbl();
}

/// XYZZ over the device field D against XYZZ over the host field F: mixed
/// additions (complete and unchecked), XYZZ additions and doublings on a
/// running sum of random points, then the edge cases.
template <class J, class D>
void check_point_formulas(const char* name, std::size_t steps) {
  using F = typename J::affine_type::field;
  using host_xyzz = ec::xyzz<F>;
  using dev_xyzz = ec::xyzz<D>;
  using dev_affine = ec::affine<D>;
  std::mt19937_64 rng(cuzk::test::test_seed(name));
  const auto pts = cuzk::test::random_points<J>(rng, steps + 1);
  std::size_t bad = 0;
  auto expect_same = [&](const char* op, std::size_t i, const dev_xyzz& got, const host_xyzz& want) {
    if (std::memcmp(&got, &want, sizeof want) == 0) return;
    if (bad++ < 5) ADD_FAILURE() << name << " " << op << " differs at step " << i;
  };
  host_xyzz h = host_xyzz::from_affine(pts[0]);
  dev_xyzz d = same_bytes<dev_xyzz>(h);
  for (std::size_t i = 1; i <= steps; ++i) {
    const dev_affine q = same_bytes<dev_affine>(pts[i]);
    switch (i % 4) {
      case 0:
        h = h.add_affine(pts[i]), d = add_affine_of(d, q);
        expect_same("add_affine", i, d, h);
        break;
      case 1:
        h = h.add_affine_unchecked(pts[i]), d = add_affine_unchecked_of(d, q);
        expect_same("add_affine_unchecked", i, d, h);
        break;
      case 2: {
        const host_xyzz hq = host_xyzz::from_affine(pts[i]).dbl();
        h = h + hq, d = add_xyzz_of(d, same_bytes<dev_xyzz>(hq));
        expect_same("dbl then +", i, d, h);
        break;
      }
      default: h = h.dbl(), d = dbl_of(d); expect_same("dbl", i, d, h);
    }
  }
  // edges: P + P (doubling), P + -P (infinity), with infinity on either side
  const host_xyzz hp = host_xyzz::from_affine(pts[1]);
  const dev_xyzz dp = same_bytes<dev_xyzz>(hp);
  const dev_affine q1 = same_bytes<dev_affine>(pts[1]);
  expect_same("P + P (mixed)", 0, add_affine_of(dp, q1), hp.add_affine(pts[1]));
  expect_same("P - P (mixed)", 0, add_affine_of(dp, -q1), hp.add_affine(-pts[1]));
  expect_same("P + P", 0, add_xyzz_of(dp, dp), hp + hp);
  expect_same("P - P", 0, add_xyzz_of(dp, -dp), hp + (-hp));
  expect_same("O + P", 0, add_affine_of(dev_xyzz::identity(), q1), host_xyzz::identity().add_affine(pts[1]));
  expect_same("P + O", 0, add_affine_of(dp, dev_affine::identity()), hp.add_affine(J::affine_type::identity()));
  expect_same("O + O", 0, add_xyzz_of(dev_xyzz::identity(), dev_xyzz::identity()),
              host_xyzz::identity() + host_xyzz::identity());
  EXPECT_EQ(bad, 0u) << "mismatches of " << steps << " steps";
}

TEST(device_arith_on_host, g1_xyzz_formulas_match_the_host_field) {
  check_point_formulas<ec::g1_jacobian, gpu::fp_d>("device-host-g1", 4000);
}
TEST(device_arith_on_host, g2_xyzz_formulas_match_the_host_field) {
  check_point_formulas<ec::g2_jacobian, gpu::fp2_d>("device-host-g2", 1000);
}

/// The emulated carry flag itself, on chains whose results are known: a
/// 96-bit add and subtract with every carry and borrow, and one
/// mad.lo/madc.hi pair.
TEST(device_arith_on_host, carry_flag_emulation_follows_ptx) {
  namespace c = ff::detail::cuda;
  // (2^64 - 1) + 1 over three words: carries through two words
  std::uint32_t r0 = c::add_cc(0xffffffffu, 1u), r1 = c::addc_cc(0xffffffffu, 0u), r2 = c::addc(0u, 0u);
  EXPECT_EQ(r0, 0u);
  EXPECT_EQ(r1, 0u);
  EXPECT_EQ(r2, 1u);
  // 2^64 - 1 over three words: borrows through two words, then the mask
  r0 = c::sub_cc(0u, 1u), r1 = c::subc_cc(0u, 0u), r2 = c::subc_cc(1u, 0u);
  const std::uint32_t mask = c::subc(0u, 0u);
  EXPECT_EQ(r0, 0xffffffffu);
  EXPECT_EQ(r1, 0xffffffffu);
  EXPECT_EQ(r2, 0u);
  EXPECT_EQ(mask, 0u);  // no borrow out of the top word
  (void)c::sub_cc(0u, 1u);
  EXPECT_EQ(c::subc(0u, 0u), 0xffffffffu);
  // (2^32 - 1)^2 = 2^64 - 2^33 + 1: lo 1, hi 2^32 - 2; lo + (2^32 - 1)
  // carries into the hi word
  const std::uint32_t lo = c::mad_lo_cc(0xffffffffu, 0xffffffffu, 0xffffffffu);
  const std::uint32_t hi = c::madc_hi(0xffffffffu, 0xffffffffu, 0u);
  EXPECT_EQ(lo, 0u);
  EXPECT_EQ(hi, 0xffffffffu);
  EXPECT_EQ(c::mul_hi(0xffffffffu, 0xffffffffu), 0xfffffffeu);
}

}  // namespace
