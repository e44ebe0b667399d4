// SPDX-License-Identifier: Apache-2.0
//
// The eight-lane AVX-512 IFMA Fp kernel (cuzk/ff/detail/x86_ifma.hpp)
// against ff::fp, lane by lane: mul (also with an unreduced sum < 2p as an
// operand), add, sub, conditional negation, and the load8/store8 layout
// change; the Fp2 lanes (Karatsuba mul with both sums unreduced, sqr, add,
// sub) against ff::fp2. Inputs: every pair of special values (0, 1, 2, -1, -2, R^-1,
// raw limbs p - 1 and small raw limbs) and random elements from a printed
// seed (CUZK_TEST_SEED replays a run); algebraic checks on the vector side
// alone (commutativity, distributivity, a - b + b = a). Skipped, with a
// message, on CPUs without AVX-512 IFMA.

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/fp2.hpp>
#include <cuzk/ff/detail/x86_ifma.hpp>

#include "common/test_seed.hpp"

#if defined(CUZK_HAVE_X86_IFMA)

namespace {

using cuzk::ff::fp;
using cuzk::ff::fp2;
namespace ifma = cuzk::ff::detail::ifma;

enum class op { mul, mul_sum_left, add, sub, neg_odd_lanes, round_trip, mul_commuted, distributive };

/// r[k] = op(a[k], b[k]) for k < 8, through the vector kernel.
[[CUZK_IFMA_TARGET, gnu::noinline]] void vector_op(op o, const fp* a, const fp* b, fp* r) {
  const std::uint64_t* pa[8];
  const std::uint64_t* pb[8];
  std::uint64_t* pr[8];
  for (int k = 0; k < 8; ++k) {
    pa[k] = a[k].l;
    pb[k] = b[k].l;
    pr[k] = r[k].l;
  }
  const ifma::fp8 x = ifma::load8(pa), y = ifma::load8(pb);
  ifma::fp8 z;
  switch (o) {
    case op::mul: z = ifma::mul(x, y); break;
    case op::mul_sum_left: z = ifma::mul(ifma::add_unreduced(x, y), y); break;
    case op::add: z = ifma::add(x, y); break;
    case op::sub: z = ifma::sub(x, y); break;
    case op::neg_odd_lanes: z = ifma::conditional_negate(x, 0xAA); break;
    case op::round_trip: z = x; break;
    case op::mul_commuted: z = ifma::mul(y, x); break;
    case op::distributive:  // x (y + x) - x y = x^2
      z = ifma::sub(ifma::mul(x, ifma::add(y, x)), ifma::mul(x, y));
      break;
  }
  ifma::store8(pr, z);
}

fp scalar_op(op o, const fp& a, const fp& b, int lane) {
  switch (o) {
    case op::mul:
    case op::mul_commuted: return a * b;
    case op::mul_sum_left: return (a + b) * b;
    case op::add: return a + b;
    case op::sub: return a - b;
    case op::neg_odd_lanes: return (lane & 1) ? -a : a;
    case op::round_trip: return a;
    case op::distributive: return a * a;
  }
  return fp::zero();
}

std::vector<fp> special_values() {
  fp p_minus_1_raw = fp::zero(), small_raw = fp::zero();
  for (std::size_t i = 0; i < 6; ++i) p_minus_1_raw.l[i] = fp::modulus[i];
  p_minus_1_raw.l[0] -= 1;  // raw limbs p - 1: the largest reduced value
  small_raw.l[0] = 1;       // raw limbs 1: R^-1
  fp top_bits = fp::zero();
  top_bits.l[5] = fp::modulus[5] - 1;  // every limb boundary of the 52-bit layout crossed
  top_bits.l[3] = ~std::uint64_t(0);
  return {fp::zero(), fp::one(),         fp::from_uint(2),
          -fp::one(), -fp::from_uint(2), p_minus_1_raw,
          small_raw,  top_bits,          fp::from_uint(1) + p_minus_1_raw};
}

class x86_ifma : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ifma::cpu_has_avx512ifma()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA: the vector kernel is not used here";
  }
};

void expect_lanes(op o, const fp* a, const fp* b, const char* what) {
  fp r[8];
  vector_op(o, a, b, r);
  for (int k = 0; k < 8; ++k)
    ASSERT_EQ(r[k], scalar_op(o, a[k], b[k], k)) << what << ", op " << int(o) << ", lane " << k;
}

TEST_F(x86_ifma, every_op_matches_fp_on_special_pairs) {
  const std::vector<fp> s = special_values();
  std::vector<std::pair<fp, fp>> pairs;
  for (const fp& x : s)
    for (const fp& y : s) pairs.emplace_back(x, y);
  for (op o : {op::mul, op::mul_sum_left, op::add, op::sub, op::neg_odd_lanes, op::round_trip, op::mul_commuted,
               op::distributive})
    for (std::size_t i = 0; i < pairs.size(); i += 8) {
      fp a[8], b[8];
      for (int k = 0; k < 8; ++k) {
        a[k] = pairs[(i + k) % pairs.size()].first;
        b[k] = pairs[(i + k) % pairs.size()].second;
      }
      expect_lanes(o, a, b, "special pairs");
    }
}

TEST_F(x86_ifma, every_op_matches_fp_on_random_elements) {
  std::mt19937_64 rng(cuzk::test::test_seed("x86_ifma random"));
  for (int round = 0; round < 4000; ++round) {
    fp a[8], b[8];
    for (int k = 0; k < 8; ++k) {
      a[k] = fp::random(rng);
      b[k] = fp::random(rng);
    }
    for (op o : {op::mul, op::mul_sum_left, op::add, op::sub, op::neg_odd_lanes, op::round_trip, op::mul_commuted,
                 op::distributive})
      expect_lanes(o, a, b, "random");
  }
}

enum class op2 { mul, sqr, add, sub };

[[CUZK_IFMA_TARGET, gnu::noinline]] void vector_op2(op2 o, const fp2* a, const fp2* b, fp2* r) {
  const std::uint64_t *a0[8], *a1[8], *b0[8], *b1[8];
  std::uint64_t *r0[8], *r1[8];
  for (int k = 0; k < 8; ++k) {
    a0[k] = a[k].c0.l, a1[k] = a[k].c1.l, b0[k] = b[k].c0.l, b1[k] = b[k].c1.l;
    r0[k] = r[k].c0.l, r1[k] = r[k].c1.l;
  }
  const ifma::fp2x8 x{ifma::load8(a0), ifma::load8(a1)}, y{ifma::load8(b0), ifma::load8(b1)};
  ifma::fp2x8 z;
  switch (o) {
    case op2::mul: z = ifma::mul(x, y); break;
    case op2::sqr: z = ifma::sqr(x); break;
    case op2::add: z = ifma::add(x, y); break;
    case op2::sub: z = ifma::sub(x, y); break;
  }
  ifma::store8(r0, z.c0);
  ifma::store8(r1, z.c1);
}

fp2 scalar_op2(op2 o, const fp2& a, const fp2& b) {
  switch (o) {
    case op2::mul: return a * b;
    case op2::sqr: return a.sqr();
    case op2::add: return a + b;
    case op2::sub: return a - b;
  }
  return fp2::zero();
}

TEST_F(x86_ifma, fp2_lanes_match_fp2_on_special_and_random_elements) {
  const std::vector<fp> s = special_values();
  std::vector<fp2> values;
  for (const fp& x : s)
    for (const fp& y : s) values.push_back({x, y});  // every coordinate pair, (p-1, p-1) included
  std::mt19937_64 rng(cuzk::test::test_seed("x86_ifma fp2"));
  for (int i = 0; i < 4000; ++i) values.push_back(fp2::random(rng));
  for (op2 o : {op2::mul, op2::sqr, op2::add, op2::sub})
    for (std::size_t i = 0; i < values.size(); i += 8) {
      fp2 a[8], b[8], r[8];
      for (std::size_t k = 0; k < 8; ++k) {
        a[k] = values[(i + k) % values.size()];
        b[k] = values[(i + 7 * k + 3) % values.size()];
      }
      vector_op2(o, a, b, r);
      for (int k = 0; k < 8; ++k) ASSERT_EQ(r[k], scalar_op2(o, a[k], b[k])) << "op " << int(o) << ", lane " << k;
    }
}

}  // namespace

#endif
