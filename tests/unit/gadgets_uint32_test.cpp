// SPDX-License-Identifier: Apache-2.0
// uint32 / multi_eq / uint64 gadgets against native integer arithmetic on
// random inputs, after bellperson's uint32.rs tests (test_uint32_xor,
// test_uint32_addmany, test_uint32_addmany_constants, test_uint32_rotr,
// test_uint32_shr, test_uint32_sha256_maj/ch, test_uint32_from_bits(_be))
// and storage-proofs-core's uint64.rs tests: values, satisfaction,
// constraint counts, multi_eq's flush points, and corrupted assignments.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <cuzk/gadgets/multieq.hpp>
#include <cuzk/gadgets/uint32.hpp>
#include <cuzk/gadgets/uint64.hpp>
#include <cuzk/r1cs/r1cs.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::gadgets;  // NOLINT: test file
using cuzk::r1cs::alloc_one;
using cuzk::r1cs::checking_cs;
using cuzk::r1cs::counting_cs;
using cuzk::r1cs::fr;
using cuzk::r1cs::namespace_guard;
using cuzk::r1cs::witness_cs;

checking_cs new_cs() {
  checking_cs cs;
  alloc_one(cs);
  return cs;
}

template <class CS>
uint32 alloc_named(CS& cs, const char* name, std::optional<std::uint32_t> v) {
  namespace_guard ns(cs, name);
  return uint32::alloc(cs, v);
}

// Every bit of |x| agrees with |expected| (Is: value, Not: negated value, constant).
void expect_bits(const uint32& x, std::uint32_t expected) {
  ASSERT_EQ(x.get_value(), expected);
  for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(x.bits()[i].get_value(), ((expected >> i) & 1) == 1) << i;
}

TEST(gadgets_uint32, constant_bits_rotr_shr) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_uint32.constant_bits_rotr_shr"));
  for (int iter = 0; iter < 200; ++iter) {
    const std::uint32_t v = std::uint32_t(rng());
    const uint32 c = uint32::constant(v);
    expect_bits(c, v);
    for (const boolean& b : c.bits()) EXPECT_TRUE(b.is_constant());
    // from_bits_be(into_bits_be) and from_bits(into_bits) round trip
    const uint32::bits_type be = c.into_bits_be();
    for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(*be[i].get_value(), ((v >> (31 - i)) & 1) == 1);
    expect_bits(uint32::from_bits_be(be), v);
    expect_bits(uint32::from_bits(c.into_bits()), v);
    for (std::size_t by = 0; by < 40; ++by) {
      expect_bits(c.rotr(by), std::rotr(v, int(by % 32)));
      expect_bits(c.shr(by), v >> (by % 32));
    }
  }
  EXPECT_THROW(uint32::from_bits(std::vector<boolean>(31)), std::invalid_argument);
  // an unknown bit makes the value unknown
  std::vector<boolean> bits(32);
  bits[5] = allocated_bit(cuzk::r1cs::variable::aux(0), std::nullopt);
  EXPECT_FALSE(uint32::from_bits(bits).get_value().has_value());
  EXPECT_FALSE(uint32::from_bits_be(bits).get_value().has_value());
}

TEST(gadgets_uint32, alloc) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_uint32.alloc"));
  const std::uint32_t v = std::uint32_t(rng());
  checking_cs cs = new_cs();
  const uint32 x = alloc_named(cs, "x", v);
  expect_bits(x, v);
  EXPECT_EQ(cs.num_constraints(), 32u);
  EXPECT_EQ(cs.num_aux(), 32u);
  ASSERT_TRUE(cs.is_satisfied());
  EXPECT_EQ(cs.get("x/allocated bit 31/boolean"), fr::from_uint(v >> 31));
  cs.set("x/allocated bit 7/boolean", fr::from_uint(2));
  EXPECT_EQ(cs.which_is_unsatisfied(), "x/allocated bit 7/boolean constraint");
}

// bellperson test_uint32_xor: alloc ^ constant ^ alloc; the constant xor is free.
TEST(gadgets_uint32, xor) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_uint32.xor"));
  for (int iter = 0; iter < 30; ++iter) {
    const std::uint32_t a = std::uint32_t(rng()), b = std::uint32_t(rng()), c = std::uint32_t(rng());
    checking_cs cs = new_cs();
    const uint32 xa = alloc_named(cs, "a_bit", a), xb = uint32::constant(b), xc = alloc_named(cs, "c_bit", c);
    const std::size_t before = cs.num_constraints();
    uint32 r;
    {
      namespace_guard ns(cs, "first xor");
      r = xa.xor_(cs, xb);
    }
    EXPECT_EQ(cs.num_constraints(), before);  // xor with a constant is free
    {
      namespace_guard ns(cs, "second xor");
      r = r.xor_(cs, xc);
    }
    EXPECT_EQ(cs.num_constraints() - before, 32u);
    ASSERT_TRUE(cs.is_satisfied());
    expect_bits(r, a ^ b ^ c);
    cs.set("second xor/xor of bit 3/xor result", fr::from_uint(2));
    EXPECT_EQ(cs.which_is_unsatisfied(), "second xor/xor of bit 3/xor constraint");
  }
}

// bellperson test_uint32_addmany_constants: all-constant operands give a
// constant and no constraint (and no multieq constraint).
TEST(gadgets_uint32, addmany_constants) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_uint32.addmany_constants"));
  for (int iter = 0; iter < 50; ++iter) {
    const std::uint32_t a = std::uint32_t(rng()), b = std::uint32_t(rng()), c = std::uint32_t(rng());
    checking_cs cs = new_cs();
    uint32 r;
    {
      multi_eq<checking_cs> me(cs);
      namespace_guard ns(me, "addition");
      const std::array<uint32, 3> ops{uint32::constant(a), uint32::constant(b), uint32::constant(c)};
      r = uint32::addmany(me, std::span<const uint32>(ops));
    }
    EXPECT_EQ(cs.num_constraints(), 0u);
    expect_bits(r, a + b + c);
    for (const boolean& bit : r.bits()) EXPECT_TRUE(bit.is_constant());
  }
}

// bellperson test_uint32_addmany: (a ^ b) + c + d with b, c constant:
// 34 result bits (3 * (2^32 - 1) < 2^34) + 1 multieq constraint.
TEST(gadgets_uint32, addmany) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_uint32.addmany"));
  for (int iter = 0; iter < 30; ++iter) {
    const std::uint32_t a = std::uint32_t(rng()), b = std::uint32_t(rng()), c = std::uint32_t(rng()),
                        d = std::uint32_t(rng());
    checking_cs cs = new_cs();
    const uint32 xa = alloc_named(cs, "a_bit", a), xd = alloc_named(cs, "d_bit", d);
    uint32 r;
    {
      namespace_guard ns(cs, "xor");
      r = xa.xor_(cs, uint32::constant(b));
    }
    const std::size_t before = cs.num_constraints();
    {
      multi_eq<checking_cs> me(cs);
      namespace_guard ns(me, "addition");
      const std::array<uint32, 3> ops{r, uint32::constant(c), xd};
      r = uint32::addmany(me, std::span<const uint32>(ops));
      EXPECT_EQ(me.bits_used(), 34u);
      EXPECT_EQ(cs.num_constraints() - before, 34u);  // the equality is still pending
    }
    EXPECT_EQ(cs.num_constraints() - before, 35u);
    EXPECT_EQ(cs.constraint(cs.num_constraints() - 1).path, "multieq 0");
    ASSERT_TRUE(cs.is_satisfied());
    expect_bits(r, (a ^ b) + c + d);
    for (const boolean& bit : r.bits()) EXPECT_TRUE(bit.is_allocated());
    // flip a result bit: only the multieq sum catches it
    const fr cur = cs.get("addition/result bit 0/boolean");
    cs.set("addition/result bit 0/boolean", fr::one() - cur);
    EXPECT_EQ(cs.which_is_unsatisfied(), "multieq 0");
  }
}

// multi_eq flushes *before* an equality that would reach 254 bits: seven
// 2-operand sums (33 bits each, 231 bits) share one constraint, the eighth
// flushes it first; the last partial sum is flushed by finish().
TEST(gadgets_uint32, multieq_flush_order) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_uint32.multieq_flush_order"));
  checking_cs cs = new_cs();
  std::vector<std::uint32_t> values;
  std::vector<uint32> xs;
  for (int i = 0; i < 9; ++i) {
    values.push_back(std::uint32_t(rng()));
    xs.push_back(alloc_named(cs, ("x" + std::to_string(i)).c_str(), values.back()));
  }
  const std::size_t base = cs.num_constraints();
  std::vector<std::size_t> multieq_rows;
  {
    multi_eq<checking_cs> me(cs);
    for (int k = 0; k < 8; ++k) {
      namespace_guard ns(me, "sum " + std::to_string(k));
      const std::array<uint32, 2> ops{xs[k], xs[k + 1]};
      const uint32 s = uint32::addmany(me, std::span<const uint32>(ops));
      expect_bits(s, values[k] + values[k + 1]);
      EXPECT_EQ(me.bits_used(), k < 7 ? 33u * (k + 1) : 33u);
    }
    EXPECT_EQ(me.ops(), 1u);
    me.finish();
    EXPECT_EQ(me.ops(), 2u);
    me.finish();  // idempotent
    EXPECT_EQ(me.ops(), 2u);
  }
  for (std::size_t i = base; i < cs.num_constraints(); ++i)
    if (cs.constraint(i).path.find("multieq") != std::string_view::npos) multieq_rows.push_back(i);
  ASSERT_EQ(multieq_rows.size(), 2u);
  // the first flush happens inside the 8th addmany, after its 33 result bits
  EXPECT_EQ(multieq_rows[0], base + 8 * 33);
  EXPECT_EQ(cs.constraint(multieq_rows[0]).path, "sum 7/multieq 0");
  EXPECT_EQ(multieq_rows[1], base + 8 * 33 + 1);
  EXPECT_EQ(cs.num_constraints(), base + 8 * 33 + 2);
  ASSERT_TRUE(cs.is_satisfied());

  // counting and witness modes flush at the same points
  counting_cs cc;
  alloc_one(cc);
  {
    multi_eq<counting_cs> me(cc);
    std::vector<uint32> blank;
    for (int i = 0; i < 9; ++i) blank.push_back(alloc_named(cc, "x", std::nullopt));
    for (int k = 0; k < 8; ++k) {
      const std::array<uint32, 2> ops{blank[k], blank[k + 1]};
      EXPECT_FALSE(uint32::addmany(me, std::span<const uint32>(ops)).get_value().has_value());
    }
  }
  EXPECT_EQ(cc.num_constraints(), cs.num_constraints());
  EXPECT_EQ(cc.num_aux(), cs.num_aux());
}

// bellperson test_uint32_sha256_maj / test_uint32_sha256_ch (a, c allocated,
// b constant), plus the all-allocated cost: ch 32, maj 64 constraints.
TEST(gadgets_uint32, sha256_ch_and_maj) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_uint32.sha256_ch_and_maj"));
  for (int iter = 0; iter < 20; ++iter) {
    const std::uint32_t a = std::uint32_t(rng()), b = std::uint32_t(rng()), c = std::uint32_t(rng());
    for (bool b_const : {true, false}) {
      checking_cs cs = new_cs();
      const uint32 xa = alloc_named(cs, "a_bit", a), xc = alloc_named(cs, "c_bit", c);
      const uint32 xb = b_const ? uint32::constant(b) : alloc_named(cs, "b_bit", b);
      std::size_t before = cs.num_constraints();
      uint32 maj, ch;
      {
        namespace_guard ns(cs, "maj");
        maj = uint32::sha256_maj(cs, xa, xb, xc);
      }
      if (!b_const) {
        EXPECT_EQ(cs.num_constraints() - before, 64u);
      }
      before = cs.num_constraints();
      {
        namespace_guard ns(cs, "ch");
        ch = uint32::sha256_ch(cs, xa, xb, xc);
      }
      if (!b_const) {
        EXPECT_EQ(cs.num_constraints() - before, 32u);
      }
      ASSERT_TRUE(cs.is_satisfied());
      expect_bits(maj, (a & b) ^ (a & c) ^ (b & c));
      expect_bits(ch, (a & b) ^ (~a & c));
      if (!b_const) {
        const fr cur = cs.get("ch/ch 9/ch");
        cs.set("ch/ch 9/ch", fr::one() - cur);
        EXPECT_EQ(cs.which_is_unsatisfied(), "ch/ch 9/ch computation");
        cs.set("ch/ch 9/ch", cur);
        cs.set("maj/maj 4/maj", fr::one() - cs.get("maj/maj 4/maj"));
        EXPECT_EQ(cs.which_is_unsatisfied(), "maj/maj 4/maj computation");
      }
    }
  }
}

// storage-proofs-core uint64.rs tests (from_bits_be / from_bits), plus alloc
// and pack_into_input (the PoRep challenge input).
TEST(gadgets_uint32, uint64) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_uint32.uint64"));
  for (int iter = 0; iter < 20; ++iter) {
    const std::uint64_t v = rng();
    const uint64 c = uint64::constant(v);
    ASSERT_EQ(c.get_value(), v);
    const uint64::bits_type be = c.to_bits_be(), le = c.to_bits_le();
    for (std::size_t i = 0; i < 64; ++i) {
      EXPECT_EQ(*le[i].get_value(), ((v >> i) & 1) == 1);
      EXPECT_EQ(*be[i].get_value(), ((v >> (63 - i)) & 1) == 1);
    }
    EXPECT_EQ(uint64::from_bits_be(be).get_value(), v);
    EXPECT_EQ(uint64::from_bits(le).get_value(), v);

    checking_cs cs = new_cs();
    uint64 x;
    {
      namespace_guard ns(cs, "challenge");
      x = uint64::alloc(cs, v);
    }
    EXPECT_EQ(x.get_value(), v);
    EXPECT_EQ(cs.num_constraints(), 64u);
    {
      namespace_guard ns(cs, "challenge input");
      x.pack_into_input(cs);
    }
    EXPECT_EQ(cs.num_constraints(), 65u);
    ASSERT_EQ(cs.num_inputs(), 2u);
    EXPECT_EQ(cs.inputs()[1], fr::from_uint(v));
    ASSERT_TRUE(cs.is_satisfied());
    cs.set("challenge input/input 0", fr::from_uint(v) + fr::one());
    EXPECT_EQ(cs.which_is_unsatisfied(), "challenge input/packing constraint 0");
  }
}

}  // namespace
