// SPDX-License-Identifier: Apache-2.0
// The coded witness form (cuzk/groth16/coded_witness.hpp): host encoder and
// decoder. Both split the values into chunks of whole groups, one oneTBB task
// each. Encoding: pass 1 writes each chunk's code words and per-group "other"
// counts and the chunk's total; a sequential prefix over the chunk totals
// gives each chunk's first slot in |others|; pass 2 turns the counts into
// exclusive prefixes and copies the chunk's other values into place (it reads
// the codes, not the values, except for the ~1% others).

#include <cuzk/groth16/coded_witness.hpp>

#include <algorithm>
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

/// Bit 2j set where code j of |word| is 2 (other).
constexpr std::uint64_t other_bits(std::uint64_t word) { return (word >> 1) & ~word & 0x5555555555555555ull; }

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

/// The code of |x| without branches: 0 for zero, 1 for one, 2 otherwise.
inline std::uint64_t code_of(const fr& x) {
  constexpr fr one = fr::one();
  std::uint64_t z = 0, o = 0;
  for (std::size_t j = 0; j < fr::n_limbs; ++j) {
    z |= x.l[j];
    o |= x.l[j] ^ one.l[j];
  }
  const std::uint64_t nz = z != 0, no = o != 0;
  return nz + (nz & no);
}

/// The code word of the |len| (<= 32) values at |p|.
inline std::uint64_t code_word(const fr* p, std::size_t len) {
  std::uint64_t word = 0;
  for (std::size_t k = 0; k < len; ++k) word |= code_of(p[k]) << (2 * k);
  return word;
}

}  // namespace

coded_witness encode_witness(std::span<const fr> inputs, std::span<const fr> aux) {
  return *encode_witness(inputs, aux, ~std::size_t(0));
}

std::optional<coded_witness> encode_witness(std::span<const fr> inputs, std::span<const fr> aux,
                                            std::size_t max_others) {
  const std::size_t n = inputs.size() + aux.size();
  if (n > 0xffffffffull)
    throw std::invalid_argument("groth16::encode_witness: " + std::to_string(n) + " values, at most 2^32 - 1");
  const joined w{inputs, aux};
  coded_witness cw;
  cw.size = n;
  cw.codes.resize(coded_witness::code_words(n));
  cw.group_others.resize(coded_witness::groups(n));
  const std::size_t chunks = (n + chunk_values - 1) / chunk_values;
  std::vector<std::uint64_t> chunk_first(chunks + 1, 0);
  // pass 1: codes, per-group counts, per-chunk totals
  tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t c) {
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
  });
  for (std::size_t c = 0; c < chunks; ++c) chunk_first[c + 1] += chunk_first[c];
  if (chunk_first[chunks] > max_others) return std::nullopt;
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
