// SPDX-License-Identifier: Apache-2.0
// BLAKE2b (RFC 7693) and the ChaCha block function (RFC 8439 / Bernstein),
// written from the specifications; see porep_hashes.hpp for where the
// StackedDRG graph and the PoRep challenges use them.
#include <cuzk/circuits/porep_hashes.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace cuzk::circuits {
namespace {

constexpr std::array<std::uint64_t, 8> blake2b_iv = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

constexpr std::uint8_t blake2b_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

inline std::uint64_t load64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
inline std::uint32_t load32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}
inline void store32(std::uint8_t* p, std::uint32_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}

}  // namespace

// ---- BLAKE2b -------------------------------------------------------------------------

blake2b::blake2b(std::size_t out_len, std::span<const std::uint8_t> key) : _out_len(out_len) {
  if (out_len < 1 || out_len > 64) throw std::invalid_argument("blake2b: digest length must be 1..64");
  if (key.size() > 64) throw std::invalid_argument("blake2b: key longer than 64 bytes");
  _h = blake2b_iv;
  _h[0] ^= 0x01010000ULL ^ (std::uint64_t(key.size()) << 8) ^ std::uint64_t(out_len);
  if (!key.empty()) {
    std::memcpy(_buf.data(), key.data(), key.size());
    _fill = 128;  // the padded key block, compressed once more data (or the end) comes
  }
}

void blake2b::compress(const std::uint8_t* block, bool last) {
  std::uint64_t m[16];
  for (int i = 0; i < 16; ++i) m[i] = load64(block + 8 * i);
  std::uint64_t v[16];
  for (int i = 0; i < 8; ++i) {
    v[i] = _h[i];
    v[i + 8] = blake2b_iv[i];
  }
  v[12] ^= _t;  // the high half of the 128-bit counter stays 0
  if (last) v[14] = ~v[14];
  const auto g = [&v](int a, int b, int c, int d, std::uint64_t x, std::uint64_t y) {
    v[a] = v[a] + v[b] + x;
    v[d] = std::rotr(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d];
    v[b] = std::rotr(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y;
    v[d] = std::rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = std::rotr(v[b] ^ v[c], 63);
  };
  for (int r = 0; r < 12; ++r) {
    const std::uint8_t* s = blake2b_sigma[r];
    g(0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) _h[i] ^= v[i] ^ v[i + 8];
}

blake2b& blake2b::update(std::span<const std::uint8_t> data) {
  std::size_t i = 0;
  while (i < data.size()) {
    if (_fill == 128) {  // a full block, and more data follows: not the last one
      _t += 128;
      compress(_buf.data(), false);
      _fill = 0;
    }
    const std::size_t n = std::min<std::size_t>(128 - _fill, data.size() - i);
    std::memcpy(_buf.data() + _fill, data.data() + i, n);
    _fill += n;
    i += n;
  }
  return *this;
}

void blake2b::finalize(std::uint8_t* out) {
  _t += _fill;
  std::fill(_buf.begin() + std::ptrdiff_t(_fill), _buf.end(), std::uint8_t(0));
  compress(_buf.data(), true);
  std::uint8_t full[64];
  for (int i = 0; i < 8; ++i) {
    std::uint64_t w = _h[i];
    for (int j = 0; j < 8; ++j) full[8 * i + j] = std::uint8_t(w >> (8 * j));
  }
  std::memcpy(out, full, _out_len);
}

std::array<std::uint8_t, 64> blake2b::hash512(std::span<const std::uint8_t> data) {
  std::array<std::uint8_t, 64> out;
  blake2b h(64);
  h.update(data);
  h.finalize(out.data());
  return out;
}

// ---- ChaCha --------------------------------------------------------------------------

void chacha_stream::block(const std::array<std::uint32_t, 16>& input, int rounds, std::array<std::uint8_t, 64>& out) {
  std::uint32_t x[16];
  for (int i = 0; i < 16; ++i) x[i] = input[i];
  // clang-format off
  const auto qr = [&x](int a, int b, int c, int d) {
    x[a] += x[b]; x[d] = std::rotl(x[d] ^ x[a], 16);
    x[c] += x[d]; x[b] = std::rotl(x[b] ^ x[c], 12);
    x[a] += x[b]; x[d] = std::rotl(x[d] ^ x[a], 8);
    x[c] += x[d]; x[b] = std::rotl(x[b] ^ x[c], 7);
  };
  // clang-format on
  for (int r = 0; r < rounds; r += 2) {
    qr(0, 4, 8, 12);
    qr(1, 5, 9, 13);
    qr(2, 6, 10, 14);
    qr(3, 7, 11, 15);
    qr(0, 5, 10, 15);
    qr(1, 6, 11, 12);
    qr(2, 7, 8, 13);
    qr(3, 4, 9, 14);
  }
  for (int i = 0; i < 16; ++i) store32(out.data() + 4 * i, x[i] + input[i]);
}

namespace {
std::array<std::uint32_t, 16> chacha_key_state(const std::array<std::uint8_t, 32>& key) {
  std::array<std::uint32_t, 16> s{};
  s[0] = 0x61707865;  // "expand 32-byte k"
  s[1] = 0x3320646e;
  s[2] = 0x79622d32;
  s[3] = 0x6b206574;
  for (int i = 0; i < 8; ++i) s[4 + i] = load32(key.data() + 4 * i);
  return s;
}
}  // namespace

chacha_stream chacha_stream::rng(const std::array<std::uint8_t, 32>& key, int rounds) {
  chacha_stream c;
  c._state = chacha_key_state(key);
  c._rounds = rounds;
  c._counter64 = true;
  return c;
}

chacha_stream chacha_stream::ietf(const std::array<std::uint8_t, 32>& key, const std::array<std::uint8_t, 12>& nonce,
                                  int rounds) {
  chacha_stream c;
  c._state = chacha_key_state(key);
  for (int i = 0; i < 3; ++i) c._state[13 + i] = load32(nonce.data() + 4 * i);
  c._rounds = rounds;
  c._counter64 = false;
  return c;
}

void chacha_stream::refill() {
  _state[12] = std::uint32_t(_counter);
  if (_counter64) _state[13] = std::uint32_t(_counter >> 32);
  else if (_counter >> 32) throw std::out_of_range("chacha: 32-bit block counter exhausted");
  block(_state, _rounds, _block);
  ++_counter;
  _pos = 0;
}

void chacha_stream::seek(std::uint64_t offset) {
  _counter = offset / 64;
  refill();
  _pos = std::size_t(offset % 64);
}

void chacha_stream::keystream(std::span<std::uint8_t> out) {
  for (std::uint8_t& b : out) {
    if (_pos == 64) refill();
    b = _block[_pos++];
  }
}

std::uint32_t chacha_stream::next_u32() {
  // rand_chacha hands out whole words; a stream used only through
  // next_u32/next_u64 is always word aligned.
  if (_pos + 4 > 64) refill();
  const std::uint32_t w = load32(_block.data() + _pos);
  _pos += 4;
  return w;
}

}  // namespace cuzk::circuits
