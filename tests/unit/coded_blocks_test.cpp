// SPDX-License-Identifier: Apache-2.0
// Coded blocks (groth16/coded_witness.hpp: coded_block, join_coded_blocks):
// values pushed into blocks and joined give exactly encode_witness of the
// concatenated values (size, every code word with the zero padding of the
// last, group counts, others), on random seeded zero / one / other mixes,
// for blocks of length 0, 1, 31, 32, 33 and long ones starting at every
// offset residue mod 32, and for many random blocks across the join's task
// boundaries (65536 values, 32768 others); the others bound is exact (at
// the bound a value, one less nullopt); no blocks and empty blocks give the
// empty form; malformed and unfinished blocks are refused; a block finished
// and then pushed to again codes the same.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include <cuzk/groth16/coded_witness.hpp>

#include "common/test_seed.hpp"
#include "common/witness_values.hpp"

namespace {

using cuzk::ff::fr;
using cuzk::groth16::coded_block;
using cuzk::groth16::coded_witness;
using cuzk::test::witness_values;

/// Blocks of |lengths| over consecutive values of |all|.
std::vector<coded_block> blocks_of(const std::vector<fr>& all, const std::vector<std::size_t>& lengths) {
  std::vector<coded_block> blocks(lengths.size());
  std::size_t at = 0;
  for (std::size_t b = 0; b < lengths.size(); ++b) {
    blocks[b].reserve(lengths[b], 0);
    for (std::size_t j = 0; j < lengths[b]; ++j) blocks[b].push(all[at++]);
    blocks[b].finish();
  }
  return blocks;
}

std::vector<const coded_block*> pointers(const std::vector<coded_block>& blocks) {
  std::vector<const coded_block*> p;
  for (const coded_block& b : blocks) p.push_back(&b);
  return p;
}

void expect_same(const coded_witness& got, const coded_witness& want) {
  EXPECT_EQ(got.size, want.size);
  EXPECT_EQ(got.codes, want.codes);
  EXPECT_EQ(got.group_others, want.group_others);
  EXPECT_EQ(got.others, want.others);
}

/// Joins blocks of |lengths| over random values and compares with
/// encode_witness of the same values (split into inputs and aux anywhere).
void check_join(const std::vector<std::size_t>& lengths, double p0, double p1, std::mt19937_64& rng) {
  std::size_t n = 0;
  for (std::size_t l : lengths) n += l;
  const std::vector<fr> all = witness_values(n, p0, p1, rng);
  const std::size_t split = n ? std::size_t(rng() % (n + 1)) : 0;
  const coded_witness want =
      cuzk::groth16::encode_witness(std::span<const fr>(all).first(split), std::span<const fr>(all).subspan(split));
  const std::vector<coded_block> blocks = blocks_of(all, lengths);
  std::size_t at = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {  // each block coded on its own
    ASSERT_EQ(blocks[b].size, lengths[b]);
    ASSERT_EQ(blocks[b].codes.size(), coded_witness::code_words(lengths[b]));
    if (lengths[b] % 32) {
      ASSERT_EQ(blocks[b].codes.back() >> (2 * (lengths[b] % 32)), 0u) << "block " << b << ": padding not 0";
    }
    for (std::size_t j = 0; j < lengths[b]; ++j)
      ASSERT_EQ((blocks[b].codes[j / 32] >> (2 * (j % 32))) & 3,
                (want.codes[(at + j) / 32] >> (2 * ((at + j) % 32))) & 3)
          << "block " << b << " value " << j;
    at += lengths[b];
  }
  const std::optional<coded_witness> got = cuzk::groth16::join_coded_blocks(pointers(blocks));
  ASSERT_TRUE(got.has_value());
  expect_same(*got, want);
}

TEST(coded_blocks, JoinEqualsEncodeAtEveryOffset) {
  std::mt19937_64 rng(cuzk::test::test_seed("coded_blocks.JoinEqualsEncodeAtEveryOffset"));
  for (const std::size_t len : {std::size_t(0), std::size_t(1), std::size_t(31), std::size_t(32), std::size_t(33),
                                std::size_t(257), std::size_t(70001)}) {
    for (std::size_t r = 0; r < 32; ++r) {
      SCOPED_TRACE(::testing::Message() << "block of " << len << " values at offset residue " << r);
      // a head block that puts the block at offset = r mod 32, the block,
      // then an empty block and a short tail that must land after it
      const std::vector<std::size_t> lengths = {r + 32 * std::size_t(rng() % 3), len, 0, std::size_t(rng() % 40)};
      check_join(lengths, 0.51, 0.47, rng);
      if (len == 70001 && r % 8 == 0) check_join(lengths, 0, 0, rng);  // all others
    }
  }
}

TEST(coded_blocks, JoinEqualsEncodeOnRandomBlocks) {
  std::mt19937_64 rng(cuzk::test::test_seed("coded_blocks.JoinEqualsEncodeOnRandomBlocks"));
  const std::size_t picks[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 255, 256, 257};
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE(::testing::Message() << "round " << round);
    std::vector<std::size_t> lengths(1 + rng() % 60);
    for (std::size_t& l : lengths) {
      const unsigned kind = unsigned(rng() % 4);
      l = kind == 0 ? picks[rng() % std::size(picks)] : kind == 1 ? rng() % 1000 : kind == 2 ? rng() % 5 : rng() % 9000;
    }
    // PoRep's mix, and one with many others (the others' task boundaries)
    check_join(lengths, 0.51, 0.47, rng);
    check_join(lengths, 0.3, 0.3, rng);
  }
  // one long block, and the PoRep block sizes of inputs || aux in small
  check_join({150001}, 0.2, 0.2, rng);
  check_join({1, 3, 18, 18, 18, 1234, 70000, 70000, 70000}, 0.51, 0.47, rng);
}

TEST(coded_blocks, JoinHonoursTheOthersBoundExactly) {
  std::mt19937_64 rng(cuzk::test::test_seed("coded_blocks.JoinHonoursTheOthersBoundExactly"));
  const std::vector<std::size_t> lengths = {5, 0, 77, 1000, 33, 40000};
  std::size_t n = 0;
  for (std::size_t l : lengths) n += l;
  const std::vector<fr> all = witness_values(n, 0.5, 0.45, rng);
  const coded_witness want = cuzk::groth16::encode_witness(all, {});
  const std::size_t others = want.others.size();
  ASSERT_GT(others, 0u);
  const std::vector<coded_block> blocks = blocks_of(all, lengths);
  const std::optional<coded_witness> at = cuzk::groth16::join_coded_blocks(pointers(blocks), others);
  ASSERT_TRUE(at.has_value());
  expect_same(*at, want);
  EXPECT_FALSE(cuzk::groth16::join_coded_blocks(pointers(blocks), others - 1).has_value());
  EXPECT_FALSE(cuzk::groth16::join_coded_blocks(pointers(blocks), 0).has_value());
  // no others at all: a bound of 0 is met
  const std::vector<fr> binary = witness_values(5000, 0.5, 0.5, rng);
  const std::vector<coded_block> bb = blocks_of(binary, {17, 4000, 983});
  const std::optional<coded_witness> none = cuzk::groth16::join_coded_blocks(pointers(bb), 0);
  ASSERT_TRUE(none.has_value());
  expect_same(*none, cuzk::groth16::encode_witness(binary, {}));
}

TEST(coded_blocks, EmptyAndMalformedBlocks) {
  const std::optional<coded_witness> nothing = cuzk::groth16::join_coded_blocks({}, 0);
  ASSERT_TRUE(nothing.has_value());
  expect_same(*nothing, cuzk::groth16::encode_witness({}, {}));
  const std::vector<coded_block> empties(3);
  const std::optional<coded_witness> empty = cuzk::groth16::join_coded_blocks(pointers(empties), 0);
  ASSERT_TRUE(empty.has_value());
  expect_same(*empty, cuzk::groth16::encode_witness({}, {}));

  std::mt19937_64 rng(cuzk::test::test_seed("coded_blocks.EmptyAndMalformedBlocks"));
  const std::vector<fr> all = witness_values(300, 0.3, 0.3, rng);
  const std::vector<coded_block> good = blocks_of(all, {100, 200});
  ASSERT_FALSE(good[1].others.empty());
  std::vector<coded_block> bad = good;
  bad[1].codes.pop_back();  // codes shorter than the size needs
  EXPECT_THROW((void)cuzk::groth16::join_coded_blocks(pointers(bad)), std::invalid_argument);
  bad = good;
  bad[1].others.pop_back();  // fewer others than codes 2
  EXPECT_THROW((void)cuzk::groth16::join_coded_blocks(pointers(bad)), std::invalid_argument);
  bad = good;
  bad[0].others.push_back(fr::one());  // more
  EXPECT_THROW((void)cuzk::groth16::join_coded_blocks(pointers(bad)), std::invalid_argument);
  coded_block unfinished;  // 33 values, the 33rd not yet coded
  for (std::size_t i = 0; i < 33; ++i) unfinished.push(all[i]);
  EXPECT_EQ(unfinished.codes.size(), 1u);
  const std::vector<const coded_block*> one{&unfinished};
  EXPECT_THROW((void)cuzk::groth16::join_coded_blocks(one), std::invalid_argument);
}

// finish() in the middle of a block, twice, then more values: the partial
// word it wrote is completed, not duplicated.
TEST(coded_blocks, PushAfterFinish) {
  std::mt19937_64 rng(cuzk::test::test_seed("coded_blocks.PushAfterFinish"));
  const std::vector<fr> all = witness_values(200, 0.3, 0.3, rng);
  for (const std::size_t cut : {std::size_t(0), std::size_t(1), std::size_t(31), std::size_t(32), std::size_t(45)}) {
    SCOPED_TRACE(::testing::Message() << "finished after " << cut);
    coded_block b;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (i == cut) {
        b.finish();
        b.finish();
        EXPECT_EQ(b.codes.size(), coded_witness::code_words(cut));
      }
      b.push(all[i]);
    }
    b.finish();
    const std::vector<const coded_block*> one{&b};
    const std::optional<coded_witness> got = cuzk::groth16::join_coded_blocks(one);
    ASSERT_TRUE(got.has_value());
    expect_same(*got, cuzk::groth16::encode_witness(all, {}));
  }
}

}  // namespace
