// SPDX-License-Identifier: Apache-2.0
// Pooled witness buffers (src/engine/witness_pool.hpp) never leak a value
// of an earlier partition: for every proof kind (PoRep C2, WinningPoSt,
// SnapDeals, all at 2 KiB, and the chain test kind) the witness of request
// A synthesized into a buffer still holding request B's witness, and into
// one filled with a marker value, equals A's fresh witness byte for byte,
// and lives in the buffer it was given (so the reuse really happens). The
// chain kind's proofs with fixed r, s are byte-identical too. Through the
// engine, a batch reuses pooled buffers, its proofs verify with the .vk,
// and the pool's idle buffers are charged to the budget until the engine
// goes idle and lets them go.
#include <gtest/gtest.h>

#include <cstring>

#include <cuzk/circuits/empty_sector_update_compound.hpp>
#include <cuzk/circuits/empty_sector_update_generator.hpp>
#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/circuits/stacked_porep_witness.hpp>
#include <cuzk/io/porep_c1.hpp>
#include <cuzk/io/snap_vanilla.hpp>

#include "common/test_seed.hpp"
#include "daemon_test_support.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;

bool same_bytes(const groth16::witness& a, const groth16::witness& b) {
  return a.inputs.size() == b.inputs.size() && a.aux.size() == b.aux.size() &&
         std::memcmp(a.inputs.data(), b.inputs.data(), a.inputs.size() * sizeof(ff::fr)) == 0 &&
         std::memcmp(a.aux.data(), b.aux.data(), a.aux.size() * sizeof(ff::fr)) == 0;
}

groth16::witness marker_filled(const groth16::witness& like) {
  const ff::fr m = ff::fr::from_uint(0xdeadbeef);
  return {std::vector<ff::fr>(like.inputs.size(), m), std::vector<ff::fr>(like.aux.size(), m)};
}

// A's witness into B's values and into the marker, against A fresh.
void expect_reuse_is_exact(const eng::circuit_job& a, const eng::circuit_job& b, const r1cs::r1cs_shape& shape,
                           std::size_t pa = 0, std::size_t pb = 0) {
  const eng::cancel_token tok;
  const groth16::witness fresh_a = a.synthesize(pa, shape, tok, {});
  const groth16::witness fresh_b = b.synthesize(pb, shape, tok, {});
  ASSERT_FALSE(same_bytes(fresh_a, fresh_b)) << "the two requests must differ for the test to mean anything";
  for (groth16::witness stale : {fresh_b, marker_filled(fresh_a)}) {
    const ff::fr* aux_storage = stale.aux.data();
    const groth16::witness reused = a.synthesize(pa, shape, tok, std::move(stale));
    EXPECT_TRUE(same_bytes(reused, fresh_a)) << a.circuit_id() << ": a stale value leaked into the witness";
    EXPECT_EQ(reused.aux.data(), aux_storage) << a.circuit_id() << ": the buffer was not reused";
  }
}

r1cs::r1cs_shape sizes_of(const groth16::witness& w) {
  r1cs::r1cs_shape s;
  s.num_inputs = w.inputs.size();
  s.num_aux = w.aux.size();
  return s;
}

TEST(witness_reuse, porep_2k_reused_buffer_equals_fresh) {
  const io::seal_proof_info& info = *io::find_seal_proof("StackedDrg2KiBV1_1");
  const std::uint64_t seed = test::test_seed("witness_reuse.porep");
  const auto h = eng::make_porep_kind();
  std::vector<std::unique_ptr<eng::circuit_job>> jobs;
  for (std::uint64_t s : {seed, seed + 1}) {
    const std::string json = io::write_c1_json(circuits::generate_synthetic_porep(info, s).c1);
    eng::proof_request r;
    r.kind = eng::proof_kind::porep_seal_commit;
    r.vanilla_proof.assign(json.begin(), json.end());
    jobs.push_back(h->parse(r));
  }
  const circuits::stacked_witness_layout l =
      circuits::stacked_witness_layout_for(circuits::stacked_porep_params_for(info));
  r1cs::r1cs_shape shape;
  shape.num_inputs = l.num_inputs();
  shape.num_aux = l.num_aux();
  expect_reuse_is_exact(*jobs[0], *jobs[1], shape);
}

TEST(witness_reuse, winning_post_2k_reused_buffer_equals_fresh) {
  std::mt19937_64 rng(test::test_seed("witness_reuse.post"));
  const auto h = eng::make_winning_post_kind();
  const auto a = h->parse(test::winning_case(rng, "a").req);
  const auto b = h->parse(test::winning_case(rng, "b").req);
  r1cs::r1cs_shape shape;
  for (const eng::circuit_info& c : h->circuits())
    if (c.id == a->circuit_id()) shape = c.make_shape();
  ASSERT_GT(shape.num_aux, 0u);
  expect_reuse_is_exact(*a, *b, shape);
}

TEST(witness_reuse, snap_2k_reused_buffer_equals_fresh) {
  const std::uint64_t seed = test::test_seed("witness_reuse.snap");
  const auto h = eng::make_snap_kind();
  const auto params = circuits::snap_params_for(2ull << 10);
  std::vector<std::unique_ptr<eng::circuit_job>> jobs;
  r1cs::r1cs_shape shape;
  for (std::uint64_t s : {seed, seed + 1}) {
    const circuits::synthetic_snap g = circuits::generate_synthetic_snap(params, s);
    eng::proof_request r;
    r.kind = eng::proof_kind::snap_deals_update;
    for (const io::snap_partition_proof& p : g.partitions)
      r.vanilla_proofs.push_back(io::write_snap_partition_proof(p));
    for (auto [dst, x] : {std::pair{&r.comm_r_old, g.pub.comm_r_old}, std::pair{&r.comm_r_new, g.pub.comm_r_new},
                          std::pair{&r.comm_d_new, g.pub.comm_d_new}}) {
      dst->resize(32);
      x.to_bytes_le(dst->data());
    }
    jobs.push_back(h->parse(r));
    shape = sizes_of(circuits::snap_witness(circuits::snap_circuit_from_partition(params, g.pub, 0, g.partitions[0])));
  }
  expect_reuse_is_exact(*jobs[0], *jobs[1], shape);
}

TEST(witness_reuse, chain_reused_buffer_gives_the_same_proof_for_the_same_r_s) {
  const std::filesystem::path dir = test::make_param_cache(false);
  const auto params = io::read_parameters(dir / "test-chain-64.params");
  std::filesystem::remove_all(dir);
  const r1cs::r1cs_shape shape = test::chain_kind().circuits()[0].make_shape();
  const test::chain_job job(2, 0);
  const eng::cancel_token tok;
  const groth16::witness fresh = job.synthesize(0, shape, tok, {});
  const groth16::witness other = job.synthesize(1, shape, tok, {});
  const groth16::witness reused = job.synthesize(0, shape, tok, other);
  ASSERT_TRUE(same_bytes(fresh, reused));
  const ff::fr r = ff::fr::from_uint(12345), s = ff::fr::from_uint(67890);
  EXPECT_EQ(io::write_proof(groth16::prove(params, shape, fresh, r, s)),
            io::write_proof(groth16::prove(params, shape, reused, r, s)));
  expect_reuse_is_exact(job, job, shape, 0, 1);
}

TEST(witness_reuse, engine_reuses_pooled_buffers_within_the_budget_and_frees_them_when_idle) {
  const std::filesystem::path dir = test::make_param_cache(false);
  eng::engine_config cfg = test::small_config(dir);
  eng::engine e(cfg, eng::make_cpu_backend(1));
  e.register_kind(std::make_shared<test::chain_kind>());
  e.start();
  const auto r = e.await(e.submit(test::chain_request("pooled", 8, 0)).job_id, 60s);
  ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
  std::uint64_t srs = 0;
  for (const auto& s : e.srs().status())
    if (s.circuit_id == "test-chain") srs = s.size_bytes + s.shape_bytes;
  // finished (the idle trim comes a second later): the idle buffers are charged
  const std::uint64_t used = e.budget().used();
  const eng::engine_status st = e.status();
  EXPECT_GT(st.witness_pool_reused, 0u);
  EXPECT_GT(st.witness_pool_idle, 0u);
  EXPECT_EQ(used, srs + st.witness_pool_bytes);
  // each partition's proof verifies independently of the engine
  for (std::size_t p = 0; p < 8; ++p) {
    const std::vector<std::uint8_t> proof(r.proof.begin() + p * io::proof_size,
                                          r.proof.begin() + (p + 1) * io::proof_size);
    EXPECT_TRUE(
        test::verify_with_vk(dir, "test-chain-64", proof, {test::chain_x0(p), test::chain_out(test::chain_x0(p))}))
        << "partition " << p;
  }
  // idle: the pool lets its buffers go and only the hot SRS stays charged
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (e.status().witness_pool_idle > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(20ms);
  EXPECT_EQ(e.status().witness_pool_idle, 0u);
  EXPECT_EQ(e.budget().used(), srs);
  e.shutdown(0ms);
  std::filesystem::remove_all(dir);
}

}  // namespace
