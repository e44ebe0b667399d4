// SPDX-License-Identifier: Apache-2.0
// SHA-256 gadget (include/cuzk/gadgets/sha256.hpp) against OpenSSL
// (native_sha256.hpp) on random messages of 0..200 bytes, with bellperson's
// bit order (bytes in order, each most significant bit first); bellperson's
// published constraint counts; the witness, checking, shape and counting
// modes agreeing (same assignment, same counts, A·w ∘ B·w = C·w); a
// corrupted assignment failing inside the right round; and Filecoin's
// 254-bit truncated SHA-256 hasher gadgets against the native helper.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <cuzk/gadgets/native_sha256.hpp>
#include <cuzk/gadgets/sha256.hpp>
#include <cuzk/r1cs/r1cs.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::gadgets;  // NOLINT: test file
using cuzk::r1cs::alloc_one;
using cuzk::r1cs::checking_cs;
using cuzk::r1cs::counting_cs;
using cuzk::r1cs::fr;
using cuzk::r1cs::namespace_guard;
using cuzk::r1cs::shape_cs;
using cuzk::r1cs::witness_cs;

using bytes = std::vector<std::uint8_t>;

bytes random_bytes(std::mt19937_64& rng, std::size_t n) {
  bytes b(n);
  for (auto& x : b) x = std::uint8_t(rng());
  return b;
}

// Allocates the message bits as bellperson's test_against_vectors does:
// namespace "input bit <byte> <bit>", most significant bit first. A blank
// message (no value) allocates |len| bytes of bits without values.
template <class CS>
std::vector<boolean> alloc_message(CS& cs, const std::optional<bytes>& msg, std::size_t len) {
  std::vector<boolean> bits;
  bits.reserve(8 * len);
  for (std::size_t i = 0; i < len; ++i) {
    for (int j = 7; j >= 0; --j) {
      std::optional<bool> v;
      if (msg) v = (((*msg)[i] >> j) & 1) == 1;
      namespace_guard ns(cs, [i, j] { return "input bit " + std::to_string(i) + " " + std::to_string(j); });
      bits.push_back(allocated_bit::alloc(cs, v));
    }
  }
  return bits;
}

// Digest bytes from the gadget's output bits (most significant first).
native::sha256_digest digest_of(const std::vector<boolean>& bits) {
  native::sha256_digest d{};
  EXPECT_EQ(bits.size(), 256u);
  for (std::size_t i = 0; i < 256; ++i) {
    const std::optional<bool> v = bits[i].get_value();
    EXPECT_TRUE(v.has_value());
    if (v && *v) d[i / 8] |= std::uint8_t(0x80 >> (i % 8));
  }
  return d;
}

// The whole SHA-256 of a message as a circuit (for the synthesis helpers).
struct sha256_circuit {
  std::optional<bytes> msg;
  std::size_t len = 0;
  template <cuzk::r1cs::constraint_system CS>
  void synthesize(CS& cs) const {
    const std::vector<boolean> in = alloc_message(cs, msg, len);
    namespace_guard ns(cs, "sha256");
    const std::vector<boolean> out = sha256(cs, std::span<const boolean>(in));
    // expose the digest so that it is part of the statement
    pack_into_inputs(cs, std::span<const boolean>(out));
  }
};

// bellperson gadgets/sha256.rs test_full_block: one compression of 512
// allocated bits costs 25840 constraints (beyond the 512 bit constraints);
// test_full_hash: sha256 of 512 allocated bits (2 blocks) costs 44874;
// test_blank_hash: a compression of constants costs 0.
TEST(gadgets_sha256, published_constraint_counts) {
  {
    counting_cs cs;
    alloc_one(cs);
    const std::vector<boolean> in = alloc_message(cs, std::nullopt, 64);
    const std::array<uint32, 8> iv = sha256_iv_words();
    namespace_guard ns(cs, "sha256");
    sha256_compression_function(cs, std::span<const boolean>(in), std::span<const uint32>(iv));
    EXPECT_EQ(cs.num_constraints() - 512, 25840u);
  }
  {
    counting_cs cs;
    alloc_one(cs);
    const std::vector<boolean> in = alloc_message(cs, std::nullopt, 64);
    namespace_guard ns(cs, "sha256");
    sha256(cs, std::span<const boolean>(in));
    EXPECT_EQ(cs.num_constraints() - 512, 44874u);
  }
  {
    // test_blank_hash: the padded empty message as constants
    checking_cs cs;
    alloc_one(cs);
    std::vector<boolean> in(512, boolean::constant(false));
    in[0] = boolean::constant(true);
    const std::array<uint32, 8> iv = sha256_iv_words();
    const std::array<uint32, 8> out =
        sha256_compression_function(cs, std::span<const boolean>(in), std::span<const uint32>(iv));
    EXPECT_EQ(cs.num_constraints(), 0u);
    EXPECT_EQ(cs.num_aux(), 0u);
    std::vector<boolean> bits;
    for (const uint32& w : out) {
      const uint32::bits_type be = w.into_bits_be();
      bits.insert(bits.end(), be.begin(), be.end());
    }
    EXPECT_EQ(digest_of(bits), native::sha256(bytes{}));
  }
}

// test_full_block in checking_cs (satisfied, 25840) and corrupted inside a round.
TEST(gadgets_sha256, full_block_checking_and_corruption) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_sha256.full_block_checking_and_corruption"));
  const bytes msg = random_bytes(rng, 64);
  checking_cs cs;
  alloc_one(cs);
  const std::vector<boolean> in = alloc_message(cs, msg, 64);
  std::vector<boolean> out;
  {
    namespace_guard ns(cs, "sha256");
    out = sha256_block_no_padding(cs, std::span<const boolean>(in));
  }
  EXPECT_EQ(cs.num_constraints() - 512, 25840u);
  EXPECT_EQ(out.size(), 256u);
  ASSERT_TRUE(cs.is_satisfied());
  const std::string var = "sha256/compression round 10/ch/ch 5/ch";
  ASSERT_TRUE(cs.find_variable(var).has_value());
  cs.set(var, fr::one() - cs.get(var));
  const auto failing = cs.which_is_unsatisfied();
  ASSERT_TRUE(failing.has_value());
  EXPECT_EQ(*failing, "sha256/compression round 10/ch/ch 5/ch computation");
}

// SHA-256 of random messages against OpenSSL: witness mode for every length
// 0..64 (all padding cases of 1 and 2 blocks) and random lengths up to 200.
TEST(gadgets_sha256, matches_openssl_witness_mode) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_sha256.matches_openssl_witness_mode"));
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 64; ++n) lengths.push_back(n);
  for (int i = 0; i < 12; ++i) lengths.push_back(65 + rng() % 136);
  lengths.push_back(200);
  for (std::size_t n : lengths) {
    const bytes msg = random_bytes(rng, n);
    witness_cs cs;
    alloc_one(cs);
    const std::vector<boolean> in = alloc_message(cs, msg, n);
    const std::vector<boolean> out = sha256(cs, std::span<const boolean>(in));
    ASSERT_EQ(digest_of(out), native::sha256(msg)) << "length " << n;
  }
}

// checking_cs on a few lengths: satisfied, equal to OpenSSL, and the same
// assignment and counts as witness_cs; counting_cs on a blank message gives
// the same counts.
TEST(gadgets_sha256, checking_and_witness_agree) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_sha256.checking_and_witness_agree"));
  for (std::size_t n : {std::size_t(0), std::size_t(55), std::size_t(56), std::size_t(119 + rng() % 82)}) {
    const bytes msg = random_bytes(rng, n);
    const sha256_circuit full{msg, n};
    checking_cs ccs;
    cuzk::r1cs::synthesize_circuit(full, ccs);
    ASSERT_TRUE(ccs.is_satisfied()) << *ccs.which_is_unsatisfied();
    witness_cs wcs;
    cuzk::r1cs::synthesize_circuit(full, wcs);
    counting_cs kcs;
    cuzk::r1cs::synthesize_circuit(sha256_circuit{std::nullopt, n}, kcs);
    EXPECT_EQ(wcs.num_constraints(), ccs.num_constraints());
    EXPECT_EQ(kcs.num_constraints(), ccs.num_constraints());
    EXPECT_EQ(kcs.num_aux(), ccs.num_aux());
    EXPECT_EQ(kcs.num_inputs(), ccs.num_inputs());
    ASSERT_EQ(wcs.aux().size(), ccs.aux().size());
    EXPECT_TRUE(std::equal(wcs.aux().begin(), wcs.aux().end(), ccs.aux().begin())) << "length " << n;
    ASSERT_EQ(wcs.inputs().size(), ccs.inputs().size());
    EXPECT_TRUE(std::equal(wcs.inputs().begin(), wcs.inputs().end(), ccs.inputs().begin()));
    // the public inputs are the packed digest
    const native::sha256_digest d = native::sha256(msg);
    std::vector<bool> digest_bits;
    for (std::uint8_t byte : d)
      for (int j = 7; j >= 0; --j) digest_bits.push_back(((byte >> j) & 1) == 1);
    const std::vector<fr> packed = compute_multipacking(digest_bits);
    ASSERT_EQ(ccs.num_inputs(), packed.size() + 1);
    for (std::size_t i = 0; i < packed.size(); ++i) EXPECT_EQ(ccs.inputs()[i + 1], packed[i]);
  }
}

// The shape of a blank circuit and the witness of a full one form a
// satisfied R1CS (a_i * b_i = c_i), the shape has no unconstrained aux, and
// shapes from blank and full circuits are the same.
TEST(gadgets_sha256, shape_and_witness_satisfy_r1cs) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_sha256.shape_and_witness_satisfy_r1cs"));
  const std::size_t n = 70;
  const bytes msg = random_bytes(rng, n);
  const cuzk::r1cs::r1cs_shape shape = cuzk::r1cs::make_shape(sha256_circuit{std::nullopt, n});
  const cuzk::r1cs::r1cs_shape shape_full = cuzk::r1cs::make_shape(sha256_circuit{msg, n});
  witness_cs w = cuzk::r1cs::make_witness(sha256_circuit{msg, n}, shape.num_inputs, shape.num_aux);
  ASSERT_EQ(w.num_constraints(), shape.num_constraints);
  ASSERT_EQ(w.num_aux(), shape.num_aux);
  ASSERT_EQ(w.num_inputs(), shape.num_inputs);
  EXPECT_FALSE(shape.first_unconstrained_aux().has_value());
  EXPECT_EQ(shape.a, shape_full.a);
  EXPECT_EQ(shape.b, shape_full.b);
  EXPECT_EQ(shape.c, shape_full.c);
  EXPECT_EQ(shape.coeffs.size(), shape_full.coeffs.size());
  std::vector<fr> a(shape.num_constraints), b(shape.num_constraints), c(shape.num_constraints);
  cuzk::r1cs::evaluate_abc(shape, w.inputs(), w.aux(), a, b, c);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) bad += (a[i] * b[i] != c[i]) ? 1 : 0;
  EXPECT_EQ(bad, 0u);
  // corrupt one aux value: some row fails
  std::vector<fr> aux(w.aux().begin(), w.aux().end());
  aux[aux.size() / 2] += fr::one();
  cuzk::r1cs::evaluate_abc(shape, w.inputs(), aux, a, b, c);
  bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) bad += (a[i] * b[i] != c[i]) ? 1 : 0;
  EXPECT_GT(bad, 0u);
}

// hash2_circuit and hash_multi_leaf_circuit of x, y in checking_cs:
// satisfied, equal to |expected|, the same cost, and a corrupted output
// caught by the packing constraint.
void check_hashers_in_checking_cs(const fr& x, const fr& y, const fr& expected) {
  checking_cs cs;
  alloc_one(cs);
  const allocated_num a = [&] {
    namespace_guard ns(cs, "a");
    return allocated_num::alloc(cs, [&] { return x; });
  }();
  const allocated_num b = [&] {
    namespace_guard ns(cs, "b");
    return allocated_num::alloc(cs, [&] { return y; });
  }();
  std::size_t before = cs.num_constraints();
  const allocated_num h2 = [&] {
    namespace_guard ns(cs, "hash2");
    return sha256_hasher::hash2_circuit(cs, a, b);
  }();
  EXPECT_EQ(h2.get_value(), expected);
  const std::size_t hash2_cost = cs.num_constraints() - before;
  // 2 x to_bits_le (256) + 2 compressions + packing
  EXPECT_GT(hash2_cost, 2 * 256u + 25840u);
  ASSERT_TRUE(cs.is_satisfied());
  EXPECT_EQ(cs.get("hash2/pack_le/input/num"), expected);

  before = cs.num_constraints();
  const std::array<allocated_num, 2> leaves{a, b};
  const allocated_num hm = [&] {
    namespace_guard ns(cs, "multi");
    return sha256_hasher::hash_multi_leaf_circuit(cs, std::span<const allocated_num>(leaves));
  }();
  EXPECT_EQ(hm.get_value(), expected);
  EXPECT_EQ(cs.num_constraints() - before, hash2_cost);  // the same gadget sequence
  EXPECT_TRUE(cs.find_variable("multi/1_num_into_bits/bit 254/boolean").has_value());
  ASSERT_TRUE(cs.is_satisfied());

  cs.set("hash2/pack_le/input/num", expected + fr::one());
  EXPECT_EQ(cs.which_is_unsatisfied(), "hash2/pack_le/packing constraint");
}

// Filecoin's truncated SHA-256 (filecoin-hashers Sha256Function): the packed
// number equals the native digest with byte 31 &= 0x3f read little-endian.
TEST(gadgets_sha256, filecoin_fr32_truncation) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_sha256.filecoin_fr32_truncation"));
  // native helper
  {
    const bytes msg = random_bytes(rng, 77);
    native::sha256_digest d = native::sha256(msg);
    const native::sha256_digest t = native::sha256_fr32(msg);
    EXPECT_EQ(t[31], d[31] & 0x3f);
    EXPECT_TRUE(std::equal(t.begin(), t.begin() + 31, d.begin()));
    const bytes x = random_bytes(rng, 32), y = random_bytes(rng, 32);
    bytes xy = x;
    xy.insert(xy.end(), y.begin(), y.end());
    EXPECT_EQ(native::sha256_fr32(x, y), native::sha256_fr32(xy));
  }
  // hash_circuit on raw message bits
  for (std::size_t n : {std::size_t(32), std::size_t(64), std::size_t(rng() % 150)}) {
    const bytes msg = random_bytes(rng, n);
    witness_cs cs;
    alloc_one(cs);
    const std::vector<boolean> in = alloc_message(cs, msg, n);
    const allocated_num h = sha256_hasher::hash_circuit(cs, std::span<const boolean>(in));
    EXPECT_EQ(h.get_value(), native::fr_from_fr32(native::sha256_fr32(msg))) << n;
  }
  // hash2 / multi-leaf / leaf-bits of two field elements: H(a_le || b_le);
  // the first in checking_cs, the others in witness_cs (faster)
  for (int iter = 0; iter < 3; ++iter) {
    const fr x = fr::random(rng), y = fr::random(rng);
    std::array<std::uint8_t, 32> xb, yb;
    x.to_bytes_le(xb.data());
    y.to_bytes_le(yb.data());
    const fr expected = native::fr_from_fr32(native::sha256_fr32(xb, yb));
    if (iter == 0) {
      check_hashers_in_checking_cs(x, y, expected);
      continue;
    }
    witness_cs ws;
    alloc_one(ws);
    const allocated_num wa = allocated_num::alloc(ws, [&] { return x; });
    const allocated_num wb = allocated_num::alloc(ws, [&] { return y; });
    EXPECT_EQ(sha256_hasher::hash2_circuit(ws, wa, wb).get_value(), expected);
    const std::array<allocated_num, 2> leaves{wa, wb};
    EXPECT_EQ(sha256_hasher::hash_multi_leaf_circuit(ws, std::span<const allocated_num>(leaves)).get_value(), expected);
    // hash_leaf_bits_circuit of the same little-endian bits
    const std::vector<boolean> la = wa.to_bits_le(ws), lb = wb.to_bits_le(ws);
    EXPECT_EQ(sha256_hasher::hash_leaf_bits_circuit(ws, std::span<const boolean>(la), std::span<const boolean>(lb))
                  .get_value(),
              expected);
  }
}

}  // namespace
