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

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>

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

/// inputs || aux back from its coded form (tests and checks; all host threads).
/// Throws std::invalid_argument when the parts are inconsistent.
std::vector<ff::fr> decode_witness(const coded_witness& cw);

}  // namespace cuzk::groth16
