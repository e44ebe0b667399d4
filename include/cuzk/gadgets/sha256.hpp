// SPDX-License-Identifier: Apache-2.0
#pragma once
// SHA-256 in the circuit, after bellperson 0.27 `gadgets/sha256.rs`
// (sha256, sha256_block_no_padding, sha256_compression_function), and
// Filecoin's SHA-256 hasher gadgets, after rust-fil-proofs
// `filecoin-hashers/src/sha256.rs` (Sha256Function::hash_circuit,
// hash2_circuit, hash_leaf_bits_circuit, hash_multi_leaf_circuit).
//
// Bit order: a message is a vector of booleans, bytes in order, each byte
// most significant bit first (bellperson's test_against_vectors); the digest
// comes back the same way (32 words, each into_bits_be).
//
// Compression (one 512-bit block, RFC 6234 6.2): w[0..16] are the input
// words (free); w[16..64] cost 4 xor_ of 32 bits plus an addmany of 4; each
// of the 64 rounds costs S1 and S0 (2 xor_ each), ch, maj and, deferred to
// the next round as in bellperson, the additions e := d + temp1 and
// a := temp1 + temp2 as single addmany calls of 6 and 7 operands. All
// addmany equalities are batched by one multi_eq per block, flushed last.
// Constraint counts (bellperson's own tests, gadgets/sha256.rs):
//   test_full_block: one compression of 512 allocated bits = 25840
//   test_full_hash:  sha256 of 512 allocated bits (2 blocks, the second all
//                    padding constants) = 44874
//   test_blank_hash: compression of a constant block = 0
//
// Filecoin's hasher (Sha256Hasher) truncates the digest to Fr: it packs the
// digest bytes little-endian with the bits of each byte least significant
// first and keeps 254 bits, i.e. the field element whose little-endian
// bytes are the digest with byte 31 &= 0x3f (Sha256Domain::trim_to_fr32;
// native_sha256.hpp has the native side).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/gadgets/multieq.hpp>
#include <cuzk/gadgets/multipack.hpp>
#include <cuzk/gadgets/num.hpp>
#include <cuzk/gadgets/uint32.hpp>

namespace cuzk::gadgets {

/// SHA-256 round constants K (FIPS 180-4 4.2.2).
inline constexpr std::array<std::uint32_t, 64> sha256_round_constants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/// SHA-256 initial hash value H(0) (FIPS 180-4 5.3.3).
inline constexpr std::array<std::uint32_t, 8> sha256_iv = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/// The IV as constant words (bellperson's get_sha256_iv).
inline std::array<uint32, 8> sha256_iv_words() {
  std::array<uint32, 8> r;
  for (std::size_t i = 0; i < 8; ++i) r[i] = uint32::constant(sha256_iv[i]);
  return r;
}

namespace detail {

// A working variable that is either known or a pending sum (bellperson's Maybe).
struct sha256_maybe {
  std::optional<uint32> concrete;
  std::vector<uint32> deferred;

  template <constraint_system CS>
  uint32 compute(multi_eq<CS>& cs, std::span<const uint32> others) {
    if (concrete) return *concrete;
    deferred.insert(deferred.end(), others.begin(), others.end());
    return uint32::addmany(cs, std::span<const uint32>(deferred));
  }
};

// Runs fn() inside namespace |name| (bellperson's `f(cs.namespace(|| name))`).
template <class CS, class F>
auto in_namespace(CS& cs, const char* name, F&& fn) {
  namespace_guard<CS> ns(cs, name);
  return fn();
}

inline std::vector<boolean> words_to_bits_be(const std::array<uint32, 8>& words) {
  std::vector<boolean> out;
  out.reserve(256);
  for (const uint32& w : words) {
    const uint32::bits_type be = w.into_bits_be();
    out.insert(out.end(), be.begin(), be.end());
  }
  return out;
}

}  // namespace detail

/// One SHA-256 compression of a 512-bit block (most significant bit first)
/// from |current_hash_value| (8 words); bellperson's
/// sha256_compression_function, constraint for constraint.
template <constraint_system CS>
std::array<uint32, 8> sha256_compression_function(CS& cs, std::span<const boolean> input,
                                                  std::span<const uint32> current_hash_value) {
  if (input.size() != 512 || current_hash_value.size() != 8)
    throw std::invalid_argument("gadgets: sha256 compression needs 512 bits and 8 words");
  using detail::in_namespace;

  std::vector<uint32> w;
  w.reserve(64);
  for (std::size_t i = 0; i < 16; ++i) w.push_back(uint32::from_bits_be(input.subspan(32 * i, 32)));

  multi_eq<CS> me(cs);
  using ME = multi_eq<CS>;

  for (std::size_t i = 16; i < 64; ++i) {
    namespace_guard<ME> ns(me, [i] { return detail::indexed("w extension ", i); });
    // s0 := (w[i-15] rotr 7) xor (w[i-15] rotr 18) xor (w[i-15] shr 3)
    uint32 s0 = w[i - 15].rotr(7);
    s0 = in_namespace(me, "first xor for s0", [&] { return s0.xor_(me, w[i - 15].rotr(18)); });
    s0 = in_namespace(me, "second xor for s0", [&] { return s0.xor_(me, w[i - 15].shr(3)); });
    // s1 := (w[i-2] rotr 17) xor (w[i-2] rotr 19) xor (w[i-2] shr 10)
    uint32 s1 = w[i - 2].rotr(17);
    s1 = in_namespace(me, "first xor for s1", [&] { return s1.xor_(me, w[i - 2].rotr(19)); });
    s1 = in_namespace(me, "second xor for s1", [&] { return s1.xor_(me, w[i - 2].shr(10)); });
    // w[i] := w[i-16] + s0 + w[i-7] + s1
    const std::array<uint32, 4> ops{w[i - 16], s0, w[i - 7], s1};
    w.push_back(
        in_namespace(me, "computation of w[i]", [&] { return uint32::addmany(me, std::span<const uint32>(ops)); }));
  }

  detail::sha256_maybe a{current_hash_value[0], {}};
  uint32 b = current_hash_value[1];
  uint32 c = current_hash_value[2];
  uint32 d = current_hash_value[3];
  detail::sha256_maybe e{current_hash_value[4], {}};
  uint32 f = current_hash_value[5];
  uint32 g = current_hash_value[6];
  uint32 h = current_hash_value[7];

  for (std::size_t i = 0; i < 64; ++i) {
    namespace_guard<ME> ns(me, [i] { return detail::indexed("compression round ", i); });
    // S1 := (e rotr 6) xor (e rotr 11) xor (e rotr 25)
    const uint32 new_e = in_namespace(me, "deferred e computation", [&] { return e.compute(me, {}); });
    uint32 s1 = new_e.rotr(6);
    s1 = in_namespace(me, "first xor for s1", [&] { return s1.xor_(me, new_e.rotr(11)); });
    s1 = in_namespace(me, "second xor for s1", [&] { return s1.xor_(me, new_e.rotr(25)); });
    // ch := (e and f) xor ((not e) and g)
    const uint32 ch = in_namespace(me, "ch", [&] { return uint32::sha256_ch(me, new_e, f, g); });
    // temp1 := h + S1 + ch + k[i] + w[i]
    const std::array<uint32, 5> temp1{h, s1, ch, uint32::constant(sha256_round_constants[i]), w[i]};
    // S0 := (a rotr 2) xor (a rotr 13) xor (a rotr 22)
    const uint32 new_a = in_namespace(me, "deferred a computation", [&] { return a.compute(me, {}); });
    uint32 s0 = new_a.rotr(2);
    s0 = in_namespace(me, "first xor for s0", [&] { return s0.xor_(me, new_a.rotr(13)); });
    s0 = in_namespace(me, "second xor for s0", [&] { return s0.xor_(me, new_a.rotr(22)); });
    // maj := (a and b) xor (a and c) xor (b and c)
    const uint32 maj = in_namespace(me, "maj", [&] { return uint32::sha256_maj(me, new_a, b, c); });
    // temp2 := S0 + maj

    h = g;
    g = f;
    f = new_e;
    e = detail::sha256_maybe{std::nullopt, {temp1.begin(), temp1.end()}};
    e.deferred.push_back(d);  // e := d + temp1
    d = c;
    c = b;
    b = new_a;
    a = detail::sha256_maybe{std::nullopt, {temp1.begin(), temp1.end()}};
    a.deferred.push_back(s0);  // a := temp1 + temp2
    a.deferred.push_back(maj);
  }

  // Add the compressed chunk to the current hash value.
  std::array<uint32, 8> out;
  const auto add2 = [&](const char* name, const uint32& x, const uint32& y) {
    const std::array<uint32, 2> ops{x, y};
    return in_namespace(me, name, [&] { return uint32::addmany(me, std::span<const uint32>(ops)); });
  };
  out[0] = in_namespace(me, "deferred h0 computation", [&] { return a.compute(me, current_hash_value.subspan(0, 1)); });
  out[1] = add2("new h1", current_hash_value[1], b);
  out[2] = add2("new h2", current_hash_value[2], c);
  out[3] = add2("new h3", current_hash_value[3], d);
  out[4] = in_namespace(me, "deferred h4 computation", [&] { return e.compute(me, current_hash_value.subspan(4, 1)); });
  out[5] = add2("new h5", current_hash_value[5], f);
  out[6] = add2("new h6", current_hash_value[6], g);
  out[7] = add2("new h7", current_hash_value[7], h);
  me.finish();  // bellperson: MultiEq's Drop, after h0..h7
  return out;
}

/// SHA-256 compression of one 512-bit block from the IV, no padding; 256
/// digest bits, most significant first.
template <constraint_system CS>
std::vector<boolean> sha256_block_no_padding(CS& cs, std::span<const boolean> input) {
  if (input.size() != 512) throw std::invalid_argument("gadgets: sha256 block needs 512 bits");
  const std::array<uint32, 8> iv = sha256_iv_words();
  return detail::words_to_bits_be(sha256_compression_function(cs, input, iv));
}

/// The sha256 gadget computed natively (sha256_witness.hpp): the same aux
/// values, constraint count and digest (values and kinds) as sha256(cs,
/// input), for CS types without linear combinations.
// clang-format off
template <constraint_system CS>
  requires(!CS::needs_lcs)
std::vector<boolean> sha256_witness(CS& cs, std::span<const boolean> input);
// clang-format on

/// SHA-256 of a whole-byte message (bits most significant first per byte):
/// padding with constants, then one compression per block in namespace
/// "block i". 256 digest bits, most significant first. Witness generators
/// and counting (no LCs: CS::is_witness_generator, or no values) take
/// sha256_witness, which yields the same assignment and counts ~5x faster.
template <constraint_system CS>
std::vector<boolean> sha256(CS& cs, std::span<const boolean> input) {
  if constexpr (!CS::needs_lcs && (CS::is_witness_generator || !CS::has_values)) return sha256_witness(cs, input);
  if (input.size() % 8 != 0) throw std::invalid_argument("gadgets: sha256 input is not whole bytes");
  std::vector<boolean> padded(input.begin(), input.end());
  const std::uint64_t plen = input.size();
  padded.push_back(boolean::constant(true));
  while ((padded.size() + 64) % 512 != 0) padded.push_back(boolean::constant(false));
  for (int i = 63; i >= 0; --i) padded.push_back(boolean::constant(((plen >> i) & 1) == 1));

  std::array<uint32, 8> cur = sha256_iv_words();
  const std::span<const boolean> all(padded);
  for (std::size_t i = 0; i * 512 < padded.size(); ++i) {
    namespace_guard<CS> ns(cs, [i] { return detail::indexed("block ", i); });
    cur = sha256_compression_function(cs, all.subspan(512 * i, 512), std::span<const uint32>(cur));
  }
  return detail::words_to_bits_be(cur);
}

/// Filecoin's SHA-256 hasher gadgets (filecoin-hashers Sha256Function).
namespace sha256_hasher {

/// SHA-256 of |bits| in namespace "hash", truncated to 254 bits and packed
/// into one number in namespace "pack_le" (Sha256Function::hash_circuit).
template <constraint_system CS>
allocated_num hash_circuit(CS& cs, std::span<const boolean> bits) {
  std::vector<boolean> be_bits;
  {
    namespace_guard<CS> ns(cs, "hash");
    be_bits = sha256(cs, bits);
  }
  // bytes in order, bits of each byte least significant first, first 254
  std::vector<boolean> le_bits = reverse_bit_numbering(std::move(be_bits));
  le_bits.resize(fr_capacity);
  namespace_guard<CS> ns(cs, "pack_le");
  return pack_bits(cs, std::span<const boolean>(le_bits));
}

/// hash_circuit of two bit strings, each padded to bytes and byte-reversed
/// (reverse_bit_numbering) first (Sha256Function::hash_leaf_bits_circuit).
template <constraint_system CS>
allocated_num hash_leaf_bits_circuit(CS& cs, std::span<const boolean> left, std::span<const boolean> right) {
  std::vector<boolean> preimage = reverse_bit_numbering(std::vector<boolean>(left.begin(), left.end()));
  const std::vector<boolean> r = reverse_bit_numbering(std::vector<boolean>(right.begin(), right.end()));
  preimage.insert(preimage.end(), r.begin(), r.end());
  return hash_circuit(cs, std::span<const boolean>(preimage));
}

/// H(a || b) of two numbers: to_bits_le in "a_bits" and "b_bits" (256
/// constraints each), bit order reversed per byte, then hash_circuit
/// (Sha256Function::hash2_circuit).
template <constraint_system CS>
allocated_num hash2_circuit(CS& cs, const allocated_num& a, const allocated_num& b) {
  std::vector<boolean> a_bits, b_bits;
  {
    namespace_guard<CS> ns(cs, "a_bits");
    a_bits = a.to_bits_le(cs);
  }
  {
    namespace_guard<CS> ns(cs, "b_bits");
    b_bits = b.to_bits_le(cs);
  }
  std::vector<boolean> preimage = reverse_bit_numbering(std::move(a_bits));
  const std::vector<boolean> rb = reverse_bit_numbering(std::move(b_bits));
  preimage.insert(preimage.end(), rb.begin(), rb.end());
  return hash_circuit(cs, std::span<const boolean>(preimage));
}

/// H(leaf_0 || ... || leaf_{n-1}): to_bits_le of each leaf in
/// "<i>_num_into_bits", bit order reversed per byte, then hash_circuit
/// (Sha256Function::hash_multi_leaf_circuit; the Merkle-path hash).
template <constraint_system CS>
allocated_num hash_multi_leaf_circuit(CS& cs, std::span<const allocated_num> leaves) {
  std::vector<boolean> bits;
  bits.reserve(leaves.size() * 256);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    std::vector<boolean> padded;
    {
      namespace_guard<CS> ns(cs, [i] { return std::to_string(i) + "_num_into_bits"; });
      padded = leaves[i].to_bits_le(cs);
    }
    padded = reverse_bit_numbering(std::move(padded));
    bits.insert(bits.end(), padded.begin(), padded.end());
  }
  return hash_circuit(cs, std::span<const boolean>(bits));
}

}  // namespace sha256_hasher

}  // namespace cuzk::gadgets

#include <cuzk/gadgets/sha256_witness.hpp>  // sha256_witness (needs the declarations above)
