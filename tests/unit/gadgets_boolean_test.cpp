// SPDX-License-Identifier: Apache-2.0
// Boolean gadgets (include/cuzk/gadgets/boolean.hpp) against native bool
// logic over every operand kind (constant true/false, allocated true/false,
// negated allocated true/false), as bellpepper-core's boolean.rs tests do:
// values, satisfaction in checking_cs, bellpepper's result kinds and
// variable names, constraint counts, and a corrupted assignment failing at
// the expected namespace path.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/r1cs/r1cs.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::gadgets;  // NOLINT: test file
using cuzk::r1cs::alloc_one;
using cuzk::r1cs::checking_cs;
using cuzk::r1cs::counting_cs;
using cuzk::r1cs::fr;
using cuzk::r1cs::witness_cs;

fr fr_of(bool b) { return b ? fr::one() : fr::zero(); }

checking_cs new_cs() {
  checking_cs cs;
  alloc_one(cs);
  return cs;
}

// bellpepper's OperandType.
enum class operand { t, f, alloc_t, alloc_f, neg_t, neg_f };
constexpr std::array<operand, 6> all_operands = {operand::t,       operand::f,     operand::alloc_t,
                                                 operand::alloc_f, operand::neg_t, operand::neg_f};

bool val(operand o) { return o == operand::t || o == operand::alloc_t || o == operand::neg_f; }
bool is_const(operand o) { return o == operand::t || o == operand::f; }

boolean make(checking_cs& cs, operand o, const char* name) {
  cuzk::r1cs::namespace_guard ns(cs, name);
  switch (o) {
    case operand::t: return boolean::constant(true);
    case operand::f: return boolean::constant(false);
    case operand::alloc_t: return allocated_bit::alloc(cs, true);
    case operand::alloc_f: return allocated_bit::alloc(cs, false);
    case operand::neg_t: return boolean(allocated_bit::alloc(cs, true)).not_();
    case operand::neg_f: return boolean(allocated_bit::alloc(cs, false)).not_();
  }
  return {};
}

TEST(gadgets_boolean, allocated_bit_alloc_and_corruption) {
  checking_cs cs = new_cs();
  {
    cuzk::r1cs::namespace_guard ns(cs, "a");
    const allocated_bit b = allocated_bit::alloc(cs, true);
    EXPECT_EQ(b.get_value(), true);
  }
  EXPECT_EQ(cs.num_constraints(), 1u);
  EXPECT_EQ(cs.num_aux(), 1u);
  EXPECT_EQ(cs.get("a/boolean"), fr::one());
  EXPECT_TRUE(cs.is_satisfied());
  cs.set("a/boolean", fr::zero());
  EXPECT_TRUE(cs.is_satisfied());
  cs.set("a/boolean", fr::from_uint(2));
  EXPECT_EQ(cs.which_is_unsatisfied(), "a/boolean constraint");
}

TEST(gadgets_boolean, missing_value_throws_only_when_values_are_computed) {
  checking_cs cs = new_cs();
  EXPECT_THROW(allocated_bit::alloc(cs, std::nullopt), cuzk::r1cs::synthesis_error);
  witness_cs ws;
  alloc_one(ws);
  EXPECT_THROW(allocated_bit::alloc(ws, std::nullopt), cuzk::r1cs::synthesis_error);
  counting_cs cc;
  alloc_one(cc);
  const allocated_bit b = allocated_bit::alloc(cc, std::nullopt);
  const allocated_bit x = allocated_bit::xor_(cc, b, b);
  EXPECT_FALSE(x.get_value().has_value());
  EXPECT_EQ(cc.num_constraints(), 2u);
  EXPECT_EQ(cc.num_aux(), 2u);
}

// Each allocated_bit operation: 1 aux + 1 constraint, the right value and
// name, and the constraint fails by name when the result is flipped.
TEST(gadgets_boolean, allocated_bit_binary_operations) {
  struct op_case {
    const char* result;
    const char* constraint;
    bool (*native)(bool, bool);
    allocated_bit (*gadget)(checking_cs&, const allocated_bit&, const allocated_bit&);
  };
  const op_case ops[] = {
      {"xor result", "xor constraint", [](bool a, bool b) { return a != b; },
       [](checking_cs& cs, const allocated_bit& a, const allocated_bit& b) { return allocated_bit::xor_(cs, a, b); }},
      {"and result", "and constraint", [](bool a, bool b) { return a && b; },
       [](checking_cs& cs, const allocated_bit& a, const allocated_bit& b) { return allocated_bit::and_(cs, a, b); }},
      {"and not result", "and not constraint", [](bool a, bool b) { return a && !b; },
       [](checking_cs& cs, const allocated_bit& a, const allocated_bit& b) {
         return allocated_bit::and_not(cs, a, b);
       }},
      {"nor result", "nor constraint", [](bool a, bool b) { return !a && !b; },
       [](checking_cs& cs, const allocated_bit& a, const allocated_bit& b) { return allocated_bit::nor(cs, a, b); }},
  };
  for (const op_case& op : ops) {
    for (bool av : {false, true}) {
      for (bool bv : {false, true}) {
        checking_cs cs = new_cs();
        std::optional<allocated_bit> a, b;
        {
          cuzk::r1cs::namespace_guard ns(cs, "a");
          a = allocated_bit::alloc(cs, av);
        }
        {
          cuzk::r1cs::namespace_guard ns(cs, "b");
          b = allocated_bit::alloc(cs, bv);
        }
        const std::size_t before = cs.num_constraints();
        const allocated_bit c = op.gadget(cs, *a, *b);
        const bool expected = op.native(av, bv);
        EXPECT_EQ(c.get_value(), expected) << op.result << " " << av << bv;
        EXPECT_EQ(cs.num_constraints() - before, 1u);
        EXPECT_EQ(cs.num_aux(), 3u);
        ASSERT_TRUE(cs.is_satisfied());
        EXPECT_EQ(cs.get(op.result), fr_of(expected));
        cs.set(op.result, fr_of(!expected));
        EXPECT_EQ(cs.which_is_unsatisfied(), op.constraint);
      }
    }
  }
}

// bellpepper's test_alloc_conditionally.
TEST(gadgets_boolean, alloc_conditionally) {
  for (bool must_be_false : {false, true}) {
    for (bool v : {false, true}) {
      checking_cs cs = new_cs();
      const allocated_bit f = allocated_bit::alloc(cs, must_be_false);
      cuzk::r1cs::namespace_guard ns(cs, "alloc_conditionally");
      const allocated_bit a = allocated_bit::alloc_conditionally(cs, v, f);
      EXPECT_EQ(a.get_value(), v);
      EXPECT_EQ(cs.num_constraints(), 2u);
      // satisfied unless v is true while must_be_false is true
      EXPECT_EQ(cs.is_satisfied(), !(v && must_be_false)) << must_be_false << v;
      if (v && must_be_false) {
        EXPECT_EQ(cs.which_is_unsatisfied(), "alloc_conditionally/boolean constraint");
      }
    }
  }
  checking_cs cs = new_cs();
  const allocated_bit f = allocated_bit::alloc(cs, false);
  EXPECT_THROW(allocated_bit::alloc_conditionally(cs, std::nullopt, f), cuzk::r1cs::synthesis_error);
}

TEST(gadgets_boolean, negation_and_lc) {
  checking_cs cs = new_cs();
  const allocated_bit bit = allocated_bit::alloc(cs, true);
  const boolean is(bit);
  EXPECT_TRUE(is.is_allocated());
  EXPECT_TRUE(is.not_().is_negated());
  EXPECT_EQ(is.not_().get_value(), false);
  EXPECT_TRUE(is.not_().not_().is_allocated());
  EXPECT_EQ(boolean::constant(true).not_().get_value(), false);
  EXPECT_TRUE(boolean::constant(false).not_().is_constant());
  // lc values: c * b, c * (1 - b), c * const
  const fr c = fr::from_uint(7);
  const auto eval = [&](const boolean& b) { return b.lc(checking_cs::one(), c).evaluate(cs.inputs(), cs.aux()); };
  EXPECT_EQ(eval(is), c);
  EXPECT_EQ(eval(is.not_()), fr::zero());
  EXPECT_EQ(eval(boolean::constant(true)), c);
  EXPECT_EQ(eval(boolean::constant(false)), fr::zero());
  EXPECT_TRUE(boolean::constant(false).lc(checking_cs::one(), c).empty());
}

// Result kinds of xor_/and_ follow bellpepper's match arms; constraints: 0
// with a constant operand, else 1 (and the named result variable).
TEST(gadgets_boolean, boolean_xor_and_or_over_all_operand_kinds) {
  for (operand x : all_operands) {
    for (operand y : all_operands) {
      const bool any_const = is_const(x) || is_const(y);
      // xor
      {
        checking_cs cs = new_cs();
        const boolean a = make(cs, x, "a"), b = make(cs, y, "b");
        const std::size_t before = cs.num_constraints();
        const boolean r = boolean::xor_(cs, a, b);
        ASSERT_TRUE(cs.is_satisfied());
        EXPECT_EQ(r.get_value(), val(x) != val(y));
        EXPECT_EQ(cs.num_constraints() - before, any_const ? 0u : 1u);
        if (is_const(x) && is_const(y)) {
          EXPECT_TRUE(r.is_constant());
        }
        if (!any_const) {
          // (Is, Is) | (Not, Not) -> Is; mixed -> Not
          EXPECT_EQ(r.is_negated(), a.get_kind() != b.get_kind());
          const bool inner = r.is_negated() ? !*r.get_value() : *r.get_value();
          EXPECT_EQ(cs.get("xor result"), fr_of(inner));
          cs.set("xor result", fr_of(!inner));
          EXPECT_EQ(cs.which_is_unsatisfied(), "xor constraint");
        }
      }
      // and
      {
        checking_cs cs = new_cs();
        const boolean a = make(cs, x, "a"), b = make(cs, y, "b");
        const std::size_t before = cs.num_constraints();
        const boolean r = boolean::and_(cs, a, b);
        ASSERT_TRUE(cs.is_satisfied());
        EXPECT_EQ(r.get_value(), val(x) && val(y));
        EXPECT_EQ(cs.num_constraints() - before, any_const ? 0u : 1u);
        if (x == operand::f || y == operand::f) {
          EXPECT_TRUE(r.is_constant());
        }
        if (!any_const) {
          EXPECT_TRUE(r.is_allocated());
          const char* name = a.is_allocated() && b.is_allocated() ? "and result"
                             : a.is_negated() && b.is_negated()   ? "nor result"
                                                                  : "and not result";
          EXPECT_EQ(cs.get(name), fr_of(*r.get_value())) << name;
          cs.set(name, fr_of(!*r.get_value()));
          EXPECT_FALSE(cs.is_satisfied());
        }
      }
      // or (bellpepper-core >= 0.3): in namespace "not and (not a) (not b)"
      {
        checking_cs cs = new_cs();
        const boolean a = make(cs, x, "a"), b = make(cs, y, "b");
        const std::size_t before = cs.num_constraints();
        const boolean r = boolean::or_(cs, a, b);
        ASSERT_TRUE(cs.is_satisfied());
        EXPECT_EQ(r.get_value(), val(x) || val(y));
        EXPECT_EQ(cs.num_constraints() - before, any_const ? 0u : 1u);
        if (!any_const) {
          EXPECT_TRUE(r.is_negated());
          const char* name = a.is_allocated() && b.is_allocated() ? "not and (not a) (not b)/nor result"
                             : a.is_negated() && b.is_negated()   ? "not and (not a) (not b)/and result"
                                                                  : "not and (not a) (not b)/and not result";
          EXPECT_EQ(cs.get(name), fr_of(!*r.get_value())) << name;
        }
      }
    }
  }
}

// bellpepper's test_enforce_equal: every pair of operand kinds.
TEST(gadgets_boolean, enforce_equal) {
  for (operand x : all_operands) {
    for (operand y : all_operands) {
      checking_cs cs = new_cs();
      const boolean a = make(cs, x, "a"), b = make(cs, y, "b");
      const std::size_t before = cs.num_constraints();
      if (is_const(x) && is_const(y)) {
        if (val(x) == val(y)) {
          boolean::enforce_equal(cs, a, b);
        } else {
          EXPECT_THROW(boolean::enforce_equal(cs, a, b), cuzk::r1cs::synthesis_error);
        }
        EXPECT_EQ(cs.num_constraints(), before);
        continue;
      }
      boolean::enforce_equal(cs, a, b);
      EXPECT_EQ(cs.num_constraints() - before, 1u);
      EXPECT_EQ(cs.is_satisfied(), val(x) == val(y));
      const char* name = (x == operand::t || y == operand::t)   ? "enforce equal to one"
                         : (x == operand::f || y == operand::f) ? "enforce equal to zero"
                                                                : "enforce equal";
      if (val(x) != val(y)) {
        EXPECT_EQ(cs.which_is_unsatisfied(), name);
      }
    }
  }
}

// Constraint cost of `x and y` in bellpepper: 0 when an operand is constant.
std::size_t and_cost(operand x, operand y) { return is_const(x) || is_const(y) ? 0 : 1; }
operand negate(operand o) {
  switch (o) {
    case operand::t: return operand::f;
    case operand::f: return operand::t;
    case operand::alloc_t: return operand::neg_t;
    case operand::alloc_f: return operand::neg_f;
    case operand::neg_t: return operand::alloc_t;
    case operand::neg_f: return operand::alloc_f;
  }
  return o;
}

// bellpepper's Boolean::sha256_ch match arms, as costs.
std::size_t ch_cost(operand a, operand b, operand c) {
  if (is_const(a) && is_const(b) && is_const(c)) return 0;
  if (a == operand::f) return 0;
  if (b == operand::f) return and_cost(negate(a), c);
  if (c == operand::f) return and_cost(a, b);
  if (c == operand::t) return and_cost(a, negate(b));
  if (b == operand::t) return and_cost(negate(a), negate(c));
  return 1;
}
// bellpepper's Boolean::sha256_maj match arms, as costs.
std::size_t maj_cost(operand a, operand b, operand c) {
  if (is_const(a) && is_const(b) && is_const(c)) return 0;
  if (a == operand::f) return and_cost(b, c);
  if (b == operand::f) return and_cost(a, c);
  if (c == operand::f) return and_cost(a, b);
  if (c == operand::t) return and_cost(a, b);
  if (b == operand::t) return and_cost(a, c);
  if (a == operand::t) return and_cost(b, c);
  return 2;
}

// bellpepper's test_boolean_sha256_ch / test_boolean_sha256_maj over 6^3
// operand kinds, plus the constant-folding costs.
TEST(gadgets_boolean, sha256_ch_and_maj_over_all_operand_kinds) {
  for (operand x : all_operands) {
    for (operand y : all_operands) {
      for (operand z : all_operands) {
        const bool no_const = !is_const(x) && !is_const(y) && !is_const(z);
        {
          checking_cs cs = new_cs();
          const boolean a = make(cs, x, "a"), b = make(cs, y, "b"), c = make(cs, z, "c");
          const std::size_t before = cs.num_constraints();
          const boolean r = boolean::sha256_ch(cs, a, b, c);
          const bool expected = (val(x) && val(y)) != (!val(x) && val(z));
          ASSERT_TRUE(cs.is_satisfied());
          EXPECT_EQ(r.get_value(), expected);
          EXPECT_EQ(cs.num_constraints() - before, ch_cost(x, y, z));
          if (no_const) {
            EXPECT_EQ(cs.get("ch"), fr_of(expected));
            cs.set("ch", fr_of(!expected));
            EXPECT_EQ(cs.which_is_unsatisfied(), "ch computation");
          }
        }
        {
          checking_cs cs = new_cs();
          const boolean a = make(cs, x, "a"), b = make(cs, y, "b"), c = make(cs, z, "c");
          const std::size_t before = cs.num_constraints();
          const boolean r = boolean::sha256_maj(cs, a, b, c);
          const bool expected = ((val(x) && val(y)) != (val(x) && val(z))) != (val(y) && val(z));
          ASSERT_TRUE(cs.is_satisfied());
          EXPECT_EQ(r.get_value(), expected);
          EXPECT_EQ(cs.num_constraints() - before, maj_cost(x, y, z));
          if (no_const) {
            // maj is allocated before "b and c" (order = parameter layout)
            const auto maj_var = cs.find_variable("maj");
            ASSERT_TRUE(maj_var.has_value());
            const auto plain = [](operand o) { return o == operand::alloc_t || o == operand::alloc_f; };
            const char* bc_name = plain(y) && plain(z)     ? "b and c/and result"
                                  : !plain(y) && !plain(z) ? "b and c/nor result"
                                                           : "b and c/and not result";
            const auto bc_var = cs.find_variable(bc_name);
            ASSERT_TRUE(bc_var.has_value()) << bc_name;
            EXPECT_EQ(maj_var->index() + 1, bc_var->index());
            EXPECT_EQ(cs.get("maj"), fr_of(expected));
            cs.set("maj", fr_of(!expected));
            EXPECT_EQ(cs.which_is_unsatisfied(), "maj computation");
          }
        }
      }
    }
  }
}

// bellpepper's test_u64_into_boolean_vec_le, plus random values.
TEST(gadgets_boolean, u64_into_boolean_vec_le) {
  {
    checking_cs cs = new_cs();
    const std::vector<boolean> bits = u64_into_boolean_vec_le(cs, 17234652694787248421ull);
    ASSERT_TRUE(cs.is_satisfied());
    ASSERT_EQ(bits.size(), 64u);
    EXPECT_TRUE(*bits[63 - 0].get_value());
    EXPECT_TRUE(*bits[63 - 1].get_value());
    EXPECT_TRUE(*bits[63 - 2].get_value());
    EXPECT_FALSE(*bits[63 - 3].get_value());
    EXPECT_TRUE(*bits[63 - 4].get_value());
    EXPECT_TRUE(*bits[63 - 5].get_value());
    EXPECT_TRUE(*bits[63 - 20].get_value());
    EXPECT_FALSE(*bits[63 - 21].get_value());
    EXPECT_FALSE(*bits[63 - 22].get_value());
  }
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_boolean.u64_into_boolean_vec_le"));
  for (int iter = 0; iter < 20; ++iter) {
    const std::uint64_t v = rng();
    checking_cs cs = new_cs();
    const std::vector<boolean> bits = u64_into_boolean_vec_le(cs, v);
    EXPECT_EQ(cs.num_constraints(), 64u);
    ASSERT_TRUE(cs.is_satisfied());
    for (std::size_t i = 0; i < 64; ++i) {
      EXPECT_EQ(bits[i].get_value(), ((v >> i) & 1) == 1);
      EXPECT_EQ(cs.get("bit " + std::to_string(i) + "/boolean"), fr_of(((v >> i) & 1) == 1));
    }
  }
}

// bellpepper's test_field_into_allocated_bits_le (its decimal constant as
// little-endian hex), plus random elements.
TEST(gadgets_boolean, field_into_allocated_bits_le) {
  {
    // 9147677615426976802526883532204139322118074541891858454835346926874644257775
    const fr::limbs c = {0x363b4cc1a3211bef, 0x42e9aee8763a0979, 0x7f7a991e3585257a, 0x143966ecc1a8456c};
    const std::optional<fr> r = fr::from_canonical(c);
    ASSERT_TRUE(r.has_value());
    checking_cs cs = new_cs();
    const std::vector<allocated_bit> bits = field_into_allocated_bits_le(cs, r);
    ASSERT_TRUE(cs.is_satisfied());
    ASSERT_EQ(bits.size(), 255u);
    EXPECT_FALSE(*bits[254 - 0].get_value());
    EXPECT_FALSE(*bits[254 - 1].get_value());
    EXPECT_TRUE(*bits[254 - 2].get_value());
    EXPECT_FALSE(*bits[254 - 3].get_value());
    EXPECT_TRUE(*bits[254 - 4].get_value());
    EXPECT_FALSE(*bits[254 - 5].get_value());
    EXPECT_TRUE(*bits[254 - 20].get_value());
    EXPECT_TRUE(*bits[254 - 23].get_value());
  }
  std::mt19937_64 rng(cuzk::test::test_seed("gadgets_boolean.field_into_allocated_bits_le"));
  for (int iter = 0; iter < 10; ++iter) {
    const fr v = fr::random(rng);
    const fr::limbs l = v.to_canonical();
    checking_cs cs = new_cs();
    const std::vector<boolean> bits = field_into_boolean_vec_le(cs, v);
    EXPECT_EQ(cs.num_constraints(), 255u);
    EXPECT_EQ(cs.num_aux(), 255u);
    ASSERT_TRUE(cs.is_satisfied());
    for (std::size_t i = 0; i < 255; ++i) EXPECT_EQ(bits[i].get_value(), ((l[i / 64] >> (i % 64)) & 1) == 1);
  }
}

}  // namespace
