// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two non-SHA-256 primitives the StackedDRG graph and the PoRep
// challenges use, written from their specifications:
//   * BLAKE2b (RFC 7693): unkeyed 64-byte digests drive the expander graph's
//     Feistel round function (storage-proofs-core crypto/feistel.rs, via
//     blake2b_simd); keyed 32-byte digests derive the SyntheticPoRep ChaCha20
//     keys (storage-proofs-porep stacked/vanilla/challenges.rs).
//   * ChaCha (Bernstein; RFC 8439 block function) with a selectable round
//     count: ChaCha8 with a 64-bit block counter and a zero stream id is
//     rand_chacha's ChaCha8Rng, seeded per node for the DRG parents
//     (storage-proofs-core drgraph.rs); ChaCha20 with a 32-bit counter and a
//     96-bit nonce is the `chacha20` crate's ChaCha20 (synthetic challenges).
//     Both lay out the state the same way while the counter stays below 2^32
//     (always, here), so one type serves both.
//
// Costs: one BLAKE2b compression per 128 bytes (~0.1-0.2 us; the Feistel
// input is 16 bytes, one compression); one ChaCha block per 64 bytes
// (ChaCha8 ~40 ns). No allocation, no state beyond the objects.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace cuzk::circuits {

/// BLAKE2b with a digest length of 1..64 bytes and an optional key (<= 64 bytes).
class blake2b {
 public:
  explicit blake2b(std::size_t out_len = 64, std::span<const std::uint8_t> key = {});
  blake2b& update(std::span<const std::uint8_t> data);
  /// Writes out_len bytes to |out|; the object must not be updated afterwards.
  void finalize(std::uint8_t* out);

  /// Unkeyed 64-byte digest of |data|.
  static std::array<std::uint8_t, 64> hash512(std::span<const std::uint8_t> data);

 private:
  void compress(const std::uint8_t* block, bool last);
  std::array<std::uint64_t, 8> _h{};
  std::array<std::uint8_t, 128> _buf{};
  std::uint64_t _t = 0;  ///< bytes compressed so far (never exceeds 2^64 here)
  std::size_t _fill = 0;
  std::size_t _out_len;
};

/// A ChaCha keystream (|rounds| = 8 or 20). Word 12 is the block counter's
/// low half; words 13..15 are the counter's high half and the nonce as the
/// caller lays them out (see the factories).
class chacha_stream {
 public:
  /// rand_chacha ChaCha{rounds}Rng::from_seed(key): 64-bit counter 0, stream 0.
  static chacha_stream rng(const std::array<std::uint8_t, 32>& key, int rounds);
  /// The chacha20 crate's ChaCha20 (IETF): 32-bit counter 0, 96-bit |nonce|.
  static chacha_stream ietf(const std::array<std::uint8_t, 32>& key, const std::array<std::uint8_t, 12>& nonce,
                            int rounds = 20);

  /// Moves to keystream byte |offset| (StreamCipherSeek::try_seek).
  void seek(std::uint64_t offset);
  /// The next |out.size()| keystream bytes (apply_keystream on zeros).
  void keystream(std::span<std::uint8_t> out);
  /// The next 32-bit word, little-endian (RngCore::next_u32).
  std::uint32_t next_u32();
  /// The next two words, low first (RngCore::next_u64 / Rng::gen::<u64>).
  std::uint64_t next_u64() {
    const std::uint64_t lo = next_u32();
    return lo | (std::uint64_t(next_u32()) << 32);
  }

  /// The raw block function (tests: RFC 8439 2.3.2).
  static void block(const std::array<std::uint32_t, 16>& input, int rounds, std::array<std::uint8_t, 64>& out);

 private:
  void refill();
  std::array<std::uint32_t, 16> _state{};
  std::array<std::uint8_t, 64> _block{};
  std::size_t _pos = 64;  ///< read position in _block (64 = empty)
  std::uint64_t _counter = 0;
  int _rounds = 20;
  bool _counter64 = true;
};

}  // namespace cuzk::circuits
