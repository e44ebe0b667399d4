// SPDX-License-Identifier: Apache-2.0
// The host half of the GPU parameter setup (setup_plan_gpu.hpp), runnable
// without a GPU: the split power tables against sequential powers, the
// counting-sort transpose and column sums against a row-wise accumulation
// (long column included), the unified query densities against the CPU
// setup's push_back order, the whole host scalar pipeline turned into points
// against groth16::generate_parameters byte for byte, the memory plan, and
// the batched XYZZ -> affine conversion the fixed-base kernels run
// (ec/detail/batch_affine.hpp) against xyzz::to_affine, infinity included.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <cuzk/ec/detail/batch_affine.hpp>
#include <cuzk/ec/fixed_base.hpp>
#include <cuzk/ec/xyzz.hpp>
#include <cuzk/groth16/setup_plan_gpu.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "common/random_shape.hpp"
#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::groth16::gpu_setup_detail;
using ff::fr;

std::vector<fr> row_accumulation(const r1cs::r1cs_shape& s, const r1cs::csr_matrix& m, const std::vector<fr>& lag) {
  std::vector<fr> acc(s.num_variables(), fr::zero());
  for (std::size_t row = 0; row < m.rows(); ++row)
    for (const auto& [col, cf] : s.row(m, row)) acc[col] += cf * lag[row];
  return acc;
}

TEST(gpu_setup_plan, PowerTablesMatchSequentialPowers) {
  std::mt19937_64 rng(test::test_seed("gpu_setup_plan.PowerTablesMatchSequentialPowers"));
  const fr tau = fr::random(rng), scale = fr::random(rng);
  const std::vector<fr> t = make_power_tables(tau);
  ASSERT_EQ(t.size(), 3 * power_split_size);
  std::vector<fr> got(5000);
  powers_host(t, scale, got);
  fr p = scale;
  for (std::size_t i = 0; i < got.size(); ++i, p *= tau) ASSERT_EQ(got[i], p) << "i = " << i;
  for (std::uint64_t i :
       {std::uint64_t(4095), std::uint64_t(4096), std::uint64_t(1) << 24, (std::uint64_t(1) << 24) - 1,
        (std::uint64_t(1) << 27) - 2, (std::uint64_t(1) << 24) + 4097, power_limit - 1, rng() % power_limit})
    EXPECT_EQ(power_from_tables(t, i), tau.pow(i)) << "i = " << i;
  EXPECT_THROW(power_from_tables(t, power_limit), std::invalid_argument);
}

TEST(gpu_setup_plan, TransposeSumsEqualRowAccumulation) {
  const std::uint64_t seed = test::test_seed("gpu_setup_plan.TransposeSumsEqualRowAccumulation");
  const auto s = test::random_shape(seed, 70, 900, 1000);
  std::mt19937_64 rng(seed + 1);
  std::vector<fr> lag(s.num_constraints);
  for (auto& x : lag) x = fr::random(rng);
  const std::size_t nv = s.num_variables();
  for (const r1cs::csr_matrix* m : {&s.a, &s.b, &s.c}) {
    const csc_matrix t = transpose(*m, nv);
    ASSERT_EQ(t.col_ptr.size(), nv + 1);
    EXPECT_EQ(t.col_ptr.back(), m->nnz());
    // every (row, col, id) of the CSR appears once under its column
    std::size_t found = 0;
    for (std::size_t c = 0; c < nv; ++c)
      for (std::uint32_t p = t.col_ptr[c]; p < t.col_ptr[c + 1]; ++p) {
        const auto cols = m->row_cols(t.rows[p]);
        const auto ids = m->row_coeff_ids(t.rows[p]);
        const auto it = std::find(cols.begin(), cols.end(), std::uint32_t(c));
        ASSERT_NE(it, cols.end()) << "column " << c << " entry row " << t.rows[p];
        EXPECT_EQ(ids[std::size_t(it - cols.begin())], t.coeff_ids[p]);
        ++found;
      }
    EXPECT_EQ(found, m->nnz());
    std::vector<fr> got(nv);
    column_sums(t, s.coeffs, lag, got);
    const auto want = row_accumulation(s, *m, lag);
    for (std::size_t c = 0; c < nv; ++c) ASSERT_EQ(got[c], want[c]) << "column " << c;
  }
  // column 0 of A is a long column (one thread would not sum it on the GPU)
  const csc_matrix ta = transpose(s.a, nv);
  EXPECT_GT(ta.col_ptr[1] - ta.col_ptr[0], long_column);
  r1cs::csr_matrix bad = s.a;
  bad.cols[0] = std::uint32_t(nv);
  EXPECT_THROW(transpose(bad, nv), std::invalid_argument);
}

/// The CPU setup's order (setup.cpp): a = every input then aux in A; b =
/// inputs in B then aux in B.
void expect_setup_order(const r1cs::r1cs_shape& s) {
  std::vector<fr> src(s.num_variables());
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = fr::from_uint(i + 1);
  std::vector<fr> want_a, want_b;
  for (std::size_t i = 0; i < s.num_inputs; ++i) {
    want_a.push_back(src[i]);
    if (s.b_input_density.test(i)) want_b.push_back(src[i]);
  }
  for (std::size_t j = 0; j < s.num_aux; ++j)
    if (s.a_aux_density.test(j)) want_a.push_back(src[s.num_inputs + j]);
  for (std::size_t j = 0; j < s.num_aux; ++j)
    if (s.b_aux_density.test(j)) want_b.push_back(src[s.num_inputs + j]);
  const query_density da = a_query_density(s), db = b_query_density(s);
  ASSERT_EQ(da.count, want_a.size());
  ASSERT_EQ(db.count, want_b.size());
  std::vector<fr> got_a(da.count), got_b(db.count);
  compact(da, src, got_a);
  compact(db, src, got_b);
  EXPECT_EQ(got_a, want_a);
  EXPECT_EQ(got_b, want_b);
}

TEST(gpu_setup_plan, QueryDensitiesFollowTheSetupOrder) {
  const std::uint64_t seed = test::test_seed("gpu_setup_plan.QueryDensitiesFollowTheSetupOrder");
  for (std::size_t ni : {1, 63, 64, 70, 130}) {
    SCOPED_TRACE("inputs " + std::to_string(ni));
    const auto s = test::random_shape(seed + ni, ni, 300, 300);
    EXPECT_LT(b_query_density(s).count, s.num_variables()) << "B must have gaps";
    EXPECT_LT(a_query_density(s).count, s.num_variables()) << "A must have gaps";
    expect_setup_order(s);
  }
  expect_setup_order(r1cs::make_shape(r1cs::examples::chain_circuit{100, std::nullopt}));
  r1cs::r1cs_shape bad = r1cs::make_shape(r1cs::examples::cubic_circuit{});
  bad.b_aux_density = r1cs::density_mask(bad.num_aux + 1);
  EXPECT_THROW(b_query_density(bad), std::invalid_argument);
}

/// The host pipeline's scalars through the CPU fixed-base tables: the same
/// parameters as generate_parameters.
groth16::parameters params_from_scalars(const query_scalars& q, const groth16::toxic_waste& t) {
  const ec::fixed_base_table<ff::fp> g1(ec::g1_jacobian::generator());
  const ec::fixed_base_table<ff::fp2> g2(ec::g2_jacobian::generator());
  groth16::parameters p;
  p.vk.alpha_g1 = g1.mul(t.alpha).to_affine();
  p.vk.beta_g1 = g1.mul(t.beta).to_affine();
  p.vk.beta_g2 = g2.mul(t.beta).to_affine();
  p.vk.gamma_g2 = g2.mul(t.gamma).to_affine();
  p.vk.delta_g1 = g1.mul(t.delta).to_affine();
  p.vk.delta_g2 = g2.mul(t.delta).to_affine();
  p.vk.ic.resize(q.ic.size());
  g1.mul_many(q.ic, p.vk.ic);
  p.h.resize(q.h.size());
  g1.mul_many(q.h, p.h);
  p.l.resize(q.l.size());
  g1.mul_many(q.l, p.l);
  p.a.resize(q.a.size());
  g1.mul_many(q.a, p.a);
  p.b_g1.resize(q.b.size());
  g1.mul_many(q.b, p.b_g1);
  p.b_g2.resize(q.b.size());
  g2.mul_many(q.b, p.b_g2);
  return p;
}

TEST(gpu_setup_plan, HostPipelineEqualsCpuSetup) {
  const std::uint64_t seed = test::test_seed("gpu_setup_plan.HostPipelineEqualsCpuSetup");
  const auto t = groth16::toxic_waste_from_seed(seed);
  const r1cs::r1cs_shape shapes[] = {
      r1cs::make_shape(r1cs::examples::cubic_circuit{}),
      r1cs::make_shape(r1cs::examples::chain_circuit{60, std::nullopt}),
      test::random_shape(seed, 70, 200, 300),
  };
  for (const auto& s : shapes) {
    SCOPED_TRACE("shape with " + std::to_string(s.num_constraints) + " constraints");
    const auto q = host_query_scalars(s, t);
    const auto want = groth16::generate_parameters(s, t);
    const auto got = params_from_scalars(q, t);
    EXPECT_TRUE(got.vk == want.vk);
    EXPECT_EQ(got.h, want.h);
    EXPECT_EQ(got.l, want.l);
    EXPECT_EQ(got.a, want.a);
    EXPECT_EQ(got.b_g1, want.b_g1);
    EXPECT_EQ(got.b_g2, want.b_g2);
  }
}

TEST(gpu_setup_plan, MemoryPlanCountsEveryQuery) {
  const auto s = test::random_shape(7, 70, 900, 1000);
  const std::size_t m = ntt::evaluation_domain(s.num_constraints).size();
  const std::size_t a_len = s.num_inputs + s.a_aux_density.count();
  const std::size_t b_len = s.b_input_density.count() + s.b_aux_density.count();
  const memory_plan p = plan_memory(s, 12345);
  EXPECT_EQ(p.queries(), 96 * (m - 1 + s.num_aux + a_len + b_len) + 192 * b_len);
  EXPECT_EQ(p.lagrange, 32 * m);
  EXPECT_EQ(p.uvw, 3 * 32 * s.num_variables());
  EXPECT_GE(p.transpose, transpose_bytes(s.a, s.num_variables()));
  EXPECT_GE(p.peak(), p.queries() + p.scratch_b + p.ntt_tables);
  EXPECT_GE(p.peak(), p.lagrange + p.uvw + p.transpose + p.ntt_tables);
}

/// K projective points (some infinity) through xyzz_fraction + finish_affine.
template <class F, int K>
void expect_batch_affine(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  using P = ec::xyzz<F>;
  P p = P::generator();
  std::vector<P> pts;
  for (int i = 0; i < K; ++i) {
    p = p.dbl().add_affine(ec::affine<F>::generator());  // ZZ != 1
    pts.push_back(rng() % 3 == 0 ? P::identity() : p);
  }
  pts[K / 2] = P::identity();
  F px[K], py[K], d[K], prefix[K];
  for (int i = 0; i < K; ++i) ec::detail::xyzz_fraction(pts[i], px[i], py[i], d[i]);
  ec::detail::finish_affine<K>(px, py, d, prefix, [](const F& a) { return a.inverse(); });
  for (int i = 0; i < K; ++i) {
    const ec::affine<F> want = pts[i].to_affine();
    EXPECT_TRUE(px[i] == want.x && py[i] == want.y) << "point " << i;
  }
  // all infinity: every output is (0, 0)
  for (int i = 0; i < K; ++i) ec::detail::xyzz_fraction(P::identity(), px[i], py[i], d[i]);
  ec::detail::finish_affine<K>(px, py, d, prefix, [](const F& a) { return a.inverse(); });
  for (int i = 0; i < K; ++i) EXPECT_TRUE(px[i].is_zero() && py[i].is_zero());
}

TEST(gpu_setup_plan, BatchAffineEqualsToAffine) {
  const std::uint64_t seed = test::test_seed("gpu_setup_plan.BatchAffineEqualsToAffine");
  expect_batch_affine<ff::fp, 8>(seed);
  expect_batch_affine<ff::fp2, 4>(seed + 1);
  expect_batch_affine<ff::fp, 1>(seed + 2);
}

}  // namespace
