// SPDX-License-Identifier: Apache-2.0
#pragma once
// coded_witness: a full assignment w = inputs || aux in a compact form for
// the host-to-GPU copy. A Filecoin PoRep witness is ~51% zero, ~47% one and
// ~1.3% other values, so instead of 32 bytes per value (4.2 GB per 32 GiB
// partition) it travels as
//   - codes: 2 bits per value, 0 = zero, 1 = one (Montgomery one), 2 = other
//     (3 is never written), 32 values per little-endian u64 word, value i at
//     bits 2 (i % 32) .. 2 (i % 32) + 1 of word i / 32; the unused codes of
//     the last word are 0;
//   - group_others: for every group of group_size (256) values, the number
//     of "other" values before the group (an exclusive prefix count), so a
//     value's place in |others| is group_others[i / 256] plus the others
//     before it inside its group (popcounts of the codes);
//   - others: the values coded 2, in order.
// At 32 GiB (130.2 M values): ~32.5 MB of codes + ~2 MB of counts + ~54 MB
// of values, ~89 MB instead of 4.2 GB.
//
// Encoding (encode_witness): all host threads (oneTBB), two passes over
// blocks of values: codes and per-group counts, then (after a prefix over
// the groups) the other values gathered into place. Reads the witness once
// (plus the ~1% other values again); 91.5 ms at 32 GiB on the H200 host's
// 16 cores (`cuzk-gpu-bench upload`, bench/RESULTS.md 2026-12-02). The GPU
// prover and the engine (prover_backend::prepare) encode before the device
// lock; the expansion on the
// device is src/cuda/groth16/witness_upload.cu (witness_upload_gpu.hpp).
// Invariants: values fully reduced Montgomery Fr (the codes compare words).
//
// Coding without the plain witness (coded_block, join_coded_blocks): a
// synthesis that produces the witness in independent parts (the PoRep
// challenges, circuits/stacked_porep_coded.hpp) codes each part into a block
// of its own as the values are allocated, and the blocks are joined into
// the form above. The plain assignment never exists: peak memory is the
// blocks plus the joined form, about twice the coded size (~180 MB at 32
// GiB instead of 4.2 GB). Joining is word-level (each block's codes shifted
// into place, 32 values per step) and all host threads; the rules shared
// with the encoder and the device are in detail/witness_codes.hpp.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/groth16/detail/witness_codes.hpp>

namespace cuzk::groth16 {

struct coded_witness {
  /// Values per entry of |group_others| (a multiple of 32: whole code words).
  static constexpr std::size_t group_size = 256;
  static constexpr std::uint64_t code_zero = 0, code_one = 1, code_other = 2;

  std::size_t size = 0;                     ///< values (inputs then aux)
  std::vector<std::uint64_t> codes;         ///< ceil(size / 32) words
  std::vector<std::uint32_t> group_others;  ///< ceil(size / group_size) prefix counts
  std::vector<ff::fr> others;               ///< the values coded 2, in order

  static constexpr std::size_t code_words(std::size_t n) { return (n + 31) / 32; }
  static constexpr std::size_t groups(std::size_t n) { return (n + group_size - 1) / group_size; }
  /// Bytes of the coded form (what the upload moves).
  std::size_t bytes() const {
    return codes.size() * sizeof(std::uint64_t) + group_others.size() * sizeof(std::uint32_t) +
           others.size() * sizeof(ff::fr);
  }
};

/// The coded form of inputs || aux, with all host threads. Throws
/// std::invalid_argument beyond 2^32 - 1 values.
coded_witness encode_witness(std::span<const ff::fr> inputs, std::span<const ff::fr> aux);
/// The same, or nullopt (after the first pass only, nothing kept) when more
/// than |max_others| values are other than 0 and 1: bounds the host memory
/// of the coded form by coded_witness_bytes_bound(n, max_others).
std::optional<coded_witness> encode_witness(std::span<const ff::fr> inputs, std::span<const ff::fr> aux,
                                            std::size_t max_others);

/// Largest bytes() of a coded form of |n| values with at most |max_others|
/// other values.
constexpr std::size_t coded_witness_bytes_bound(std::size_t n, std::size_t max_others) {
  return coded_witness::code_words(n) * sizeof(std::uint64_t) + coded_witness::groups(n) * sizeof(std::uint32_t) +
         (max_others < n ? max_others : n) * sizeof(ff::fr);
}

/// Consecutive values coded as they are produced, on their own: value j at
/// bits 2 (j % 32) of word j / 32 (unused codes 0), the others in order.
/// One block per independently synthesized part of a witness;
/// join_coded_blocks makes the coded_witness of their concatenation.
///
/// push() stores each code in a 32-byte stage and packs the stage into a
/// code word every 32 values, so no push reads what the previous one wrote
/// (or-ing into the word instead chains every value through a load and a
/// store: two 32 GiB PoRep challenges on one core took 83 ms instead of 68
/// ms, bench/porep_synth_bench.cpp --mode coded --challenges 2). The
/// last partial word is coded by finish(), which join_coded_blocks requires
/// (it refuses a block whose codes are not code_words(size) long); more
/// pushes after finish() are allowed and need another finish().
/// Costs per value: one code (four limb compares) and a byte store, a
/// 32-byte copy for the ~1% others; memory: a quarter byte per value plus
/// the others. Cache-line aligned: every push writes the block, and blocks
/// side by side in a vector are filled by different threads (sharing a line,
/// two PoRep challenges on two threads took 2x the core time of one).
class alignas(64) coded_block {
 public:
  std::size_t size = 0;              ///< values pushed
  std::vector<std::uint64_t> codes;  ///< code_words(size) words after finish()
  std::vector<ff::fr> others;        ///< the values coded 2, in order

  /// Room for |values| values of which about |others_hint| other.
  void reserve(std::size_t values, std::size_t others_hint) {
    codes.reserve(coded_witness::code_words(values));
    others.reserve(others_hint);
  }
  /// Appends |x| (fully reduced): its code, and the value when it is other.
  /// Always inlined: synthesis calls it once per value with a value it has
  /// just computed, which a call would store and reload (a 2 KiB PoRep
  /// partition on one core: 21 ms instead of 17 ms).
  [[gnu::always_inline]] void push(const ff::fr& x) {
    const std::uint64_t code = detail::code_of(x);
    const std::size_t lane = size % 32;
    _stage[lane] = std::uint8_t(code);
    if (code == coded_witness::code_other) others.push_back(x);
    ++size;
    if (lane == 31) put_word(size / 32 - 1);
  }
  /// Codes the values pushed since the last full word (none: nothing to do).
  void finish() {
    const std::size_t lane = size % 32;
    if (lane == 0) return;
    std::fill(_stage + lane, _stage + 32, std::uint8_t(0));
    put_word(size / 32);
  }

 private:
  /// The stage as word |w| of |codes|, replacing a partial word finish() wrote.
  void put_word(std::size_t w) {
    const std::uint64_t word = detail::pack_codes(_stage);
    if (codes.size() > w) codes[w] = word;
    else codes.push_back(word);
  }
  alignas(8) std::uint8_t _stage[32] = {};
};

/// The coded form of the concatenation of |blocks| in order, identical
/// field for field to encode_witness of the same values, with all host
/// threads; or nullopt when more than |max_others| values are other (known
/// from the blocks' sizes before anything is allocated). Throws
/// std::invalid_argument beyond 2^32 - 1 values and on malformed blocks (a
/// block's codes not code_words(size) long, e.g. not finished; more others
/// than values; the others in all not as many as the codes say).
/// Blocks may be empty and start at any value offset.
std::optional<coded_witness> join_coded_blocks(std::span<const coded_block* const> blocks,
                                               std::size_t max_others = ~std::size_t(0));

/// inputs || aux back from its coded form (tests and checks; all host threads).
/// Throws std::invalid_argument when the parts are inconsistent.
std::vector<ff::fr> decode_witness(const coded_witness& cw);

}  // namespace cuzk::groth16
