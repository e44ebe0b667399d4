// SPDX-License-Identifier: Apache-2.0
// ZCash point encoding: random round trips, one test per rejection rule (each
// asserting its own decode_error, for G1 and G2), points on the curve but
// outside the subgroup, and batch decoding's first-bad-index report.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <span>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/serialization.hpp>
#include <cuzk/ec/subgroup.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::ec;
using cuzk::ff::fp;
using cuzk::ff::fp2;
using cuzk::ff::fr;
using bytes = std::vector<std::uint8_t>;

template <std::size_t N>
bytes to_vec(const std::array<std::uint8_t, N>& a) {
  return bytes(a.begin(), a.end());
}

struct g1_ops {
  using field = fp;
  using affine_type = g1_affine;
  using jacobian_type = g1_jacobian;
  static constexpr std::size_t csize = g1_compressed_size, usize = g1_uncompressed_size;
  static bytes enc_c(const affine_type& p) { return to_vec(encode_g1_compressed(p)); }
  static bytes enc_u(const affine_type& p) { return to_vec(encode_g1_uncompressed(p)); }
  static decode_result<affine_type> dec_c(const bytes& b, decode_options o = {}) { return decode_g1_compressed(b, o); }
  static decode_result<affine_type> dec_u(const bytes& b, decode_options o = {}) {
    return decode_g1_uncompressed(b, o);
  }
  static batch_decode_result dec_us(const bytes& b, std::span<affine_type> out, batch_decode_options o) {
    return decode_g1s_uncompressed(b, out, o);
  }
  static batch_decode_result dec_cs(const bytes& b, std::span<affine_type> out, batch_decode_options o) {
    return decode_g1s_compressed(b, out, o);
  }
};

struct g2_ops {
  using field = fp2;
  using affine_type = g2_affine;
  using jacobian_type = g2_jacobian;
  static constexpr std::size_t csize = g2_compressed_size, usize = g2_uncompressed_size;
  static bytes enc_c(const affine_type& p) { return to_vec(encode_g2_compressed(p)); }
  static bytes enc_u(const affine_type& p) { return to_vec(encode_g2_uncompressed(p)); }
  static decode_result<affine_type> dec_c(const bytes& b, decode_options o = {}) { return decode_g2_compressed(b, o); }
  static decode_result<affine_type> dec_u(const bytes& b, decode_options o = {}) {
    return decode_g2_uncompressed(b, o);
  }
  static batch_decode_result dec_us(const bytes& b, std::span<affine_type> out, batch_decode_options o) {
    return decode_g2s_uncompressed(b, out, o);
  }
  static batch_decode_result dec_cs(const bytes& b, std::span<affine_type> out, batch_decode_options o) {
    return decode_g2s_compressed(b, out, o);
  }
};

template <class F>
F curve_rhs(const F& x) {
  return x.sqr() * x + curve_params<F>::b();
}

// A random point on the curve, cofactor not cleared (so almost surely not
// in the subgroup; the tests confirm with the slow oracle).
template <class F, class Rng>
affine<F> random_curve_point(Rng& rng) {
  for (;;) {
    const F x = F::random(rng);
    if (const auto y = curve_rhs(x).sqrt()) return {x, *y};
  }
}

// A field element x with x^3 + b not a square.
template <class F, class Rng>
F random_bad_x(Rng& rng) {
  for (;;) {
    const F x = F::random(rng);
    if (!curve_rhs(x).sqrt()) return x;
  }
}

template <class Ops, class Rng>
typename Ops::affine_type random_subgroup_point(Rng& rng) {
  return mul(Ops::jacobian_type::generator(), fr::random(rng)).to_affine();
}

// The big-endian bytes of p (canonical coordinates are below it).
bytes modulus_be() {
  bytes b(48);
  for (std::size_t i = 0; i < 48; ++i) b[47 - i] = std::uint8_t(fp::modulus[i / 8] >> (8 * (i % 8)));
  return b;
}

template <class Ops>
class serialization_test : public ::testing::Test {};
using op_types = ::testing::Types<g1_ops, g2_ops>;
TYPED_TEST_SUITE(serialization_test, op_types);

TYPED_TEST(serialization_test, random_round_trips) {
  using O = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("serialization-round-trip"));
  for (int i = 0; i < 24; ++i) {
    const auto p = random_subgroup_point<O>(rng);
    for (const auto& q : {p, -p}) {
      const bytes c = O::enc_c(q), u = O::enc_u(q);
      ASSERT_EQ(c.size(), O::csize);
      ASSERT_EQ(u.size(), O::usize);
      ASSERT_EQ(c[0] & 0xc0, 0x80);
      ASSERT_EQ(u[0] & 0xe0, 0x00);
      ASSERT_EQ(bool(c[0] & 0x20), q.y.lexicographically_largest());
      ASSERT_EQ(O::dec_c(c).value(), q);
      ASSERT_EQ(O::dec_u(u).value(), q);
      // x || y bytes: compressed x equals the first half of uncompressed with flags cleared
      bytes cx = c;
      cx[0] &= 0x1f;
      ASSERT_TRUE(std::equal(cx.begin(), cx.end(), u.begin()));
    }
  }
  // infinity, both encodings
  const typename O::affine_type inf = O::affine_type::identity();
  const bytes c = O::enc_c(inf), u = O::enc_u(inf);
  ASSERT_EQ(c[0], 0xc0);
  ASSERT_EQ(u[0], 0x40);
  ASSERT_TRUE(std::all_of(c.begin() + 1, c.end(), [](auto b) { return b == 0; }));
  ASSERT_TRUE(std::all_of(u.begin() + 1, u.end(), [](auto b) { return b == 0; }));
  ASSERT_TRUE(O::dec_c(c).value().is_infinity());
  ASSERT_TRUE(O::dec_u(u).value().is_infinity());
}

TYPED_TEST(serialization_test, rejects_wrong_length) {
  using O = TypeParam;
  const auto g = O::affine_type::generator();
  bytes c = O::enc_c(g), u = O::enc_u(g);
  EXPECT_EQ(O::dec_c(u).error, decode_error::wrong_length);  // uncompressed bytes, compressed asked
  EXPECT_EQ(O::dec_u(c).error, decode_error::wrong_length);
  EXPECT_EQ(O::dec_c(bytes{}).error, decode_error::wrong_length);
  EXPECT_EQ(O::dec_u(bytes{}).error, decode_error::wrong_length);
  bytes c_short(c.begin(), c.end() - 1), u_long = u;
  u_long.push_back(0);
  c.push_back(0);
  EXPECT_EQ(O::dec_c(c_short).error, decode_error::wrong_length);
  EXPECT_EQ(O::dec_c(c).error, decode_error::wrong_length);
  EXPECT_EQ(O::dec_u(u_long).error, decode_error::wrong_length);
  EXPECT_THROW((void)O::dec_c(c).value(), decode_failure);
}

TYPED_TEST(serialization_test, rejects_compression_flag_mismatch) {
  using O = TypeParam;
  const auto g = O::affine_type::generator();
  bytes c = O::enc_c(g), u = O::enc_u(g);
  c[0] &= 0x7f;  // compressed bytes without the compression flag
  u[0] |= 0x80;  // uncompressed bytes with it
  EXPECT_EQ(O::dec_c(c).error, decode_error::compression_flag_mismatch);
  EXPECT_EQ(O::dec_u(u).error, decode_error::compression_flag_mismatch);
  bytes ci = O::enc_c(O::affine_type::identity()), ui = O::enc_u(O::affine_type::identity());
  ci[0] = 0x40;
  ui[0] = 0xc0;
  EXPECT_EQ(O::dec_c(ci).error, decode_error::compression_flag_mismatch);
  EXPECT_EQ(O::dec_u(ui).error, decode_error::compression_flag_mismatch);
}

TYPED_TEST(serialization_test, rejects_infinity_with_sign) {
  using O = TypeParam;
  bytes c = O::enc_c(O::affine_type::identity());
  c[0] |= 0x20;
  EXPECT_EQ(O::dec_c(c).error, decode_error::infinity_with_sign);
}

TYPED_TEST(serialization_test, rejects_infinity_with_nonzero_bits) {
  using O = TypeParam;
  const auto g = O::affine_type::generator();
  for (std::size_t pos : {std::size_t(0), std::size_t(1), O::csize - 1}) {
    bytes c = O::enc_c(O::affine_type::identity());
    c[pos] |= pos == 0 ? 0x01 : 0x80;
    EXPECT_EQ(O::dec_c(c).error, decode_error::infinity_not_zero) << "byte " << pos;
  }
  for (std::size_t pos : {std::size_t(0), O::usize / 2, O::usize - 1}) {
    bytes u = O::enc_u(O::affine_type::identity());
    u[pos] |= pos == 0 ? 0x10 : 0x01;
    EXPECT_EQ(O::dec_u(u).error, decode_error::infinity_not_zero) << "byte " << pos;
  }
  // a real point's coordinates under the infinity flag
  bytes c = O::enc_c(g), u = O::enc_u(g);
  c[0] = std::uint8_t((c[0] & 0x1f) | 0xc0);
  u[0] |= 0x40;
  EXPECT_EQ(O::dec_c(c).error, decode_error::infinity_not_zero);
  EXPECT_EQ(O::dec_u(u).error, decode_error::infinity_not_zero);
}

TYPED_TEST(serialization_test, rejects_sign_flag_on_uncompressed) {
  using O = TypeParam;
  bytes u = O::enc_u(O::affine_type::generator());
  u[0] |= 0x20;
  EXPECT_EQ(O::dec_u(u).error, decode_error::sign_flag_on_uncompressed);
  bytes ui = O::enc_u(O::affine_type::identity());
  ui[0] |= 0x20;
  EXPECT_EQ(O::dec_u(ui).error, decode_error::sign_flag_on_uncompressed);
}

TYPED_TEST(serialization_test, rejects_non_canonical_coordinate) {
  using O = TypeParam;
  const bytes p = modulus_be();
  ASSERT_EQ(p[0] & 0xe0, 0);  // p < 2^381: writing it never touches the flag bits
  const auto g = O::affine_type::generator();
  // every 48-byte Fp slot of x (compressed and uncompressed) and of y (uncompressed)
  for (std::size_t slot = 0; slot < O::csize / 48; ++slot) {
    bytes c = O::enc_c(g);
    std::copy(p.begin(), p.end(), c.begin() + 48 * slot);
    c[0] |= 0x80;
    EXPECT_EQ(O::dec_c(c).error, decode_error::non_canonical_coordinate) << "x slot " << slot;
  }
  for (std::size_t slot = 0; slot < O::usize / 48; ++slot) {
    bytes u = O::enc_u(g);
    std::copy(p.begin(), p.end(), u.begin() + 48 * slot);
    EXPECT_EQ(O::dec_u(u).error, decode_error::non_canonical_coordinate) << "slot " << slot;
  }
  // y + p instead of y (a second, non-canonical name for the same point)
  bytes u = O::enc_u(g);
  std::uint8_t* y_low = u.data() + O::usize - 48;  // last Fp of y (G1: y, G2: y.c0)
  unsigned carry = 0;
  for (std::size_t i = 48; i-- > 0;) {
    const unsigned s = unsigned(y_low[i]) + p[i] + carry;
    y_low[i] = std::uint8_t(s);
    carry = s >> 8;
  }
  ASSERT_EQ(carry, 0u);
  EXPECT_EQ(O::dec_u(u).error, decode_error::non_canonical_coordinate);
}

TYPED_TEST(serialization_test, rejects_x_not_on_curve) {
  using O = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("serialization-bad-x"));
  for (int i = 0; i < 8; ++i) {
    const auto x = random_bad_x<typename O::field>(rng);
    // encode (x, anything) and keep the compressed x bytes
    bytes c = O::enc_c(typename O::affine_type{x, O::field::one()});
    EXPECT_EQ(O::dec_c(c).error, decode_error::x_not_on_curve);
    EXPECT_EQ(O::dec_c(c, {.check_subgroup = false}).error, decode_error::x_not_on_curve);
  }
}

TYPED_TEST(serialization_test, rejects_point_not_on_curve) {
  using O = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("serialization-off-curve"));
  for (int i = 0; i < 8; ++i) {
    auto p = random_subgroup_point<O>(rng);
    p.y += O::field::one();
    EXPECT_EQ(O::dec_u(O::enc_u(p)).error, decode_error::point_not_on_curve);
    EXPECT_EQ(O::dec_u(O::enc_u(p), {.check_subgroup = false}).error, decode_error::point_not_on_curve);
  }
  // (0, 0) without the infinity flag is not the point at infinity
  EXPECT_EQ(O::dec_u(bytes(O::usize, 0)).error, decode_error::point_not_on_curve);
}

TYPED_TEST(serialization_test, rejects_point_outside_subgroup) {
  using O = TypeParam;
  std::mt19937_64 rng(cuzk::test::test_seed("serialization-subgroup"));
  for (int i = 0; i < 4; ++i) {
    const auto p = random_curve_point<typename O::field>(rng);
    ASSERT_TRUE(p.is_on_curve());
    ASSERT_FALSE(is_in_subgroup_slow(p));
    for (const bytes& c : {O::enc_c(p), O::enc_c(-p)}) {
      EXPECT_EQ(O::dec_c(c).error, decode_error::not_in_subgroup);
      const auto r = O::dec_c(c, {.check_subgroup = false});
      ASSERT_TRUE(r.ok()) << decode_error_message(r.error);
      EXPECT_EQ(O::enc_c(r.point), c);
    }
    EXPECT_EQ(O::dec_c(O::enc_c(p), {.check_subgroup = false}).value(), p);
    EXPECT_EQ(O::dec_u(O::enc_u(p)).error, decode_error::not_in_subgroup);
    EXPECT_EQ(O::dec_u(O::enc_u(p), {.check_subgroup = false}).value(), p);
  }
}

TYPED_TEST(serialization_test, batch_reports_first_bad_index) {
  using O = TypeParam;
  using A = typename O::affine_type;
  using J = typename O::jacobian_type;
  std::mt19937_64 rng(cuzk::test::test_seed("serialization-batch"));
  // 600 points (three TBB chunks of up to 256): multiples of a random subgroup point
  constexpr std::size_t n = 600;
  const J base = J::from_affine(random_subgroup_point<O>(rng));
  std::vector<A> pts(n);
  J acc = J::identity();
  for (auto& p : pts) {
    p = acc.to_affine();
    acc += base;
  }
  bytes u, c;
  for (const auto& p : pts) {
    const bytes eu = O::enc_u(p), ec = O::enc_c(p);
    u.insert(u.end(), eu.begin(), eu.end());
    c.insert(c.end(), ec.begin(), ec.end());
  }
  for (bool parallel : {false, true}) {
    SCOPED_TRACE(parallel ? "parallel" : "serial");
    std::vector<A> out(n);
    ASSERT_TRUE(O::dec_us(u, out, {.parallel = parallel}).ok());
    ASSERT_EQ(out, pts);
    std::fill(out.begin(), out.end(), A::identity());
    // (square roots dominate compressed decoding; skip the subgroup checks here)
    ASSERT_TRUE(O::dec_cs(c, out, {.check_subgroup = false, .parallel = parallel}).ok());
    ASSERT_EQ(out, pts);

    // off-curve at 571, non-canonical at 333, off-subgroup at 97
    bytes bad = u;
    bad[571 * O::usize + O::usize - 1] ^= 1;
    auto r = O::dec_us(bad, out, {.parallel = parallel});
    EXPECT_EQ(r.error, decode_error::point_not_on_curve);
    EXPECT_EQ(r.index, 571u);
    const bytes p = modulus_be();
    std::copy(p.begin(), p.end(), bad.begin() + 333 * O::usize + O::usize - 48);
    r = O::dec_us(bad, out, {.parallel = parallel});
    EXPECT_EQ(r.error, decode_error::non_canonical_coordinate);
    EXPECT_EQ(r.index, 333u);
    const bytes off = O::enc_u(random_curve_point<typename O::field>(rng));
    std::copy(off.begin(), off.end(), bad.begin() + 97 * O::usize);
    r = O::dec_us(bad, out, {.parallel = parallel});
    EXPECT_EQ(r.error, decode_error::not_in_subgroup);
    EXPECT_EQ(r.index, 97u);
    r = O::dec_us(bad, out, {.check_subgroup = false, .parallel = parallel});
    EXPECT_EQ(r.error, decode_error::non_canonical_coordinate);
    EXPECT_EQ(r.index, 333u);

    // compressed: a bad x at 402
    bytes badc = c;
    const bytes bx = O::enc_c(A{random_bad_x<typename O::field>(rng), O::field::one()});
    std::copy(bx.begin(), bx.end(), badc.begin() + 402 * O::csize);
    r = O::dec_cs(badc, out, {.check_subgroup = false, .parallel = parallel});
    EXPECT_EQ(r.error, decode_error::x_not_on_curve);
    EXPECT_EQ(r.index, 402u);

    // whole-batch length mismatch
    r = O::dec_us(bytes(u.begin(), u.end() - 1), out, {.parallel = parallel});
    EXPECT_EQ(r.error, decode_error::wrong_length);
    EXPECT_EQ(r.index, batch_decode_result::no_index);
  }
}

TEST(ec_serialization, error_messages_are_distinct) {
  std::set<std::string_view> seen;
  for (int e = 0; e <= int(decode_error::not_in_subgroup); ++e) {
    const auto m = decode_error_message(decode_error(e));
    EXPECT_FALSE(m.empty());
    EXPECT_TRUE(seen.insert(m).second) << m;
  }
  try {
    throw decode_failure(decode_error::not_in_subgroup);
  } catch (const decode_failure& f) {
    EXPECT_EQ(f.code(), decode_error::not_in_subgroup);
    EXPECT_EQ(std::string_view(f.what()), decode_error_message(decode_error::not_in_subgroup));
  }
}

// Known answers from the BLS12-381 specification (docs/FORMATS.md §3).
TEST(ec_serialization, generator_compressed_prefix) {
  const auto c1 = encode_g1_compressed(g1_affine::generator());
  const auto c2 = encode_g2_compressed(g2_affine::generator());
  EXPECT_EQ(c1[0], 0x97);
  EXPECT_EQ(c1[47], 0xbb);
  EXPECT_EQ(c2[0], 0x93);
  EXPECT_EQ(c2[95], 0xb8);
}

}  // namespace
