// SPDX-License-Identifier: Apache-2.0
// CPU Groth16 prover; the algorithm and its costs are described in
// include/cuzk/groth16/prover.hpp.
#include <cuzk/groth16/prover.hpp>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include <cuzk/groth16/assemble.hpp>
#include <cuzk/msm/msm.hpp>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/ntt/ntt.hpp>

namespace cuzk::groth16 {
namespace {

using ff::fr;

msm::density_view view_of(const r1cs::density_mask& d) { return {d.words(), d.size()}; }

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("groth16::prove: " + what);
}

void check_sizes(const parameters& p, const r1cs::r1cs_shape& shape, const witness& w, std::size_t m) {
  const auto n = [](std::size_t v) { return std::to_string(v); };
  require(w.inputs.size() == shape.num_inputs,
          "witness has " + n(w.inputs.size()) + " inputs, circuit has " + n(shape.num_inputs));
  require(w.aux.size() == shape.num_aux,
          "witness has " + n(w.aux.size()) + " aux values, circuit has " + n(shape.num_aux));
  require(!w.inputs.empty() && w.inputs[0] == fr::one(), "inputs[0] must be ONE");
  require(p.vk.ic.size() == shape.num_inputs,
          "verifying key has " + n(p.vk.ic.size()) + " IC points, circuit has " + n(shape.num_inputs) + " inputs");
  require(p.h.size() == m - 1, "parameters have " + n(p.h.size()) + " H points, domain needs " + n(m - 1));
  require(p.l.size() == shape.num_aux,
          "parameters have " + n(p.l.size()) + " L points, circuit has " + n(shape.num_aux) + " aux variables");
  const std::size_t a_len = shape.num_inputs + shape.a_aux_density.count();
  require(p.a.size() == a_len, "parameters have " + n(p.a.size()) + " A points, circuit density needs " + n(a_len));
  const std::size_t b_len = shape.b_input_density.count() + shape.b_aux_density.count();
  require(p.b_g1.size() == b_len && p.b_g2.size() == b_len, "parameters have " + n(p.b_g1.size()) + " B_G1 / " +
                                                                n(p.b_g2.size()) +
                                                                " B_G2 points, circuit density needs " + n(b_len));
}

double ms_since(std::chrono::steady_clock::time_point& t) {
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - t).count();
  t = now;
  return ms;
}

// |stop| between steps: the bound is one NTT (or the SpMV) of the domain.
void check_stop(const std::atomic<bool>* stop) {
  if (stop && stop->load(std::memory_order_relaxed)) throw msm::stopped("groth16::prove stopped (cancelled)");
}

/// Runs the caller's between-steps hook (if any) and returns how long it took.
using step_hook = std::function<std::chrono::steady_clock::duration()>;

std::vector<fr> compute_h_timed(const r1cs::r1cs_shape& shape, const witness& w, prove_timings* t,
                                const std::atomic<bool>* stop, const step_hook& boundary = {}) {
  auto t0 = std::chrono::steady_clock::now();
  const ntt::evaluation_domain domain(shape.num_constraints);
  const std::size_t m = domain.size();
  std::vector<fr> a(m, fr::zero()), b(m, fr::zero()), c(m, fr::zero());
  r1cs::evaluate_abc(shape, w.inputs, w.aux, a, b, c);
  if (t) t->spmv_ms = ms_since(t0);
  for (auto* v : {&a, &b, &c}) {
    check_stop(stop);
    if (boundary) t0 += boundary();
    ntt::intt(domain, *v);
    check_stop(stop);
    ntt::coset_ntt(domain, *v);
  }
  check_stop(stop);
  ntt::mul_sub(a, b, c);  // a = a*b - c
  ntt::divide_by_z_on_coset(domain, a);
  check_stop(stop);
  ntt::coset_intt(domain, a);
  a.resize(m - 1);  // deg h <= m - 2: the top coefficient is zero
  if (t) t->ntt_h_ms = ms_since(t0);
  return a;
}

}  // namespace

std::vector<fr> compute_h(const r1cs::r1cs_shape& shape, const witness& w) {
  return compute_h_timed(shape, w, nullptr, nullptr);
}

proof prove(const parameters& p, const r1cs::r1cs_shape& shape, const witness& w, const fr& r, const fr& s,
            prove_timings* t, const std::atomic<bool>* stop, const std::function<void()>& between_steps) {
  auto start = std::chrono::steady_clock::now();
  const std::size_t m = ntt::evaluation_domain(shape.num_constraints).size();
  check_sizes(p, shape, w, m);
  check_stop(stop);
  // the hook's time (a turn lent to another partition) moves the clocks
  // forward, so the step times are this proof's own
  step_hook hook;
  if (between_steps)
    hook = [&] {
      const auto b0 = std::chrono::steady_clock::now();
      between_steps();
      const auto away = std::chrono::steady_clock::now() - b0;
      start += away;
      return away;
    };
  const std::vector<fr> h = compute_h_timed(shape, w, t, stop, hook);
  auto t0 = std::chrono::steady_clock::now();
  const auto boundary = [&] {
    if (hook) t0 += hook();
  };
  boundary();
  msm::config mc;
  mc.stop = stop;

  const std::size_t ni = shape.num_inputs;
  const std::size_t nbi = shape.b_input_density.count();
  const std::span<const ec::g1_affine> a_q(p.a), b1_q(p.b_g1);
  const std::span<const ec::g2_affine> b2_q(p.b_g2);

  // the query sums, then A, B, C from them (assemble.hpp)
  query_sums q;
  q.a = msm::msm<ff::fp>(a_q.first(ni), w.inputs, mc);
  q.a += msm::msm_dense<ff::fp>(a_q.subspan(ni), w.aux, view_of(shape.a_aux_density), mc);
  if (t) t->msm_a_ms = ms_since(t0);
  boundary();
  q.b1 = msm::msm_dense<ff::fp>(b1_q.first(nbi), w.inputs, view_of(shape.b_input_density), mc);
  q.b1 += msm::msm_dense<ff::fp>(b1_q.subspan(nbi), w.aux, view_of(shape.b_aux_density), mc);
  if (t) t->msm_b1_ms = ms_since(t0);
  boundary();
  q.b2 = msm::msm_dense<ff::fp2>(b2_q.first(nbi), w.inputs, view_of(shape.b_input_density), mc);
  q.b2 += msm::msm_dense<ff::fp2>(b2_q.subspan(nbi), w.aux, view_of(shape.b_aux_density), mc);
  if (t) t->msm_b2_ms = ms_since(t0);
  boundary();
  q.l = msm::msm<ff::fp>(p.l, w.aux, mc);
  if (t) t->msm_l_ms = ms_since(t0);
  boundary();
  q.h = msm::msm<ff::fp>(p.h, h, mc);
  if (t) t->msm_h_ms = ms_since(t0);

  const proof out = assemble_proof(proof_points::of(p.vk), q, r, s);
  if (t) {
    auto end = start;
    t->total_ms = ms_since(end);
  }
  return out;
}

}  // namespace cuzk::groth16
