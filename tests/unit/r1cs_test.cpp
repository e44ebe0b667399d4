// SPDX-License-Identifier: Apache-2.0
// R1CS layer: the four constraint-system modes agree, checking_cs finds the
// first failing constraint by path, shape matrices and density masks follow
// bellperson's rules, the input*0 = 0 rows are appended, and A·w ∘ B·w = C·w
// on a large random circuit (and fails once the witness is corrupted).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/r1cs.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk::r1cs;  // NOLINT: test file
using cuzk::r1cs::examples::cubic_circuit;

fr u(std::uint64_t v) { return fr::from_uint(v); }

// ---- helpers ---------------------------------------------------------------------

// A row as (column, coefficient) pairs, the form hand-written expectations use.
using row_t = std::vector<std::pair<std::uint32_t, fr>>;

row_t row_of(const r1cs_shape& s, const csr_matrix& m, std::size_t i) { return s.row(m, i); }

// Two shapes describe the same R1CS (dictionary ids may differ).
void expect_same_shape(const r1cs_shape& x, const r1cs_shape& y) {
  ASSERT_EQ(x.num_inputs, y.num_inputs);
  ASSERT_EQ(x.num_aux, y.num_aux);
  ASSERT_EQ(x.num_constraints, y.num_constraints);
  for (std::size_t i = 0; i < x.num_constraints; ++i) {
    ASSERT_EQ(row_of(x, x.a, i), row_of(y, y.a, i)) << "A row " << i;
    ASSERT_EQ(row_of(x, x.b, i), row_of(y, y.b, i)) << "B row " << i;
    ASSERT_EQ(row_of(x, x.c, i), row_of(y, y.c, i)) << "C row " << i;
  }
  EXPECT_EQ(x.a_aux_density, y.a_aux_density);
  EXPECT_EQ(x.b_input_density, y.b_input_density);
  EXPECT_EQ(x.b_aux_density, y.b_aux_density);
}

// Bellperson's density rule written directly from prover/mod.rs + lc.rs, on the
// LCs that checking_cs recorded: merge each LC (bellpepper-core's LC merges
// repeated variables), then mark every variable with a non-zero coefficient.
struct reference_densities {
  density_mask a_aux, b_input, b_aux;
};
reference_densities bellperson_densities(const checking_cs& cs) {
  reference_densities d{density_mask(cs.num_aux()), density_mask(cs.num_inputs()), density_mask(cs.num_aux())};
  auto track = [](std::span<const term> lc, density_mask* inputs, density_mask* aux) {
    std::map<std::uint64_t, fr> merged;
    for (const term& t : lc) {
      auto [it, fresh] = merged.try_emplace(t.var.raw(), t.coeff);
      if (!fresh) it->second += t.coeff;
    }
    for (auto& [raw, coeff] : merged) {
      if (coeff.is_zero()) continue;
      const variable v = variable::from_raw(raw);
      if (v.is_input() && inputs) inputs->set(v.index());
      if (v.is_aux() && aux) aux->set(v.index());
    }
  };
  for (std::size_t i = 0; i < cs.num_constraints(); ++i) {
    const auto k = cs.constraint(i);
    track(k.a, nullptr, &d.a_aux);  // inputs: full density in A
    track(k.b, &d.b_input, &d.b_aux);
  }
  return d;
}

std::vector<fr> full_assignment(const witness_cs& w) {
  std::vector<fr> all(w.inputs().begin(), w.inputs().end());
  all.insert(all.end(), w.aux().begin(), w.aux().end());
  return all;
}

// ---- circuits used below ----------------------------------------------------------

// Records which callables a CS invoked.
struct probe_circuit {
  int* names;
  int* values;
  int* lcs;
  template <constraint_system CS>
  void synthesize(CS& cs) const {
    auto name = [this] {
      ++*names;
      return std::string("probe");
    };
    namespace_guard ns(cs, name);
    // clang-format off
    const variable x = cs.alloc([this] { ++*names; return "x"; },
                                [this] { ++*values; return u(3); });
    const variable y = cs.alloc_input([this] { ++*names; return "y"; },
                                      [this] { ++*values; return u(9); });
    cs.enforce([this] { ++*names; return "x*x=y"; },
               [&](linear_combination lc) { ++*lcs; return lc + x; },
               [&](linear_combination lc) { ++*lcs; return lc + x; },
               [&](linear_combination lc) { ++*lcs; return lc + y; });
    // clang-format on
  }
};

// Nested namespaces; |bad| makes the middle value wrong, which breaks the
// second and the third constraint.
struct nested_circuit {
  bool bad = false;
  template <constraint_system CS>
  void synthesize(CS& cs) const {
    namespace_guard outer(cs, "outer");
    const variable a = cs.alloc("a", [] { return u(2); });
    const variable b = cs.alloc("b", [] { return u(4); });
    cs.enforce(
        "first", [&](linear_combination lc) { return lc + a; }, [&](linear_combination lc) { return lc + a; },
        [&](linear_combination lc) { return lc + b; });
    with_namespace(
        cs, [] { return std::string("inner"); },
        [&] {
          const variable c = cs.alloc("c", [this] { return bad ? u(9) : u(8); });
          cs.enforce(
              "second", [&](linear_combination lc) { return lc + b; }, [&](linear_combination lc) { return lc + a; },
              [&](linear_combination lc) { return lc + c; });
          cs.enforce(
              "third", [&](linear_combination lc) { return lc + c; },
              [&](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + b + b; });
        });
  }
};

// Aux variables in only C, only A, only B, in A and B, cancelling in A, and
// with a zero coefficient in B; inputs p (in B) and q (in B with a zero
// coefficient only), r (in C only). Values are irrelevant to the shape.
struct density_circuit {
  template <constraint_system CS>
  void synthesize(CS& cs) const {
    auto one_fn = [] { return fr::one(); };
    const variable c_only = cs.alloc("c_only", one_fn);  // aux 0
    const variable a_only = cs.alloc("a_only", one_fn);  // aux 1
    const variable p = cs.alloc_input("p", one_fn);      // input 1
    const variable b_only = cs.alloc("b_only", one_fn);  // aux 2
    const variable ab = cs.alloc("ab", one_fn);          // aux 3
    const variable cancel = cs.alloc("cancel", one_fn);  // aux 4
    const variable b_zero = cs.alloc("b_zero", one_fn);  // aux 5
    const variable q = cs.alloc_input("q", one_fn);      // input 2
    const variable r = cs.alloc_input("r", one_fn);      // input 3
    cs.enforce(
        "k0", [&](linear_combination lc) { return lc + a_only + ab; },
        [&](linear_combination lc) { return lc + b_only + ab + p; },
        [&](linear_combination lc) { return lc + c_only; });
    cs.enforce(
        "k1", [&](linear_combination lc) { return lc + u(3) * cancel - u(3) * cancel; },
        [&](linear_combination lc) { return lc + fr::zero() * b_zero + fr::zero() * q; },
        [&](linear_combination lc) { return lc + cancel + b_zero + r; });
  }
};

// Allocates an input after aux variables that are already used in
// constraints (PoRep does this): final columns must use the final input count.
struct interleaved_circuit {
  template <constraint_system CS>
  void synthesize(CS& cs) const {
    const variable x = cs.alloc("x", [] { return u(3); });  // aux 0
    cs.enforce(
        "x*x=9", [&](linear_combination lc) { return lc + x; }, [&](linear_combination lc) { return lc + x; },
        [&](linear_combination lc) { return lc + u(9) * CS::one(); });
    const variable p = cs.alloc_input("p", [] { return u(3); });  // input 1
    const variable y = cs.alloc("y", [] { return u(6); });        // aux 1
    cs.enforce(
        "x+p=y", [&](linear_combination lc) { return lc + x + p; },
        [&](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + y; });
    const variable q = cs.alloc_input("q", [] { return u(6); });  // input 2
    cs.enforce(
        "y=q", [&](linear_combination lc) { return lc + y; }, [&](linear_combination lc) { return lc + CS::one(); },
        [&](linear_combination lc) { return lc + q; });
  }
};

// A random chain of multiplications: every step allocates z = <A>·<B> − <C'>
// over earlier variables and enforces <A>·<B> = z + <C'>. New public inputs
// appear now and then between aux variables, and steps are grouped in
// namespaces. The structure and the values come from |seed| alone, drawn
// identically in every mode.
struct random_chain_circuit {
  std::uint64_t seed = 0;
  std::size_t steps = 0;
  std::size_t input_every = 4099;

  template <constraint_system CS>
  void synthesize(CS& cs) const {
    std::mt19937_64 rng(seed);
    std::vector<variable> pool{CS::one()};
    std::vector<fr> vals{fr::one()};
    auto coeff = [&rng] {
      // clang-format off
      switch (rng() % 10) {
        case 0: case 1: case 2: case 3: case 4: return fr::one();
        case 5: return -fr::one();
        case 6: case 7: return fr::from_uint(2 + rng() % 15);
        default: return fr::random(rng);
      }
      // clang-format on
    };
    // Terms over random pool members; |value| gets the LC's value (pool order).
    auto random_lc = [&](std::size_t max_terms, std::vector<term>& out, fr& value) {
      out.clear();
      value = fr::zero();
      const std::size_t n = 1 + rng() % max_terms;
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t j = rng() % pool.size();
        const fr cf = coeff();
        out.push_back({pool[j], cf});
        value += cf * vals[j];
      }
    };
    std::vector<term> ta, tb, tc;
    std::optional<namespace_guard<CS>> block;
    for (std::size_t s = 0; s < steps; ++s) {
      if (s % 1024 == 0) {
        block.reset();
        block.emplace(cs, [s] { return "block_" + std::to_string(s / 1024); });
      }
      if (s % input_every == 7) {
        const fr v = fr::random(rng);
        pool.push_back(cs.alloc_input([s] { return "input_" + std::to_string(s); }, [v] { return v; }));
        vals.push_back(v);
      }
      fr va, vb, vc;
      random_lc(3, ta, va);
      random_lc(3, tb, vb);
      random_lc(2, tc, vc);
      fr z = fr::zero();
      if constexpr (CS::has_values) z = va * vb - vc;
      const variable vz = cs.alloc([s] { return "z_" + std::to_string(s); }, [z] { return z; });
      pool.push_back(vz);
      vals.push_back(z);
      cs.enforce([s] { return "step_" + std::to_string(s); },
                 [&](linear_combination lc) {
                   for (const term& t : ta) lc += t;
                   return lc;
                 },
                 [&](linear_combination lc) {
                   for (const term& t : tb) lc += t;
                   return lc;
                 },
                 [&](linear_combination lc) {
                   lc += vz;
                   for (const term& t : tc) lc += t;
                   return lc;
                 });
    }
  }
};

// x + 2y + x - y + 0*z - 3p + 3p + ... : normalizes to 2x + y.
struct normalize_circuit {
  template <constraint_system CS>
  void synthesize(CS& cs) const {
    const variable p = cs.alloc_input("p", [] { return u(1); });
    const variable x = cs.alloc("x", [] { return u(1); });
    const variable y = cs.alloc("y", [] { return u(1); });
    const variable z = cs.alloc("z", [] { return u(1); });
    cs.enforce(
        "k",
        [&](linear_combination lc) { return lc + y + u(2) * y + x - y - u(3) * p + fr::zero() * z + x + u(3) * p - y; },
        zero_lc, [&](linear_combination lc) { return lc + z; });
  }
};

// One aux variable that no constraint uses.
struct unused_aux_circuit {
  template <constraint_system CS>
  void synthesize(CS& cs) const {
    const variable x = cs.alloc("x", [] { return u(1); });
    cs.alloc("unused", [] { return u(1); });
    cs.enforce(
        "k", [&](linear_combination lc) { return lc + x; }, zero_lc, zero_lc);
  }
};

// Three random parts in sector namespaces, as FallbackPoSt's synthesize_default.
struct sectors_circuit {
  const random_chain_circuit* parts;
  template <constraint_system CS>
  void synthesize(CS& cs) const {
    for (int k = 0; k < 3; ++k) {
      namespace_guard g(cs, [k] { return "sector_" + std::to_string(k); });
      parts[k].synthesize(cs);
    }
  }
};

// ---- variable / linear_combination ----------------------------------------------

TEST(r1cs_variable, kinds_order_and_columns) {
  EXPECT_EQ(variable(), variable::input(0));
  EXPECT_TRUE(variable::input(5).is_input());
  EXPECT_TRUE(variable::aux(5).is_aux());
  EXPECT_EQ(variable::aux(5).index(), 5u);
  EXPECT_LT(variable::input(1000), variable::aux(0));
  EXPECT_LT(variable::aux(1), variable::aux(2));
  EXPECT_EQ(variable::input(3).column(10), 3u);
  EXPECT_EQ(variable::aux(3).column(10), 13u);
}

TEST(r1cs_linear_combination, algebra_and_small_vector) {
  const std::vector<fr> inputs{fr::one(), u(7)};
  const std::vector<fr> aux{u(2), u(3), u(5), u(11), u(13), u(17)};
  const variable x = variable::aux(0), y = variable::aux(1), p = variable::input(1);

  linear_combination lc = linear_combination{} + x + u(4) * y - p;  // 2 + 12 - 7
  EXPECT_EQ(lc.evaluate(inputs, aux), u(7));
  EXPECT_EQ((lc - x + x - lc).evaluate(inputs, aux), fr::zero());
  EXPECT_EQ((lc * u(3)).evaluate(inputs, aux), u(21));
  EXPECT_EQ((u(3) * lc).evaluate(inputs, aux), u(21));
  linear_combination acc = linear_combination{} + one_variable;
  acc.add_scaled(u(2), lc);  // 1 + 14
  EXPECT_EQ(acc.evaluate(inputs, aux), u(15));

  // Past the inline capacity: heap storage, copies and moves stay intact.
  linear_combination big;
  fr expect = fr::zero();
  for (std::size_t i = 0; i < 6 * linear_combination::inline_terms; ++i) {
    big = std::move(big) + u(i + 1) * variable::aux(i % aux.size());
    expect += u(i + 1) * aux[i % aux.size()];
  }
  EXPECT_EQ(big.size(), 6 * linear_combination::inline_terms);
  const linear_combination copy = big;
  linear_combination moved = std::move(big);
  EXPECT_EQ(copy.evaluate(inputs, aux), expect);
  EXPECT_EQ(moved.evaluate(inputs, aux), expect);
  moved = copy;  // heap -> heap assignment
  EXPECT_EQ(moved.evaluate(inputs, aux), expect);
  linear_combination small = linear_combination{} + x;
  moved = small;  // inline -> heap-backed object
  EXPECT_EQ(moved.evaluate(inputs, aux), u(2));
}

// ---- the four modes on the cubic circuit ----------------------------------------

TEST(r1cs_modes, cubic_counts_and_values_agree) {
  const cubic_circuit c{u(3)};  // y = 27 + 3 + 5
  counting_cs counting;
  shape_cs shaping;
  witness_cs witness;
  checking_cs checking;
  synthesize_groth16(c, counting);
  synthesize_groth16(c, shaping);
  synthesize_groth16(c, witness);
  synthesize_groth16(c, checking);

  for (std::size_t n : {counting.num_inputs(), shaping.num_inputs(), witness.num_inputs(), checking.num_inputs()})
    EXPECT_EQ(n, 2u);
  for (std::size_t n : {counting.num_aux(), shaping.num_aux(), witness.num_aux(), checking.num_aux()}) EXPECT_EQ(n, 3u);
  for (std::size_t n :
       {counting.num_constraints(), shaping.num_constraints(), witness.num_constraints(), checking.num_constraints()})
    EXPECT_EQ(n, 3u + 2u);  // circuit + one per input

  EXPECT_TRUE(checking.is_satisfied());
  EXPECT_EQ(checking.which_is_unsatisfied(), std::nullopt);
  ASSERT_EQ(witness.inputs().size(), checking.inputs().size());
  ASSERT_EQ(witness.aux().size(), checking.aux().size());
  EXPECT_TRUE(std::equal(witness.inputs().begin(), witness.inputs().end(), checking.inputs().begin()));
  EXPECT_TRUE(std::equal(witness.aux().begin(), witness.aux().end(), checking.aux().begin()));
  EXPECT_EQ(checking.get("ONE"), fr::one());
  EXPECT_EQ(checking.get("cubic/y"), u(35));
  EXPECT_EQ(checking.get("cubic/x_cu"), u(27));
  EXPECT_EQ(witness.value(variable::input(1)), u(35));
  EXPECT_EQ(checking.constraint(4).path, "input constraint 1");

  // Published-size count: no input constraints.
  counting_cs bare;
  synthesize_circuit(c, bare);
  EXPECT_EQ(bare.num_constraints(), 3u);
}

TEST(r1cs_modes, blank_circuit_needs_values_only_where_values_are_computed) {
  const cubic_circuit blank{};
  counting_cs counting;
  EXPECT_NO_THROW(synthesize_groth16(blank, counting));
  EXPECT_NO_THROW((void)make_shape(blank));
  witness_cs witness;
  try {
    synthesize_groth16(blank, witness);
    ADD_FAILURE() << "blank circuit synthesized in witness mode";
  } catch (const synthesis_error& e) {
    EXPECT_EQ(e.code(), synthesis_errc::assignment_missing);
  }
  checking_cs checking;
  EXPECT_THROW(synthesize_groth16(blank, checking), synthesis_error);
}

TEST(r1cs_modes, only_the_needed_callables_run) {
  struct counts {
    int names = 0, values = 0, lcs = 0;
  };
  auto run = [](auto cs) {
    counts n;
    const probe_circuit c{&n.names, &n.values, &n.lcs};
    alloc_one(cs);
    c.synthesize(cs);
    return n;
  };
  const counts k = run(counting_cs{});
  EXPECT_EQ(k.names + k.values + k.lcs, 0);
  const counts s = run(shape_cs{});
  EXPECT_EQ(s.names, 0);
  EXPECT_EQ(s.values, 0);
  EXPECT_EQ(s.lcs, 3);
  const counts w = run(witness_cs{});
  EXPECT_EQ(w.names, 0);
  EXPECT_EQ(w.values, 2);
  EXPECT_EQ(w.lcs, 0);
  const counts c = run(checking_cs{});
  EXPECT_EQ(c.names, 4);  // namespace, x, y, constraint
  EXPECT_EQ(c.values, 2);
  EXPECT_EQ(c.lcs, 3);
}

// ---- checking_cs ------------------------------------------------------------------

TEST(r1cs_checking, wrong_witness_reports_first_failing_path) {
  {
    checking_cs cs;
    synthesize_groth16(cubic_circuit{u(3)}, cs);
    cs.set("cubic/x_sq", u(10));  // breaks "x_sq = x * x" and "x_cu = x_sq * x"
    EXPECT_FALSE(cs.is_satisfied());
    EXPECT_EQ(cs.which_is_unsatisfied(), "cubic/x_sq = x * x");
    EXPECT_EQ(cs.first_unsatisfied(), 0u);
    cs.set("cubic/x_sq", u(9));
    EXPECT_TRUE(cs.is_satisfied());
    cs.set(variable::input(1), u(36));  // wrong public y
    EXPECT_EQ(cs.which_is_unsatisfied(), "cubic/y = x_cu + x + 5");
  }
  {
    checking_cs cs;
    synthesize_groth16(nested_circuit{.bad = true}, cs);
    EXPECT_EQ(cs.which_is_unsatisfied(), "outer/inner/second");
    checking_cs good;
    synthesize_groth16(nested_circuit{}, good);
    EXPECT_TRUE(good.is_satisfied());
    EXPECT_EQ(good.get("outer/inner/c"), u(8));
  }
}

TEST(r1cs_checking, bellpepper_test_cs_scenario) {
  // The scenario of bellpepper-core's test_cs.rs `test_cs`.
  checking_cs cs;
  alloc_one(cs);
  const variable a = with_namespace(cs, "a", [&] { return cs.alloc("var", [] { return u(10); }); });
  const variable b = with_namespace(cs, "b", [&] { return cs.alloc("var", [] { return u(4); }); });
  const variable c = cs.alloc("product", [] { return u(40); });
  cs.enforce(
      "mult", [&](linear_combination lc) { return lc + a; }, [&](linear_combination lc) { return lc + b; },
      [&](linear_combination lc) { return lc + c; });
  EXPECT_TRUE(cs.is_satisfied());
  cs.set("a/var", u(4));
  cs.enforce(
      "eq", [&](linear_combination lc) { return lc + a; },
      [&](linear_combination lc) { return lc + checking_cs::one(); }, [&](linear_combination lc) { return lc + b; });
  EXPECT_EQ(cs.which_is_unsatisfied(), "mult");
  EXPECT_EQ(cs.get("product"), u(40));
  cs.set("product", u(16));
  EXPECT_TRUE(cs.is_satisfied());
  {
    namespace_guard n1(cs, "test1");
    namespace_guard n2(cs, "test2");
    EXPECT_EQ(cs.current_namespace(), "test1/test2");
    cs.alloc("hehe", [] { return fr::one(); });
  }
  EXPECT_EQ(cs.current_namespace(), "");
  EXPECT_EQ(cs.get("test1/test2/hehe"), fr::one());
}

TEST(r1cs_checking, naming_errors_and_namespace_unwinding) {
  checking_cs cs;
  alloc_one(cs);
  cs.alloc("x", [] { return u(1); });
  EXPECT_THROW(cs.alloc("x", [] { return u(1); }), std::logic_error);    // duplicate path
  EXPECT_THROW(cs.alloc("a/b", [] { return u(1); }), std::logic_error);  // '/' in a name
  EXPECT_THROW(cs.enforce(
                   "bad", [](linear_combination lc) { return lc + variable::aux(99); }, zero_lc, zero_lc),
               std::logic_error);  // unallocated variable
  EXPECT_THROW(cs.get("nope"), std::out_of_range);
  try {
    namespace_guard g(cs, "ns");
    cs.alloc("y", []() -> fr { throw synthesis_error(synthesis_errc::division_by_zero); });
  } catch (const synthesis_error& e) {
    EXPECT_EQ(e.code(), synthesis_errc::division_by_zero);
  }
  EXPECT_EQ(cs.current_namespace(), "");  // the guard popped during unwinding
  EXPECT_EQ(cs.num_aux(), 1u);
}

// ---- shape_cs -------------------------------------------------------------------

TEST(r1cs_shape, cubic_matrices_match_hand_written) {
  const r1cs_shape s = make_shape(cubic_circuit{});
  // Columns: ONE=0, y=1 | x=2, x_sq=3, x_cu=4.
  ASSERT_EQ(s.num_inputs, 2u);
  ASSERT_EQ(s.num_aux, 3u);
  ASSERT_EQ(s.num_constraints, 5u);
  const fr one = fr::one(), five = u(5);
  const std::vector<row_t> a{{{2, one}}, {{3, one}}, {{0, five}, {2, one}, {4, one}}, {{0, one}}, {{1, one}}};
  const std::vector<row_t> b{{{2, one}}, {{2, one}}, {{0, one}}, {}, {}};
  const std::vector<row_t> c{{{3, one}}, {{4, one}}, {{1, one}}, {}, {}};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(row_of(s, s.a, i), a[i]) << "A row " << i;
    EXPECT_EQ(row_of(s, s.b, i), b[i]) << "B row " << i;
    EXPECT_EQ(row_of(s, s.c, i), c[i]) << "C row " << i;
  }
  EXPECT_EQ(s.a.nnz(), 7u);
  EXPECT_EQ(s.b.nnz(), 3u);
  EXPECT_EQ(s.c.nnz(), 3u);
  EXPECT_EQ(s.a.row_ptr, (std::vector<std::uint64_t>{0, 1, 2, 5, 6, 7}));
  EXPECT_EQ(s.coeffs[r1cs_shape::coeff_one], fr::one());
  EXPECT_EQ(s.coeffs[r1cs_shape::coeff_minus_one], -fr::one());
  EXPECT_EQ(s.coeffs.size(), 3u);  // 1, -1, 5
  EXPECT_EQ(s.first_unconstrained_aux(), std::nullopt);
}

TEST(r1cs_shape, rows_are_normalized) {
  // x + 2y + x - y + 0*z - 3p + 3p  ->  2x + y  (p and z gone, columns sorted)
  const r1cs_shape s = make_shape(normalize_circuit{});
  EXPECT_EQ(row_of(s, s.a, 0), (row_t{{2, u(2)}, {3, fr::one()}}));
  EXPECT_FALSE(s.a_aux_density.test(2));  // z: zero coefficient only
  EXPECT_TRUE(s.a_aux_density.test(0) && s.a_aux_density.test(1));
}

TEST(r1cs_shape, density_masks_follow_bellperson) {
  const r1cs_shape s = make_shape(density_circuit{});
  ASSERT_EQ(s.num_inputs, 4u);
  ASSERT_EQ(s.num_aux, 6u);
  // aux: 0 c_only, 1 a_only, 2 b_only, 3 ab, 4 cancel, 5 b_zero
  auto bits = [](const density_mask& m) {
    std::vector<int> v;
    for (std::size_t i = 0; i < m.size(); ++i) v.push_back(m.test(i));
    return v;
  };
  EXPECT_EQ(bits(s.a_aux_density), (std::vector<int>{0, 1, 0, 1, 0, 0}));
  EXPECT_EQ(bits(s.b_aux_density), (std::vector<int>{0, 0, 1, 1, 0, 0}));
  // inputs: ONE (never in B), p (in B), q (zero coefficient only), r (C only)
  EXPECT_EQ(bits(s.b_input_density), (std::vector<int>{0, 1, 0, 0}));
  EXPECT_EQ(s.a_aux_density.count(), 2u);
  EXPECT_EQ(s.b_aux_density.count(), 2u);
  EXPECT_EQ(s.b_input_density.count(), 1u);

  // The same rule applied by hand to checking_cs's recorded LCs.
  checking_cs cs;
  synthesize_groth16(density_circuit{}, cs);
  const reference_densities ref = bellperson_densities(cs);
  EXPECT_EQ(ref.a_aux, s.a_aux_density);
  EXPECT_EQ(ref.b_input, s.b_input_density);
  EXPECT_EQ(ref.b_aux, s.b_aux_density);

  // Every aux variable is in some row here (C counts), so setup would accept it.
  EXPECT_EQ(s.first_unconstrained_aux(), std::nullopt);
}

TEST(r1cs_shape, unconstrained_aux_is_reported) {
  EXPECT_EQ(make_shape(unused_aux_circuit{}).first_unconstrained_aux(), 1u);
}

// ---- the bellperson synthesis frame --------------------------------------------

TEST(r1cs_groth16, input_constraints_are_appended_for_every_input) {
  const r1cs_shape s = make_shape(interleaved_circuit{});
  counting_cs bare;
  synthesize_circuit(interleaved_circuit{}, bare);
  ASSERT_EQ(s.num_inputs, 3u);  // ONE, p, q
  ASSERT_EQ(s.num_aux, 2u);
  EXPECT_EQ(bare.num_constraints(), 3u);
  EXPECT_EQ(s.num_constraints, bare.num_constraints() + s.num_inputs);
  for (std::size_t i = 0; i < s.num_inputs; ++i) {
    const std::size_t r = bare.num_constraints() + i;
    EXPECT_EQ(row_of(s, s.a, r), (row_t{{std::uint32_t(i), fr::one()}})) << "input " << i;
    EXPECT_TRUE(row_of(s, s.b, r).empty());
    EXPECT_TRUE(row_of(s, s.c, r).empty());
  }
  // Inputs allocated after aux variables were used: aux columns still start
  // at the final input count (x = 3, y = 4).
  EXPECT_EQ(row_of(s, s.a, 0), (row_t{{3, fr::one()}}));
  EXPECT_EQ(row_of(s, s.c, 0), (row_t{{0, u(9)}}));
  EXPECT_EQ(row_of(s, s.a, 1), (row_t{{1, fr::one()}, {3, fr::one()}}));
  EXPECT_EQ(row_of(s, s.c, 1), (row_t{{4, fr::one()}}));
  EXPECT_EQ(row_of(s, s.c, 2), (row_t{{2, fr::one()}}));

  checking_cs cs;
  synthesize_groth16(interleaved_circuit{}, cs);
  EXPECT_TRUE(cs.is_satisfied());
  EXPECT_EQ(cs.num_constraints(), s.num_constraints);
  const witness_cs w = make_witness(interleaved_circuit{});
  const abc_vectors abc = evaluate_abc(s, full_assignment(w));
  for (std::size_t i = 0; i < s.num_constraints; ++i) EXPECT_EQ(abc.a[i] * abc.b[i], abc.c[i]);
  EXPECT_EQ(abc.a[3], fr::one());  // ONE * 0 = 0
  EXPECT_EQ(abc.a[4], u(3));       // p * 0 = 0
  EXPECT_EQ(abc.b[4], fr::zero());
}

// Bellperson's extendable path (FallbackPoSt synthesize_extendable): children
// with a temporary ONE, appended in order, give the sequential result.
TEST(r1cs_groth16, extend_matches_sequential_synthesis) {
  const std::uint64_t seed = cuzk::test::test_seed("r1cs extend");
  const random_chain_circuit parts[3] = {{seed, 300, 97}, {seed + 1, 200, 53}, {seed + 2, 250, 61}};
  const sectors_circuit whole{parts};

  shape_cs seq_shape;
  synthesize_groth16(whole, seq_shape);
  witness_cs seq_witness;
  synthesize_groth16(whole, seq_witness);

  shape_cs ext_shape;
  witness_cs ext_witness;
  counting_cs ext_count;
  alloc_one(ext_shape);
  alloc_one(ext_witness);
  alloc_one(ext_count);
  for (const auto& p : parts) {
    shape_cs cs;
    witness_cs ws;
    counting_cs cc;
    alloc_one(cs);
    alloc_one(ws);
    alloc_one(cc);
    p.synthesize(cs);
    p.synthesize(ws);
    p.synthesize(cc);
    ext_shape.extend(cs);
    ext_witness.extend(ws);
    ext_count.extend(cc);
  }
  enforce_input_constraints(ext_shape);
  enforce_input_constraints(ext_witness);
  enforce_input_constraints(ext_count);

  const r1cs_shape seq = std::move(seq_shape).finish();
  const r1cs_shape ext = std::move(ext_shape).finish();
  expect_same_shape(seq, ext);
  EXPECT_EQ(ext_count.num_inputs(), seq.num_inputs);
  EXPECT_EQ(ext_count.num_aux(), seq.num_aux);
  EXPECT_EQ(ext_count.num_constraints(), seq.num_constraints);
  EXPECT_EQ(full_assignment(ext_witness), full_assignment(seq_witness));
}

// ---- A·w, B·w, C·w ------------------------------------------------------------------

TEST(r1cs_spmv, random_chain_satisfies_and_corruption_is_caught) {
  const std::uint64_t seed = cuzk::test::test_seed("r1cs spmv random chain");
  const random_chain_circuit circuit{seed, std::size_t(1) << 16, 4099};

  const r1cs_shape s = make_shape(circuit);
  counting_cs counting;
  synthesize_groth16(circuit, counting);
  ASSERT_EQ(s.num_constraints, counting.num_constraints());
  ASSERT_EQ(s.num_inputs, counting.num_inputs());
  ASSERT_EQ(s.num_aux, counting.num_aux());
  EXPECT_EQ(s.num_constraints, (std::size_t(1) << 16) + s.num_inputs);
  EXPECT_GT(s.num_inputs, 10u);  // inputs interleaved with aux

  const witness_cs w = make_witness(circuit, s.num_inputs, s.num_aux);
  checking_cs checking;
  synthesize_groth16(circuit, checking);
  ASSERT_TRUE(checking.is_satisfied()) << *checking.which_is_unsatisfied();
  ASSERT_TRUE(std::equal(w.aux().begin(), w.aux().end(), checking.aux().begin()));
  ASSERT_TRUE(std::equal(w.inputs().begin(), w.inputs().end(), checking.inputs().begin()));

  // Density masks against bellperson's rule on the recorded LCs.
  const reference_densities ref = bellperson_densities(checking);
  EXPECT_EQ(ref.a_aux, s.a_aux_density);
  EXPECT_EQ(ref.b_input, s.b_input_density);
  EXPECT_EQ(ref.b_aux, s.b_aux_density);

  std::vector<fr> full = full_assignment(w);
  const abc_vectors abc = evaluate_abc(s, full);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < s.num_constraints; ++i) bad += abc.a[i] * abc.b[i] != abc.c[i];
  EXPECT_EQ(bad, 0u);

  // The split (inputs, aux) form and single-matrix spmv give the same vectors,
  // and they equal checking_cs's direct LC evaluation.
  std::vector<fr> a2(s.num_constraints + 5, u(77)), b2(s.num_constraints), c2(s.num_constraints);
  evaluate_abc(s, w.inputs(), w.aux(), a2, b2, c2);
  EXPECT_TRUE(std::equal(abc.a.begin(), abc.a.end(), a2.begin()));
  EXPECT_EQ(a2.back(), u(77));  // padding untouched
  EXPECT_EQ(b2, abc.b);
  EXPECT_EQ(c2, abc.c);
  std::vector<fr> c3(s.num_constraints);
  spmv(s, s.c, full, c3);
  EXPECT_EQ(c3, abc.c);
  for (std::size_t i = 0; i < s.num_constraints; i += 997) {
    const auto k = checking.constraint(i);
    fr ea = fr::zero();
    for (const term& t : k.a) ea += checking.value(t.var) * t.coeff;
    EXPECT_EQ(ea, abc.a[i]) << "row " << i;
  }

  // Corrupt one aux variable: exactly the rows that use it fail.
  std::mt19937_64 rng(seed ^ 0x5eed);
  const std::size_t j = rng() % s.num_aux;
  const std::size_t col = s.num_inputs + j;
  full[col] += fr::one();
  const abc_vectors bad_abc = evaluate_abc(s, full);
  std::set<std::size_t> failing, using_col;
  for (std::size_t i = 0; i < s.num_constraints; ++i) {
    if (bad_abc.a[i] * bad_abc.b[i] != bad_abc.c[i]) failing.insert(i);
    for (const csr_matrix* m : {&s.a, &s.b, &s.c}) {
      const auto cols = m->row_cols(i);
      if (std::find(cols.begin(), cols.end(), col) != cols.end()) using_col.insert(i);
    }
  }
  EXPECT_FALSE(failing.empty());
  EXPECT_EQ(failing, using_col) << "aux " << j;

  checking.set(variable::aux(j), checking.value(variable::aux(j)) + fr::one());
  ASSERT_TRUE(checking.first_unsatisfied().has_value());
  EXPECT_EQ(*checking.first_unsatisfied(), *failing.begin());
  EXPECT_EQ(*checking.which_is_unsatisfied(), std::string(checking.constraint(*failing.begin()).path));

  EXPECT_THROW(evaluate_abc(s, std::span<const fr>(full).first(full.size() - 1)), std::invalid_argument);
}

// release_matrices keeps what witness-only synthesis and a device-resident
// prover read (counts, density masks) and frees the rest; every host product
// then refuses the shape instead of reading empty matrices.
TEST(r1cs_shape, released_matrices_keep_counts_and_masks_and_products_refuse) {
  const std::uint64_t seed = cuzk::test::test_seed("r1cs release matrices");
  const random_chain_circuit circuit{seed, std::size_t(1) << 10, 31};
  const r1cs_shape full = make_shape(circuit);
  ASSERT_TRUE(full.has_matrices());
  r1cs_shape s = full;
  release_matrices(s);
  EXPECT_FALSE(s.has_matrices());
  EXPECT_EQ(s.num_inputs, full.num_inputs);
  EXPECT_EQ(s.num_aux, full.num_aux);
  EXPECT_EQ(s.num_constraints, full.num_constraints);
  EXPECT_EQ(s.a_aux_density, full.a_aux_density);
  EXPECT_EQ(s.b_input_density, full.b_input_density);
  EXPECT_EQ(s.b_aux_density, full.b_aux_density);
  EXPECT_TRUE(s.coeffs.empty());
  EXPECT_EQ(s.a.nnz() + s.b.nnz() + s.c.nnz(), 0u);
  const witness_cs w = make_witness(circuit, s.num_inputs, s.num_aux);
  const std::vector<fr> assignment = full_assignment(w);
  std::vector<fr> a(s.num_constraints), b(s.num_constraints), c(s.num_constraints);
  EXPECT_THROW(evaluate_abc(s, assignment, a, b, c), std::logic_error);
  EXPECT_THROW(evaluate_abc(s, w.inputs(), w.aux(), a, b, c), std::logic_error);
  EXPECT_THROW(spmv(s, s.a, assignment, a), std::logic_error);
  EXPECT_NO_THROW(evaluate_abc(full, assignment, a, b, c));
  // an empty shape has nothing to release and stays usable
  r1cs_shape empty;
  release_matrices(empty);
  EXPECT_TRUE(empty.has_matrices());
}

}  // namespace
