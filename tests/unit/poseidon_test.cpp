// SPDX-License-Identifier: Apache-2.0
// Poseidon (neptune, Standard strength): round numbers against neptune's
// table, Grain constants and Cauchy MDS against neptune's parameter file and
// the derived JSON, the optimized constants against supraseal's dumps, the
// native hash against every vector of poseidon_vectors.json and against the
// textbook permutation, and the circuit against neptune's circuit.rs: counts
// (311/377/505/598), satisfaction, values, witness_cs = checking_cs, failing
// constraint paths, and row-by-row equality with a literal transcription of
// circuit.rs built on unmerged LCs.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <cuzk/gadgets/poseidon.hpp>
#include <cuzk/r1cs/r1cs.hpp>

#include "common/test_seed.hpp"

namespace {

using cuzk::ff::fr;
using cuzk::gadgets::allocated_num;
using cuzk::gadgets::num;
using cuzk::gadgets::poseidon_constants;
using cuzk::gadgets::poseidon_constants_for;
using cuzk::gadgets::poseidon_hash_type;
using cuzk::r1cs::linear_combination;
using cuzk::r1cs::variable;
namespace r1cs = cuzk::r1cs;
namespace gadgets = cuzk::gadgets;

std::string fixtures() { return cuzk::test::shared_dir() + "/filecoin-fixtures"; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  throw std::runtime_error("bad hex digit");
}

// "0x..." big-endian integer (at most 64 digits) -> canonical element.
fr fr_from_hex_be(std::string_view s) {
  if (s.starts_with("0x")) s.remove_prefix(2);
  fr::limbs v{};
  std::size_t bit = 0;
  for (std::size_t i = s.size(); i-- > 0; bit += 4) v[bit / 64] |= std::uint64_t(hex_digit(s[i])) << (bit % 64);
  auto f = fr::from_canonical(v);
  if (!f) throw std::runtime_error("not canonical: " + std::string(s));
  return *f;
}

// 64 hex digits of 32 little-endian bytes -> canonical element.
fr fr_from_hex_le(std::string_view s) {
  std::array<std::uint8_t, 32> b{};
  if (s.size() != 64) throw std::runtime_error("bad LE hex length");
  for (std::size_t i = 0; i < 32; ++i) b[i] = std::uint8_t(hex_digit(s[2 * i]) * 16 + hex_digit(s[2 * i + 1]));
  auto f = fr::from_bytes_le(b.data());
  if (!f) throw std::runtime_error("not canonical");
  return *f;
}

std::string hex_be(const fr& f) {
  std::array<std::uint8_t, 32> b{};
  f.to_bytes_be(b.data());
  std::string s = "0x";
  for (auto x : b) {
    static const char* d = "0123456789abcdef";
    s += d[x >> 4];
    s += d[x & 15];
  }
  return s;
}

// ---- constants ----------------------------------------------------------------------------

TEST(poseidon_constants, round_numbers_match_neptune_table) {
  std::istringstream in(read_file(fixtures() + "/neptune/round_numbers.txt"));
  std::string line;
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::size_t t = 0, rf = 0, rp = 0;
    ls >> t >> rf >> rp;
    const auto rn = gadgets::poseidon_standard_round_numbers(t);
    EXPECT_EQ(rn.full_rounds, rf) << "t = " << t;
    EXPECT_EQ(rn.partial_rounds, rp) << "t = " << t;
    ++rows;
  }
  EXPECT_EQ(rows, 124u);  // t = 2..125
  // the arities Filecoin uses
  for (auto [arity, rp] : {std::pair{2, 55}, {4, 56}, {8, 57}, {11, 57}}) {
    const poseidon_constants& k = poseidon_constants_for(arity);
    EXPECT_EQ(k.full_rounds, 8u);
    EXPECT_EQ(k.partial_rounds, std::size_t(rp));
  }
}

TEST(poseidon_constants, grain_t9_matches_neptune_parameter_file) {
  std::istringstream in(read_file(
      fixtures() +
      "/neptune/round_constants-1-1-255-9-8-57-73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001.txt"));
  std::string line;
  for (int i = 0; i < 9; ++i) std::getline(in, line);  // the Python list is line 9
  std::vector<fr> expected;
  for (std::size_t p = line.find("0x"); p != std::string::npos; p = line.find("0x", p + 2)) {
    const std::size_t end = line.find('\'', p);
    expected.push_back(fr_from_hex_be(std::string_view(line).substr(p, end - p)));
  }
  ASSERT_EQ(expected.size(), 585u);
  const poseidon_constants& k = poseidon_constants_for(8);
  ASSERT_EQ(k.round_constants.size(), 585u);
  for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(k.round_constants[i], expected[i]) << i;
}

TEST(poseidon_constants, grain_and_mds_match_derived_json) {
  const auto j = read_json(fixtures() + "/derived/poseidon_constants_unoptimized.json");
  for (const auto& [key, inst] : j.at("instances").items()) {
    const std::size_t arity = inst.at("arity");
    const std::size_t t = inst.at("t");
    SCOPED_TRACE("arity " + key);
    const poseidon_constants& k = poseidon_constants_for(arity);
    ASSERT_EQ(k.width, t);
    EXPECT_EQ(k.full_rounds, std::size_t(inst.at("full_rounds")));
    EXPECT_EQ(k.partial_rounds, std::size_t(inst.at("partial_rounds")));
    const auto& rc = inst.at("round_constants_be");
    ASSERT_EQ(rc.size(), k.round_constants.size());
    for (std::size_t i = 0; i < rc.size(); ++i)
      ASSERT_EQ(k.round_constants[i], fr_from_hex_be(rc[i].get<std::string>())) << i;
    const auto& mds = inst.at("mds_be");
    ASSERT_EQ(mds.size(), t);
    for (std::size_t r = 0; r < t; ++r)
      for (std::size_t c = 0; c < t; ++c)
        ASSERT_EQ(k.mds_at(r, c), fr_from_hex_be(mds[r][c].get<std::string>())) << r << "," << c;
  }
}

TEST(poseidon_constants, mds_inverse_and_sparse_factorization_are_consistent) {
  for (std::size_t arity : {2, 8}) {
    const poseidon_constants& k = poseidon_constants_for(arity);
    const std::size_t t = k.width;
    for (std::size_t i = 0; i < t; ++i)
      for (std::size_t j = 0; j < t; ++j) {
        fr acc = fr::zero();
        for (std::size_t l = 0; l < t; ++l) acc += k.mds_at(i, l) * k.mds_inverse[l * t + j];
        ASSERT_EQ(acc, i == j ? fr::one() : fr::zero());
      }
    // state * pre_sparse * M''_0 ... M''_{RP-1} == state * M^(RP+1) on a random state
    std::mt19937_64 rng(arity);
    std::vector<fr> a(t), b(t);
    for (auto& x : a) x = fr::random(rng);
    b = a;
    const auto mul_m = [&](std::vector<fr>& s) {
      std::vector<fr> r(t, fr::zero());
      for (std::size_t j = 0; j < t; ++j)
        for (std::size_t i = 0; i < t; ++i) r[j] += s[i] * k.mds_at(i, j);
      s = r;
    };
    for (std::size_t r = 0; r <= k.partial_rounds; ++r) mul_m(a);
    gadgets::detail::poseidon_mix_dense(b.data(), k.pre_sparse_matrix.data(), t);
    for (std::size_t r = 0; r < k.partial_rounds; ++r) gadgets::detail::poseidon_mix_sparse(b.data(), k, r);
    EXPECT_EQ(a, b) << "arity " << arity;
  }
}

TEST(poseidon_constants, optimized_constants_match_supraseal_dumps) {
  for (std::size_t arity : {2, 4, 8, 11}) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    const std::string bytes = read_file(fixtures() + "/curio/supraseal_poseidon_constants_" + std::to_string(arity));
    const poseidon_constants& k = poseidon_constants_for(arity);
    const std::size_t t = k.width;
    std::vector<fr> words;
    for (std::size_t off = 0; off + 32 <= bytes.size(); off += 32)
      words.push_back(fr::from_raw(fr::limbs_from_le(reinterpret_cast<const std::uint8_t*>(bytes.data()) + off)));
    ASSERT_EQ(bytes.size() % 32, 0u);
    std::vector<fr> ours;
    ours.insert(ours.end(), k.compressed_round_constants.begin(), k.compressed_round_constants.end());
    ours.insert(ours.end(), k.mds.begin(), k.mds.end());
    ours.insert(ours.end(), k.pre_sparse_matrix.begin(), k.pre_sparse_matrix.end());
    ours.insert(ours.end(), k.sparse_matrices.begin(), k.sparse_matrices.end());
    ASSERT_EQ(words.size(), k.full_rounds * t + k.partial_rounds + 2 * t * t + k.partial_rounds * (2 * t - 1));
    ASSERT_EQ(words.size(), ours.size());
    const std::size_t crc = k.compressed_round_constants.size();
    for (std::size_t i = 0; i < words.size(); ++i) {
      const char* part = i < crc               ? "compressed round constant"
                         : i < crc + t * t     ? "mds"
                         : i < crc + 2 * t * t ? "pre-sparse"
                                               : "sparse";
      ASSERT_EQ(words[i], ours[i]) << part << " word " << i;
    }
  }
}

TEST(poseidon_constants, domain_tags) {
  EXPECT_EQ(poseidon_hash_type::merkle_tree().domain_tag(2), fr::from_uint(3));
  EXPECT_EQ(poseidon_hash_type::merkle_tree().domain_tag(8), fr::from_uint(0xff));
  EXPECT_EQ(poseidon_hash_type::merkle_tree().domain_tag(11), fr::from_uint(0x7ff));
  EXPECT_EQ(poseidon_hash_type::custom(1).domain_tag(2), fr::from_uint(std::uint64_t(1) << 40));
  EXPECT_EQ(poseidon_hash_type::custom(256).domain_tag(8), fr::from_uint(std::uint64_t(256) << 40));
  EXPECT_THROW(poseidon_hash_type::custom(0), std::invalid_argument);
  EXPECT_THROW(poseidon_hash_type::custom(257), std::invalid_argument);
  EXPECT_THROW(poseidon_constants_for(0), std::invalid_argument);
  EXPECT_THROW(poseidon_constants_for(37), std::invalid_argument);
}

// ---- native -------------------------------------------------------------------------------

TEST(poseidon_native, every_vector_in_poseidon_vectors_json) {
  const auto j = read_json(fixtures() + "/derived/poseidon_vectors.json");
  std::size_t n = 0;
  for (const auto& c : j.at("cases")) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    const std::size_t arity = c.at("arity");
    std::vector<fr> in;
    for (const auto& x : c.at("inputs_le")) in.push_back(fr_from_hex_le(x.get<std::string>()));
    ASSERT_EQ(in.size(), arity);
    for (std::size_t i = 0; i < arity; ++i) EXPECT_EQ(in[i], fr_from_hex_be(c.at("inputs_be")[i].get<std::string>()));
    const fr expected = fr_from_hex_le(c.at("output_le").get<std::string>());
    EXPECT_EQ(expected, fr_from_hex_be(c.at("output_be").get<std::string>()));
    const poseidon_constants& k = poseidon_constants_for(arity);
    EXPECT_EQ(k.width, std::size_t(c.at("t")));
    EXPECT_EQ(k.full_rounds, std::size_t(c.at("full_rounds")));
    EXPECT_EQ(k.partial_rounds, std::size_t(c.at("partial_rounds")));
    EXPECT_EQ(poseidon_hash_type::merkle_tree().domain_tag(arity),
              fr_from_hex_be(c.at("domain_tag").get<std::string>()));
    const fr got = gadgets::poseidon_hash(in);
    EXPECT_EQ(hex_be(got), hex_be(expected));
    EXPECT_EQ(gadgets::poseidon_hash_reference(in), expected);
    ++n;
  }
  EXPECT_EQ(n, 11u);
}

TEST(poseidon_native, optimized_equals_textbook_on_random_inputs) {
  std::mt19937_64 rng(cuzk::test::test_seed("poseidon_native"));
  for (std::size_t arity : {1, 2, 3, 4, 8, 11}) {
    for (int rep = 0; rep < 3; ++rep) {
      std::vector<fr> in(arity);
      for (auto& x : in) x = fr::random(rng);
      EXPECT_EQ(gadgets::poseidon_hash(in), gadgets::poseidon_hash_reference(in)) << arity;
      const auto custom = poseidon_hash_type::custom(1 + rng() % 256);
      EXPECT_EQ(gadgets::poseidon_hash(in, custom), gadgets::poseidon_hash_reference(in, custom)) << arity;
      EXPECT_NE(gadgets::poseidon_hash(in, custom), gadgets::poseidon_hash(in));
    }
  }
}

// ---- circuit ------------------------------------------------------------------------------

// neptune circuit.rs test_poseidon_hash (311/377/505) and its formula; 311 and
// 598 are also asserted by rust-fil-proofs stacked/circuit/hash.rs.
std::size_t neptune_constraints(std::size_t arity) {
  switch (arity) {
    case 2: return 311;
    case 4: return 377;
    case 8: return 505;
    case 11: return 598;
    default: return 0;
  }
}

// Allocates |values| as "data i" (neptune's test) and hashes them under "hash".
template <class CS>
allocated_num hash_in(CS& cs, const std::vector<std::optional<fr>>& values,
                      poseidon_hash_type type = poseidon_hash_type::merkle_tree()) {
  std::vector<allocated_num> data;
  for (std::size_t i = 0; i < values.size(); ++i) {
    r1cs::namespace_guard ns(cs, [i] { return "data " + std::to_string(i); });
    data.push_back(allocated_num::alloc(cs, [&] { return r1cs::require(values[i]); }));
  }
  r1cs::namespace_guard ns(cs, "hash");
  return gadgets::poseidon_hash(cs, data, type);
}

std::vector<std::optional<fr>> random_values(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::optional<fr>> v(n);
  for (auto& x : v) x = fr::random(rng);
  return v;
}

TEST(poseidon_gadget, satisfied_matches_native_and_neptune_counts) {
  std::mt19937_64 rng(cuzk::test::test_seed("poseidon_gadget"));
  for (std::size_t arity : {2, 4, 8, 11}) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    const auto values = random_values(rng, arity);
    std::vector<fr> plain;
    for (const auto& v : values) plain.push_back(*v);

    r1cs::checking_cs cs;
    r1cs::alloc_one(cs);
    const allocated_num out = hash_in(cs, values);
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    ASSERT_TRUE(out.get_value().has_value());
    EXPECT_EQ(*out.get_value(), gadgets::poseidon_hash(plain));
    EXPECT_EQ(cs.value(out.get_variable()), *out.get_value());
    EXPECT_EQ(cs.num_constraints(), neptune_constraints(arity));
    EXPECT_EQ(gadgets::poseidon_hash_constraints(arity), neptune_constraints(arity));
    EXPECT_EQ(cs.num_aux(), arity + neptune_constraints(arity));
    EXPECT_EQ(cs.num_inputs(), 1u);

    // witness_cs: the same assignment
    r1cs::witness_cs ws;
    r1cs::alloc_one(ws);
    const allocated_num wout = hash_in(ws, values);
    EXPECT_EQ(*wout.get_value(), *out.get_value());
    ASSERT_EQ(ws.num_aux(), cs.num_aux());
    EXPECT_EQ(ws.num_constraints(), cs.num_constraints());
    for (std::size_t i = 0; i < cs.num_aux(); ++i) ASSERT_EQ(ws.aux()[i], cs.aux()[i]) << "aux " << i;

    // counting_cs and shape_cs: same counts without values
    r1cs::counting_cs cc;
    r1cs::alloc_one(cc);
    const allocated_num counted = hash_in(cc, std::vector<std::optional<fr>>(arity));
    EXPECT_FALSE(counted.get_value().has_value());
    EXPECT_EQ(cc.num_constraints(), cs.num_constraints());
    EXPECT_EQ(cc.num_aux(), cs.num_aux());
  }
}

TEST(poseidon_gadget, counts_for_the_other_neptune_arities) {
  // neptune circuit.rs test_poseidon_hash, Standard strength
  for (auto [arity, expected] : {std::pair<std::size_t, std::size_t>{16, 761}, {24, 1009}, {36, 1385}}) {
    r1cs::counting_cs cc;
    r1cs::alloc_one(cc);
    hash_in(cc, std::vector<std::optional<fr>>(arity));
    EXPECT_EQ(cc.num_constraints(), expected) << "arity " << arity;
    EXPECT_EQ(cc.num_aux(), arity + expected) << "arity " << arity;
    EXPECT_EQ(gadgets::poseidon_hash_constraints(arity), expected) << "arity " << arity;
  }
}

TEST(poseidon_gadget, custom_domain_tag) {
  std::mt19937_64 rng(cuzk::test::test_seed("poseidon_gadget_custom"));
  const auto values = random_values(rng, 2);
  const std::vector<fr> plain{*values[0], *values[1]};
  r1cs::checking_cs cs;
  r1cs::alloc_one(cs);
  const allocated_num out = hash_in(cs, values, poseidon_hash_type::custom(1));
  EXPECT_TRUE(cs.is_satisfied());
  EXPECT_EQ(*out.get_value(), gadgets::poseidon_hash(plain, poseidon_hash_type::custom(1)));
  EXPECT_NE(*out.get_value(), gadgets::poseidon_hash(plain));
  EXPECT_EQ(cs.num_constraints(), 311u);
}

TEST(poseidon_gadget, corrupted_assignment_reports_the_constraint) {
  std::mt19937_64 rng(cuzk::test::test_seed("poseidon_gadget_corrupt"));
  const auto values = random_values(rng, 8);
  r1cs::checking_cs cs;
  r1cs::alloc_one(cs);
  hash_in(cs, values);
  ASSERT_TRUE(cs.is_satisfied());

  const std::string sbox = "hash/partial round 10/solitary quintic s-box";
  const fr l4 = cs.get(sbox + "/l^4/squared num");
  cs.set(sbox + "/l^4/squared num", l4 + fr::one());
  EXPECT_EQ(cs.which_is_unsatisfied(), sbox + "/l^4/squaring constraint");
  cs.set(sbox + "/l^4/squared num", l4);
  EXPECT_TRUE(cs.is_satisfied());

  const std::string first = "hash/first round/quintic s-box 3";
  const fr sq = cs.get(first + "/(l+rk)^2/squared sum/num");
  cs.set(first + "/(l+rk)^2/squared sum/num", sq + fr::one());
  EXPECT_EQ(cs.which_is_unsatisfied(), first + "/(l+rk)^2/squared sum constraint");
  cs.set(first + "/(l+rk)^2/squared sum/num", sq);

  const std::string res = "hash/hash result/allocate for Elt::Num/num";
  cs.set(res, cs.get(res) + fr::one());
  EXPECT_EQ(cs.which_is_unsatisfied(), "hash/hash result/enforce num allocation preserves lc");
  cs.set(res, cs.get(res) - fr::one());

  cs.set("data 5/num", cs.get("data 5/num") + fr::one());  // a different preimage
  EXPECT_EQ(cs.which_is_unsatisfied(), "hash/first round/quintic s-box 6/(l+rk)^2/squared sum constraint");
}

TEST(poseidon_gadget, missing_values_throw_in_value_modes_only) {
  const std::vector<std::optional<fr>> blank(4);
  r1cs::checking_cs cs;
  r1cs::alloc_one(cs);
  try {
    hash_in(cs, blank);
    ADD_FAILURE() << "no exception";
  } catch (const r1cs::synthesis_error& e) {
    EXPECT_EQ(e.code(), r1cs::synthesis_errc::assignment_missing);
  }
  r1cs::shape_cs sc;
  r1cs::alloc_one(sc);
  EXPECT_NO_THROW(hash_in(sc, blank));
  EXPECT_EQ(sc.num_constraints(), 377u);
}

// ---- a literal transcription of neptune src/circuit.rs (legacy poseidon_hash) ---------------
//
// Written on gadgets::num (unmerged LCs, neptune's Elt::Num) and allocated_num,
// statement by statement; the gadget must produce the same constraint names,
// values and (normalized) rows.
namespace literal {

const variable one = r1cs::one_variable;

struct elt {
  std::optional<allocated_num> a;  // Elt::Allocated
  std::optional<num> n;            // Elt::Num

  static elt of(const allocated_num& x) { return {x, std::nullopt}; }
  static elt of(num x) { return {std::nullopt, std::move(x)}; }
  static elt num_from_fr(const fr& f) {
    return of(num::zero().add_bool_with_coeff(one, gadgets::boolean::constant(true), f));
  }
  std::optional<fr> val() const { return a ? a->get_value() : n->get_value(); }
  elt add(const elt& o) const {
    if (!n || !o.n) throw std::logic_error("only two numbers may be added");
    return of(num(*n).add(*o.n));
  }
  elt scale(const fr& s) const { return of((a ? num(*a) : num(*n)).scale(s)); }
};

template <class CS>
allocated_num ensure_allocated(CS& cs, const elt& e) {
  if (e.a) return *e.a;
  std::optional<allocated_num> v;
  {
    r1cs::namespace_guard ns(cs, "allocate for Elt::Num");
    v = allocated_num::alloc(cs, [&] { return r1cs::require(e.n->get_value()); });
  }
  cs.enforce(
      "enforce num allocation preserves lc", [&](linear_combination) { return e.n->lc(fr::one()); },
      [&](linear_combination lc) { return lc + CS::one(); },
      [&](linear_combination lc) { return lc + v->get_variable(); });
  return *v;
}

template <class CS>
allocated_num square_sum(CS& cs, const fr& to_add, const allocated_num& x) {
  std::optional<allocated_num> res;
  {
    r1cs::namespace_guard ns(cs, "squared sum");
    res = allocated_num::alloc(cs, [&] { return (r1cs::require(x.get_value()) + to_add).sqr(); });
  }
  const auto side = [&](linear_combination lc) { return lc + x.get_variable() + to_add * CS::one(); };
  cs.enforce("squared sum constraint", side, side, [&](linear_combination lc) { return lc + res->get_variable(); });
  return *res;
}

template <class CS>
allocated_num mul_sum(CS& cs, const allocated_num& a, const allocated_num& b, std::optional<fr> pre,
                      std::optional<fr> post) {
  std::optional<allocated_num> res;
  {
    r1cs::namespace_guard ns(cs, "mul_sum");
    res = allocated_num::alloc(cs, [&] {
      fr tmp = r1cs::require(b.get_value());
      if (pre) tmp += *pre;
      tmp *= r1cs::require(a.get_value());
      if (post) tmp += *post;
      return tmp;
    });
  }
  const auto lb = [&](linear_combination lc) { return lc + a.get_variable(); };
  const auto la = [&](linear_combination lc) {
    lc = lc + b.get_variable();
    if (pre) lc = lc + *pre * CS::one();
    return lc;
  };
  const auto lcc = [&](linear_combination lc) {
    lc = lc + res->get_variable();
    if (post) lc = lc + (-*post) * CS::one();
    return lc;
  };
  const char* name = post ? (pre ? "mul sum constraint pre-post-add" : "mul sum constraint post-add")
                          : (pre ? "mul sum constraint pre-add" : "mul sum constraint");
  cs.enforce(name, la, lb, lcc);
  return *res;
}

template <class CS>
elt quintic_s_box(CS& cs, const elt& e, std::optional<fr> post) {
  std::optional<allocated_num> l;
  {
    r1cs::namespace_guard ns(cs, "S-box input");
    l = ensure_allocated(cs, e);
  }
  std::optional<allocated_num> l2, l4;
  {
    r1cs::namespace_guard ns(cs, "l^2");
    l2 = l->square(cs);
  }
  {
    r1cs::namespace_guard ns(cs, "l^4");
    l4 = l2->square(cs);
  }
  r1cs::namespace_guard ns(cs, "(l4 * l) + rk)");
  return elt::of(mul_sum(cs, *l4, *l, std::nullopt, post));
}

template <class CS>
elt quintic_s_box_pre_add(CS& cs, const elt& e, fr pre, fr post) {
  std::optional<allocated_num> l;
  {
    r1cs::namespace_guard ns(cs, "S-box input");
    l = ensure_allocated(cs, e);
  }
  std::optional<allocated_num> l2, l4;
  {
    r1cs::namespace_guard ns(cs, "(l+rk)^2");
    l2 = square_sum(cs, pre, *l);
  }
  {
    r1cs::namespace_guard ns(cs, "l^4");
    l4 = l2->square(cs);
  }
  r1cs::namespace_guard ns(cs, "l4 * (l + rk)");
  return elt::of(mul_sum(cs, *l4, *l, pre, post));
}

elt constant_quintic_s_box_pre_add_tag(const elt& tag, fr pre, fr post) {
  fr x = *tag.val() + pre;
  x = x.sqr().sqr() * x + post;
  return elt::num_from_fr(x);
}

elt scalar_product(const std::vector<elt>& elts, const std::vector<fr>& scalars) {
  elt acc = elt::of(num::zero());
  for (std::size_t i = 0; i < elts.size(); ++i) acc = acc.add(elts[i].scale(scalars[i]));
  return acc;
}

struct poseidon_circuit {
  const poseidon_constants& c;
  std::vector<elt> elements;
  std::size_t constants_offset = 0;
  std::size_t current_round = 0;

  template <class CS>
  allocated_num hash(CS& cs) {
    with(cs, "first round", [&] { full_round(cs, true, false); });
    for (std::size_t i = 1; i < c.full_rounds / 2; ++i)
      with(cs, "initial full round " + std::to_string(i), [&] { full_round(cs, false, false); });
    for (std::size_t i = 0; i < c.partial_rounds; ++i)
      with(cs, "partial round " + std::to_string(i), [&] { partial_round(cs); });
    for (std::size_t i = 0; i + 1 < c.full_rounds / 2; ++i)
      with(cs, "final full round " + std::to_string(i), [&] { full_round(cs, false, false); });
    with(cs, "terminal full round", [&] { full_round(cs, false, true); });
    r1cs::namespace_guard ns(cs, "hash result");
    return ensure_allocated(cs, elements[1]);
  }

  template <class CS, class F>
  static void with(CS& cs, const std::string& name, F&& f) {
    r1cs::namespace_guard ns(cs, name);
    f();
  }

  template <class CS>
  void full_round(CS& cs, bool first_round, bool last_round) {
    const std::size_t w = c.width;
    std::size_t off = constants_offset;
    std::vector<fr> pre, post;
    if (first_round)
      pre.assign(c.compressed_round_constants.begin() + off, c.compressed_round_constants.begin() + off + w);
    off += pre.size();
    if (first_round || !last_round)
      post.assign(c.compressed_round_constants.begin() + off, c.compressed_round_constants.begin() + off + w);
    off += post.size();
    for (std::size_t i = 0; i < elements.size(); ++i) {
      if (first_round) {
        if (i == 0) {
          elements[i] = constant_quintic_s_box_pre_add_tag(elements[i], pre[i], post[i]);
        } else {
          r1cs::namespace_guard ns(cs, "quintic s-box " + std::to_string(i));
          elements[i] = quintic_s_box_pre_add(cs, elements[i], pre[i], post[i]);
        }
      } else {
        r1cs::namespace_guard ns(cs, "quintic s-box " + std::to_string(i));
        elements[i] = quintic_s_box(cs, elements[i], post.empty() ? std::nullopt : std::optional<fr>(post[i]));
      }
    }
    constants_offset = off;
    product_mds();
  }

  template <class CS>
  void partial_round(CS& cs) {
    const fr key = c.compressed_round_constants[constants_offset++];
    {
      r1cs::namespace_guard ns(cs, "solitary quintic s-box");
      elements[0] = quintic_s_box(cs, elements[0], key);
    }
    product_mds();
  }

  void product_mds() {
    const std::size_t half = c.half_full_rounds;
    const std::size_t sparse_offset = half - 1;
    if (current_round == sparse_offset) {
      with_matrix(c.pre_sparse_matrix);
    } else if (current_round > sparse_offset && current_round < half + c.partial_rounds) {
      const std::size_t index = current_round - sparse_offset - 1;
      const auto w_hat = c.w_hat(index);
      const auto v_rest = c.v_rest(index);
      std::vector<elt> result;
      result.push_back(scalar_product(elements, std::vector<fr>(w_hat.begin(), w_hat.end())));
      for (std::size_t j = 1; j < c.width; ++j) result.push_back(elements[j].add(elements[0].scale(v_rest[j - 1])));
      elements = result;
    } else {
      with_matrix(c.mds);
    }
    ++current_round;
  }

  void with_matrix(const std::vector<fr>& m) {
    std::vector<elt> result;
    for (std::size_t j = 0; j < c.width; ++j) {
      std::vector<fr> column;
      for (std::size_t i = 0; i < c.width; ++i) column.push_back(m[i * c.width + j]);
      result.push_back(scalar_product(elements, column));
    }
    elements = result;
  }
};

template <class CS>
allocated_num poseidon_hash(CS& cs, const std::vector<allocated_num>& preimage) {
  const poseidon_constants& c = poseidon_constants_for(preimage.size());
  poseidon_circuit p{c, {}};
  p.elements.push_back(elt::num_from_fr(poseidon_hash_type::merkle_tree().domain_tag(preimage.size())));
  for (const auto& x : preimage) p.elements.push_back(elt::of(x));
  return p.hash(cs);
}

}  // namespace literal

template <bool Literal>
struct hash_circuit {
  std::vector<std::optional<fr>> values;
  template <class CS>
  void synthesize(CS& cs) const {
    std::vector<allocated_num> data;
    for (std::size_t i = 0; i < values.size(); ++i) {
      r1cs::namespace_guard ns(cs, [i] { return "data " + std::to_string(i); });
      data.push_back(allocated_num::alloc(cs, [&] { return r1cs::require(values[i]); }));
    }
    r1cs::namespace_guard ns(cs, "hash");
    allocated_num out = Literal ? literal::poseidon_hash(cs, data) : gadgets::poseidon_hash(cs, data);
    out.inputize(cs);  // the hash as a public input, so the output is used
  }
};

TEST(poseidon_gadget, equals_literal_transcription_of_neptune_circuit_rs) {
  std::mt19937_64 rng(cuzk::test::test_seed("poseidon_literal"));
  for (std::size_t arity : {2, 11}) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    const auto values = random_values(rng, arity);

    // names, order and values
    r1cs::checking_cs ours, theirs;
    r1cs::synthesize_circuit(hash_circuit<false>{values}, ours);
    r1cs::synthesize_circuit(hash_circuit<true>{values}, theirs);
    EXPECT_TRUE(ours.is_satisfied());
    EXPECT_TRUE(theirs.is_satisfied());
    ASSERT_EQ(ours.num_constraints(), theirs.num_constraints());
    ASSERT_EQ(ours.num_aux(), theirs.num_aux());
    ASSERT_EQ(ours.num_inputs(), theirs.num_inputs());
    for (std::size_t i = 0; i < ours.num_constraints(); ++i)
      ASSERT_EQ(ours.constraint(i).path, theirs.constraint(i).path) << "constraint " << i;
    for (std::size_t i = 0; i < ours.num_aux(); ++i) ASSERT_EQ(ours.aux()[i], theirs.aux()[i]) << "aux " << i;
    for (std::size_t i = 0; i < ours.num_inputs(); ++i) ASSERT_EQ(ours.inputs()[i], theirs.inputs()[i]);

    // the matrices after bellpepper's merge (shape_cs normalizes every row)
    const r1cs::r1cs_shape a = r1cs::make_shape(hash_circuit<false>{values});
    const r1cs::r1cs_shape b = r1cs::make_shape(hash_circuit<true>{values});
    ASSERT_EQ(a.num_constraints, b.num_constraints);
    for (std::size_t i = 0; i < a.num_constraints; ++i) {
      ASSERT_EQ(a.row(a.a, i), b.row(b.a, i)) << "A row " << i;
      ASSERT_EQ(a.row(a.b, i), b.row(b.b, i)) << "B row " << i;
      ASSERT_EQ(a.row(a.c, i), b.row(b.c, i)) << "C row " << i;
    }
    EXPECT_EQ(a.a_aux_density, b.a_aux_density);
    EXPECT_EQ(a.b_input_density, b.b_input_density);
    EXPECT_EQ(a.b_aux_density, b.b_aux_density);
    // the largest merged row: an S-box input after all partial rounds (t + R_P terms)
    const poseidon_constants& k = poseidon_constants_for(arity);
    std::size_t widest = 0;
    for (std::size_t i = 0; i < a.num_constraints; ++i) widest = std::max(widest, a.row(a.a, i).size());
    EXPECT_EQ(widest, k.width + k.partial_rounds);
  }
}

}  // namespace
