// SPDX-License-Identifier: Apache-2.0
// The rules of the coded batch pass's expansion (cuzk/groth16/detail/
// coded_expand.cuh: coded_value, expand_selected_one, selected_bit_range),
// the device kernel's per-thread code, run on the CPU over the bits
// selected_bit_range gives, against the CPU's own answer: decode_witness,
// then the values a density mask selects, in order. Random seeded witnesses
// (0, 1 and other values mixed at several rates, sizes not a multiple of a
// code word or a group), masks at several densities and none, and rank
// ranges at the edges (the first, the last, one rank, word and group
// boundaries) and at random. Every rank of a range must be written, and
// nothing outside it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/groth16/detail/coded_expand.cuh>

#include "common/test_seed.hpp"

namespace {

namespace gpu = cuzk::gpu;
namespace ff = cuzk::ff;
namespace groth16 = cuzk::groth16;
using ff::fr;

static_assert(sizeof(gpu::fr_d) == sizeof(fr));

/// A mask of |n| bits, each set with probability |p| (words past n zero).
std::vector<std::uint64_t> random_mask(std::size_t n, double p, std::mt19937_64& rng) {
  std::vector<std::uint64_t> w((n + 63) / 64, 0);
  std::bernoulli_distribution set(p);
  for (std::size_t j = 0; j < n; ++j)
    if (set(rng)) w[j / 64] |= std::uint64_t(1) << (j % 64);
  return w;
}

/// The CPU's answer and the rule's for one (witness, segment, mask) and a
/// set of rank ranges.
void check_segment(const groth16::coded_witness& cw, const std::vector<fr>& values, std::size_t value_lo,
                   std::size_t n_bits, const std::vector<std::uint64_t>* mask, std::mt19937_64& rng) {
  std::vector<std::uint64_t> off;
  std::vector<fr> want;
  if (mask) {
    std::uint64_t acc = 0;
    for (const std::uint64_t w : *mask) {
      off.push_back(acc);
      acc += unsigned(__builtin_popcountll(w));
    }
    for (std::size_t j = 0; j < n_bits; ++j)
      if (((*mask)[j / 64] >> (j % 64)) & 1) want.push_back(values[value_lo + j]);
  } else {
    want.assign(values.begin() + std::ptrdiff_t(value_lo), values.begin() + std::ptrdiff_t(value_lo + n_bits));
  }
  const std::size_t selected = want.size();
  if (selected == 0) return;
  std::vector<std::pair<std::size_t, std::size_t>> ranges{{0, selected}, {selected - 1, 1}, {0, 1}};
  for (const std::size_t edge : {std::size_t(31), std::size_t(32), std::size_t(63), std::size_t(64), std::size_t(255),
                                 std::size_t(256), std::size_t(257)})
    if (edge < selected) ranges.push_back({edge, std::min<std::size_t>(selected - edge, 100)});
  for (int k = 0; k < 20; ++k) {
    const std::size_t lo = rng() % selected;
    ranges.push_back({lo, 1 + rng() % (selected - lo)});
  }
  const auto* codes = cw.codes.data();
  const auto* counts = cw.group_others.data();
  const auto* others = reinterpret_cast<const gpu::fr_d*>(cw.others.data());
  const fr sentinel = fr::from_uint(0xdeadbeef);
  for (const auto& [rank_lo, count] : ranges) {
    SCOPED_TRACE(::testing::Message() << "values " << value_lo << "+" << n_bits << (mask ? " masked" : "") << ", ranks "
                                      << rank_lo << "+" << count);
    const auto [j0, j1] = groth16::detail::selected_bit_range(off, n_bits, rank_lo, rank_lo + count);
    ASSERT_LE(j0, j1);
    ASSERT_LE(j1, n_bits);
    std::vector<fr> got(count + 2, sentinel);  // one guard element each side
    auto* dst = reinterpret_cast<gpu::fr_d*>(got.data() + 1);
    for (std::size_t j = j0; j < j1; ++j)
      groth16::detail::expand_selected_one(codes, counts, others, value_lo, j, mask ? mask->data() : nullptr,
                                           mask ? off.data() : nullptr, rank_lo, rank_lo + count, dst);
    EXPECT_TRUE(got.front() == sentinel && got.back() == sentinel) << "written outside the range";
    for (std::size_t k = 0; k < count; ++k)
      if (!(got[k + 1] == want[rank_lo + k])) {
        ADD_FAILURE() << "rank " << rank_lo + k << " differs";
        break;
      }
  }
}

TEST(coded_expand, SelectedChunksMatchTheDecodedWitness) {
  std::mt19937_64 rng(cuzk::test::test_seed("coded_expand.SelectedChunksMatchTheDecodedWitness"));
  for (const std::size_t n : {std::size_t(1), std::size_t(300), std::size_t(100003)}) {
    for (const double other_rate : {0.0, 0.025, 0.5, 1.0}) {
      SCOPED_TRACE(::testing::Message() << n << " values, others at " << other_rate);
      std::vector<fr> inputs{fr::one()}, aux(n);
      std::uniform_real_distribution<double> u(0, 1);
      for (fr& v : aux) {
        const double x = u(rng);
        v = x < other_rate ? fr::random(rng) : x < other_rate + (1 - other_rate) / 2 ? fr::one() : fr::zero();
      }
      const groth16::coded_witness cw = groth16::encode_witness(inputs, aux);
      const std::vector<fr> values = groth16::decode_witness(cw);
      ASSERT_EQ(values.size(), n + 1);
      // L: the aux values as they are; A and B: inputs and aux through masks
      check_segment(cw, values, 1, n, nullptr, rng);
      check_segment(cw, values, 0, 1, nullptr, rng);
      for (const double density : {1.0, 0.5, 0.26, 0.01}) {
        const std::vector<std::uint64_t> mask = random_mask(n, density, rng);
        check_segment(cw, values, 1, n, &mask, rng);
      }
    }
  }
}

TEST(coded_expand, BitRangeCoversExactlyTheWordsOfTheRanks) {
  // words with 0, 64 and some set bits: the range starts at the word of
  // the first rank and ends after the word of the last
  const std::vector<std::uint64_t> off{0, 0, 64, 64, 70};  // words 0..4 of a 300-bit mask
  using groth16::detail::selected_bit_range;
  EXPECT_EQ(selected_bit_range(off, 300, 0, 1), std::make_pair(std::size_t(64), std::size_t(128)));
  EXPECT_EQ(selected_bit_range(off, 300, 63, 65), std::make_pair(std::size_t(64), std::size_t(256)));
  EXPECT_EQ(selected_bit_range(off, 300, 70, 71), std::make_pair(std::size_t(256), std::size_t(300)));
  EXPECT_EQ(selected_bit_range({}, 300, 5, 9), std::make_pair(std::size_t(5), std::size_t(9)));
}

}  // namespace
