// SPDX-License-Identifier: Apache-2.0
// Number gadgets against native Fr arithmetic on random inputs:
// allocated_num and num (num.hpp, after bellpepper-core num.rs), the
// packing helpers (multipack.hpp, bellperson multipack.rs), and
// storage-proofs-core's constraint.rs and insertion.rs helpers. Each checks
// values, satisfaction, the constraint/aux counts of bellpepper and
// rust-fil-proofs (their own tests cited below), and that a corrupted
// assignment fails at the expected namespace path.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <cuzk/gadgets/constraint.hpp>
#include <cuzk/gadgets/insertion.hpp>
#include <cuzk/gadgets/multipack.hpp>
#include <cuzk/gadgets/num.hpp>
#include <cuzk/r1cs/r1cs.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::gadgets;  // NOLINT: test file
using cuzk::r1cs::alloc_one;
using cuzk::r1cs::checking_cs;
using cuzk::r1cs::counting_cs;
using cuzk::r1cs::fr;
using cuzk::r1cs::namespace_guard;
using cuzk::r1cs::synthesis_errc;
using cuzk::r1cs::synthesis_error;

checking_cs new_cs() {
  checking_cs cs;
  alloc_one(cs);
  return cs;
}

allocated_num alloc_named(checking_cs& cs, const std::string& name, const fr& v) {
  namespace_guard ns(cs, name);
  return allocated_num::alloc(cs, [&] { return v; });
}

bool bit_of(const fr& v, std::size_t i) {
  const fr::limbs l = v.to_canonical();
  return ((l[i / 64] >> (i % 64)) & 1) == 1;
}

TEST(gadgets_num, alloc_and_inputize) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_num.alloc_and_inputize"));
  const fr x = fr::random(rng);
  checking_cs cs = new_cs();
  const allocated_num n = allocated_num::alloc(cs, [&] { return x; });
  EXPECT_EQ(n.get_value(), x);
  EXPECT_EQ(cs.get("num"), x);
  {
    namespace_guard ns(cs, "in");
    const allocated_num i = allocated_num::alloc_input(cs, [&] { return x; });
    EXPECT_EQ(cs.get("in/input num"), x);
    EXPECT_TRUE(i.get_variable().is_input());
  }
  {
    namespace_guard ns(cs, "exposed");
    n.inputize(cs);
  }
  EXPECT_EQ(cs.num_inputs(), 3u);  // ONE, "in/input num", "exposed/input variable"
  EXPECT_EQ(cs.num_aux(), 1u);
  EXPECT_EQ(cs.num_constraints(), 1u);
  ASSERT_TRUE(cs.is_satisfied());
  cs.set("exposed/input variable", x + fr::one());
  EXPECT_EQ(cs.which_is_unsatisfied(), "exposed/enforce input is correct");

  // blank: no value function is called, no value is recorded
  counting_cs cc;
  alloc_one(cc);
  const allocated_num blank =
      allocated_num::alloc(cc, []() -> fr { throw synthesis_error(synthesis_errc::assignment_missing); });
  EXPECT_FALSE(blank.get_value().has_value());
  blank.inputize(cc);
  EXPECT_EQ(cc.num_constraints(), 1u);
}

// bellpepper test_num_squaring / test_num_multiplication / test_num_nonzero.
TEST(gadgets_num, square_mul_nonzero) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_num.square_mul_nonzero"));
  for (int iter = 0; iter < 20; ++iter) {
    const fr x = fr::random(rng), y = fr::random(rng);
    checking_cs cs = new_cs();
    const allocated_num a = alloc_named(cs, "a", x), b = alloc_named(cs, "b", y);
    const allocated_num sq = a.square(cs);
    const allocated_num pr = a.mul(cs, b);
    a.assert_nonzero(cs);
    EXPECT_EQ(sq.get_value(), x.sqr());
    EXPECT_EQ(pr.get_value(), x * y);
    EXPECT_EQ(cs.get("squared num"), x.sqr());
    EXPECT_EQ(cs.get("product num"), x * y);
    EXPECT_EQ(cs.get("ephemeral inverse"), x.inverse());
    EXPECT_EQ(cs.num_constraints(), 3u);
    EXPECT_EQ(cs.num_aux(), 5u);
    ASSERT_TRUE(cs.is_satisfied());
    cs.set("squared num", x.sqr() + fr::one());
    EXPECT_EQ(cs.which_is_unsatisfied(), "squaring constraint");
    cs.set("squared num", x.sqr());
    cs.set("product num", x * y + fr::one());
    EXPECT_EQ(cs.which_is_unsatisfied(), "multiplication constraint");
    cs.set("product num", x * y);
    cs.set("ephemeral inverse", fr::from_uint(3));
    EXPECT_EQ(cs.which_is_unsatisfied(), "nonzero assertion constraint");
  }
  checking_cs cs = new_cs();
  const allocated_num z = alloc_named(cs, "z", fr::zero());
  try {
    z.assert_nonzero(cs);
    ADD_FAILURE() << "assert_nonzero(0) did not throw";
  } catch (const synthesis_error& e) {
    EXPECT_EQ(e.code(), synthesis_errc::division_by_zero);
  }
}

// bellpepper test_num_conditional_reversal, plus an allocated condition.
TEST(gadgets_num, conditionally_reverse) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_num.conditionally_reverse"));
  for (int kind = 0; kind < 4; ++kind) {
    const bool cond_value = kind % 2 == 1;
    const fr x = fr::random(rng), y = fr::random(rng);
    checking_cs cs = new_cs();
    const allocated_num a = alloc_named(cs, "a", x), b = alloc_named(cs, "b", y);
    boolean cond = boolean::constant(cond_value);
    if (kind >= 2) {
      namespace_guard ns(cs, "cond");
      cond = allocated_bit::alloc(cs, cond_value);
    }
    const std::size_t before = cs.num_constraints();
    const auto [c, d] = allocated_num::conditionally_reverse(cs, a, b, cond);
    EXPECT_EQ(cs.num_constraints() - before, 2u);
    ASSERT_TRUE(cs.is_satisfied());
    EXPECT_EQ(c.get_value(), cond_value ? y : x);
    EXPECT_EQ(d.get_value(), cond_value ? x : y);
    EXPECT_EQ(cs.get("conditional reversal result 1/num"), cond_value ? y : x);
    EXPECT_EQ(cs.get("conditional reversal result 2/num"), cond_value ? x : y);
    cs.set("conditional reversal result 2/num", x + y);
    EXPECT_EQ(cs.which_is_unsatisfied(), "second conditional reversal");
  }
}

// bellpepper test_into_bits: to_bits_le is 255 bits + 1 unpacking constraint.
TEST(gadgets_num, to_bits_le) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_num.to_bits_le"));
  for (int iter = 0; iter < 8; ++iter) {
    const fr x = fr::random(rng);
    checking_cs cs = new_cs();
    const allocated_num n = allocated_num::alloc(cs, [&] { return x; });
    const std::vector<boolean> bits = n.to_bits_le(cs);
    ASSERT_EQ(bits.size(), 255u);
    EXPECT_EQ(cs.num_constraints(), 256u);
    EXPECT_EQ(cs.num_aux(), 256u);
    ASSERT_TRUE(cs.is_satisfied());
    for (std::size_t i = 0; i < 255; ++i) {
      ASSERT_TRUE(bits[i].is_allocated());
      EXPECT_EQ(bits[i].get_value(), bit_of(x, i));
    }
    cs.set("num", fr::random(rng));
    EXPECT_EQ(cs.which_is_unsatisfied(), "unpacking constraint");
    cs.set("num", x);
    for (std::size_t i : {std::size_t(0), std::size_t(rng() % 255), std::size_t(254)}) {
      const std::string name = "bit " + std::to_string(i) + "/boolean";
      const fr cur = cs.get(name);
      cs.set(name, fr::one() - cur);
      EXPECT_EQ(cs.which_is_unsatisfied(), "unpacking constraint");
      cs.set(name, cur);
    }
    ASSERT_TRUE(cs.is_satisfied());
  }
}

// Expected cost of to_bits_le_strict, from the runs of ones of r - 1:
// 255 bits, one AND per extra bit of each run (plus one for the previous
// run's result), and the unpacking constraint.
std::size_t strict_cost() {
  const fr::limbs m = (-fr::one()).to_canonical();
  std::size_t ands = 0, run = 0;
  bool have_last = false, found = false;
  for (std::size_t k = 256; k-- > 0;) {
    const bool b = ((m[k / 64] >> (k % 64)) & 1) == 1;
    found |= b;
    if (!found) continue;
    if (b) {
      ++run;
    } else if (run > 0) {
      ands += run - 1 + (have_last ? 1 : 0);
      have_last = true;
      run = 0;
    }
  }
  return 255 + ands + 1;
}

// bellpepper test_into_bits_strict and test_into_bits (odd iterations).
TEST(gadgets_num, to_bits_le_strict) {
  {
    checking_cs cs = new_cs();
    const allocated_num n = allocated_num::alloc(cs, [] { return -fr::one(); });
    const std::vector<boolean> bits = n.to_bits_le_strict(cs);
    EXPECT_EQ(cs.num_constraints(), strict_cost());
    ASSERT_TRUE(cs.is_satisfied());
    // "bit 254" is the least significant bit; setting it makes the bits encode r
    cs.set("bit 254/boolean", fr::one());
    EXPECT_EQ(cs.which_is_unsatisfied(), "bit 254/boolean constraint");
  }
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_num.to_bits_le_strict"));
  for (int iter = 0; iter < 8; ++iter) {
    const fr x = fr::random(rng);
    checking_cs cs = new_cs();
    const allocated_num n = allocated_num::alloc(cs, [&] { return x; });
    const std::vector<boolean> bits = n.to_bits_le_strict(cs);
    ASSERT_EQ(bits.size(), 255u);
    EXPECT_EQ(cs.num_constraints(), strict_cost());
    ASSERT_TRUE(cs.is_satisfied());
    for (std::size_t i = 0; i < 255; ++i) EXPECT_EQ(bits[i].get_value(), bit_of(x, i));
    cs.set("num", x + fr::one());
    EXPECT_EQ(cs.which_is_unsatisfied(), "unpacking constraint");
  }
  counting_cs cc;
  alloc_one(cc);
  allocated_num(cuzk::r1cs::variable::aux(0), std::nullopt).to_bits_le_strict(cc);
  EXPECT_EQ(cc.num_constraints(), strict_cost());
}

// bellpepper test_num_scale and the Num helpers.
TEST(gadgets_num, num_lc_wrapper) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_num.num_lc_wrapper"));
  checking_cs cs = new_cs();
  const fr x = fr::random(rng);
  const allocated_num a = alloc_named(cs, "a", x);
  std::vector<boolean> bits;
  for (int i = 0; i < 10; ++i) {
    namespace_guard ns(cs, "bit " + std::to_string(i));
    boolean b = allocated_bit::alloc(cs, rng() % 2 == 1);
    bits.push_back(i % 3 == 0 ? b.not_() : b);
  }
  bits.push_back(boolean::constant(true));
  num n = num(a);
  fr expected = x;
  for (const boolean& b : bits) {
    const fr coeff = fr::random(rng);
    n = std::move(n).add_bool_with_coeff(checking_cs::one(), b, coeff);
    if (*b.get_value()) expected += coeff;
  }
  EXPECT_EQ(n.get_value(), expected);
  EXPECT_EQ(n.get_lc().evaluate(cs.inputs(), cs.aux()), expected);
  const fr s = fr::random(rng);
  EXPECT_EQ(n.lc(s).evaluate(cs.inputs(), cs.aux()), expected * s);
  num sum = num(n).add(num(a));
  EXPECT_EQ(sum.get_value(), expected + x);
  EXPECT_EQ(sum.get_lc().evaluate(cs.inputs(), cs.aux()), expected + x);
  num scaled = std::move(sum).scale(s);
  EXPECT_EQ(scaled.get_value(), (expected + x) * s);
  EXPECT_EQ(scaled.get_lc().evaluate(cs.inputs(), cs.aux()), (expected + x) * s);
  // an unknown bit makes the value unknown
  const boolean unknown = allocated_bit(cuzk::r1cs::variable::aux(0), std::nullopt);
  EXPECT_FALSE(num::zero().add_bool_with_coeff(checking_cs::one(), unknown, fr::one()).get_value());
  EXPECT_FALSE(num::zero().add(num(std::nullopt, {})).get_value());
  EXPECT_EQ(cs.num_constraints(), 10u);  // only the bits
}

// bellperson test_multipacking (bellperson src/gadgets/multipack.rs): for
// random bit strings the inputs equal compute_multipacking; one input and one
// constraint per 254 bits.
TEST(gadgets_num, multipack_pack_into_inputs) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_num.multipack_pack_into_inputs"));
  for (std::size_t num_bits : {0, 1, 253, 254, 255, 508, 509, 700}) {
    checking_cs cs = new_cs();
    std::vector<bool> values;
    std::vector<boolean> bits;
    for (std::size_t i = 0; i < num_bits; ++i) {
      const bool v = rng() % 2 == 1;
      values.push_back(v);
      if (i % 5 == 4) {
        bits.push_back(boolean::constant(v));
      } else {
        namespace_guard ns(cs, "bit " + std::to_string(i));
        bits.push_back(allocated_bit::alloc(cs, v));
      }
    }
    const std::size_t before = cs.num_constraints();
    {
      namespace_guard ns(cs, "pack");
      pack_into_inputs(cs, std::span<const boolean>(bits));
    }
    const std::vector<fr> expected = compute_multipacking(values);
    EXPECT_EQ(expected.size(), (num_bits + 253) / 254);
    EXPECT_EQ(cs.num_constraints() - before, expected.size());
    ASSERT_EQ(cs.num_inputs(), expected.size() + 1);
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], expected[i]) << i;
    ASSERT_TRUE(cs.is_satisfied());
    if (!expected.empty()) {
      cs.set("pack/input 0", expected[0] + fr::one());
      EXPECT_EQ(cs.which_is_unsatisfied(), "pack/packing constraint 0");
    }
  }
}

TEST(gadgets_num, multipack_pack_bits_and_byte_orders) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_num.multipack_pack_bits_and_byte_orders"));
  const std::vector<std::uint8_t> bytes = {0x01, 0x80, 0xa5};
  const std::vector<bool> be = bytes_to_bits(bytes), le = bytes_to_bits_le(bytes);
  const std::vector<bool> be_expected = {0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1};
  const std::vector<bool> le_expected = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1};
  EXPECT_EQ(be, be_expected);
  EXPECT_EQ(le, le_expected);

  for (std::size_t num_bits : {1, 200, 254, 256}) {
    checking_cs cs = new_cs();
    std::vector<bool> values;
    std::vector<boolean> bits;
    for (std::size_t i = 0; i < num_bits; ++i) {
      const bool v = rng() % 2 == 1;
      values.push_back(v);
      namespace_guard ns(cs, "bit " + std::to_string(i));
      bits.push_back(allocated_bit::alloc(cs, v));
    }
    std::optional<allocated_num> packed;
    {
      namespace_guard ns(cs, "pack");
      packed = pack_bits(cs, std::span<const boolean>(bits));
    }
    values.resize(std::min<std::size_t>(num_bits, 254));  // only the first 254 bits are packed
    EXPECT_EQ(packed->get_value(), compute_multipacking(values).at(0));
    EXPECT_EQ(cs.get("pack/input/num"), *packed->get_value());
    EXPECT_EQ(cs.num_constraints(), num_bits + 1);
    ASSERT_TRUE(cs.is_satisfied());
    cs.set("pack/input/num", *packed->get_value() + fr::one());
    EXPECT_EQ(cs.which_is_unsatisfied(), "pack/packing constraint");
  }

  // reverse_bit_numbering pads to bytes and reverses each byte
  std::vector<boolean> in;
  for (int i = 0; i < 10; ++i) in.push_back(boolean::constant(i == 0 || i == 9));
  const std::vector<boolean> out = reverse_bit_numbering(in);
  ASSERT_EQ(out.size(), 16u);
  for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(*out[i].get_value(), i == 7 || i == 14) << i;
}

// storage-proofs-core constraint.rs tests add_constraint / sub_constraint.
TEST(gadgets_num, constraint_helpers) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_num.constraint_helpers"));
  for (int iter = 0; iter < 10; ++iter) {
    const fr x = fr::random(rng), y = fr::random(rng);
    checking_cs cs = new_cs();
    const allocated_num a = alloc_named(cs, "a", x), b = alloc_named(cs, "b", y);
    allocated_num s = [&] {
      namespace_guard ns(cs, "a+b");
      return constraint::add(cs, a, b);
    }();
    allocated_num d = [&] {
      namespace_guard ns(cs, "a-b");
      return constraint::sub(cs, a, b);
    }();
    EXPECT_EQ(s.get_value(), x + y);
    EXPECT_EQ(d.get_value(), x - y);
    EXPECT_EQ(cs.get("a+b/add_num/num"), x + y);
    EXPECT_EQ(cs.get("a-b/sub_num/num"), x - y);
    constraint::equal(cs, "a == a", a, a);
    constraint::sum(cs, "a + b == s", a, b, s);
    constraint::difference(cs, "a - b == d", a, b, d);
    EXPECT_EQ(cs.num_constraints(), 5u);
    EXPECT_EQ(cs.num_aux(), 4u);
    ASSERT_TRUE(cs.is_satisfied());
    cs.set("a-b/sub_num/num", x);
    EXPECT_EQ(cs.which_is_unsatisfied(), "a-b/subtraction constraint");
    cs.set("a-b/sub_num/num", x - y);
    cs.set("a+b/add_num/num", x);
    EXPECT_EQ(cs.which_is_unsatisfied(), "a+b/sum constraint");
  }
}

// storage-proofs-core insertion.rs test_select / test_insert: every size
// 2..16, every index; select costs size - 1, insert costs 2, 8, 22 for
// sizes 2, 4, 8 and size * (size - 1) otherwise.
TEST(gadgets_num, insertion_select_and_insert) {
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_num.insertion_select_and_insert"));
  for (std::size_t log_size = 1; log_size <= 4; ++log_size) {
    const std::size_t size = std::size_t(1) << log_size;
    for (std::size_t index = 0; index < size; ++index) {
      std::vector<fr> values;
      for (std::size_t i = 0; i < size; ++i) values.push_back(fr::random(rng));
      // select
      {
        checking_cs cs = new_cs();
        std::vector<allocated_num> elements;
        for (std::size_t i = 0; i < size; ++i)
          elements.push_back(alloc_named(cs, "element " + std::to_string(i), values[i]));
        std::vector<boolean> path;
        for (std::size_t i = 0; i < log_size; ++i) {
          namespace_guard ns(cs, "index bit " + std::to_string(i));
          path.push_back(allocated_bit::alloc(cs, ((index >> i) & 1) == 1));
        }
        const std::size_t before = cs.num_constraints();
        EXPECT_EQ(before, log_size);
        std::optional<allocated_num> selected;
        {
          namespace_guard ns(cs, "select");
          selected = select(cs, std::span<const allocated_num>(elements), std::span<const boolean>(path));
        }
        ASSERT_TRUE(cs.is_satisfied());
        EXPECT_EQ(selected->get_value(), values[index]);
        EXPECT_EQ(cs.num_constraints() - before, size - 1);
      }
      // insert
      {
        checking_cs cs = new_cs();
        std::vector<allocated_num> elements;
        for (std::size_t i = 0; i + 1 < size; ++i)
          elements.push_back(alloc_named(cs, "element " + std::to_string(i), values[i]));
        const allocated_num to_insert = alloc_named(cs, "insert", values[size - 1]);
        std::vector<boolean> bits;
        for (std::size_t i = 0; i < log_size; ++i) {
          namespace_guard ns(cs, "index bit " + std::to_string(i));
          bits.push_back(allocated_bit::alloc(cs, ((index >> i) & 1) == 1));
        }
        const std::size_t before = cs.num_constraints();
        std::vector<allocated_num> inserted =
            insert(cs, to_insert, std::span<const boolean>(bits), std::span<const allocated_num>(elements));
        ASSERT_TRUE(cs.is_satisfied()) << size << " " << index;
        ASSERT_EQ(inserted.size(), size);
        EXPECT_EQ(inserted[index].get_value(), values[size - 1]);
        inserted.erase(inserted.begin() + std::ptrdiff_t(index));
        for (std::size_t i = 0; i + 1 < size; ++i) EXPECT_EQ(inserted[i].get_value(), values[i]);
        const std::size_t expected = size == 8 ? 22 : size == 4 ? 8 : size * (size - 1);
        EXPECT_EQ(cs.num_constraints() - before, expected) << size;
        // corrupt an output: its own "pick" constraint fails
        cs.set(inserted.back().get_variable(), *inserted.back().get_value() + fr::one());
        const auto failing = cs.which_is_unsatisfied();
        ASSERT_TRUE(failing.has_value());
        EXPECT_NE(failing->find("pick"), std::string::npos) << *failing;
      }
    }
  }
  // insert_8 requires plain allocated bits
  checking_cs cs = new_cs();
  std::vector<allocated_num> elements;
  for (int i = 0; i < 7; ++i) elements.push_back(alloc_named(cs, "e" + std::to_string(i), fr::from_uint(i)));
  std::vector<boolean> bits;
  for (int i = 0; i < 3; ++i) {
    namespace_guard ns(cs, "bit " + std::to_string(i));
    bits.push_back(allocated_bit::alloc(cs, false));
  }
  bits[0] = bits[0].not_();
  EXPECT_THROW(insert(cs, elements[0], std::span<const boolean>(bits), std::span<const allocated_num>(elements)),
               std::invalid_argument);
}

}  // namespace
