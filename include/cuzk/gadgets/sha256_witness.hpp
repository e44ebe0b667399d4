// SPDX-License-Identifier: Apache-2.0
#pragma once
// SHA-256 for the modes without linear combinations (witness, counting):
// native word arithmetic that emits exactly the aux values (and counts
// exactly the constraints) of the sha256 gadget (sha256.hpp, bellperson's
// sha256), in the same order, without booleans, optionals, linear
// combinations or multi_eq objects. In the counting mode (no values) the
// unknown bits are taken as 0: only constness decides the allocations.
//
// Why: SHA-256 is ~90% of the PoRep witness (11 layers x 20 blocks per
// challenge plus the tree D path; ~27 K aux per block), and the gadget spends
// most of its time in per-bit objects. Here a 32-bit word is three masks:
//   val    the logical value of each bit,
//   cmask  1 where the bit is a constant (Boolean::Constant),
//   nmask  1 where the bit is a negated allocated bit (Boolean::Not);
// other bits are plain allocated bits (Boolean::Is). The allocated
// variable of a non-constant bit holds val ^ nmask. Every operation follows
// the gadget's case analysis bit by bit (boolean.hpp xor_, and_, sha256_ch,
// sha256_maj constant folding; uint32.hpp addmany: bitlen(n (2^32 - 1))
// result bits, none when all operands are constant), with a fast path for
// words without constants, which is every word after the first rounds of
// a block whose state is allocated. The multi_eq packing is simulated only
// to count its "multieq" constraints (flush before an equality that would
// reach 254 bits, and once at the end of each block).
//
// Exactness is tested against the gadget on random messages of mixed
// constant, allocated and negated bits (tests/unit/stacked_porep_test.cpp)
// and on whole PoRep partitions.
//
// Costs: ~27 K aux writes per block and a few word operations per aux bit
// group; bench/porep_synth_bench.cpp has the PoRep figures.
//
// Use: sha256_witness(cs, bits) where !CS::needs_lcs; the returned booleans
// carry values (witness mode) and kinds; their variables are not
// meaningful, which these modes never read.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/gadgets/sha256.hpp>

namespace cuzk::gadgets {

namespace sha256w {

struct word {
  std::uint32_t val = 0, cmask = ~0u, nmask = 0;
};
inline constexpr word constant(std::uint32_t v) noexcept { return {v, ~0u, 0}; }
inline constexpr word rotr(word w, unsigned by) noexcept {
  return {std::rotr(w.val, int(by)), std::rotr(w.cmask, int(by)), std::rotr(w.nmask, int(by))};
}
inline constexpr word shr(word w, unsigned by) noexcept {
  return {w.val >> by, (w.cmask >> by) | ~(~0u >> by), w.nmask >> by};
}

// One bit: logical value, constant, negated.
struct bit {
  bool v, c, n;
};
inline constexpr bit bit_of(const word& w, unsigned i) noexcept {
  return {((w.val >> i) & 1) != 0, ((w.cmask >> i) & 1) != 0, ((w.nmask >> i) & 1) != 0};
}
inline constexpr bit not_(bit x) noexcept { return {!x.v, x.c, x.c ? false : !x.n}; }
inline constexpr bool is_const(bit x, bool v) noexcept { return x.c && x.v == v; }

// Writes aux values and counts constraints through the CS.
template <class CS>
class sink {
 public:
  explicit sink(CS& cs) : _cs(cs) {}
  void emit(bool b) {
    _cs.alloc("sha256 witness", [b] { return b ? fr::one() : fr::zero(); });
    _cs.enforce("sha256 witness", r1cs::zero_lc, r1cs::zero_lc, r1cs::zero_lc);
  }
  // the bits of |u| selected by |mask|, least significant first
  void emit_bits(std::uint32_t u, std::uint32_t mask) {
    for (std::uint32_t m = mask; m != 0; m &= m - 1) emit(((u >> std::countr_zero(m)) & 1) != 0);
  }
  // multi_eq bookkeeping: an equality of |num_bits| bits
  void multieq(std::size_t num_bits) {
    if (_bits_used + num_bits >= fr::bits - 1) flush();
    _bits_used += num_bits;
  }
  void flush() {
    if (_bits_used == 0) return;
    _cs.enforce("sha256 witness multieq", r1cs::zero_lc, r1cs::zero_lc, r1cs::zero_lc);
    _bits_used = 0;
  }

 private:
  CS& _cs;
  std::size_t _bits_used = 0;
};

template <class S>
bit and_(S& s, bit x, bit y) {
  if (is_const(x, false) || is_const(y, false)) return {false, true, false};
  if (x.c) return y;
  if (y.c) return x;
  const bool r = x.v && y.v;
  s.emit(r);
  return {r, false, false};
}

template <class S>
word xor_(S& s, const word& a, const word& b) {
  const std::uint32_t both = ~a.cmask & ~b.cmask;
  const std::uint32_t u = (a.val ^ a.nmask) ^ (b.val ^ b.nmask);
  s.emit_bits(u, both);
  const std::uint32_t only_a_const = a.cmask & ~b.cmask, only_b_const = b.cmask & ~a.cmask;
  return {a.val ^ b.val, a.cmask & b.cmask,
          ((a.nmask ^ b.nmask) & both) | ((b.nmask ^ a.val) & only_a_const) | ((a.nmask ^ b.val) & only_b_const)};
}

template <class S>
bit ch_bit(S& s, bit a, bit b, bit c) {
  const bool val = (a.v && b.v) != (!a.v && c.v);
  if (a.c && b.c && c.c) return {val, true, false};
  if (is_const(a, false)) return c;
  if (is_const(b, false)) return and_(s, not_(a), c);
  if (is_const(c, false)) return and_(s, a, b);
  if (is_const(c, true)) return not_(and_(s, a, not_(b)));
  if (is_const(b, true)) return not_(and_(s, not_(a), not_(c)));
  s.emit(val);
  return {val, false, false};
}

template <class S>
bit maj_bit(S& s, bit a, bit b, bit c) {
  const bool val = ((a.v && b.v) != (a.v && c.v)) != (b.v && c.v);
  if (a.c && b.c && c.c) return {val, true, false};
  if (is_const(a, false)) return and_(s, b, c);
  if (is_const(b, false)) return and_(s, a, c);
  if (is_const(c, false)) return and_(s, a, b);
  if (is_const(c, true)) return not_(and_(s, not_(a), not_(b)));
  if (is_const(b, true)) return not_(and_(s, not_(a), not_(c)));
  if (is_const(a, true)) return not_(and_(s, not_(b), not_(c)));
  s.emit(val);
  s.emit(b.v && c.v);  // "b and c"
  return {val, false, false};
}

inline void set_bit(word& w, unsigned i, bit x) {
  const std::uint32_t m = 1u << i;
  w.val = (w.val & ~m) | (x.v ? m : 0);
  w.cmask = (w.cmask & ~m) | (x.c ? m : 0);
  w.nmask = (w.nmask & ~m) | (x.n ? m : 0);
}

template <class S>
word ch(S& s, const word& a, const word& b, const word& c) {
  const std::uint32_t val = (a.val & b.val) ^ (~a.val & c.val);
  if ((a.cmask | b.cmask | c.cmask) == 0) {
    s.emit_bits(val, ~0u);
    return {val, 0, 0};
  }
  word r;
  for (unsigned i = 0; i < 32; ++i) set_bit(r, i, ch_bit(s, bit_of(a, i), bit_of(b, i), bit_of(c, i)));
  return r;
}

template <class S>
word maj(S& s, const word& a, const word& b, const word& c) {
  const std::uint32_t val = (a.val & b.val) ^ (a.val & c.val) ^ (b.val & c.val);
  if ((a.cmask | b.cmask | c.cmask) == 0) {
    const std::uint32_t bc = b.val & c.val;
    for (unsigned i = 0; i < 32; ++i) {
      s.emit(((val >> i) & 1) != 0);
      s.emit(((bc >> i) & 1) != 0);
    }
    return {val, 0, 0};
  }
  word r;
  for (unsigned i = 0; i < 32; ++i) set_bit(r, i, maj_bit(s, bit_of(a, i), bit_of(b, i), bit_of(c, i)));
  return r;
}

template <class S>
word addmany(S& s, std::span<const word> ops) {
  std::uint64_t sum = 0;
  bool all_constants = true;
  for (const word& op : ops) {
    sum += op.val;
    all_constants = all_constants && op.cmask == ~0u;
  }
  if (all_constants) return constant(std::uint32_t(sum));
  const unsigned n = unsigned(std::bit_width(std::uint64_t(ops.size()) * 0xffffffffull));
  for (unsigned i = 0; i < n; ++i) s.emit(((sum >> i) & 1) != 0);
  s.multieq(n);
  return {std::uint32_t(sum), 0, 0};
}

// One compression (sha256_compression_function's order).
template <class S>
std::array<word, 8> compress(S& s, const std::array<word, 16>& block, const std::array<word, 8>& hv) {
  std::array<word, 64> w;
  for (std::size_t i = 0; i < 16; ++i) w[i] = block[i];
  for (std::size_t i = 16; i < 64; ++i) {
    word s0 = xor_(s, rotr(w[i - 15], 7), rotr(w[i - 15], 18));
    s0 = xor_(s, s0, shr(w[i - 15], 3));
    word s1 = xor_(s, rotr(w[i - 2], 17), rotr(w[i - 2], 19));
    s1 = xor_(s, s1, shr(w[i - 2], 10));
    const std::array<word, 4> ops{w[i - 16], s0, w[i - 7], s1};
    w[i] = addmany(s, std::span<const word>(ops));
  }
  // a and e are either concrete or a pending sum (bellperson's Maybe)
  std::array<word, 7> a_ops{}, e_ops{};
  std::size_t a_n = 0, e_n = 0;
  word a = hv[0], b = hv[1], c = hv[2], d = hv[3], e = hv[4], f = hv[5], g = hv[6], h = hv[7];
  for (std::size_t i = 0; i < 64; ++i) {
    const word new_e = e_n ? addmany(s, std::span<const word>(e_ops.data(), e_n)) : e;
    word s1 = xor_(s, rotr(new_e, 6), rotr(new_e, 11));
    s1 = xor_(s, s1, rotr(new_e, 25));
    const word chv = ch(s, new_e, f, g);
    const word new_a = a_n ? addmany(s, std::span<const word>(a_ops.data(), a_n)) : a;
    word s0 = xor_(s, rotr(new_a, 2), rotr(new_a, 13));
    s0 = xor_(s, s0, rotr(new_a, 22));
    const word majv = maj(s, new_a, b, c);
    const std::array<word, 5> temp1{h, s1, chv, constant(sha256_round_constants[i]), w[i]};
    h = g;
    g = f;
    f = new_e;
    for (std::size_t k = 0; k < 5; ++k) e_ops[k] = a_ops[k] = temp1[k];
    e_ops[5] = d;
    e_n = 6;
    d = c;
    c = b;
    b = new_a;
    a_ops[5] = s0;
    a_ops[6] = majv;
    a_n = 7;
  }
  std::array<word, 8> out;
  const auto add2 = [&](const word& x, const word& y) {
    const std::array<word, 2> ops{x, y};
    return addmany(s, std::span<const word>(ops));
  };
  // the deferred sums plus the old h0 / h4 (8 and 7 operands)
  std::array<word, 8> a_final;
  for (std::size_t k = 0; k < 7; ++k) a_final[k] = a_ops[k];
  a_final[7] = hv[0];
  out[0] = addmany(s, std::span<const word>(a_final));
  out[1] = add2(hv[1], b);
  out[2] = add2(hv[2], c);
  out[3] = add2(hv[3], d);
  std::array<word, 7> e_final;
  for (std::size_t k = 0; k < 6; ++k) e_final[k] = e_ops[k];
  e_final[6] = hv[4];
  out[4] = addmany(s, std::span<const word>(e_final));
  out[5] = add2(hv[5], f);
  out[6] = add2(hv[6], g);
  out[7] = add2(hv[7], h);
  s.flush();
  return out;
}

inline word word_from_bits_be(std::span<const boolean> bits) {
  word w{0, 0, 0};
  for (unsigned j = 0; j < 32; ++j) {
    const boolean& b = bits[31 - j];
    const std::uint32_t m = 1u << j;
    if (b.get_value().value_or(false)) w.val |= m;
    if (b.is_constant()) w.cmask |= m;
    if (b.is_negated()) w.nmask |= m;
  }
  return w;
}

}  // namespace sha256w

// clang-format off
template <constraint_system CS>
  requires(!CS::needs_lcs)
std::vector<boolean> sha256_witness(CS& cs, std::span<const boolean> input) {
  // clang-format on
  using sha256w::word;
  if (input.size() % 8 != 0) throw std::invalid_argument("gadgets: sha256 input is not whole bytes");
  if constexpr (CS::has_values)
    for (const boolean& b : input)
      if (!b.get_value()) throw synthesis_error(synthesis_errc::assignment_missing);
  const std::uint64_t plen = input.size();
  std::size_t total = plen + 1;
  while ((total + 64) % 512 != 0) ++total;
  total += 64;
  // message bits as words (padding: a one, zeros, the 64-bit length; all constants)
  std::vector<word> words(total / 32);
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (32 * k + 32 <= plen) {
      words[k] = sha256w::word_from_bits_be(input.subspan(32 * k, 32));
      continue;
    }
    word w = sha256w::constant(0);
    for (unsigned j = 0; j < 32; ++j) {
      const std::size_t pos = 32 * k + 31 - j;  // bit j (LSB first) of word k
      const std::uint32_t m = 1u << j;
      if (pos < plen) {
        const boolean& b = input[pos];
        if (b.get_value().value_or(false)) w.val |= m;
        if (!b.is_constant()) w.cmask &= ~m;
        if (b.is_negated()) w.nmask |= m;
      } else if (pos == plen) {
        w.val |= m;
      } else if (pos + 64 >= total) {
        const std::size_t from_end = total - 1 - pos;  // bit index of the length
        if (from_end < 64 && ((plen >> from_end) & 1)) w.val |= m;
      }
    }
    words[k] = w;
  }
  sha256w::sink<CS> s(cs);
  std::array<word, 8> cur;
  for (std::size_t i = 0; i < 8; ++i) cur[i] = sha256w::constant(sha256_iv[i]);
  for (std::size_t blk = 0; blk * 16 < words.size(); ++blk) {
    std::array<word, 16> block;
    for (std::size_t i = 0; i < 16; ++i) block[i] = words[16 * blk + i];
    cur = sha256w::compress(s, block, cur);
  }
  std::vector<boolean> out;
  out.reserve(256);
  for (const word& w : cur)
    for (unsigned j = 32; j-- > 0;) {
      const sha256w::bit b = sha256w::bit_of(w, j);
      if (b.c) {
        out.push_back(boolean::constant(b.v));
      } else {
        std::optional<bool> v;
        if constexpr (CS::has_values) v = b.v != b.n;
        const boolean x(allocated_bit(variable::aux(0), v));
        out.push_back(b.n ? x.not_() : x);
      }
    }
  return out;
}

}  // namespace cuzk::gadgets
