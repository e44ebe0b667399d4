// SPDX-License-Identifier: Apache-2.0
// FallbackPoSt (WindowPoSt / WinningPoSt): the real 32 GiB WindowPoSt vanilla
// proof from Curio (filecoin-fixtures/curio/post.vproof + postpub.json)
// decoded, checked natively (challenges, paths, comm_r) and satisfied in the
// circuit, with tamper tests naming the failing namespace; the bincode
// decoder on truncated and corrupted input; the published constraint and
// input counts; and a 2 KiB WinningPoSt on a synthetic sector (its Groth16
// round trip is in tests/unit_long/post_winning_groth16_test.cpp).
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/post_generator.hpp>
#include <cuzk/io/base64.hpp>
#include <cuzk/io/post_vanilla.hpp>
#include <cuzk/r1cs/r1cs.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using circuits::fallback_post_params;
using ff::fr;

constexpr std::uint64_t gib32 = std::uint64_t(32) << 30;

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string fixture(const char* name) { return test::shared_dir() + "/filecoin-fixtures/curio/" + name; }

// RFC 4648 base32, lower case, no padding (multibase prefix 'b').
std::vector<std::uint8_t> base32_decode(const std::string& s) {
  std::vector<std::uint8_t> out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int v;
    if (c >= 'a' && c <= 'z') v = c - 'a';
    else if (c >= '2' && c <= '7') v = c - '2' + 26;
    else throw std::runtime_error("bad base32");
    acc = (acc << 5) | std::uint32_t(v);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(std::uint8_t(acc >> bits));
    }
  }
  return out;
}

struct post_fixture {
  std::vector<std::uint8_t> bytes;
  io::fallback_post_sector_proof proof;
  std::array<std::uint8_t, 32> randomness{};
  std::uint64_t sector_number = 0;
  std::uint64_t registered_proof = 0;
  fr comm_r_from_cid;
};

const post_fixture& load_fixture() {
  static const post_fixture f = [] {
    post_fixture r;
    r.bytes = read_file(fixture("post.vproof"));
    r.proof = io::read_fallback_post_sector_proof(r.bytes, "post.vproof");
    std::ifstream js(fixture("postpub.json"));
    const nlohmann::json j = nlohmann::json::parse(js);
    std::vector<std::uint8_t> rnd;
    if (const auto e = io::decode_base64(j.at("Randomness").get<std::string>(), io::base64_mode::strict, rnd))
      throw std::runtime_error("Randomness: " + e->message());
    if (rnd.size() != 32) throw std::runtime_error("randomness is not 32 bytes");
    std::copy(rnd.begin(), rnd.end(), r.randomness.begin());
    const auto& sector = j.at("ChallengedSectors").at(0);
    r.sector_number = sector.at("SectorNumber").get<std::uint64_t>();
    r.registered_proof = j.at("Proofs").at(0).at("PoStProof").get<std::uint64_t>();
    // CIDv1 (fil-commitment-sealed, poseidon-bls12_381-a2-fc1): the last 32
    // bytes after the multihash length 0x20 are comm_r (LE repr)
    const std::string cid = sector.at("SealedCID").at("/").get<std::string>();
    const auto raw = base32_decode(cid.substr(1));
    if (cid[0] != 'b' || raw.size() < 33 || raw[raw.size() - 33] != 0x20) throw std::runtime_error("bad CID");
    r.comm_r_from_cid = *fr::from_bytes_le(raw.data() + raw.size() - 32);
    return r;
  }();
  return f;
}

// ---- decoding ------------------------------------------------------------------------

TEST(post_vanilla, real_32gib_window_post_proof_decodes_completely) {
  const post_fixture& f = load_fixture();
  ASSERT_EQ(f.bytes.size(), 24960u);
  const io::fallback_post_sector_proof& p = f.proof;
  EXPECT_EQ(p.sector_id, 1u);
  EXPECT_EQ(p.sector_id, f.sector_number);
  EXPECT_EQ(f.registered_proof, 8u);  // StackedDrgWindow32GiBV1
  EXPECT_EQ(p.comm_r, f.comm_r_from_cid);
  std::array<std::uint8_t, 32> comm_r_le{};
  p.comm_r.to_bytes_le(comm_r_le.data());
  EXPECT_EQ(comm_r_le[0], 0xdf);
  EXPECT_EQ(comm_r_le[31], 0x6b);
  ASSERT_EQ(p.sectors.size(), 1u);
  const io::post_sector_proof& s = p.sectors[0];
  ASSERT_EQ(s.inclusion_proofs.size(), 10u);

  // comm_r = Poseidon2(comm_c, comm_r_last)
  const std::array<fr, 2> pre{s.comm_c, s.comm_r_last};
  EXPECT_EQ(gadgets::poseidon_hash(std::span<const fr>(pre)), p.comm_r);

  const auto params = circuits::window_post_params(gib32, circuits::post_api_version::v1_0_0);
  const auto shape = params.shape();
  const auto challenges = circuits::sector_leaf_challenges(params, f.randomness, p.sector_id, 0, 10);
  for (std::size_t j = 0; j < 10; ++j) {
    const io::merkle_proof& m = s.inclusion_proofs[j];
    EXPECT_EQ(m.kind, io::merkle_proof_kind::sub);
    EXPECT_EQ(m.base.size(), 9u);
    EXPECT_EQ(m.sub.size(), 1u);
    EXPECT_EQ(m.root, s.comm_r_last);
    // the leaf index equals the SHA-256 challenge (zero randomness, sector 1)
    EXPECT_EQ(m.leaf_index(), challenges[j]) << "challenge " << j;
    const gadgets::merkle_path path = circuits::merkle_path_from_proof(shape, m);
    EXPECT_EQ(gadgets::path_leaf_index(shape, path), challenges[j]);
    EXPECT_EQ(gadgets::merkle_root_from_path(shape, m.leaf, path), s.comm_r_last) << "challenge " << j;
  }
  // V1_2_0 indexing gives the same challenges for the first sector of a partition
  const auto params12 = circuits::window_post_params(gib32, circuits::post_api_version::v1_2_0);
  EXPECT_EQ(circuits::sector_leaf_challenges(params12, f.randomness, 1, 0, 10), challenges);

  // the encoder is the exact inverse
  EXPECT_EQ(io::write_fallback_post_sector_proof(p), f.bytes);
  EXPECT_EQ(io::read_fallback_post_proof(io::write_fallback_post_proof(p.sectors)), p.sectors);
}

std::string decode_error(std::span<const std::uint8_t> bytes) {
  try {
    (void)io::read_fallback_post_sector_proof(bytes, "t");
  } catch (const io::format_error& e) {
    return e.what();
  }
  return "";
}

TEST(post_vanilla, truncation_bad_tags_and_bad_values_are_clear_errors) {
  const post_fixture& f = load_fixture();
  const std::span<const std::uint8_t> all(f.bytes);
  // every strict prefix fails with a format_error (no crash, no bad_alloc)
  for (std::size_t n = 0; n < all.size(); n += (n < 600 ? 1 : 97)) {
    const std::string e = decode_error(all.first(n));
    ASSERT_FALSE(e.empty()) << "prefix " << n;
    ASSERT_NE(e.find("truncated"), std::string::npos) << e;
  }
  EXPECT_NE(decode_error(all.first(all.size() - 1)).find("comm_r_last"), std::string::npos);
  // inclusion proof 9 starts at 56 + 9 * 2484 = 22412; its base path element
  // 6 at 22412 + 12 + 6 * 240 = 23864, whose 7 siblings no longer fit
  const std::string e9 = decode_error(all.first(24000));
  EXPECT_NE(e9.find("vanilla_proof.sectors[0].inclusion_proofs[9].data.base_proof.path[6].hashes at byte "
                    "offset 23864"),
            std::string::npos)
      << e9;
  // a short prefix stops at the first Vec whose minimal size no longer fits
  EXPECT_NE(decode_error(all.first(70)).find("vanilla_proof.sectors at byte offset 40"), std::string::npos);

  // a bad ProofData tag at offset 56 (first inclusion proof)
  std::vector<std::uint8_t> b = f.bytes;
  b[56] = 7;
  std::string e = decode_error(b);
  EXPECT_NE(e.find("inclusion_proofs[0].data at byte offset 56"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown ProofData variant tag 7"), std::string::npos) << e;
  // a non-canonical domain (comm_r = 0xff..ff)
  b = f.bytes;
  std::fill(b.begin() + 8, b.begin() + 40, 0xff);
  e = decode_error(b);
  EXPECT_NE(e.find("comm_r at byte offset 8"), std::string::npos) << e;
  EXPECT_NE(e.find("canonical"), std::string::npos) << e;
  // an absurd Vec length
  b = f.bytes;
  b[47] = 0x7f;  // high byte of the vanilla_proof.sectors length
  e = decode_error(b);
  EXPECT_NE(e.find("vanilla_proof.sectors at byte offset 40"), std::string::npos) << e;
  EXPECT_NE(e.find("Vec length 9151314442816847873"), std::string::npos) << e;
  // trailing bytes
  b = f.bytes;
  b.push_back(0);
  EXPECT_NE(decode_error(b).find("1 trailing bytes"), std::string::npos);
  // random corruption: decodes or throws format_error, nothing else
  std::mt19937_64 rng(test::test_seed("post-vanilla-fuzz"));
  for (int k = 0; k < 300; ++k) {
    b = f.bytes;
    for (int flips = 0; flips < 3; ++flips) b[rng() % b.size()] ^= std::uint8_t(1u << (rng() % 8));
    try {
      (void)io::read_fallback_post_sector_proof(b);
    } catch (const io::format_error&) {
    }
  }
}

// ---- the WindowPoSt circuit on the real sector ----------------------------------------

// sector_count = 2: the real sector and its padding copy (the partition
// layout of the test-size parameters; the 32 GiB circuit has 2349 such slots,
// 125M constraints, too many for checking_cs). Tree shape, challenge count,
// per-slot layout and padding rule are those of the 32 GiB circuit.
fallback_post_params window_params_two_slots() {
  auto params = circuits::window_post_params(gib32, circuits::post_api_version::v1_0_0);
  params.sector_count = 2;
  return params;
}

TEST(post_circuit, real_32gib_window_post_sector_is_satisfied) {
  const post_fixture& f = load_fixture();
  const auto params = window_params_two_slots();
  const auto circuit = circuits::window_post_circuit(params, std::span(&f.proof, 1));
  r1cs::checking_cs cs;
  r1cs::synthesize_circuit(circuit, cs);
  ASSERT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
  EXPECT_EQ(cs.num_constraints(), 2 * 53333u);
  EXPECT_EQ(cs.num_inputs(), 1 + 2 * 11u);
  // the circuit's public inputs are what a verifier derives from the chain
  const circuits::post_public_sector pub{f.sector_number, f.comm_r_from_cid};
  const auto expected = circuits::fallback_post_public_inputs(params, f.randomness, std::span(&pub, 1), 0);
  ASSERT_EQ(expected.size(), cs.num_inputs() - 1);
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], expected[i]) << "input " << i;
  EXPECT_EQ(cs.get("outer namespace/sector_1/comm_r_last/num"), f.proof.sectors[0].comm_r_last);

  // witness_cs computes the same assignment
  const auto w = r1cs::make_witness(circuit);
  ASSERT_EQ(w.aux().size(), cs.aux().size());
  EXPECT_TRUE(std::equal(w.aux().begin(), w.aux().end(), cs.aux().begin()));
}

TEST(post_circuit, tampered_real_sector_names_the_failing_namespace) {
  const post_fixture& f = load_fixture();
  auto params = window_params_two_slots();
  params.sector_count = 1;  // the failures are in slot 0
  const auto check = [&](std::size_t offset) {
    std::vector<std::uint8_t> b = f.bytes;
    b[offset] ^= 0x01;  // low byte of a domain: stays canonical
    const auto proof = io::read_fallback_post_sector_proof(b);
    r1cs::checking_cs cs;
    r1cs::synthesize_circuit(circuits::window_post_circuit(params, std::span(&proof, 1)), cs);
    return cs.which_is_unsatisfied();
  };
  // first sibling of the first path element of inclusion proof 0 (offset
  // 8 + 32 + 8 + 8 + 4 + 8 + 8 = 76)
  EXPECT_EQ(check(76), "outer namespace/sector_0/challenge_inclusion_0/enforce root is correct");
  // a sibling in the sub-tree level of inclusion proof 3
  const std::size_t proof3 = 56 + 3 * 2484;
  const std::size_t sub_hash = proof3 + 4 + 8 + 9 * 240 + 8 + 8 + 5 * 32;
  EXPECT_EQ(check(sub_hash), "outer namespace/sector_0/challenge_inclusion_3/enforce root is correct");
  // the leaf of inclusion proof 9
  EXPECT_EQ(check(56 + 9 * 2484 + 2484 - 32), "outer namespace/sector_0/challenge_inclusion_9/enforce root is correct");
  // comm_c (24960 - 64)
  EXPECT_EQ(check(24896), "outer namespace/sector_0/enforce_comm_c_comm_r_last_hash_comm_r");
}

// ---- published sizes ----------------------------------------------------------------

struct sizes {
  std::size_t constraints, inputs, aux;
};
sizes count(const fallback_post_params& params) {
  r1cs::counting_cs cs;
  // synthesize_circuit: ONE + the circuit, without the num_inputs
  // `input_i * 0 = 0` rows synthesize_groth16 appends. The published
  // figures (constants.rs, docs/FORMATS.md §4.5) are of this kind.
  r1cs::synthesize_circuit(circuits::blank_fallback_post_circuit(params), cs);
  return {cs.num_constraints(), cs.num_inputs(), cs.num_aux()};
}

TEST(post_circuit, published_sizes_32gib) {
  const auto t0 = std::chrono::steady_clock::now();
  const sizes win = count(circuits::winning_post_params(gib32));
  EXPECT_EQ(win.constraints, 370590u);
  EXPECT_EQ(win.inputs, 133u);
  const sizes win_dom = [&] {
    r1cs::counting_cs cs;
    r1cs::synthesize_groth16(circuits::blank_fallback_post_circuit(circuits::winning_post_params(gib32)), cs);
    return sizes{cs.num_constraints(), cs.num_inputs(), cs.num_aux()};
  }();
  EXPECT_EQ(win_dom.constraints, 370590u + 133u);  // what the Groth16 domain is sized from

  const sizes win2k = count(circuits::winning_post_params(2048));
  EXPECT_EQ(win2k.constraints, 66u * (313 + 2 * 530 + 2));  // 2 KiB: 2 levels
  const sizes window = count(circuits::window_post_params(gib32));
  EXPECT_EQ(window.constraints, 125279217u);
  EXPECT_EQ(window.inputs, 25840u);
  EXPECT_EQ(window.aux, 2349u * 54024u);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[time] counting WinningPoSt + WindowPoSt 32 GiB: %.2f s\n", secs);
}

TEST(post_circuit, published_sizes_64gib_window) {
  // constants.rs: "2300 ... gives 129,887,900 constraints"
  const sizes window = count(circuits::window_post_params(std::uint64_t(64) << 30));
  EXPECT_EQ(window.constraints, 129887900u);
  EXPECT_EQ(window.inputs, 1 + 2300u * 11);
}

// ---- WinningPoSt 2 KiB on a synthetic sector -------------------------------------------
// (the Groth16 round trip of this circuit, ~20 s of setup and proving on
// 2 cores, is tests/unit_long/post_winning_groth16_test.cpp)

struct synthetic_winning {
  io::fallback_post_sector_proof vanilla;
  std::array<std::uint8_t, 32> randomness{};
};

// A random 2 KiB sector (circuits/post_generator.hpp) and the vanilla proof
// the Rust prover would send for it: 66 challenges on 1 sector
// (generate_fallback_sector_challenges with sector_count 1, V1_0_0).
synthetic_winning make_synthetic_winning(std::mt19937_64& rng) {
  circuits::synthetic_post_sector sector = circuits::make_synthetic_post_sector(rng, 0);
  synthetic_winning r;
  fr::random(rng).to_bytes_le(r.randomness.data());
  sector.id = rng() % 1000000;
  auto config = circuits::winning_post_params(2048);
  config.sector_count = 1;
  config.challenge_count = 66;
  r.vanilla = circuits::synthetic_fallback_post_vanilla(sector, config, r.randomness, 0);
  return r;
}

TEST(post_circuit, winning_post_2kib_synthetic_sector_is_satisfied) {
  std::mt19937_64 rng(test::test_seed("winning-post-2kib-checking"));
  const auto params = circuits::winning_post_params(2048);
  ASSERT_EQ(params.sector_count, 66u);
  ASSERT_EQ(params.challenge_count, 1u);
  const synthetic_winning s = make_synthetic_winning(rng);
  // through the bincode layer, as the engine receives it
  const auto decoded = io::read_fallback_post_sector_proof(io::write_fallback_post_sector_proof(s.vanilla));
  ASSERT_EQ(decoded, s.vanilla);

  r1cs::checking_cs cs;
  r1cs::synthesize_circuit(circuits::winning_post_circuit(params, decoded), cs);
  ASSERT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
  EXPECT_EQ(cs.num_constraints(), 66u * (313 + 2 * 530 + 2));
  const auto inputs = circuits::winning_post_public_inputs(params, s.randomness, {decoded.sector_id, decoded.comm_r});
  ASSERT_EQ(inputs.size(), cs.num_inputs() - 1);
  for (std::size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], inputs[i]) << "input " << i;

  // a wrong sibling in challenge 5 (slot 5 of the unrolled proof)
  auto broken = decoded;
  broken.sectors[0].inclusion_proofs[5].base[1].hashes[2] += fr::one();
  r1cs::checking_cs bad;
  r1cs::synthesize_circuit(circuits::winning_post_circuit(params, broken), bad);
  EXPECT_EQ(bad.which_is_unsatisfied(), "outer namespace/sector_5/challenge_inclusion_0/enforce root is correct");
}

TEST(post_circuit, vanilla_proofs_that_do_not_fit_are_rejected) {
  const post_fixture& f = load_fixture();
  // a 32 GiB proof against the 64 GiB (8-8-2) shape
  EXPECT_THROW(
      circuits::window_post_circuit(circuits::window_post_params(std::uint64_t(64) << 30), std::span(&f.proof, 1)),
      std::invalid_argument);
  // the right shape but a 1-slot partition with two sector proofs
  auto params = window_params_two_slots();
  params.sector_count = 1;
  const std::array<io::fallback_post_sector_proof, 2> two{f.proof, f.proof};
  EXPECT_THROW(circuits::window_post_circuit(params, two), std::invalid_argument);
  // WinningPoSt needs 66 inclusion proofs
  EXPECT_THROW(circuits::winning_post_circuit(circuits::winning_post_params(gib32), f.proof), std::invalid_argument);
  EXPECT_THROW(circuits::tree_r_shape(12345), std::invalid_argument);
  EXPECT_EQ(circuits::parse_sector_size("32GiB"), gib32);
  EXPECT_EQ(circuits::parse_sector_size("2KiB"), 2048u);
  EXPECT_EQ(circuits::parse_sector_size("512MiB"), std::uint64_t(512) << 20);
  EXPECT_EQ(circuits::parse_sector_size("32G"), std::nullopt);
}

}  // namespace
