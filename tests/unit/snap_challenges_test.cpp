// SPDX-License-Identifier: Apache-2.0
// SnapDeals challenges, quick tests: storage-proofs-update challenges.rs
// test_challenges_against_hardcoded (comm_r_new = the first
// PoseidonDomain::random of XorShiftRng::from_seed(TEST_SEED); the first
// five challenges of partitions 0, 1, 14, 15 at every allowed size), which
// pins the custom-tag Poseidon, the digest indexing and the bit slicing;
// test_challenge_bucketing (every challenge of partition k lies in k's
// chunk); and the circuit's gen_challenge_bits against the native values.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include <cuzk/circuits/empty_sector_update_challenges.hpp>
#include <cuzk/circuits/empty_sector_update_gadgets.hpp>
#include <cuzk/r1cs/checking_cs.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using ff::fr;

// rand_xorshift 0.3 XorShiftRng: seeded from 16 LE bytes, next_u64 = two next_u32, low first.
class xorshift {
 public:
  explicit xorshift(const std::array<std::uint8_t, 16>& seed) {
    for (int i = 0; i < 4; ++i)
      _s[i] = std::uint32_t(seed[4 * i]) | std::uint32_t(seed[4 * i + 1]) << 8 | std::uint32_t(seed[4 * i + 2]) << 16 |
              std::uint32_t(seed[4 * i + 3]) << 24;
  }
  std::uint32_t next_u32() {
    const std::uint32_t t = _s[0] ^ (_s[0] << 11);
    _s[0] = _s[1];
    _s[1] = _s[2];
    _s[2] = _s[3];
    _s[3] = _s[3] ^ (_s[3] >> 19) ^ (t ^ (t >> 8));
    return _s[3];
  }
  std::uint64_t next_u64() {
    const std::uint64_t lo = next_u32();
    return (std::uint64_t(next_u32()) << 32) | lo;
  }

 private:
  std::uint32_t _s[4];
};

// blstrs Scalar::random: four u64 (LE), top bit cleared, rejected until < r.
fr blstrs_random(xorshift& rng) {
  for (;;) {
    std::array<std::uint8_t, 32> b{};
    for (int i = 0; i < 4; ++i) {
      std::uint64_t w = rng.next_u64();
      if (i == 3) w &= 0x7fffffffffffffffull;
      for (int j = 0; j < 8; ++j) b[std::size_t(8 * i + j)] = std::uint8_t(w >> (8 * j));
    }
    if (const auto x = fr::from_bytes_le(b.data())) return *x;
  }
}

constexpr std::array<std::uint8_t, 16> test_seed_bytes = {0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d,
                                                          0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5};

TEST(snap_challenges, RustHardcodedVectors) {
  xorshift rng(test_seed_bytes);
  const fr comm_r_new = blstrs_random(rng);
  // (sector nodes, k) -> first five challenges (challenges.rs)
  const std::vector<std::pair<std::pair<std::uint64_t, std::size_t>, std::array<std::uint64_t, 5>>> vectors = {
      {{1u << 5, 0}, {21, 7, 3, 31, 0}},
      {{1u << 6, 0}, {53, 51, 56, 3, 0}},
      {{1u << 7, 0}, {117, 25, 62, 0, 72}},
      {{1u << 8, 0}, {245, 140, 15, 128, 28}},
      {{1u << 9, 0}, {245, 140, 15, 128, 28}},
      {{1u << 9, 1}, {286, 308, 493, 510, 508}},
      {{1u << 10, 0}, {245, 454, 3, 400, 193}},
      {{1u << 10, 1}, {542, 666, 955, 927, 911}},
      {{1u << 18, 0}, {36085, 32783, 44060, 10950, 3731}},
      {{1u << 18, 1}, {78878, 130797, 112892, 93994, 78379}},
      {{1u << 19, 0}, {101621, 16391, 109319, 25944, 41193}},
      {{1u << 19, 1}, {209950, 163702, 175679, 224741, 197410}},
      {{1u << 24, 0}, {1019125, 116736, 706220, 59698, 799498}},
      {{1u << 24, 1}, {2092548, 1213276, 1185483, 1164598, 1095197}},
      {{1u << 24, 14}, {15212432, 15665918, 15015423, 15012912, 15495223}},
      {{1u << 24, 15}, {16388544, 15794686, 16637142, 16319148, 16328348}},
      {{1u << 30, 0}, {1019125, 27985696, 15282860, 11586600, 44651330}},
      {{1u << 30, 1}, {109168525, 127316247, 80331041, 97065716, 72310052}},
      {{1u << 30, 14}, {990420169, 955146989, 968005601, 976863263, 944650706}},
      {{1u << 30, 15}, {1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
      {{1ull << 31, 0}, {1019125, 13992848, 3820715, 18225541, 57316660}},
      {{1ull << 31, 1}, {243386253, 197875851, 204632136, 171516766, 247789010}},
      {{1ull << 31, 14}, {1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
      {{1ull << 31, 15}, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
  };
  for (const auto& [key, expected] : vectors) {
    const auto [nodes, k] = key;
    const std::vector<std::uint64_t> c =
        circuits::snap_challenges(circuits::snap_params_for(nodes * 32), comm_r_new, k);
    ASSERT_GE(c.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(c[i], expected[i]) << nodes << " nodes, k " << k << ", i " << i;
  }
}

TEST(snap_challenges, Bucketing) {
  std::mt19937_64 rng(test::test_seed("snap_challenges.Bucketing"));
  for (std::uint64_t nodes : {1ull << 6, 1ull << 10, 1ull << 18, 1ull << 24, 1ull << 30, 1ull << 31}) {
    const circuits::snap_params p = circuits::snap_params_for(nodes * 32);
    const fr comm_r_new = fr::random(rng);
    const std::uint64_t chunk = nodes / p.partition_count;
    for (std::size_t k = 0; k < p.partition_count; ++k) {
      const std::vector<std::uint64_t> c = circuits::snap_challenges(p, comm_r_new, k);
      ASSERT_EQ(c.size(), p.challenge_count);
      for (std::uint64_t x : c) {
        EXPECT_GE(x, k * chunk);
        EXPECT_LT(x, (k + 1) * chunk);
      }
    }
  }
  const circuits::snap_params pp = circuits::snap_params_for(32ull << 30, circuits::snap_variant::poseidon);
  const std::vector<std::uint64_t> c = circuits::snap_challenges(pp, fr::random(rng), 0);
  EXPECT_EQ(c.size(), 86u * 16u);
  for (std::uint64_t x : c) EXPECT_LT(x, 1ull << 30);
  EXPECT_THROW(circuits::snap_challenges(circuits::snap_params_for(8ull << 20), fr::one(), 4), std::invalid_argument);
}

// The circuit's challenge bits (gen_challenge_bits in a checking CS, partition
// bits appended) equal the native challenges; the constraints hold.
TEST(snap_challenges, GadgetMatchesNative) {
  std::mt19937_64 rng(test::test_seed("snap_challenges.GadgetMatchesNative"));
  for (std::uint64_t nodes : {1ull << 6, 1ull << 18, 1ull << 24}) {
    const circuits::snap_params p = circuits::snap_params_for(nodes * 32);
    const fr comm_r_new = fr::random(rng);
    const std::size_t k = p.partition_count - 1;
    r1cs::checking_cs cs;
    r1cs::alloc_one(cs);
    const auto comm = circuits::snap_gadgets::alloc_num(cs, "comm_r_new", std::optional<fr>(comm_r_new));
    const auto part = circuits::snap_gadgets::alloc_num(cs, "k", std::optional<fr>(fr::from_uint(k)));
    const auto bits =
        circuits::snap_gadgets::gen_challenge_bits(cs, comm, part, p.challenge_count, p.random_bits_per_challenge());
    const std::vector<std::uint64_t> native = circuits::snap_challenges(p, comm_r_new, k);
    ASSERT_EQ(bits.size(), native.size());
    for (std::size_t i = 0; i < bits.size(); ++i) {
      std::uint64_t c = std::uint64_t(k) << p.random_bits_per_challenge();
      for (std::size_t b = 0; b < bits[i].size(); ++b) c |= std::uint64_t(*bits[i][b].get_value()) << b;
      EXPECT_EQ(c, native[i]) << nodes << " nodes, challenge " << i;
    }
    EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
  }
}

}  // namespace
