// SPDX-License-Identifier: Apache-2.0
// GPU parameter setup (setup_gpu.hpp) against the CPU setup:
//  - download_parameters(generate_parameters_gpu(shape, t)) ==
//    generate_parameters(shape, t) byte for byte on the cubic and chain
//    examples, a random shape with input-B and aux density gaps and a long
//    column, and a chain of 2^17 - 1 constraints (> 2^16); a mismatch names
//    the query and its first differing index;
//  - a proof made with the downloaded parameters verifies (and a wrong input
//    does not);
//  - an unconstrained aux variable throws std::invalid_argument;
//  - device_bytes, the timings and the planned peak are consistent.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <cuzk/groth16/setup_gpu.hpp>
#include <cuzk/groth16/prover.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "common/random_shape.hpp"
#include "common/test_seed.hpp"
#include "gpu/gpu_test_util.hpp"

namespace {

using namespace cuzk;
using ff::fr;
using r1cs::examples::chain_circuit;

template <class T>
void expect_query(const char* name, const std::vector<T>& got, const std::vector<T>& want) {
  EXPECT_EQ(got.size(), want.size()) << name << ": size";
  const std::size_t i = test::first_mismatch(got, want);
  EXPECT_EQ(i, std::min(got.size(), want.size())) << name << ": first mismatch at index " << i << " of " << want.size();
}

void expect_same_parameters(const groth16::parameters& got, const groth16::parameters& want) {
  EXPECT_TRUE(got.vk.alpha_g1 == want.vk.alpha_g1) << "vk.alpha_g1";
  EXPECT_TRUE(got.vk.beta_g1 == want.vk.beta_g1) << "vk.beta_g1";
  EXPECT_TRUE(got.vk.beta_g2 == want.vk.beta_g2) << "vk.beta_g2";
  EXPECT_TRUE(got.vk.gamma_g2 == want.vk.gamma_g2) << "vk.gamma_g2";
  EXPECT_TRUE(got.vk.delta_g1 == want.vk.delta_g1) << "vk.delta_g1";
  EXPECT_TRUE(got.vk.delta_g2 == want.vk.delta_g2) << "vk.delta_g2";
  expect_query("vk.ic", got.vk.ic, want.vk.ic);
  expect_query("h", got.h, want.h);
  expect_query("l", got.l, want.l);
  expect_query("a", got.a, want.a);
  expect_query("b_g1", got.b_g1, want.b_g1);
  expect_query("b_g2", got.b_g2, want.b_g2);
  EXPECT_TRUE(got == want);
}

void check_shape(const r1cs::r1cs_shape& s, const groth16::toxic_waste& t, const char* what) {
  SCOPED_TRACE(what);
  groth16::gpu_setup_timings tm;
  const auto gp = groth16::generate_parameters_gpu(s, t, {.device = 0}, &tm);
  const auto got = groth16::download_parameters(gp);
  const auto want = groth16::generate_parameters(s, t);
  expect_same_parameters(got, want);
  const std::size_t want_bytes =
      96 * (want.h.size() + want.l.size() + want.a.size() + want.b_g1.size()) + 192 * want.b_g2.size();
  EXPECT_EQ(groth16::device_bytes(gp), want_bytes);
  EXPECT_EQ(tm.planned_peak_bytes, groth16::gpu_setup_peak_bytes(s));
  EXPECT_GE(tm.planned_peak_bytes, want_bytes);
  EXPECT_GT(tm.total_ms, 0.0);
  std::printf(
      "gpu setup %s (%zu constraints): total %.1f ms (lagrange %.1f, uvw %.1f, H %.1f, "
      "L %.1f, A %.1f, B1 %.1f, B2 %.1f, vk %.1f), queries %.1f MB, planned peak %.1f MB\n",
      what, s.num_constraints, tm.total_ms, tm.lagrange_ms, tm.uvw_ms, tm.h_ms, tm.l_ms, tm.a_ms, tm.b_g1_ms,
      tm.b_g2_ms, tm.vk_ms, double(want_bytes) / 1e6, double(tm.planned_peak_bytes) / 1e6);
}

TEST(gpu_setup, MatchesCpuSetupOnSmallShapes) {
  CUZK_REQUIRE_GPU();
  const std::uint64_t seed = test::test_seed("gpu_setup.MatchesCpuSetupOnSmallShapes");
  const auto t = groth16::toxic_waste_from_seed(seed);
  check_shape(r1cs::make_shape(r1cs::examples::cubic_circuit{}), t, "cubic");
  check_shape(r1cs::make_shape(chain_circuit{100, std::nullopt}), t, "chain 100");
  // inputs absent from B, aux absent from A / B, a column of 2000 non-zeros
  const auto rs = test::random_shape(seed, 70, 1500, 2000);
  ASSERT_LT(rs.b_input_density.count(), rs.num_inputs);
  ASSERT_LT(rs.a_aux_density.count(), rs.num_aux);
  ASSERT_LT(rs.b_aux_density.count(), rs.num_aux);
  check_shape(rs, t, "random 70 inputs");
}

constexpr std::size_t big_steps = ((std::size_t(1) << 17) - 5) / 2;  // 2^17 - 1 constraints

const r1cs::r1cs_shape& big_shape() {
  static const r1cs::r1cs_shape s = r1cs::make_shape(chain_circuit{big_steps, std::nullopt});
  return s;
}

TEST(gpu_setup, MatchesCpuSetupAbove2To16AndProves) {
  CUZK_REQUIRE_GPU();
  ASSERT_GT(big_shape().num_constraints, std::size_t(1) << 16);
  const std::uint64_t seed = test::test_seed("gpu_setup.MatchesCpuSetupAbove2To16AndProves");
  const auto t = groth16::toxic_waste_from_seed(seed);
  groth16::gpu_setup_timings tm;
  const auto gp = groth16::generate_parameters_gpu(big_shape(), t, {.device = 0}, &tm);
  const auto got = groth16::download_parameters(gp);
  const auto want = groth16::generate_parameters(big_shape(), t);
  expect_same_parameters(got, want);
  std::printf(
      "gpu setup 2^17: total %.1f ms (lagrange %.1f, uvw %.1f, H %.1f, L %.1f, A %.1f, "
      "B1 %.1f, B2 %.1f, vk %.1f)\n",
      tm.total_ms, tm.lagrange_ms, tm.uvw_ms, tm.h_ms, tm.l_ms, tm.a_ms, tm.b_g1_ms, tm.b_g2_ms, tm.vk_ms);

  // a proof with the downloaded parameters verifies
  auto cs = r1cs::make_witness(chain_circuit{big_steps, fr::from_uint(9)}, big_shape().num_inputs, big_shape().num_aux);
  const groth16::witness w{{cs.inputs().begin(), cs.inputs().end()}, {cs.aux().begin(), cs.aux().end()}};
  std::mt19937_64 rng(seed + 1);
  const groth16::proof pr = groth16::prove(got, big_shape(), w, fr::random(rng), fr::random(rng));
  const auto pvk = groth16::prepare_verifying_key(got.vk);
  std::vector<fr> x(w.inputs.begin() + 1, w.inputs.end());
  EXPECT_TRUE(groth16::verify(pvk, pr, x));
  x[0] += fr::one();
  EXPECT_FALSE(groth16::verify(pvk, pr, x));
}

/// x * 0 = 0 with a second aux variable that no constraint uses.
struct unused_aux_circuit {
  template <r1cs::constraint_system CS>
  void synthesize(CS& cs) const {
    const r1cs::variable x = cs.alloc("x", [] { return fr::one(); });
    cs.alloc("unused", [] { return fr::one(); });
    cs.enforce(
        "k", [&](r1cs::linear_combination lc) { return lc + x; }, [](r1cs::linear_combination lc) { return lc; },
        [](r1cs::linear_combination lc) { return lc; });
  }
};

// The check comes before any CUDA call, so this runs without a device too.
TEST(gpu_setup, UnconstrainedAuxThrows) {
  const auto s = r1cs::make_shape(unused_aux_circuit{});
  ASSERT_TRUE(s.first_unconstrained_aux().has_value());
  const auto t = groth16::toxic_waste_from_seed(1);
  EXPECT_THROW(groth16::generate_parameters_gpu(s, t), std::invalid_argument);
  EXPECT_THROW(groth16::generate_parameters(s, t), std::invalid_argument);
}

}  // namespace
