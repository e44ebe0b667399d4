// SPDX-License-Identifier: Apache-2.0
// The engine's CUDA backend (label gpu; every test skips without a device):
//  * the engine with make_gpu_backend proves the daemon tests' chain kind
//    (3 partitions) and each partition proof verifies with the .vk on disk;
//  * the backend's prover cache: a second circuit built at the very address
//    of the first (parameters and shape in reused std::optional storage) gets
//    its own prover, so its proof verifies under its own key, not the old one;
//  * a 2 KiB PoRep: porep_shape, generate_parameters, a generated C1, one GPU
//    proof per partition (gpu_prover) verified by verify_porep, and the same
//    proofs rejected against another generated C1.
// Cost on an H200 host (16 cores): chain ~2 s; 2 KiB PoRep ~1-2 min, nearly
// all of it the parameter setup of the 2.7 M-constraint circuit (the test
// prints its stage times).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "../daemon/daemon_test_support.hpp"
#include "common/test_seed.hpp"
#include "gpu_test_util.hpp"

#include <cuzk/circuits/porep_compound.hpp>
#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/groth16/prover_gpu.hpp>
#include <cuzk/io/porep_c1.hpp>

#if !defined(CUZK_ENGINE_HAVE_GPU)
#error "engine_gpu_test needs cuzk_engine built with the CUDA backend (CUZK_ENGINE_HAVE_GPU)"
#endif

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace eng = cuzk::engine;

double secs_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(engine_gpu, ChainKindProofsVerify) {
  CUZK_REQUIRE_GPU();
  const auto dir = test::make_param_cache(false);
  {
    eng::engine e(test::small_config(dir), eng::make_gpu_backend({}));
    e.register_kind(std::make_shared<test::chain_kind>());
    e.start();
    const auto st = e.status();
    EXPECT_EQ(st.backend, "cuda");
    ASSERT_FALSE(st.devices.empty());
    EXPECT_GT(st.devices[0].memory_total, 0u);
    const std::size_t parts = 3;
    for (int round = 0; round < 2; ++round) {  // the second round reuses the cached prover
      const auto id = e.submit(test::chain_request("gpu-chain-" + std::to_string(round), parts, 0)).job_id;
      const auto r = e.await(id, 120s);
      ASSERT_EQ(r.status, eng::await_status::completed) << r.error_message;
      ASSERT_EQ(r.proof.size(), parts * io::proof_size);
      for (std::size_t p = 0; p < parts; ++p) {
        const std::vector<std::uint8_t> one(r.proof.begin() + p * io::proof_size,
                                            r.proof.begin() + (p + 1) * io::proof_size);
        const auto x0 = test::chain_x0(p);
        EXPECT_TRUE(test::verify_with_vk(dir, "test-chain-64", one, {x0, test::chain_out(x0)})) << "partition " << p;
        // the proof of partition p does not verify for partition p+1's inputs
        const auto x1 = test::chain_x0(p + 1);
        EXPECT_FALSE(test::verify_with_vk(dir, "test-chain-64", one, {x1, test::chain_out(x1)}));
      }
    }
    EXPECT_EQ(e.status().completed, 2u);
  }
  std::filesystem::remove_all(dir);
}

// The chain circuit with |steps| steps, its witness for x0 and its public inputs.
struct chain_case {
  r1cs::r1cs_shape shape;
  groth16::witness w;
  std::vector<ff::fr> publics;
};

chain_case make_chain(std::size_t steps, const ff::fr& x0) {
  chain_case c;
  c.shape = r1cs::make_shape(r1cs::examples::chain_circuit{steps, std::nullopt});
  const auto cs = r1cs::make_witness(r1cs::examples::chain_circuit{steps, x0}, c.shape.num_inputs, c.shape.num_aux);
  c.w = {{cs.inputs().begin(), cs.inputs().end()}, {cs.aux().begin(), cs.aux().end()}};
  c.publics.assign(c.w.inputs.begin() + 1, c.w.inputs.end());
  return c;
}

TEST(engine_gpu, ReusedAddressGetsItsOwnProver) {
  CUZK_REQUIRE_GPU();
  auto backend = eng::make_gpu_backend({});
  std::optional<groth16::parameters> params;  // same storage address for both circuits
  std::optional<r1cs::r1cs_shape> shape;
  const ff::fr r = ff::fr::from_uint(12345), s = ff::fr::from_uint(67890);
  for (const std::size_t steps : {64u, 96u}) {
    auto c = make_chain(steps, ff::fr::from_uint(7 + steps));
    shape.emplace(std::move(c.shape));
    params.emplace(groth16::generate_parameters(*shape, 1000 + steps));
    const auto pvk = groth16::prepare_verifying_key(params->vk);
    auto pending = backend->prove_start(0, *params, *shape, std::move(c.w), r, s);
    const auto pi = backend->finalize(std::move(pending));
    EXPECT_TRUE(groth16::verify(pvk, pi, c.publics)) << steps << " steps";
    params.reset();
    shape.reset();
  }
}

TEST(engine_gpu, PoRep2KiBProofsVerify) {
  CUZK_REQUIRE_GPU();
  const io::seal_proof_info* info = io::find_seal_proof_by_size(2048);
  ASSERT_NE(info, nullptr);
  auto t0 = std::chrono::steady_clock::now();
  auto shape = std::make_shared<const r1cs::r1cs_shape>(circuits::porep_shape(*info));
  const double shape_s = secs_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto params = std::make_shared<const groth16::parameters>(groth16::generate_parameters(*shape, 2048));
  const double setup_s = secs_since(t0);
  const auto pvk = groth16::prepare_verifying_key(params->vk);
  const std::uint64_t seed = test::test_seed("engine_gpu.PoRep2KiBProofsVerify");
  const auto gen = circuits::generate_synthetic_porep(*info, seed);
  const auto other = circuits::generate_synthetic_porep(*info, seed + 1);

  t0 = std::chrono::steady_clock::now();
  groth16::gpu_prover prover(params, shape, {.device = 0});
  const double upload_s = secs_since(t0);
  std::mt19937_64 rng(seed);
  std::vector<groth16::proof> proofs;
  double witness_s = 0, gpu_s = 0;
  for (std::size_t k = 0; k < gen.c1.partitions.size(); ++k) {
    t0 = std::chrono::steady_clock::now();
    const auto w = circuits::porep_witness(gen.c1, k);
    witness_s += secs_since(t0);
    t0 = std::chrono::steady_clock::now();
    proofs.push_back(prover.prove(w, ff::fr::random(rng), ff::fr::random(rng)));
    gpu_s += secs_since(t0);
  }
  std::printf(
      "gpu prove 2KiB PoRep: %zu constraints, %zu partition(s); shape %.2f s, setup %.2f s, "
      "prover upload %.3f s (resident %d), witness %.3f s, GPU proof %.3f s (last prove_start %.1f ms; "
      "witness coded %d, %.2f MB, encode %.2f ms before the lock, upload %.2f ms)\n",
      shape->num_constraints, proofs.size(), shape_s, setup_s, upload_s, int(prover.queries_resident()), witness_s,
      gpu_s, prover.last_timings().total_ms, int(prover.last_timings().witness_coded),
      double(prover.last_timings().upload_bytes) / 1e6, prover.last_timings().encode_ms,
      prover.last_timings().upload_ms);
  EXPECT_TRUE(prover.last_timings().witness_coded) << "a PoRep witness is mostly 0 and 1";
  EXPECT_TRUE(circuits::verify_porep(pvk, gen.c1, proofs));
  EXPECT_FALSE(circuits::verify_porep(pvk, other.c1, proofs));
}

}  // namespace
