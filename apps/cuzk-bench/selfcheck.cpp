// SPDX-License-Identifier: Apache-2.0
// `cuzk-bench selfcheck`: a quick arithmetic self-check (fast paths against
// the portable reference, group laws, MSM against the naive sum) followed by
// a short benchmark summary. `make demo` runs it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ec/pairing.hpp>
#include <cuzk/ec/serialization.hpp>
#include <cuzk/ff/detail/portable_arith.hpp>
#include <cuzk/groth16/prover.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/proof_io.hpp>
#include <cuzk/msm/msm.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "commands.hpp"

namespace cuzk::bench_app {
namespace {

using ff::fp;
using ff::fr;

struct check_result {
  std::string name;
  bool ok;
};

template <class F>
bool fast_matches_reference(std::mt19937_64& rng, int n) {
  for (int i = 0; i < n; ++i) {
    const F a = F::random(rng), b = F::random(rng);
    F ref;
    ff::detail::portable_mul_mont_32<F::n_limbs>(ref.l, a.l, b.l, F::modulus.data(), F::n0);
    if (a * b != ref) return false;
  }
  return true;
}

template <class J>
bool group_laws(std::mt19937_64& rng) {
  const J g = J::generator();
  const fr a = fr::random(rng), b = fr::random(rng);
  return ec::mul(g, a) + ec::mul(g, b) == ec::mul(g, a + b) && ec::mul(ec::mul(g, a), b) == ec::mul(g, a * b) &&
         ec::mul(g, fr::modulus).is_infinity();
}

template <class J>
bool msm_matches_naive(std::mt19937_64& rng, std::size_t n) {
  std::vector<typename J::affine_type> bases;
  std::vector<fr> scalars;
  J expect = J::identity();
  J p = ec::mul(J::generator(), fr::random(rng));
  for (std::size_t i = 0; i < n; ++i) {
    bases.push_back(p.to_affine());
    scalars.push_back(i % 4 == 0 ? fr::one() : fr::random(rng));
    expect += ec::mul(p, scalars.back());
    p = p.dbl() + J::generator();
  }
  return msm::msm<typename J::field>(bases, scalars) == expect;
}

bool pairing_bilinear(std::mt19937_64& rng) {
  const fr a = fr::random(rng), b = fr::random(rng);
  const auto p = ec::mul(ec::g1_jacobian::generator(), a).to_affine();
  const auto q = ec::mul(ec::g2_jacobian::generator(), b).to_affine();
  const auto ab = ec::mul(ec::g1_jacobian::generator(), a * b).to_affine();
  return ec::pairing(p, q) == ec::pairing(ab, ec::g2_generator()) &&
         !ec::pairing(ec::g1_generator(), ec::g2_generator()).is_one();
}

bool encodings_round_trip(std::mt19937_64& rng) {
  const auto p = ec::mul(ec::g1_jacobian::generator(), fr::random(rng)).to_affine();
  const auto q = ec::mul(ec::g2_jacobian::generator(), fr::random(rng)).to_affine();
  const auto pc = ec::encode_g1_compressed(p);
  const auto qc = ec::encode_g2_compressed(q);
  auto bad = pc;
  bad[0] &= 0x7f;  // clear the compression flag: must be rejected
  return ec::decode_g1_compressed(pc).value() == p && ec::decode_g2_compressed(qc).value() == q &&
         !ec::decode_g1_compressed(bad).ok();
}

/// Seeded setup, prove, 192-byte encoding, verify; a changed input must fail.
bool groth16_round_trip(std::mt19937_64& rng, std::size_t steps, double* prove_ms) {
  const auto shape = r1cs::make_shape(r1cs::examples::chain_circuit{steps, std::nullopt});
  const auto params = groth16::generate_parameters(shape, rng());
  const auto pvk = groth16::prepare_verifying_key(params.vk);
  auto cs = r1cs::make_witness(r1cs::examples::chain_circuit{steps, fr::random(rng)});
  groth16::witness w{{cs.inputs().begin(), cs.inputs().end()}, {cs.aux().begin(), cs.aux().end()}};
  const auto t0 = std::chrono::steady_clock::now();
  const auto pf = groth16::prove(params, shape, w, fr::random(rng), fr::random(rng));
  *prove_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const auto bytes = io::write_proof(pf);
  const auto back = io::read_proof(bytes);
  std::vector<fr> x(w.inputs.begin() + 1, w.inputs.end());
  const bool ok = bytes.size() == 192 && groth16::verify(pvk, back, x);
  x[0] += fr::one();
  return ok && !groth16::verify(pvk, back, x);
}

/// Median/min/max nanoseconds per call over |rounds| timed rounds after one warm-up.
struct timing {
  double median, min, max;
};
timing time_op(const std::function<void()>& op, int calls_per_round, int rounds = 7) {
  op();
  std::vector<double> per_call;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls_per_round; ++i) op();
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls_per_round);
  }
  std::sort(per_call.begin(), per_call.end());
  return {per_call[per_call.size() / 2], per_call.front(), per_call.back()};
}

std::string human_ns(double ns) {
  char buf[32];
  if (ns < 1e3) std::snprintf(buf, sizeof buf, "%.1f ns", ns);
  else if (ns < 1e6) std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
  else if (ns < 1e9) std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  else std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  return buf;
}

int run_selfcheck(std::uint64_t seed, bool with_bench) {
  std::printf("cuzk self-check (seed %llu, x86-64 ADX path: %s)\n", static_cast<unsigned long long>(seed),
              ff::detail::use_adx ? "on" : "off");
  std::mt19937_64 rng(seed);
  std::vector<check_result> results{
      {"Fp mul: fast path == portable reference (100k)", fast_matches_reference<fp>(rng, 100000)},
      {"Fr mul: fast path == portable reference (100k)", fast_matches_reference<fr>(rng, 100000)},
      {"G1 group laws and [r]G = O", group_laws<ec::g1_jacobian>(rng)},
      {"G2 group laws and [r]G = O", group_laws<ec::g2_jacobian>(rng)},
      {"G1 MSM (1024 terms) == naive sum", msm_matches_naive<ec::g1_jacobian>(rng, 1024)},
      {"G2 MSM (256 terms) == naive sum", msm_matches_naive<ec::g2_jacobian>(rng, 256)},
      {"pairing bilinear, e(G1, G2) != 1", pairing_bilinear(rng)},
      {"ZCash encodings round trip, bad flag rejected", encodings_round_trip(rng)},
  };
  double prove_ms = 0;
  results.push_back({"Groth16 (2^13 constraints): setup, prove, encode, verify, tamper rejected",
                     groth16_round_trip(rng, 4000, &prove_ms)});
  bool all_ok = true;
  for (const auto& r : results) {
    std::printf("  [%s] %s\n", r.ok ? " ok " : "FAIL", r.name.c_str());
    all_ok = all_ok && r.ok;
  }
  if (with_bench) {
    std::printf("\nbenchmark summary (per call: median [min, max] over 7 rounds)\n");
    fp a = fp::random(rng), b = fp::random(rng);
    fr c = fr::random(rng), d = fr::random(rng);
    ec::g1_jacobian p = ec::mul(ec::g1_jacobian::generator(), fr::random(rng));
    const ec::g1_affine q = ec::mul(ec::g1_jacobian::generator(), fr::random(rng)).to_affine();
    ec::g2_jacobian p2 = ec::mul(ec::g2_jacobian::generator(), fr::random(rng));
    struct row {
      const char* name;
      timing t;
    };
    std::vector<row> rows{
        {"Fp mul", time_op([&] { a = a * b; }, 1 << 20)},
        {"Fp sqr", time_op([&] { a = a.sqr(); }, 1 << 20)},
        {"Fr mul", time_op([&] { c = c * d; }, 1 << 20)},
        {"Fp inverse", time_op([&] { a = a.inverse() + b; }, 512)},
        {"G1 mixed add", time_op([&] { p += q; }, 1 << 16)},
        {"G1 double", time_op([&] { p = p.dbl(); }, 1 << 16)},
        {"G1 scalar mul", time_op([&] { p = ec::mul(p, c); }, 64)},
        {"G2 scalar mul", time_op([&] { p2 = ec::mul(p2, c); }, 16)},
        {"pairing", time_op([&] { (void)ec::pairing(ec::g1_generator(), ec::g2_generator()); }, 16)},
    };
    for (const auto& r : rows)
      std::printf("  %-16s %10s  [%s, %s]\n", r.name, human_ns(r.t.median).c_str(), human_ns(r.t.min).c_str(),
                  human_ns(r.t.max).c_str());
    std::printf("  %-16s %10.2f ms  (one proof above, 2^13 constraints)\n", "Groth16 prove", prove_ms);
    if (a.is_zero() && c.is_zero() && p.is_infinity() && p2.is_infinity()) std::printf(" ");
  }
  std::printf("\n%s\n", all_ok ? "self-check PASSED" : "self-check FAILED");
  return all_ok ? 0 : 1;
}

}  // namespace

void register_selfcheck(CLI::App& app) {
  auto* cmd = app.add_subcommand("selfcheck", "arithmetic self-check and benchmark summary");
  static std::uint64_t seed = std::random_device{}();
  static bool no_bench = false;
  cmd->add_option("--seed", seed, "random seed (printed; default: fresh)");
  cmd->add_flag("--no-bench", no_bench, "skip the benchmark summary");
  cmd->callback([] {
    const int rc = run_selfcheck(seed, !no_bench);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace cuzk::bench_app
