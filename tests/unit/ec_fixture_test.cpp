// SPDX-License-Identifier: Apache-2.0
// Known-answer test: the zkcrypto/bls12_381 serialization vectors (entry k is
// k*G for k = 0..999, entry 0 the point at infinity) in
// shared/filecoin-fixtures/zkcrypto-bls12_381/ decode (with every check,
// subgroup included), equal k*G from our scalar multiplication, and re-encode
// byte for byte. Read in place from the shared folder, never copied.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/serialization.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::ec;

constexpr std::size_t n_vectors = 1000;

std::string fixture_dir() { return cuzk::test::shared_dir() + "/filecoin-fixtures/zkcrypto-bls12_381/"; }

bool read_fixture(const std::string& name, std::vector<std::uint8_t>& out) {
  std::ifstream f(fixture_dir() + name, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

#define CUZK_LOAD_FIXTURE(name, bytes)                                                                            \
  std::vector<std::uint8_t> bytes;                                                                                \
  if (!std::filesystem::is_directory(fixture_dir())) GTEST_SKIP() << "fixture folder missing: " << fixture_dir(); \
  ASSERT_TRUE(read_fixture(name, bytes)) << "cannot read " << fixture_dir() << name

struct g1_kind {
  using affine_type = g1_affine;
  using jacobian_type = g1_jacobian;
};
struct g2_kind {
  using affine_type = g2_affine;
  using jacobian_type = g2_jacobian;
};

// Checks one fixture file: decode, compare with k*G, re-encode, batch decode.
template <class Kind, class Decode, class Encode, class DecodeMany>
void check_vectors(const std::vector<std::uint8_t>& bytes, std::size_t stride, Decode decode, Encode encode,
                   DecodeMany decode_many) {
  using A = typename Kind::affine_type;
  using J = typename Kind::jacobian_type;
  ASSERT_EQ(bytes.size(), n_vectors * stride);
  const J g = J::generator();
  const std::span<const std::uint8_t> all(bytes);
  std::vector<A> decoded(n_vectors);
  for (std::size_t k = 0; k < n_vectors; ++k) {
    const auto in = all.subspan(k * stride, stride);
    const auto r = decode(in, decode_options{});
    ASSERT_TRUE(r.ok()) << "entry " << k << ": " << decode_error_message(r.error);
    const A expect = mul_u64(g, k).to_affine();
    ASSERT_EQ(r.point, expect) << "entry " << k;
    ASSERT_EQ(r.point.is_infinity(), k == 0);
    const auto re = encode(r.point);
    ASSERT_TRUE(std::equal(re.begin(), re.end(), in.begin())) << "re-encoding entry " << k;
    decoded[k] = r.point;
  }
  std::vector<A> batch(n_vectors);
  // the batch path (parallel); points were subgroup-checked one by one above
  const auto br = decode_many(all, std::span<A>(batch), batch_decode_options{.check_subgroup = false});
  ASSERT_TRUE(br.ok()) << "index " << br.index << ": " << decode_error_message(br.error);
  ASSERT_EQ(batch, decoded);
}

TEST(ec_fixture, g1_compressed) {
  CUZK_LOAD_FIXTURE("g1_compressed_valid_test_vectors.dat", bytes);
  check_vectors<g1_kind>(bytes, g1_compressed_size, decode_g1_compressed, encode_g1_compressed, decode_g1s_compressed);
}

TEST(ec_fixture, g1_uncompressed) {
  CUZK_LOAD_FIXTURE("g1_uncompressed_valid_test_vectors.dat", bytes);
  check_vectors<g1_kind>(bytes, g1_uncompressed_size, decode_g1_uncompressed, encode_g1_uncompressed,
                         decode_g1s_uncompressed);
}

TEST(ec_fixture, g2_compressed) {
  CUZK_LOAD_FIXTURE("g2_compressed_valid_test_vectors.dat", bytes);
  check_vectors<g2_kind>(bytes, g2_compressed_size, decode_g2_compressed, encode_g2_compressed, decode_g2s_compressed);
}

TEST(ec_fixture, g2_uncompressed) {
  CUZK_LOAD_FIXTURE("g2_uncompressed_valid_test_vectors.dat", bytes);
  check_vectors<g2_kind>(bytes, g2_uncompressed_size, decode_g2_uncompressed, encode_g2_uncompressed,
                         decode_g2s_uncompressed);
}

// Known answer for G2 scalar multiplication by fr (mul_gls behind ec::mul):
// [k]G == entry k and [r - k]G == -entry k for k = 0..999. The small k leave
// three of the four GLS parts zero (so even, corrected at the end); r - k
// fills all four.
TEST(ec_fixture, g2_mul_fr_known_answers) {
  CUZK_LOAD_FIXTURE("g2_uncompressed_valid_test_vectors.dat", bytes);
  ASSERT_EQ(bytes.size(), n_vectors * g2_uncompressed_size);
  const std::span<const std::uint8_t> all(bytes);
  const g2_jacobian g = g2_jacobian::generator();
  for (std::size_t k = 0; k < n_vectors; ++k) {
    const auto r = decode_g2_uncompressed(all.subspan(k * g2_uncompressed_size, g2_uncompressed_size));
    ASSERT_TRUE(r.ok()) << "entry " << k;
    const cuzk::ff::fr kf = cuzk::ff::fr::from_uint(k);
    ASSERT_EQ(mul(g, kf).to_affine(), r.point) << "entry " << k;
    ASSERT_EQ(mul(g, -kf).to_affine(), -r.point) << "entry " << k << ", r - k";
  }
}

// Entry 1 of every file is the generator: pins the constants in curve_params.hpp.
TEST(ec_fixture, generators_match_fixture) {
  CUZK_LOAD_FIXTURE("g1_uncompressed_valid_test_vectors.dat", g1u);
  std::vector<std::uint8_t> g1c, g2c, g2u;
  ASSERT_TRUE(read_fixture("g1_compressed_valid_test_vectors.dat", g1c));
  ASSERT_TRUE(read_fixture("g2_compressed_valid_test_vectors.dat", g2c));
  ASSERT_TRUE(read_fixture("g2_uncompressed_valid_test_vectors.dat", g2u));
  const std::span<const std::uint8_t> s1u(g1u), s1c(g1c), s2u(g2u), s2c(g2c);
  EXPECT_EQ(decode_g1_uncompressed(s1u.subspan(96, 96)).value(), g1_affine::generator());
  EXPECT_EQ(decode_g1_compressed(s1c.subspan(48, 48)).value(), g1_affine::generator());
  EXPECT_EQ(decode_g2_uncompressed(s2u.subspan(192, 192)).value(), g2_affine::generator());
  EXPECT_EQ(decode_g2_compressed(s2c.subspan(96, 96)).value(), g2_affine::generator());
  const auto e1 = encode_g1_uncompressed(g1_affine::generator());
  const auto e2 = encode_g2_uncompressed(g2_affine::generator());
  EXPECT_TRUE(std::equal(e1.begin(), e1.end(), s1u.begin() + 96));
  EXPECT_TRUE(std::equal(e2.begin(), e2.end(), s2u.begin() + 192));
}

}  // namespace
