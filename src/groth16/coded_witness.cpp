// SPDX-License-Identifier: Apache-2.0
// The coded witness form (cuzk/groth16/coded_witness.hpp): host encoder and
// decoder. Both split the values into chunks of whole groups, one oneTBB task
// each. Encoding: pass 1 writes each chunk's code words and per-group "other"
// counts and the chunk's total; a sequential prefix over the chunk totals
// gives each chunk's first slot in |others|; pass 2 turns the counts into
// exclusive prefixes and copies the chunk's other values into place (it reads
// the codes, not the values, except for the ~1% others). Joining blocks
// (join_coded_blocks) runs the same two passes over chunks of the output:
// pass 1 ORs into each chunk's words the codes of the blocks that overlap
// it, 32 values per step shifted from the block's bit offset to the
// output's, and counts the groups; pass 2 turns the counts into prefixes,
// and the others are copied by chunks of the output's others, each from
// the blocks it overlaps. A chunk owns whole words, so no two tasks write
// one word.

#include <cuzk/groth16/coded_witness.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>
#include <string>

#include <tbb/parallel_for.h>

namespace cuzk::groth16 {
namespace {

using ff::fr;

/// Values per task: 256 groups.
constexpr std::size_t chunk_values = 256 * coded_witness::group_size;
static_assert(coded_witness::group_size % 32 == 0 && chunk_values % coded_witness::group_size == 0);

using detail::code_of;
using detail::other_bits;

/// Value |i| of inputs || aux.
struct joined {
  std::span<const fr> inputs, aux;
  const fr& operator[](std::size_t i) const { return i < inputs.size() ? inputs[i] : aux[i - inputs.size()]; }
  /// Values [i, i + len) when they lie in one of the two parts, else null.
  const fr* run(std::size_t i, std::size_t len) const {
    if (i + len <= inputs.size()) return inputs.data() + i;
    if (i >= inputs.size()) return aux.data() + (i - inputs.size());
    return nullptr;
  }
};

/// The code word of the |len| (<= 32) values at |p|.
inline std::uint64_t code_word(const fr* p, std::size_t len) {
  std::uint64_t word = 0;
  for (std::size_t k = 0; k < len; ++k) word |= code_of(p[k]) << (2 * k);
  return word;
}

/// Others copied per task when joining: 1 MiB of values.
constexpr std::size_t chunk_others = 32768;

void check_size(const char* what, std::size_t n) {
  if (n > 0xffffffffull)
    throw std::invalid_argument(std::string("groth16::") + what + ": " + std::to_string(n) +
                                " values, at most 2^32 - 1");
}

/// Calls f(b, lo, hi) for every block |b| that overlaps [|lo|, |hi|) with
/// the overlap [lo, hi) in the joined numbering; |first| holds the blocks'
/// first positions and the total (nondecreasing: empty blocks are skipped).
template <class F>
void for_each_overlap(const std::vector<std::size_t>& first, std::size_t lo, std::size_t hi, F&& f) {
  std::size_t b = std::size_t(std::upper_bound(first.begin(), first.end(), lo) - first.begin()) - 1;
  for (; b + 1 < first.size() && first[b] < hi; ++b) {
    const std::size_t a = std::max(lo, first[b]), e = std::min(hi, first[b + 1]);
    if (a < e) f(b, a, e);
  }
}

/// ORs the codes of block values [|from|, |from| + |len|) into |dst| at value
/// |at|, 32 values per step (the step's destination word is written once).
void or_codes(std::uint64_t* dst, std::size_t at, const coded_block& src, std::size_t from, std::size_t len) {
  for (std::size_t done = 0; done < len;) {
    const std::size_t v = at + done;
    const unsigned lane = unsigned(v % 32);
    const std::size_t take = std::min<std::size_t>(32 - lane, len - done);
    const std::uint64_t bits =
        detail::code_bits(src.codes.data(), src.codes.size(), from + done) & detail::low_codes(take);
    dst[v / 32] |= bits << (2 * lane);
    done += take;
  }
}

}  // namespace

coded_witness encode_witness(std::span<const fr> inputs, std::span<const fr> aux) {
  return *encode_witness(inputs, aux, ~std::size_t(0));
}

std::optional<coded_witness> encode_witness(std::span<const fr> inputs, std::span<const fr> aux,
                                            std::size_t max_others) {
  const std::size_t n = inputs.size() + aux.size();
  check_size("encode_witness", n);
  const joined w{inputs, aux};
  coded_witness cw;
  cw.size = n;
  cw.codes.resize(coded_witness::code_words(n));
  cw.group_others.resize(coded_witness::groups(n));
  const std::size_t chunks = (n + chunk_values - 1) / chunk_values;
  std::vector<std::uint64_t> chunk_first(chunks + 1, 0);
  // pass 1: codes, per-group counts, per-chunk totals. |seen| counts the
  // others so far: once past the bound the remaining chunks are skipped, so
  // a witness of mostly other values (a PoSt one: 99%) is refused after
  // about max_others of them instead of a whole pass. A skip only happens
  // when the witness is refused anyway (|seen| never exceeds the total).
  std::atomic<std::uint64_t> seen{0};
  tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t c) {
    if (seen.load(std::memory_order_relaxed) > max_others) return;
    const std::size_t lo = c * chunk_values, hi = std::min(n, lo + chunk_values);
    std::uint64_t total = 0;
    for (std::size_t g0 = lo; g0 < hi; g0 += coded_witness::group_size) {
      const std::size_t g1 = std::min(hi, g0 + coded_witness::group_size);
      std::uint32_t count = 0;
      for (std::size_t i0 = g0; i0 < g1; i0 += 32) {
        const std::size_t len = std::min(g1, i0 + 32) - i0;
        std::uint64_t word = 0;
        if (const fr* p = w.run(i0, len)) word = code_word(p, len);
        else  // the word straddles inputs and aux
          for (std::size_t k = 0; k < len; ++k) word |= code_of(w[i0 + k]) << (2 * k);
        cw.codes[i0 / 32] = word;
        count += unsigned(std::popcount(other_bits(word)));
      }
      cw.group_others[g0 / coded_witness::group_size] = count;
      total += count;
    }
    chunk_first[c + 1] = total;
    seen.fetch_add(total, std::memory_order_relaxed);
  });
  if (seen.load() > max_others) return std::nullopt;
  for (std::size_t c = 0; c < chunks; ++c) chunk_first[c + 1] += chunk_first[c];
  cw.others.resize(chunk_first[chunks]);
  // pass 2: exclusive prefixes and the other values
  tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t c) {
    const std::size_t lo = c * chunk_values, hi = std::min(n, lo + chunk_values);
    std::uint64_t slot = chunk_first[c];
    for (std::size_t g0 = lo; g0 < hi; g0 += coded_witness::group_size) {
      cw.group_others[g0 / coded_witness::group_size] = std::uint32_t(slot);
      const std::size_t g1 = std::min(hi, g0 + coded_witness::group_size);
      for (std::size_t i0 = g0; i0 < g1; i0 += 32)
        for (std::uint64_t bits = other_bits(cw.codes[i0 / 32]); bits; bits &= bits - 1)
          cw.others[slot++] = w[i0 + unsigned(std::countr_zero(bits)) / 2];
    }
  });
  return cw;
}

std::optional<coded_witness> join_coded_blocks(std::span<const coded_block* const> blocks, std::size_t max_others) {
  // the blocks' first values and first others, then the totals
  std::vector<std::size_t> first(blocks.size() + 1, 0), first_other(blocks.size() + 1, 0);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const coded_block& k = *blocks[b];
    if (k.codes.size() != coded_witness::code_words(k.size) || k.others.size() > k.size)
      throw std::invalid_argument(
          "groth16::join_coded_blocks: block " + std::to_string(b) + " has " + std::to_string(k.codes.size()) +
          " code words and " + std::to_string(k.others.size()) + " others for " + std::to_string(k.size) + " values");
    first[b + 1] = first[b] + k.size;
    first_other[b + 1] = first_other[b] + k.others.size();
  }
  const std::size_t n = first.back(), total_others = first_other.back();
  check_size("join_coded_blocks", n);
  if (total_others > max_others) return std::nullopt;

  coded_witness cw;
  cw.size = n;
  cw.codes.resize(coded_witness::code_words(n));
  cw.group_others.resize(coded_witness::groups(n));
  cw.others.resize(total_others);
  const std::size_t chunks = (n + chunk_values - 1) / chunk_values;
  std::vector<std::uint64_t> chunk_first(chunks + 1, 0);
  // pass 1: each chunk's words from the blocks over it, its group counts
  tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t c) {
    const std::size_t lo = c * chunk_values, hi = std::min(n, lo + chunk_values);
    for_each_overlap(first, lo, hi, [&](std::size_t b, std::size_t a, std::size_t e) {
      or_codes(cw.codes.data(), a, *blocks[b], a - first[b], e - a);
    });
    std::uint64_t total = 0;
    for (std::size_t g0 = lo; g0 < hi; g0 += coded_witness::group_size) {
      const std::size_t w1 = coded_witness::code_words(std::min(hi, g0 + coded_witness::group_size));
      std::uint32_t count = 0;
      for (std::size_t w = g0 / 32; w < w1; ++w) count += unsigned(std::popcount(other_bits(cw.codes[w])));
      cw.group_others[g0 / coded_witness::group_size] = count;
      total += count;
    }
    chunk_first[c + 1] = total;
  });
  for (std::size_t c = 0; c < chunks; ++c) chunk_first[c + 1] += chunk_first[c];
  if (chunk_first[chunks] != total_others)
    throw std::invalid_argument("groth16::join_coded_blocks: the codes name " + std::to_string(chunk_first[chunks]) +
                                " other values, the blocks hold " + std::to_string(total_others));
  // pass 2: exclusive prefixes; the others, by chunks of the output's others
  tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t c) {
    const std::size_t lo = c * chunk_values, hi = std::min(n, lo + chunk_values);
    std::uint64_t slot = chunk_first[c];
    for (std::size_t g0 = lo; g0 < hi; g0 += coded_witness::group_size) {
      std::uint32_t& count = cw.group_others[g0 / coded_witness::group_size];
      const std::uint32_t here = count;
      count = std::uint32_t(slot);
      slot += here;
    }
  });
  tbb::parallel_for(std::size_t(0), (total_others + chunk_others - 1) / chunk_others, [&](std::size_t c) {
    const std::size_t lo = c * chunk_others, hi = std::min(total_others, lo + chunk_others);
    for_each_overlap(first_other, lo, hi, [&](std::size_t b, std::size_t a, std::size_t e) {
      const fr* src = blocks[b]->others.data() + (a - first_other[b]);
      std::copy(src, src + (e - a), cw.others.data() + a);
    });
  });
  return cw;
}

std::vector<fr> decode_witness(const coded_witness& cw) {
  const std::size_t n = cw.size;
  if (cw.codes.size() != coded_witness::code_words(n) || cw.group_others.size() != coded_witness::groups(n))
    throw std::invalid_argument("groth16::decode_witness: code or count arrays do not match " + std::to_string(n) +
                                " values");
  std::vector<fr> out(n);
  const std::size_t chunks = (n + chunk_values - 1) / chunk_values;
  tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t c) {
    const std::size_t lo = c * chunk_values, hi = std::min(n, lo + chunk_values);
    for (std::size_t g0 = lo; g0 < hi; g0 += coded_witness::group_size) {
      std::uint64_t slot = cw.group_others[g0 / coded_witness::group_size];
      const std::size_t g1 = std::min(hi, g0 + coded_witness::group_size);
      for (std::size_t i = g0; i < g1; ++i) {
        const std::uint64_t code = (cw.codes[i / 32] >> (2 * (i % 32))) & 3;
        if (code == coded_witness::code_zero) {
          out[i] = fr::zero();
        } else if (code == coded_witness::code_one) {
          out[i] = fr::one();
        } else {
          if (code != coded_witness::code_other || slot >= cw.others.size())
            throw std::invalid_argument("groth16::decode_witness: bad code or too few other values");
          out[i] = cw.others[slot++];
        }
      }
    }
  });
  return out;
}

}  // namespace cuzk::groth16
