// SPDX-License-Identifier: Apache-2.0
// SnapDeals vanilla proofs, quick tests: the synthetic generator's partition
// proofs pass the native vanilla verifier (2 KiB, 8 MiB, 32 GiB, 64 GiB: first
// and last partition; the Poseidon variant at 8 MiB), round-trip through bincode byte for byte, and at 2 KiB
// (and one 8 MiB partition) satisfy the circuit in a checking constraint system (satisfaction_cs)
// with public inputs equal to the witness's; corrupted proofs and public
// values are rejected by both the checker and the circuit, naming the
// failing place; malformed bincode is an io::format_error naming the field
// and offset. One 8 MiB partition and the 8 MiB Poseidon variant (with a
// corruption) satisfy the circuit too; the 8 MiB corruption and 32 GiB
// circuit runs are in
// tests/unit_long/snap_long_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <cuzk/circuits/empty_sector_update_compound.hpp>
#include <cuzk/circuits/empty_sector_update_generator.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/io/snap_vanilla.hpp>
#include <cuzk/r1cs/satisfaction_cs.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using circuits::snap_variant;
using ff::fr;

bool has_problem(const std::vector<std::string>& problems, const std::string& needle) {
  for (const std::string& p : problems)
    if (p.find(needle) != std::string::npos) return true;
  return false;
}

// Runs partition |k| of |s| through the satisfaction CS.
r1cs::satisfaction_cs run_circuit(const circuits::synthetic_snap& s, std::size_t k,
                                  const io::snap_partition_proof& proof, const circuits::snap_public& pub) {
  r1cs::satisfaction_cs cs;
  r1cs::synthesize_circuit(circuits::snap_circuit_from_partition(s.params, pub, k, proof), cs);
  return cs;
}

TEST(snap_vanilla, GeneratedProofsVerifyAtEverySize) {
  const std::uint64_t seed = test::test_seed("snap_vanilla.GeneratedProofsVerifyAtEverySize");
  for (std::uint64_t size : {2ull << 10, 8ull << 20, 32ull << 30, 64ull << 30}) {
    const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(size), seed);
    ASSERT_EQ(s.partitions.size(), s.params.partition_count);
    for (std::size_t k = 0; k < s.partitions.size(); k += std::max<std::size_t>(1, s.partitions.size() - 1)) {
      const std::vector<std::string> problems = circuits::check_snap_partition(s.params, s.pub, k, s.partitions[k]);
      EXPECT_TRUE(problems.empty()) << size << " k " << k << ": " << problems.front();
    }
  }
  const circuits::synthetic_snap p =
      circuits::generate_synthetic_snap(circuits::snap_params_for(8ull << 20, snap_variant::poseidon), seed);
  ASSERT_EQ(p.partitions.size(), 1u);
  EXPECT_EQ(p.partitions[0].challenge_proofs.size(), 40u);
  EXPECT_TRUE(circuits::check_snap_partition(p.params, p.pub, 0, p.partitions[0]).empty());
}

TEST(snap_vanilla, BincodeRoundTrip) {
  const std::uint64_t seed = test::test_seed("snap_vanilla.BincodeRoundTrip");
  for (std::uint64_t size : {2ull << 10, 64ull << 30}) {  // Single and Top Merkle proofs
    const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(size), seed);
    const std::vector<std::uint8_t> bytes = io::write_snap_partition_proof(s.partitions[0]);
    EXPECT_EQ(io::read_snap_partition_proof(bytes), s.partitions[0]);
    EXPECT_EQ(io::write_snap_partition_proof(io::read_snap_partition_proof(bytes)), bytes);
  }
  // 2 KiB layout: comm_c, 8 apex leaves, 10 x (R old Single 2 levels of 7,
  // D Single 6 levels of 1, R new Single).
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(2ull << 10), seed);
  const std::size_t r_proof = 4 + 64 + 8 + 2 * (8 + 7 * 32 + 8);
  const std::size_t d_proof = 4 + 64 + 8 + 6 * (8 + 32 + 8);
  EXPECT_EQ(io::write_snap_partition_proof(s.partitions[0]).size(), 32 + 8 + 8 * 32 + 8 + 10 * (2 * r_proof + d_proof));
}

TEST(snap_vanilla, BincodeErrorsNameTheField) {
  const std::uint64_t seed = test::test_seed("snap_vanilla.BincodeErrorsNameTheField");
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(2ull << 10), seed);
  const std::vector<std::uint8_t> good = io::write_snap_partition_proof(s.partitions[0]);
  const auto error_of = [](const std::vector<std::uint8_t>& b) -> std::string {
    try {
      (void)io::read_snap_partition_proof(b, "vanilla_proofs[0]");
    } catch (const io::format_error& e) {
      EXPECT_EQ(e.kind(), "snap partition proof");
      return e.what();
    }
    return "no error";
  };
  {  // truncated inside the last challenge
    std::vector<std::uint8_t> b(good.begin(), good.end() - 5);
    const std::string e = error_of(b);
    EXPECT_NE(e.find("challenge_proofs[9].proof_r_new"), std::string::npos) << e;
    EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  }
  {  // bad ProofData tag of challenge 0's proof_r_old (after comm_c, apex leaves, the Vec length)
    std::vector<std::uint8_t> b = good;
    b[32 + 8 + 8 * 32 + 8] = 7;
    const std::string e = error_of(b);
    EXPECT_NE(e.find("challenge_proofs[0].proof_r_old.data"), std::string::npos) << e;
    EXPECT_NE(e.find("unknown ProofData variant tag 7"), std::string::npos) << e;
  }
  {  // non-canonical apex leaf
    std::vector<std::uint8_t> b = good;
    for (std::size_t i = 0; i < 32; ++i) b[32 + 8 + 3 * 32 + i] = 0xff;
    const std::string e = error_of(b);
    EXPECT_NE(e.find("apex_leafs[3]"), std::string::npos) << e;
    EXPECT_NE(e.find("canonical"), std::string::npos) << e;
  }
  {  // absurd Vec length
    std::vector<std::uint8_t> b = good;
    b[32 + 7] = 0x10;
    EXPECT_NE(error_of(b).find("apex_leafs"), std::string::npos);
  }
  {  // trailing bytes
    std::vector<std::uint8_t> b = good;
    b.push_back(0);
    EXPECT_NE(error_of(b).find("trailing"), std::string::npos);
  }
}

TEST(snap_vanilla, Generated2KiBSatisfiesTheCircuit) {
  const std::uint64_t seed = test::test_seed("snap_vanilla.Generated2KiBSatisfiesTheCircuit");
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(2ull << 10), seed);
  const r1cs::satisfaction_cs cs = run_circuit(s, 0, s.partitions[0], s.pub);
  EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
  EXPECT_EQ(cs.num_constraints(), 1'705'039u);
  const std::vector<fr> pub = circuits::snap_public_inputs(s.params, s.pub, 0);
  ASSERT_EQ(cs.num_inputs(), pub.size() + 1);
  for (std::size_t i = 0; i < pub.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], pub[i]) << "input " << i + 1;
  EXPECT_EQ(pub[0], fr::from_uint(1));  // k = 0, h = 1 -> h_select = 1
}

// One 8 MiB partition (~10 M constraints; ~10-30 s on the dev host): the
// generator's apex leaves, partition path and tree shapes at 4 partitions.
TEST(snap_vanilla, Generated8MiBSatisfiesTheCircuit) {
  const std::uint64_t seed = test::test_seed("snap_vanilla.Generated8MiBSatisfiesTheCircuit");
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(8ull << 20), seed);
  const r1cs::satisfaction_cs cs = run_circuit(s, 3, s.partitions[3], s.pub);
  EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
  const std::vector<fr> pub = circuits::snap_public_inputs(s.params, s.pub, 3);
  ASSERT_EQ(cs.num_inputs(), pub.size() + 1);
  for (std::size_t i = 0; i < pub.size(); ++i) EXPECT_EQ(cs.inputs()[i + 1], pub[i]) << "input " << i + 1;
  EXPECT_EQ(pub[0], fr::from_uint(3 | (8 << 2)));  // k = 3, h = 10 -> h_select = 2^3
}

// The Poseidon variant at 8 MiB (one partition of 40 challenges, 395 K
// constraints): accepted; a tree R new sibling corrupted is rejected there.
TEST(snap_vanilla, GeneratedPoseidon8MiBSatisfiesTheCircuit) {
  const std::uint64_t seed = test::test_seed("snap_vanilla.GeneratedPoseidon8MiBSatisfiesTheCircuit");
  const circuits::synthetic_snap s =
      circuits::generate_synthetic_snap(circuits::snap_params_for(8ull << 20, snap_variant::poseidon), seed);
  const r1cs::satisfaction_cs cs = run_circuit(s, 0, s.partitions[0], s.pub);
  EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
  EXPECT_EQ(cs.inputs()[1], fr::from_uint(8));  // h_select for h = 10
  io::snap_partition_proof bad = s.partitions[0];
  bad.challenge_proofs[17].proof_r_new.base[2].hashes[3] += fr::one();
  const r1cs::satisfaction_cs cs2 = run_circuit(s, 0, bad, s.pub);
  ASSERT_FALSE(cs2.is_satisfied());
  EXPECT_NE(cs2.which_is_unsatisfied()->find("por tree_r_new (c_index=17)"), std::string::npos)
      << *cs2.which_is_unsatisfied();
}

TEST(snap_vanilla, CorruptionsAreRejected) {
  const std::uint64_t seed = test::test_seed("snap_vanilla.CorruptionsAreRejected");
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(2ull << 10), seed);
  const auto expect_rejected = [&](const io::snap_partition_proof& proof, const circuits::snap_public& pub,
                                   const std::string& checker_says, const std::string& circuit_path) {
    const std::vector<std::string> problems = circuits::check_snap_partition(s.params, pub, 0, proof);
    EXPECT_TRUE(has_problem(problems, checker_says)) << (problems.empty() ? "no problem" : problems.front());
    const r1cs::satisfaction_cs cs = run_circuit(s, 0, proof, pub);
    ASSERT_FALSE(cs.is_satisfied()) << circuit_path;
    EXPECT_NE(cs.which_is_unsatisfied()->find(circuit_path), std::string::npos) << *cs.which_is_unsatisfied();
  };
  {  // an apex leaf
    io::snap_partition_proof p = s.partitions[0];
    p.apex_leafs[5] += fr::one();
    expect_rejected(p, s.pub, "apex", "apex_gadget/partition-tree por");
  }
  {  // the data leaf of challenge 3 (the encoding no longer matches either)
    io::snap_partition_proof p = s.partitions[0];
    p.challenge_proofs[3].proof_d_new.leaf += fr::one();
    expect_rejected(p, s.pub, "challenge 3", "c_index=3");
  }
  {  // a tree R old sibling of challenge 7
    io::snap_partition_proof p = s.partitions[0];
    p.challenge_proofs[7].proof_r_old.base[1].hashes[2] += fr::one();
    expect_rejected(p, s.pub, "proof_r_old", "por tree_r_old (c_index=7)");
  }
  {  // comm_c
    io::snap_partition_proof p = s.partitions[0];
    p.comm_c += fr::one();
    expect_rejected(p, s.pub, "comm_r_old != H(comm_c, root_r_old)", "enforce comm_r_old_calc == comm_r_old");
  }
  {  // another comm_r_new: other challenges, other roots
    circuits::snap_public pub = s.pub;
    pub.comm_r_new += fr::one();
    expect_rejected(s.partitions[0], pub, "comm_r_new", "enforce comm_r_new_calc == comm_r_new");
  }
  {  // another comm_d_new: the apex tree no longer leads to it
    circuits::snap_public pub = s.pub;
    pub.comm_d_new += fr::one();
    expect_rejected(s.partitions[0], pub, "proof_d_new", "apex_gadget/partition-tree por");
  }
  {  // a proof opened at another leaf than its challenge: swapped with the
     // first later one that opens a different leaf (two challenges of a
     // 2 KiB sector's 64 leaves can be the same leaf)
    io::snap_partition_proof p = s.partitions[0];
    std::size_t other = 2;
    while (other + 1 < p.challenge_proofs.size() &&
           p.challenge_proofs[other].proof_d_new.leaf_index() == p.challenge_proofs[1].proof_d_new.leaf_index())
      ++other;
    ASSERT_NE(p.challenge_proofs[other].proof_d_new.leaf_index(), p.challenge_proofs[1].proof_d_new.leaf_index());
    std::swap(p.challenge_proofs[1], p.challenge_proofs[other]);
    const std::vector<std::string> problems = circuits::check_snap_partition(s.params, s.pub, 0, p);
    EXPECT_TRUE(has_problem(problems, "opens leaf")) << (problems.empty() ? "none" : problems.front());
  }
  // conversion errors name the place
  io::snap_partition_proof p = s.partitions[0];
  p.challenge_proofs[4].proof_r_new.base.pop_back();
  try {
    (void)circuits::snap_circuit_from_partition(s.params, s.pub, 0, p);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("challenge 4: proof_r_new"), std::string::npos) << e.what();
  }
  p = s.partitions[0];
  p.challenge_proofs.pop_back();
  EXPECT_THROW((void)circuits::snap_circuit_from_partition(s.params, s.pub, 0, p), std::invalid_argument);
}

TEST(snap_vanilla, ParamFileStemsArePublished) {
  // rust-fil-proofs parameters.json
  EXPECT_EQ(circuits::snap_param_file_stem(2ull << 10),
            "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
            "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194");
  EXPECT_EQ(circuits::snap_param_file_stem(8ull << 20),
            "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
            "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63");
  EXPECT_EQ(circuits::snap_param_file_stem(512ull << 20),
            "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
            "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c");
  EXPECT_EQ(circuits::snap_param_file_stem(32ull << 30),
            "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
            "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18");
  EXPECT_EQ(circuits::snap_param_file_stem(64ull << 30, snap_variant::poseidon),
            "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-"
            "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7");
  EXPECT_EQ(circuits::snap_sector_size_for_registered_proof(3), 32ull << 30);
  EXPECT_THROW(circuits::snap_sector_size_for_registered_proof(5), std::invalid_argument);
}

}  // namespace

namespace {

// Found by fuzz_snap_vanilla: a number literal beyond a double's range made
// nlohmann throw out_of_range, which escaped the readers as a non-format
// error. The same holds for the other JSON readers (.meta here).
TEST(json_readers, NumberLiteralOutOfRangeIsAFormatError) {
  EXPECT_THROW(io::parse_snap_vanilla_json("[\n9999e99999]", "huge"), io::format_error);
  const auto meta = std::filesystem::temp_directory_path() / "cuzk-huge-number.meta";
  { std::ofstream(meta) << "{\"sector_size\": 9999e99999}"; }
  EXPECT_THROW(io::read_meta(meta), io::format_error);
  std::filesystem::remove(meta);
}

}  // namespace
