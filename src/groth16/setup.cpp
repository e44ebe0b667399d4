// SPDX-License-Identifier: Apache-2.0
// Seeded Groth16 test-parameter generation; method and costs in
// include/cuzk/groth16/setup.hpp.
#include <cuzk/groth16/setup.hpp>

#include <chrono>
#include <random>
#include <stdexcept>
#include <string>

#include <tbb/parallel_invoke.h>

#include <cuzk/ec/fixed_base.hpp>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/ntt/ntt.hpp>

namespace cuzk::groth16 {
namespace {

using ff::fr;
using clock_type = std::chrono::steady_clock;

/// Milliseconds since |t|, and |t| moved to now (one step's span).
double lap_ms(clock_type::time_point& t) {
  const auto now = clock_type::now();
  const double ms = std::chrono::duration<double, std::milli>(now - t).count();
  t = now;
  return ms;
}

fr random_nonzero(std::mt19937_64& rng) {
  for (;;) {
    const fr v = fr::random(rng);
    if (!v.is_zero()) return v;
  }
}

/// acc[col] += coeff * lagrange[row] over every non-zero of |m|.
void accumulate_columns(const r1cs::r1cs_shape& shape, const r1cs::csr_matrix& m, const std::vector<fr>& lagrange,
                        std::vector<fr>& acc) {
  for (std::size_t row = 0; row < m.rows(); ++row) {
    const auto cols = m.row_cols(row);
    const auto ids = m.row_coeff_ids(row);
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const fr& coeff = shape.coeffs[ids[k]];
      if (ids[k] == r1cs::r1cs_shape::coeff_one) acc[cols[k]] += lagrange[row];
      else if (ids[k] == r1cs::r1cs_shape::coeff_minus_one) acc[cols[k]] -= lagrange[row];
      else acc[cols[k]] += coeff * lagrange[row];
    }
  }
}

}  // namespace

toxic_waste toxic_waste_from_seed(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  toxic_waste t;
  t.tau = random_nonzero(rng);
  t.alpha = random_nonzero(rng);
  t.beta = random_nonzero(rng);
  t.gamma = random_nonzero(rng);
  t.delta = random_nonzero(rng);
  return t;
}

parameters generate_parameters(const r1cs::r1cs_shape& shape, std::uint64_t seed, setup_timings* timings) {
  return generate_parameters(shape, toxic_waste_from_seed(seed), timings);
}

parameters generate_parameters(const r1cs::r1cs_shape& shape, const toxic_waste& t, setup_timings* timings) {
  setup_timings tm;
  const auto start = clock_type::now();
  auto t0 = start;
  if (auto j = shape.first_unconstrained_aux())
    throw std::invalid_argument("groth16 setup: aux variable " + std::to_string(*j) +
                                " is unconstrained (its L point would be infinity)");
  const ntt::evaluation_domain domain(shape.num_constraints);
  const std::size_t m = domain.size();
  const std::size_t ni = shape.num_inputs, na = shape.num_aux, nv = ni + na;

  // Lagrange basis at tau: L_j(tau) = iNTT(tau^0 .. tau^(m-1))[j]
  std::vector<fr> lagrange(m);
  fr power = fr::one();
  for (std::size_t i = 0; i < m; ++i) {
    lagrange[i] = power;
    power *= t.tau;
  }
  ntt::intt(domain, lagrange);
  tm.lagrange_ms = lap_ms(t0);

  std::vector<fr> u(nv, fr::zero()), v(nv, fr::zero()), w(nv, fr::zero());
  tbb::parallel_invoke([&] { accumulate_columns(shape, shape.a, lagrange, u); },
                       [&] { accumulate_columns(shape, shape.b, lagrange, v); },
                       [&] { accumulate_columns(shape, shape.c, lagrange, w); });
  tm.uvw_ms = lap_ms(t0);

  const fr gamma_inv = t.gamma.inverse(), delta_inv = t.delta.inverse();
  std::vector<fr> a_scalars, b_scalars, ic_scalars(ni), l_scalars(na);
  for (std::size_t i = 0; i < ni; ++i) {
    a_scalars.push_back(u[i]);  // every input is in A (the input constraints)
    if (shape.b_input_density.test(i)) b_scalars.push_back(v[i]);
    ic_scalars[i] = (t.beta * u[i] + t.alpha * v[i] + w[i]) * gamma_inv;
  }
  for (std::size_t j = 0; j < na; ++j) {
    const std::size_t col = ni + j;
    if (shape.a_aux_density.test(j)) a_scalars.push_back(u[col]);
    l_scalars[j] = (t.beta * u[col] + t.alpha * v[col] + w[col]) * delta_inv;
  }
  for (std::size_t j = 0; j < na; ++j)
    if (shape.b_aux_density.test(j)) b_scalars.push_back(v[ni + j]);

  std::vector<fr> h_scalars(m - 1);
  const fr z_over_delta = domain.z(t.tau) * delta_inv;
  power = z_over_delta;
  for (std::size_t i = 0; i + 1 < m; ++i) {
    h_scalars[i] = power;
    power *= t.tau;
  }
  tm.scalars_ms = lap_ms(t0);

  // 13-bit windows: 19 additions per point instead of 31 at 8 bits, for
  // tables of 20 x 8191 points (16 MB G1, 31 MB G2, ~0.6 s together on 2
  // cores), which pays from ~10^4 points on; the 2 KiB PoRep has millions.
  const ec::fixed_base_table<ff::fp, 13> g1(ec::g1_jacobian::generator());
  const ec::fixed_base_table<ff::fp2, 13> g2(ec::g2_jacobian::generator());
  tm.tables_ms = lap_ms(t0);
  const auto g1_one = [&](const fr& k) { return g1.mul(k).to_affine(); };
  const auto g2_one = [&](const fr& k) { return g2.mul(k).to_affine(); };

  parameters p;
  verifying_key& vk = p.vk;
  vk.alpha_g1 = g1_one(t.alpha);
  vk.beta_g1 = g1_one(t.beta);
  vk.beta_g2 = g2_one(t.beta);
  vk.gamma_g2 = g2_one(t.gamma);
  vk.delta_g1 = g1_one(t.delta);
  vk.delta_g2 = g2_one(t.delta);
  vk.ic.resize(ni);
  g1.mul_many(ic_scalars, vk.ic);
  tm.vk_ms = lap_ms(t0);
  p.h.resize(h_scalars.size());
  g1.mul_many(h_scalars, p.h);
  tm.h_ms = lap_ms(t0);
  p.l.resize(na);
  g1.mul_many(l_scalars, p.l);
  tm.l_ms = lap_ms(t0);
  p.a.resize(a_scalars.size());
  g1.mul_many(a_scalars, p.a);
  tm.a_ms = lap_ms(t0);
  p.b_g1.resize(b_scalars.size());
  g1.mul_many(b_scalars, p.b_g1);
  tm.b_g1_ms = lap_ms(t0);
  p.b_g2.resize(b_scalars.size());
  g2.mul_many(b_scalars, p.b_g2);
  tm.b_g2_ms = lap_ms(t0);
  tm.total_ms = std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
  if (timings) *timings = tm;
  return p;
}

}  // namespace cuzk::groth16
