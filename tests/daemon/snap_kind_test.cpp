// SPDX-License-Identifier: Apache-2.0
// The SnapDeals proof kind (src/engine/snap_kind.cpp) without parameters:
// its circuits (ids snap-2k .. snap-64g, published file stems), a 2 KiB
// and an 8 MiB request from the synthetic generator parse into a job whose
// public inputs are the verifier's and whose partition-0 witness (2 KiB)
// has them as inputs; bad requests are refused at submit with
// INVALID_ARGUMENT naming the problem (registered proof, sector size,
// commitment length / encoding, partition count, bincode field, shapes).
// Proving through the daemon with test parameters is the long test
// snap_through_daemon (scripts/snap-roundtrip.sh).
#include <gtest/gtest.h>

#include <string>

#include <cuzk/circuits/empty_sector_update_compound.hpp>
#include <cuzk/circuits/empty_sector_update_generator.hpp>
#include <cuzk/engine/proof_kind.hpp>
#include <cuzk/io/snap_vanilla.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
namespace eng = cuzk::engine;

std::vector<std::uint8_t> raw(const ff::fr& x) {
  std::vector<std::uint8_t> b(32);
  x.to_bytes_le(b.data());
  return b;
}

eng::proof_request request_for(const circuits::synthetic_snap& s, std::uint64_t registered_proof) {
  eng::proof_request r;
  r.request_id = "snap-test";
  r.kind = eng::proof_kind::snap_deals_update;
  r.registered_proof = registered_proof;
  for (const io::snap_partition_proof& p : s.partitions) r.vanilla_proofs.push_back(io::write_snap_partition_proof(p));
  r.comm_r_old = raw(s.pub.comm_r_old);
  r.comm_r_new = raw(s.pub.comm_r_new);
  r.comm_d_new = raw(s.pub.comm_d_new);
  return r;
}

std::string parse_error(const eng::proof_kind_handler& h, const eng::proof_request& r) {
  try {
    (void)h.parse(r);
  } catch (const eng::invalid_request& e) {
    return e.what();
  }
  return "accepted";
}

TEST(snap_kind, CircuitsArePublishedNames) {
  const auto h = eng::make_snap_kind();
  EXPECT_EQ(h->kind(), eng::proof_kind::snap_deals_update);
  EXPECT_EQ(h->default_priority(), eng::priority::normal);
  const std::vector<eng::circuit_info> c = h->circuits();
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0].id, "snap-2k");
  EXPECT_EQ(c[3].id, "snap-32g");
  EXPECT_EQ(c[3].file_stem, circuits::snap_param_file_stem(32ull << 30));
  EXPECT_EQ(c[4].sector_size, 64ull << 30);
}

TEST(snap_kind, ParsesGeneratedRequests) {
  const std::uint64_t seed = test::test_seed("snap_kind.ParsesGeneratedRequests");
  const auto h = eng::make_snap_kind();
  for (const auto& [size, id] : {std::pair{2ull << 10, 0ull}, std::pair{8ull << 20, 1ull}}) {
    const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(size), seed);
    const auto job = h->parse(request_for(s, id));
    EXPECT_EQ(job->circuit_id(), size == (2ull << 10) ? "snap-2k" : "snap-8m");
    ASSERT_EQ(job->num_partitions(), s.params.partition_count);
    for (std::size_t k = 0; k < job->num_partitions(); ++k)
      EXPECT_EQ(job->public_inputs(k), circuits::snap_public_inputs(s.params, s.pub, k));
  }
  // 2 KiB: the witness of partition 0 carries the public inputs
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(2ull << 10), seed);
  const auto job = h->parse(request_for(s, 0));
  r1cs::r1cs_shape shape;
  shape.num_inputs = 5;
  const circuits::snap_circuit c = circuits::snap_circuit_from_partition(s.params, s.pub, 0, s.partitions[0]);
  const groth16::witness w = circuits::snap_witness(c);
  shape.num_aux = w.aux.size();
  const groth16::witness wj = job->synthesize(0, shape, eng::cancel_token(), {});
  ASSERT_EQ(wj.inputs.size(), 5u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(wj.inputs[i + 1], job->public_inputs(0)[i]);
}

// The kind writes its witness straight into the coded form when asked
// (engine: a backend that proves from it): the same values as synthesize,
// and nullopt past the bound.
TEST(snap_kind, SynthesizesTheCodedWitness) {
  const std::uint64_t seed = test::test_seed("snap_kind.SynthesizesTheCodedWitness");
  const auto h = eng::make_snap_kind();
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(2ull << 10), seed);
  const auto job = h->parse(request_for(s, 0));
  ASSERT_TRUE(job->synthesizes_coded());
  const circuits::snap_circuit c = circuits::snap_circuit_from_partition(s.params, s.pub, 0, s.partitions[0]);
  const groth16::witness w = circuits::snap_witness(c);
  r1cs::r1cs_shape shape;
  shape.num_inputs = w.inputs.size();
  shape.num_aux = w.aux.size();
  const groth16::witness wj = job->synthesize(0, shape, eng::cancel_token(), {});
  const groth16::coded_witness want = groth16::encode_witness(wj.inputs, wj.aux);
  const auto got = job->synthesize_coded(0, shape, eng::cancel_token(), want.others.size());
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->codes, want.codes);
  EXPECT_EQ(got->group_others, want.group_others);
  EXPECT_EQ(got->others, want.others);
  EXPECT_FALSE(job->synthesize_coded(0, shape, eng::cancel_token(), want.others.size() - 1).has_value());
  eng::cancel_token cancelled;
  cancelled.cancel();
  EXPECT_THROW((void)job->synthesize_coded(0, shape, cancelled, want.size), eng::cancelled_error);
}

TEST(snap_kind, BadRequestsNameTheProblem) {
  const std::uint64_t seed = test::test_seed("snap_kind.BadRequestsNameTheProblem");
  const auto h = eng::make_snap_kind();
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(circuits::snap_params_for(2ull << 10), seed);
  const eng::proof_request good = request_for(s, 0);
  const auto expect = [&](eng::proof_request r, const std::string& needle) {
    const std::string e = parse_error(*h, r);
    EXPECT_NE(e.find(needle), std::string::npos) << "'" << e << "' lacks '" << needle << "'";
  };
  eng::proof_request r = good;
  r.registered_proof = 7;
  expect(r, "registered update proof 7");
  r = good;
  r.sector_size = 8ull << 20;
  expect(r, "sector_size 8388608");
  r = good;
  r.comm_r_old.pop_back();
  expect(r, "comm_r_old has 31 bytes");
  r = good;
  r.comm_d_new.assign(32, 0xff);
  expect(r, "comm_d_new is not a canonical");
  r = good;
  r.vanilla_proofs.push_back(r.vanilla_proofs[0]);
  expect(r, "vanilla_proofs holds 2 partition proofs");
  r = good;
  r.vanilla_proofs[0].resize(100);
  expect(r, "vanilla_proofs[0]");
  r = good;
  r.registered_proof = 1;  // 8 MiB: 4 partitions
  expect(r, "a 8m update has 4");
  // a partition proof whose tree R paths are too short for the size
  io::snap_partition_proof p = s.partitions[0];
  p.challenge_proofs[2].proof_r_new.base.pop_back();
  r = good;
  r.vanilla_proofs[0] = io::write_snap_partition_proof(p);
  expect(r, "challenge 2: proof_r_new");
  EXPECT_NE(parse_error(*h, good).find("accepted"), std::string::npos);
}

}  // namespace
