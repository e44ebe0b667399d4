// SPDX-License-Identifier: Apache-2.0
// circom/snarkjs interop: the .r1cs/.wtns/.zkey readers on the tiny and pc4
// fixtures (shared/interop-fixtures/snarkjs), the snarkjs-convention prover
// against the golden proofs of the independent BigInt prover (noble_prove.mjs,
// r = s = 0 and r = 12345, s = 678910), the verifier, the JSON writers
// against snarkjs's own files, and malformed inputs (every truncation,
// patched headers, random corruption) rejected with a format_error naming the
// section.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <cuzk/circom/prover.hpp>
#include <cuzk/io/circom.hpp>
#include <cuzk/io/snarkjs_json.hpp>
#include <cuzk/ntt/domain.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using ff::fr;
using bytes = std::vector<std::uint8_t>;

std::string fixture(const std::string& rel) { return test::shared_dir() + "/interop-fixtures/snarkjs/" + rel; }

bytes read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return bytes(std::istreambuf_iterator<char>(in), {});
}

std::string read_text(const std::string& path) {
  const bytes b = read_bytes(path);
  return std::string(b.begin(), b.end());
}

fr dec(std::uint64_t v) { return fr::from_uint(v); }

// ---- container surgery for the malformed-input tests --------------------

struct section_pos {
  std::size_t entry;    ///< offset of the (id, size) entry
  std::size_t content;  ///< offset of the content
  std::uint64_t size;
};

std::uint32_t get_u32(const bytes& b, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
void put_u32(bytes& b, std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void put_u64(bytes& b, std::size_t at, std::uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

std::map<std::uint32_t, section_pos> sections_of(const bytes& b) {
  std::map<std::uint32_t, section_pos> out;
  std::size_t at = 12;
  for (std::uint32_t i = 0, n = get_u32(b, 8); i < n; ++i) {
    std::uint64_t size;
    std::memcpy(&size, b.data() + at + 4, 8);
    out[get_u32(b, at)] = {at, at + 12, size};
    at += 12 + size;
  }
  return out;
}

/// Removes |cut| bytes at the end of section |id| and fixes its size field.
bytes shrink_section(bytes b, std::uint32_t id, std::size_t cut) {
  const auto s = sections_of(b).at(id);
  b.erase(b.begin() + std::ptrdiff_t(s.content + s.size - cut), b.begin() + std::ptrdiff_t(s.content + s.size));
  put_u64(b, s.entry + 4, s.size - cut);
  return b;
}

/// Expects |f| to throw a format_error whose message contains every needle.
template <class F>
void expect_format_error(F&& f, std::initializer_list<std::string> needles) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const io::format_error& e) {
    const std::string msg = e.what();
    for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << msg << "\n  lacks: " << n;
  }
}

void set_bn254_prime(bytes& b, std::size_t at) {
  const std::uint64_t bn[4] = {0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029};
  std::memcpy(b.data() + at, bn, 32);
}

// ---- fixtures ------------------------------------------------------------

struct circuit {
  const char* r1cs;
  const char* wtns;
  const char* zkey;
  const char* vk;
  const char* golden;
};
const circuit tiny{"tiny/tiny.r1cs", "tiny/tiny.wtns", "tiny/tiny_0001.zkey", "tiny/verification_key.json",
                   "tiny/np_proof_r0s0.json"};
const circuit tiny_gen{"tiny/tiny.r1cs", "tiny/tiny.wtns", "tiny/tiny_gen.zkey", "tiny/vk_gen.json",
                       "tiny/gen_np_proof_r0s0.json"};
const circuit pc4{"pc4/pc4.r1cs", "pc4/pc4.wtns", "pc4/pc4.zkey", "pc4/vk.json", "pc4/np_proof_r0s0.json"};

// ---- parsing ---------------------------------------------------------------

TEST(circom_io, tiny_r1cs_layout) {
  const auto cs = io::read_r1cs(fixture(tiny.r1cs));
  EXPECT_EQ(cs.n_wires, 7u);
  EXPECT_EQ(cs.n_pub_out, 2u);
  EXPECT_EQ(cs.n_pub_in, 1u);
  EXPECT_EQ(cs.n_prv_in, 2u);
  EXPECT_EQ(cs.n_labels, 7u);
  EXPECT_EQ(cs.n_constraints, 3u);
  ASSERT_EQ(cs.wire_labels.size(), 7u);
  for (std::uint64_t i = 0; i < 7; ++i) EXPECT_EQ(cs.wire_labels[i], i);
  // constraint 0 (tiny_constraints.json): A = {4: -1}, B = {5: 1}, C = {1: -1}
  const auto a = cs.lc(0, 0), b = cs.lc(0, 1), c = cs.lc(0, 2);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(a[0].wire, 4u);
  EXPECT_EQ(a[0].coef, -fr::one());
  EXPECT_EQ(b[0].wire, 5u);
  EXPECT_EQ(b[0].coef, fr::one());
  EXPECT_EQ(c[0].wire, 1u);
  EXPECT_EQ(c[0].coef, -fr::one());
  EXPECT_EQ(cs.lc(2, 2).size(), 2u);  // {2: -1, 6: 1}
}

TEST(circom_io, tiny_wtns_values) {
  const auto w = io::read_wtns(fixture(tiny.wtns)).values;
  const std::vector<fr> expect{dec(1), dec(33), dec(176), dec(7), dec(3), dec(11), dec(99)};
  EXPECT_EQ(w, expect);
}

TEST(circom_io, witnesses_satisfy_r1cs) {
  for (const circuit* c : {&tiny, &pc4}) {
    const auto cs = io::read_r1cs(fixture(c->r1cs));
    auto w = io::read_wtns(fixture(c->wtns)).values;
    EXPECT_EQ(io::first_unsatisfied_constraint(cs, w), std::nullopt) << c->r1cs;
    w.back() += fr::one();
    EXPECT_NE(io::first_unsatisfied_constraint(cs, w), std::nullopt) << c->r1cs;
    w.pop_back();
    EXPECT_THROW(io::first_unsatisfied_constraint(cs, w), std::invalid_argument);
  }
}

TEST(circom_io, zkey_layouts_and_r1cs_match) {
  const auto tz = io::read_zkey(fixture(tiny.zkey), {.check_subgroup = true});
  EXPECT_EQ(tz.n_vars, 7u);
  EXPECT_EQ(tz.n_public, 3u);
  EXPECT_EQ(tz.domain_size, 8u);
  EXPECT_EQ(tz.coefs.size(), (444u - 4) / 44);
  EXPECT_EQ(tz.ic.size(), 4u);
  EXPECT_EQ(tz.c.size(), 3u);
  EXPECT_EQ(tz.h.size(), 8u);
  EXPECT_EQ(tz.gamma2, ec::g2_generator());  // snarkjs: gamma = 1

  const auto pz = io::read_zkey(fixture(pc4.zkey));
  EXPECT_EQ(pz.n_vars, 966u);
  EXPECT_EQ(pz.n_public, 1u);
  EXPECT_EQ(pz.domain_size, 1024u);
  EXPECT_EQ(pz.coefs.size(), 3818u);
  EXPECT_EQ(pz.a.size(), 966u);
  EXPECT_EQ(pz.b2.size(), 966u);
  EXPECT_EQ(pz.c.size(), 964u);
  EXPECT_EQ(pz.h.size(), 1024u);

  for (const circuit* c : {&tiny, &tiny_gen, &pc4}) {
    const auto cs = io::read_r1cs(fixture(c->r1cs));
    const auto zk = io::read_zkey(fixture(c->zkey));
    EXPECT_EQ(io::zkey_mismatch(cs, zk), std::nullopt) << c->zkey;
  }
  // and a mismatch is noticed
  auto zk = io::read_zkey(fixture(tiny.zkey));
  zk.coefs[1].coef += fr::one();
  EXPECT_NE(io::zkey_mismatch(io::read_r1cs(fixture(tiny.r1cs)), zk), std::nullopt);
}

TEST(circom_io, vk_export_matches_snarkjs) {
  // includes vk_alphabeta_12 = e(alpha, beta): cuzk's pairing equals snarkjs's
  for (const circuit* c : {&tiny, &tiny_gen, &pc4})
    EXPECT_EQ(io::vk_to_json(io::read_zkey(fixture(c->zkey))), read_text(fixture(c->vk))) << c->vk;
}

// ---- roots of unity ----------------------------------------------------------

TEST(circom_prover, snarkjs_roots) {
  const std::uint64_t j = circom::snarkjs_root_exponent();
  EXPECT_EQ(j & 1, 1u);
  for (unsigned lg = 0; lg <= 32; ++lg) {
    const fr w = circom::snarkjs_root_of_unity(lg);
    const std::uint64_t jm = j & ((std::uint64_t(1) << lg) - 1);
    EXPECT_EQ(ntt::root_of_unity(lg).pow(jm), w) << lg;
    if (lg > 0) {
      EXPECT_EQ(w.pow(std::uint64_t(1) << (lg - 1)), -fr::one()) << lg;  // primitive
    }
  }
}

// ---- proving -----------------------------------------------------------------

std::string prove_json(const circuit& c, const fr& r, const fr& s, std::string* pub = nullptr) {
  const auto zk = io::read_zkey(fixture(c.zkey));
  const auto w = io::read_wtns(fixture(c.wtns)).values;
  if (pub) *pub = io::public_to_json(circom::public_inputs(zk, w));
  return io::proof_to_json(circom::prove(zk, w, r, s));
}

TEST(circom_prover, golden_r0s0) {
  for (const circuit* c : {&tiny, &tiny_gen, &pc4}) {
    std::string pub;
    EXPECT_EQ(prove_json(*c, fr::zero(), fr::zero(), &pub), read_text(fixture(c->golden))) << c->golden;
    const std::string dir = std::string(c->zkey).substr(0, std::string(c->zkey).find('/'));
    EXPECT_EQ(pub, read_text(fixture(dir + "/public.json"))) << c->zkey;
  }
}

TEST(circom_prover, golden_r12345_s678910) {
  EXPECT_EQ(prove_json(tiny, dec(12345), dec(678910)), read_text(fixture("tiny/np_proof_r12345_s678910.json")));
}

TEST(circom_prover, proofs_verify_and_tampering_fails) {
  std::mt19937_64 rng(test::test_seed("circom_prover.verify"));
  for (const circuit* c : {&tiny, &pc4}) {
    const auto zk = io::read_zkey(fixture(c->zkey));
    const auto w = io::read_wtns(fixture(c->wtns)).values;
    const auto vk = io::vk_from_json(read_text(fixture(c->vk)));
    auto inputs = circom::public_inputs(zk, w);
    const auto pi = circom::prove(zk, w, fr::random(rng), fr::random(rng));
    EXPECT_TRUE(circom::verify(vk, pi, inputs)) << c->zkey;
    // the JSON round trip keeps the proof
    EXPECT_EQ(io::proof_from_json(io::proof_to_json(pi)), pi);
    EXPECT_EQ(io::public_from_json(io::public_to_json(inputs)), inputs);
    // snarkjs's own proof verifies with our verifier
    const auto theirs = io::proof_from_json(
        read_text(fixture(std::string(c->vk).substr(0, std::string(c->vk).find('/')) + "/proof.json")));
    EXPECT_TRUE(circom::verify(vk, theirs, inputs)) << c->zkey;
    // tampering
    auto bad_inputs = inputs;
    bad_inputs[0] += fr::one();
    EXPECT_FALSE(circom::verify(vk, pi, bad_inputs));
    auto bad = pi;
    bad.c = theirs.c;
    EXPECT_FALSE(circom::verify(vk, bad, inputs));
    bad = pi;
    bad.a = (ec::g1_jacobian::from_affine(pi.a) + ec::g1_jacobian::generator()).to_affine();
    EXPECT_FALSE(circom::verify(vk, bad, inputs));
    inputs.push_back(fr::one());
    EXPECT_FALSE(circom::verify(vk, pi, inputs));  // wrong count
  }
}

TEST(circom_prover, witness_size_mismatch_throws) {
  const auto zk = io::read_zkey(fixture(tiny.zkey));
  std::vector<fr> w(zk.n_vars + 1, fr::one());
  EXPECT_THROW(circom::prove(zk, w, fr::zero(), fr::zero()), std::invalid_argument);
}

// ---- JSON ----------------------------------------------------------------------

TEST(snarkjs_json, decimal) {
  EXPECT_EQ(io::to_decimal(fr::zero()), "0");
  EXPECT_EQ(io::to_decimal(dec(1234567890123456789ull)), "1234567890123456789");
  EXPECT_EQ(io::to_decimal(-fr::one()),
            "52435875175126190479447740508185965837690552500527637822603658699938581184512");
  const std::uint64_t ten19[2] = {10000000000000000000ull, 0};
  EXPECT_EQ(io::to_decimal(std::span<const std::uint64_t>(ten19)), "10000000000000000000");
  // G2 generator x.c0 (docs/FORMATS.md §5.6)
  EXPECT_EQ(io::to_decimal(ec::g2_generator().x.c0),
            "3527010695874666181871391160110601448900299527927752402199086442397937857357150268733"
            "47600343865175952761926303160");
}

TEST(snarkjs_json, infinity_and_rejections) {
  const groth16::proof inf{ec::g1_affine::identity(), ec::g2_affine::identity(), ec::g1_affine::identity()};
  const std::string text = io::proof_to_json(inf);
  EXPECT_NE(text.find("\"0\",\n  \"1\",\n  \"0\""), std::string::npos) << text;
  EXPECT_EQ(io::proof_from_json(text), inf);

  const std::string good = read_text(fixture("pc4/proof.json"));
  EXPECT_NO_THROW(io::proof_from_json(good));
  const auto mutate = [&](auto&& edit) {
    auto j = nlohmann::ordered_json::parse(good);
    edit(j);
    return j.dump(1);
  };
  expect_format_error([&] { io::proof_from_json(mutate([](auto& j) { j["curve"] = "bn128"; })); },
                      {"proof.json", "curve"});
  expect_format_error([&] { io::proof_from_json(mutate([](auto& j) { j["pi_a"][0] = "5"; })); },
                      {"pi_a", "not on the curve"});
  expect_format_error([&] { io::proof_from_json(mutate([](auto& j) { j["pi_b"][2][0] = "2"; })); },
                      {"pi_b[2]", "z must be"});
  expect_format_error([&] { io::proof_from_json(mutate([](auto& j) { j["pi_c"][0] = "x1"; })); },
                      {"pi_c[0]", "not a decimal"});
  expect_format_error([&] { io::proof_from_json(mutate([](auto& j) { j.erase("pi_b"); })); }, {"missing key \"pi_b\""});
  expect_format_error([&] { io::proof_from_json(good.substr(0, good.size() - 2)); }, {"JSON syntax"});
  expect_format_error(
      [&] {
        io::public_from_json("[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]");
      },
      {"public.json", "[0]", "not below"});
  expect_format_error([&] { io::vk_from_json("{\"protocol\":\"groth16\",\"curve\":\"bls12381\"}"); },
                      {"missing key \"nPublic\""});
}

// ---- malformed binary files ------------------------------------------------------

TEST(circom_io_malformed, every_truncation_is_rejected) {
  struct kind {
    const char* path;
    void (*parse)(const bytes&);
    const char* name;
  };
  const kind kinds[] = {
      {tiny.r1cs, [](const bytes& b) { io::parse_r1cs(b, "t.r1cs"); }, "r1cs"},
      {tiny.wtns, [](const bytes& b) { io::parse_wtns(b, "t.wtns"); }, "wtns"},
      {tiny.zkey, [](const bytes& b) { io::parse_zkey(b, "t.zkey"); }, "zkey"},
  };
  for (const auto& k : kinds) {
    const bytes full = read_bytes(fixture(k.path));
    ASSERT_NO_THROW(k.parse(full)) << k.path;
    for (std::size_t len = 0; len < full.size(); ++len) {
      const bytes cut(full.begin(), full.begin() + std::ptrdiff_t(len));
      try {
        k.parse(cut);
        ADD_FAILURE() << k.path << " truncated to " << len << " bytes was accepted";
      } catch (const io::format_error& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind(std::string(k.name) + " file", 0), 0u) << msg;
        EXPECT_NE(msg.find("byte offset"), std::string::npos) << msg;
        EXPECT_TRUE(msg.find("section") != std::string::npos || msg.find("container header") != std::string::npos)
            << msg;
      }
    }
  }
  // truncation inside a section with consistent sizes names that section
  const bytes zk = read_bytes(fixture(tiny.zkey));
  expect_format_error([&] { io::parse_zkey(shrink_section(zk, 9, 96), "t.zkey"); }, {"section 9 (H)", "size mismatch"});
  expect_format_error([&] { io::parse_zkey(shrink_section(zk, 4, 10), "t.zkey"); },
                      {"section 4 (coefficients)", "size mismatch"});
  expect_format_error([&] { io::parse_zkey(shrink_section(zk, 2, 1), "t.zkey"); }, {"section 2 (groth16 header)"});
  const bytes r1 = read_bytes(fixture(tiny.r1cs));
  expect_format_error([&] { io::parse_r1cs(shrink_section(r1, 2, 5), "t.r1cs"); },
                      {"section 2 (constraints)", "truncated"});
  expect_format_error([&] { io::parse_r1cs(shrink_section(r1, 3, 8), "t.r1cs"); },
                      {"section 3 (wire-to-label map)", "size mismatch"});
  const bytes wt = read_bytes(fixture(tiny.wtns));
  expect_format_error([&] { io::parse_wtns(shrink_section(wt, 2, 32), "t.wtns"); },
                      {"section 2 (witness values)", "nWitness = 7"});
}

TEST(circom_io_malformed, magic_version_prime) {
  const bytes r1 = read_bytes(fixture(tiny.r1cs));
  const bytes wt = read_bytes(fixture(tiny.wtns));
  const bytes zk = read_bytes(fixture(tiny.zkey));
  {
    bytes b = r1;
    b[0] = 'x';
    expect_format_error([&] { io::parse_r1cs(b, "t.r1cs"); },
                        {"r1cs file 't.r1cs'", "container header", "byte offset 0", "bad magic"});
    expect_format_error([&] { io::parse_zkey(r1, "t.zkey"); }, {"zkey file", "bad magic \"r1cs\""});
    b = r1;
    put_u32(b, 4, 2);
    expect_format_error([&] { io::parse_r1cs(b, "t.r1cs"); }, {"byte offset 4", "unsupported version 2"});
    b = wt;
    put_u32(b, 4, 1);
    expect_format_error([&] { io::parse_wtns(b, "t.wtns"); }, {"unsupported version 1"});
  }
  {
    bytes b = r1;
    const auto h = sections_of(b).at(1);
    set_bn254_prime(b, h.content + 4);
    expect_format_error([&] { io::parse_r1cs(b, "t.r1cs"); },
                        {"section 1 (header)", "byte offset " + std::to_string(h.content + 4), "wrong prime", "BN254",
                         // r written most significant digit first (io::to_hex_reversed)
                         "expected BLS12-381's r 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"});
    put_u32(b, h.content, 48);
    expect_format_error([&] { io::parse_r1cs(b, "t.r1cs"); }, {"section 1 (header)", "n8 = 48"});
  }
  {
    bytes b = wt;
    set_bn254_prime(b, sections_of(b).at(1).content + 4);
    expect_format_error([&] { io::parse_wtns(b, "t.wtns"); }, {"section 1 (header)", "wrong prime"});
  }
  {
    bytes b = zk;
    const auto h = sections_of(b).at(2);
    set_bn254_prime(b, h.content + 4 + 48 + 4);  // r
    expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"section 2 (groth16 header)", "wrong prime"});
    b = zk;
    b[h.content + 4] ^= 1;  // q
    expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"section 2 (groth16 header)", "wrong base field prime"});
    b = zk;
    put_u32(b, sections_of(b).at(1).content, 2);
    expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"section 1 (protocol)", "plonk", "not Groth16"});
  }
}

TEST(circom_io_malformed, inconsistent_counts_and_values) {
  const bytes r1 = read_bytes(fixture(tiny.r1cs));
  const bytes wt = read_bytes(fixture(tiny.wtns));
  const bytes zk = read_bytes(fixture(tiny.zkey));
  const auto r1s = sections_of(r1);
  const auto zks = sections_of(zk);
  bytes b;
  // r1cs: nConstraints far beyond the section, nWires too small, bad wire id
  b = r1;
  put_u32(b, r1s.at(1).content + 36 + 16 + 8, 0xffffffffu);
  expect_format_error([&] { io::parse_r1cs(b, "t.r1cs"); }, {"section 2 (constraints)", "4294967295 constraints"});
  b = r1;
  put_u32(b, r1s.at(1).content + 36, 3);  // nWires = 3 < 1 + 2 + 1 + 2
  expect_format_error([&] { io::parse_r1cs(b, "t.r1cs"); }, {"section 1 (header)", "exceeds nWires"});
  b = r1;
  put_u32(b, r1s.at(2).content + 4, 7);  // first term's wire id
  expect_format_error([&] { io::parse_r1cs(b, "t.r1cs"); }, {"section 2 (constraints)", "wire 7 >= nWires 7",
                                                             "byte offset " + std::to_string(r1s.at(2).content + 4)});
  b = r1;
  std::memset(b.data() + r1s.at(2).content + 8, 0xff, 32);  // first coefficient >= r
  expect_format_error([&] { io::parse_r1cs(b, "t.r1cs"); }, {"section 2 (constraints)", "coefficient", "not below r"});
  b = r1;
  put_u32(b, r1s.at(2).content, 0x7fffffffu);  // nTerms
  expect_format_error([&] { io::parse_r1cs(b, "t.r1cs"); }, {"section 2 (constraints)", "2147483647 terms"});
  // wtns: nWitness and the values section disagree; value >= r
  b = wt;
  put_u32(b, sections_of(b).at(1).content + 36, 0xffffffffu);
  expect_format_error([&] { io::parse_wtns(b, "t.wtns"); }, {"section 2 (witness values)", "size mismatch"});
  b = wt;
  std::memset(b.data() + sections_of(b).at(2).content + 32, 0xff, 32);
  expect_format_error([&] { io::parse_wtns(b, "t.wtns"); },
                      {"section 2 (witness values)", "witness value", "not below r"});
  // zkey header fields
  const std::size_t hdr = zks.at(2).content + 4 + 48 + 4 + 32;
  b = zk;
  put_u32(b, hdr, 8);  // nVars 7 -> 8
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"section 5 (A)", "size mismatch"});
  b = zk;
  put_u32(b, hdr + 4, 7);  // nPublic = nVars
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"section 2 (groth16 header)", "exceeds nVars"});
  b = zk;
  put_u32(b, hdr + 8, 12);
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"not a power of two"});
  b = zk;
  put_u32(b, hdr + 8, 1u << 31);
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"exceeds the supported maximum"});
  b = zk;
  put_u32(b, zks.at(4).content, 0xffffffffu);  // nCoef
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"section 4 (coefficients)", "size mismatch"});
  b = zk;
  put_u32(b, zks.at(4).content + 4 + 4, 8);  // row of entry 0 = domainSize
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"section 4 (coefficients)", "row 8 >= domainSize 8"});
  b = zk;
  put_u32(b, zks.at(4).content + 4, 2);
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"matrix 2"});
  b = zk;
  put_u32(b, zks.at(4).content + 4 + 8, 7);
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"signal 7 >= nVars 7"});
  // points: off the curve, coordinate >= q
  b = zk;
  b[zks.at(5).content + 96 + 5] ^= 0x10;  // A point 1 (A point 0 is infinity for wire 0?)
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); },
                      {"section 5 (A)", "A point 1", "byte offset " + std::to_string(zks.at(5).content + 96)});
  b = zk;
  std::memset(b.data() + zks.at(7).content + 192 * 2, 0xff, 48);
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"section 7 (B2)", "not below q"});
  // container: missing and duplicate sections, a section overrunning the file
  b = zk;
  put_u32(b, zks.at(9).entry, 99);
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"missing section 9 (H)"});
  b = r1;
  put_u32(b, r1s.at(3).entry, 2);
  expect_format_error([&] { io::parse_r1cs(b, "t.r1cs"); }, {"duplicate section 2 (constraints)"});
  b = zk;
  put_u64(b, zks.at(3).entry + 4, 1ull << 62);
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"section 3 (IC) declares"});
  b = zk;
  b.push_back(0);
  expect_format_error([&] { io::parse_zkey(b, "t.zkey"); }, {"1 bytes after the last"});
  // missing file
  expect_format_error([] { io::read_zkey("/nonexistent/x.zkey"); }, {"zkey file", "cannot open"});
}

TEST(circom_io_malformed, random_corruption_never_crashes) {
  std::mt19937_64 rng(test::test_seed("circom_io_malformed.random_corruption"));
  const bytes r1 = read_bytes(fixture(tiny.r1cs));
  const bytes wt = read_bytes(fixture(tiny.wtns));
  const bytes zk = read_bytes(fixture(tiny.zkey));
  int rejected = 0, accepted = 0;
  for (int iter = 0; iter < 600; ++iter) {
    const bytes& src = iter % 3 == 0 ? r1 : iter % 3 == 1 ? wt : zk;
    bytes b = src;
    const int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= std::uint8_t(1 + rng() % 255);
    try {
      if (iter % 3 == 0) io::parse_r1cs(b);
      else if (iter % 3 == 1) io::parse_wtns(b);
      else io::parse_zkey(b);
      ++accepted;  // e.g. a changed witness value or contribution byte
    } catch (const io::format_error&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 100);
  std::printf("random corruption: %d rejected, %d accepted\n", rejected, accepted);
}

}  // namespace
