// SPDX-License-Identifier: Apache-2.0
// CPU NTT over Fr against naive evaluation (every ordering the API exposes,
// cosets, sizes 2^0..2^12 naively, 2^13..2^21 by the radix-2 split), round trips,
// linearity, the Groth16 quotient identity, and the domain constants.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/ntt/ntt.hpp>

#include "common/test_seed.hpp"

namespace {

using cuzk::ff::fr;
using cuzk::ntt::evaluation_domain;
namespace ntt = cuzk::ntt;

std::vector<fr> random_vector(std::size_t n, std::mt19937_64& rng) {
  std::vector<fr> v(n);
  for (auto& x : v) x = fr::random(rng);
  return v;
}

fr horner(const std::vector<fr>& coeffs, const fr& x) {
  fr acc = fr::zero();
  for (std::size_t i = coeffs.size(); i-- > 0;) acc = acc * x + coeffs[i];
  return acc;
}

/// p(shift * omega^k) for k < n_points.
std::vector<fr> naive_eval(const std::vector<fr>& coeffs, const fr& shift, const fr& omega, std::size_t n_points) {
  std::vector<fr> out(n_points);
  fr x = shift;
  for (std::size_t k = 0; k < n_points; ++k) {
    out[k] = horner(coeffs, x);
    x = x * omega;
  }
  return out;
}

std::size_t reverse_bits(std::size_t x, unsigned bits) {
  std::size_t r = 0;
  for (unsigned b = 0; b < bits; ++b) r |= ((x >> b) & 1) << (bits - 1 - b);
  return r;
}

fr seven() { return fr::from_uint(7); }

// ---- domain ----------------------------------------------------------------

TEST(ntt_domain, root_of_unity_known_answer) {
  // 7^((r-1)/2^32), published by zkcrypto/bls12_381 and blstrs as ROOT_OF_UNITY.
  const fr::limbs expect{0x3829971f439f0d2b, 0xb63683508c2280b9, 0xd09b681922c813b4, 0x16a2a19edfe81f20};
  EXPECT_EQ(ntt::detail::root_of_unity_2_32.to_canonical(), expect);
  EXPECT_EQ(ntt::root_of_unity(32), ntt::detail::root_of_unity_2_32);
  EXPECT_EQ(ntt::root_of_unity(2).sqr(), -fr::one());
}

TEST(ntt_domain, constants_every_size) {
  for (unsigned lg = 0; lg <= ntt::lg_max_domain; ++lg) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    const std::uint64_t n = std::uint64_t(1) << lg;
    ASSERT_EQ(d.lg_size(), lg);
    ASSERT_EQ(d.size(), n);
    // omega has order exactly n: omega^n = 1 and omega^(n/2) = -1.
    EXPECT_TRUE(d.omega().pow(n).is_one());
    if (lg > 0) EXPECT_EQ(d.omega().pow(n / 2), -fr::one());
    else EXPECT_TRUE(d.omega().is_one());
    // bellperson: omega is the 2^32 root squared 32 - lg times.
    fr w = ntt::detail::root_of_unity_2_32;
    for (unsigned i = lg; i < 32; ++i) w = w.sqr();
    EXPECT_EQ(d.omega(), w);
    EXPECT_TRUE((d.omega() * d.omega_inv()).is_one());
    EXPECT_TRUE((d.n_inv() * fr::from_uint(n)).is_one());
    EXPECT_EQ(d.coset_gen(), seven());
    EXPECT_TRUE((d.coset_gen() * d.coset_gen_inv()).is_one());
    EXPECT_EQ(d.z_on_coset(), seven().pow(n) - fr::one());
    EXPECT_TRUE((d.z_on_coset() * d.z_on_coset_inv()).is_one());
    EXPECT_EQ(d.z(seven()), d.z_on_coset());
  }
}

TEST(ntt_domain, size_rounding_and_limits) {
  EXPECT_EQ(evaluation_domain(0).lg_size(), 0u);
  EXPECT_EQ(evaluation_domain(1).lg_size(), 0u);
  EXPECT_EQ(evaluation_domain(2).lg_size(), 1u);
  EXPECT_EQ(evaluation_domain(3).lg_size(), 2u);
  EXPECT_EQ(evaluation_domain(1000).size(), 1024u);
  EXPECT_EQ(evaluation_domain(std::uint64_t(1) << 27).lg_size(), 27u);
  EXPECT_EQ(evaluation_domain((std::uint64_t(1) << 27) + 1).lg_size(), 28u);
  EXPECT_EQ(evaluation_domain(std::uint64_t(1) << 28).lg_size(), 28u);
  EXPECT_THROW(evaluation_domain((std::uint64_t(1) << 28) + 1), std::invalid_argument);
  EXPECT_THROW(evaluation_domain::from_lg(29), std::invalid_argument);
  try {
    evaluation_domain d(std::uint64_t(1) << 30);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1073741824"), std::string::npos) << e.what();
  }
}

TEST(ntt_domain, twiddle_bytes) {
  EXPECT_EQ(ntt::twiddle_bytes(0), 0u);
  EXPECT_EQ(ntt::twiddle_bytes(1), 0u);
  EXPECT_EQ(ntt::twiddle_bytes(2), 3u * 32u);
  EXPECT_EQ(ntt::twiddle_bytes(4), (3u * 4u + 3u) * 32u);
  EXPECT_LE(ntt::twiddle_bytes(24), std::size_t(32) << 24);  // no more than the vector
}

// ---- transforms against naive evaluation ------------------------------------

TEST(ntt, matches_naive_dft) {
  std::mt19937_64 rng(cuzk::test::test_seed("ntt matches_naive_dft"));
  for (unsigned lg = 0; lg <= 12; ++lg) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    const auto x = random_vector(d.size(), rng);
    auto y = x;
    ntt::ntt(d, y);
    ASSERT_EQ(y, naive_eval(x, fr::one(), d.omega(), d.size()));
  }
}

TEST(ntt, coset_matches_naive) {
  std::mt19937_64 rng(cuzk::test::test_seed("ntt coset_matches_naive"));
  for (unsigned lg = 0; lg <= 10; ++lg) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    const auto x = random_vector(d.size(), rng);
    auto y = x;
    ntt::coset_ntt(d, y);
    ASSERT_EQ(y, naive_eval(x, seven(), d.omega(), d.size()));
  }
}

TEST(ntt, inverse_matches_naive) {
  // bellperson ifft: a_i = (1/n) sum_k A_k omega^-ik; icoset_fft then a_i *= g^-i.
  std::mt19937_64 rng(cuzk::test::test_seed("ntt inverse_matches_naive"));
  for (unsigned lg = 0; lg <= 10; ++lg) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    const auto v = random_vector(d.size(), rng);
    auto expect = naive_eval(v, fr::one(), d.omega_inv(), d.size());
    for (auto& e : expect) e = e * d.n_inv();
    auto y = v;
    ntt::intt(d, y);
    ASSERT_EQ(y, expect);

    fr g_pow = fr::one();
    for (auto& e : expect) {
      e = e * g_pow;
      g_pow = g_pow * d.coset_gen_inv();
    }
    y = v;
    ntt::coset_intt(d, y);
    ASSERT_EQ(y, expect);
  }
}

TEST(ntt, large_sizes_split_check) {
  // Sizes that exercise the cache-blocked outer passes (one pass from 2^11,
  // two from 2^21), checked on every output by the radix-2 split
  // X[k] = E[k] + w^k O[k], X[k + n] = E[k] - w^k O[k] (w = omega_2n, E and
  // O the size-n transforms of the even and odd entries): by induction from
  // the naive test up to 2^12 this pins every size up to 2^21.
  std::mt19937_64 rng(cuzk::test::test_seed("ntt large_sizes_split_check"));
  for (unsigned lg = 12; lg <= 21; ++lg) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    const auto half = evaluation_domain::from_lg(lg - 1);
    const std::size_t n = half.size();
    auto x = random_vector(d.size(), rng);
    std::vector<fr> e(n), o(n);
    for (std::size_t i = 0; i < n; ++i) {
      e[i] = x[2 * i];
      o[i] = x[2 * i + 1];
    }
    ntt::ntt(d, x);
    ntt::ntt(half, e);
    ntt::ntt(half, o);
    fr w = fr::one();
    for (std::size_t k = 0; k < n; ++k) {
      const fr t = w * o[k];
      ASSERT_EQ(x[k], e[k] + t) << "k=" << k;
      ASSERT_EQ(x[k + n], e[k] - t) << "k=" << k;
      w = w * d.omega();
    }
  }
}

TEST(ntt, large_sizes_coset_spot_checks) {
  std::mt19937_64 rng(cuzk::test::test_seed("ntt large_sizes_coset_spot_checks"));
  for (unsigned lg : {13u, 16u, 19u}) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    const auto x = random_vector(d.size(), rng);
    auto y = x;
    ntt::coset_ntt(d, y);
    for (std::size_t k : {std::size_t(0), d.size() - 1, std::size_t(rng() % d.size())}) {
      const fr point = d.coset_gen() * d.omega().pow(std::uint64_t(k));
      EXPECT_EQ(y[k], horner(x, point)) << "k=" << k;
    }
  }
}

TEST(ntt, round_trips) {
  std::mt19937_64 rng(cuzk::test::test_seed("ntt round_trips"));
  for (unsigned lg = 0; lg <= 20; ++lg) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    const auto x = random_vector(d.size(), rng);
    auto y = x;
    ntt::ntt(d, y);
    ntt::intt(d, y);
    ASSERT_EQ(y, x);
    ntt::coset_ntt(d, y);
    ntt::coset_intt(d, y);
    ASSERT_EQ(y, x);
    if (lg <= 16) {  // the other composition order too (bellperson fft_composition)
      ntt::intt(d, y);
      ntt::ntt(d, y);
      ASSERT_EQ(y, x);
      ntt::coset_intt(d, y);
      ntt::coset_ntt(d, y);
      ASSERT_EQ(y, x);
    }
  }
}

TEST(ntt, orderings_dif_nr_and_bit_reverse) {
  std::mt19937_64 rng(cuzk::test::test_seed("ntt orderings"));
  // bit_reverse is the permutation i -> rev(i), through both code paths (naive
  // below 2^8, tiles above).
  for (unsigned lg = 0; lg <= 14; ++lg) {
    SCOPED_TRACE(lg);
    const std::size_t n = std::size_t(1) << lg;
    std::vector<fr> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = fr::from_uint(i);
    ntt::bit_reverse(v);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], fr::from_uint(reverse_bits(i, lg)));
  }
  std::vector<fr> bad(12);
  EXPECT_THROW(ntt::bit_reverse(bad), std::invalid_argument);
  // dif_nr: natural in, bit-reversed out, unscaled, both directions.
  for (unsigned lg : {1u, 2u, 3u, 7u, 10u, 11u, 16u, 17u}) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    const auto x = random_vector(d.size(), rng);
    auto fwd = x, inv = x, ref = x;
    ntt::dif_nr(d, fwd, ntt::direction::forward);
    ntt::dif_nr(d, inv, ntt::direction::inverse);
    ntt::ntt(d, ref);
    for (std::size_t i = 0; i < d.size(); ++i) ASSERT_EQ(fwd[i], ref[reverse_bits(i, lg)]);
    ref = x;
    ntt::intt(d, ref);  // = (1/n) * unscaled inverse
    const fr n = fr::from_uint(d.size());
    for (std::size_t i = 0; i < d.size(); ++i) ASSERT_EQ(inv[i], ref[reverse_bits(i, lg)] * n);
  }
}

TEST(ntt, linearity) {
  std::mt19937_64 rng(cuzk::test::test_seed("ntt linearity"));
  for (unsigned lg : {5u, 14u, 17u}) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    const auto x = random_vector(d.size(), rng), y = random_vector(d.size(), rng);
    const fr alpha = fr::random(rng);
    std::vector<fr> z(d.size());
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = alpha * x[i] + y[i];
    auto tx = x, ty = y;
    ntt::coset_ntt(d, tx);
    ntt::coset_ntt(d, ty);
    ntt::coset_ntt(d, z);
    for (std::size_t i = 0; i < z.size(); ++i) ASSERT_EQ(z[i], alpha * tx[i] + ty[i]);
  }
}

// ---- quotient by Z on the coset ---------------------------------------------

TEST(ntt, divide_by_z_on_coset_recovers_quotient) {
  // P = h * (X^n - 1) has degree < 2n; its values at g omega^k divided by
  // Z(g) and interpolated on the coset give back h.
  std::mt19937_64 rng(cuzk::test::test_seed("ntt divide_by_z_on_coset"));
  for (unsigned lg = 0; lg <= 10; ++lg) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    const std::size_t n = d.size();
    const auto h = random_vector(n, rng);
    std::vector<fr> p(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      p[i] = -h[i];
      p[i + n] = h[i];
    }
    auto v = naive_eval(p, seven(), d.omega(), n);
    ntt::divide_by_z_on_coset(d, v);
    ntt::coset_intt(d, v);
    ASSERT_EQ(v, h);
  }
}

TEST(ntt, groth16_quotient_identity) {
  // The prover's h computation: a, b, c on H with c = a*b there;
  // intt, coset_ntt, a*b - c, / Z(g), coset_intt gives h with
  // A(X) B(X) - C(X) = h(X) (X^n - 1); check it at a random point.
  std::mt19937_64 rng(cuzk::test::test_seed("ntt groth16_quotient_identity"));
  for (unsigned lg : {1u, 4u, 9u, 12u, 15u}) {
    SCOPED_TRACE(lg);
    const auto d = evaluation_domain::from_lg(lg);
    auto a = random_vector(d.size(), rng), b = random_vector(d.size(), rng);
    std::vector<fr> c(d.size());
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = a[i] * b[i];
    for (auto* v : {&a, &b, &c}) ntt::intt(d, *v);
    const auto ca = a, cb = b, cc = c;  // coefficients
    for (auto* v : {&a, &b, &c}) ntt::coset_ntt(d, *v);
    ntt::mul_sub(a, b, c);
    ntt::divide_by_z_on_coset(d, a);
    ntt::coset_intt(d, a);
    EXPECT_TRUE(a.back().is_zero());  // deg h <= n - 2
    const fr tau = fr::random(rng);
    EXPECT_EQ(horner(ca, tau) * horner(cb, tau) - horner(cc, tau), horner(a, tau) * d.z(tau));
  }
}

TEST(ntt, mul_sub_pointwise) {
  std::mt19937_64 rng(cuzk::test::test_seed("ntt mul_sub"));
  const auto a = random_vector(20000, rng), b = random_vector(20000, rng), c = random_vector(20000, rng);
  auto r = a;
  ntt::mul_sub(r, b, c);
  for (std::size_t i = 0; i < r.size(); ++i) ASSERT_EQ(r[i], a[i] * b[i] - c[i]);
  std::vector<fr> short_c(10);
  EXPECT_THROW(ntt::mul_sub(r, b, short_c), std::invalid_argument);
}

TEST(ntt, size_mismatch_throws) {
  const auto d = evaluation_domain::from_lg(4);
  std::vector<fr> v(15);
  EXPECT_THROW(ntt::ntt(d, v), std::invalid_argument);
  EXPECT_THROW(ntt::intt(d, v), std::invalid_argument);
  EXPECT_THROW(ntt::coset_ntt(d, v), std::invalid_argument);
  EXPECT_THROW(ntt::coset_intt(d, v), std::invalid_argument);
  EXPECT_THROW(ntt::divide_by_z_on_coset(d, v), std::invalid_argument);
  EXPECT_THROW(ntt::dif_nr(d, v, ntt::direction::forward), std::invalid_argument);
}

TEST(ntt, concurrent_callers) {
  // Several threads transforming at once (first use of a size builds the
  // twiddle tables under call_once) agree with a later single-threaded run.
  std::mt19937_64 rng(cuzk::test::test_seed("ntt concurrent_callers"));
  const auto d = evaluation_domain::from_lg(15);
  std::vector<std::vector<fr>> in, out;
  for (int t = 0; t < 4; ++t) in.push_back(random_vector(d.size(), rng));
  out = in;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      if (t % 2) ntt::coset_ntt(d, out[t]);
      else ntt::intt(d, out[t]);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    auto ref = in[t];
    if (t % 2) ntt::coset_ntt(d, ref);
    else ntt::intt(d, ref);
    EXPECT_EQ(out[t], ref) << t;
  }
}

}  // namespace
