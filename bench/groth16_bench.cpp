// SPDX-License-Identifier: Apache-2.0
// Whole Groth16 proofs on the CPU backend at 2^k constraints: seeded setup
// (timed once), then witness generation and proving repeated after one
// warm-up; median, min and max per stage, and the process's peak RSS.
//
//   groth16-bench [--lg 16,18,20] [--repeat 5] [--json FILE]
//
// The circuit is r1cs::examples::chain_circuit sized so that constraints
// (with the input constraints) fill the 2^k domain.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <cuzk/groth16/prover.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

namespace {

using namespace cuzk;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / 1024.0;
}

struct stats {
  double median, min, max;
};
stats summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

struct result {
  unsigned lg;
  std::size_t constraints;
  double setup_s;
  stats witness_s, h_s, prove_s;
  double peak_rss_mib;
};

result run(unsigned lg, int repeat) {
  const std::size_t steps = ((std::size_t(1) << lg) - 5) / 2;
  const r1cs::examples::chain_circuit blank{steps, std::nullopt};
  const auto shape = r1cs::make_shape(blank);
  auto t0 = clock_type::now();
  const auto params = groth16::generate_parameters(shape, 1);
  const double setup_s = seconds_since(t0);
  const auto pvk = groth16::prepare_verifying_key(params.vk);
  std::mt19937_64 rng(lg);

  std::vector<double> witness_s, h_s, prove_s;
  for (int i = 0; i <= repeat; ++i) {  // i == 0 is the warm-up
    t0 = clock_type::now();
    auto cs = r1cs::make_witness(r1cs::examples::chain_circuit{steps, ff::fr::from_uint(i + 3)}, shape.num_inputs,
                                 shape.num_aux);
    groth16::witness w{{cs.inputs().begin(), cs.inputs().end()}, {cs.aux().begin(), cs.aux().end()}};
    const double tw = seconds_since(t0);
    t0 = clock_type::now();
    const auto h = groth16::compute_h(shape, w);
    const double th = seconds_since(t0);
    t0 = clock_type::now();
    const auto pf = groth16::prove(params, shape, w, ff::fr::random(rng), ff::fr::random(rng));
    const double tp = seconds_since(t0);
    const std::vector<ff::fr> x(w.inputs.begin() + 1, w.inputs.end());
    if (!groth16::verify(pvk, pf, x)) {
      std::fprintf(stderr, "groth16-bench: proof at 2^%u did not verify\n", lg);
      std::exit(1);
    }
    if (h.empty()) std::exit(2);
    if (i == 0) continue;
    witness_s.push_back(tw);
    h_s.push_back(th);
    prove_s.push_back(tp);
  }
  return {lg, shape.num_constraints, setup_s, summarize(witness_s), summarize(h_s), summarize(prove_s), peak_rss_mib()};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<unsigned> lgs{16, 18, 20};
  int repeat = 5;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lg" && i + 1 < argc) {
      lgs.clear();
      std::stringstream ss(argv[++i]);
      for (std::string t; std::getline(ss, t, ',');) lgs.push_back(unsigned(std::stoul(t)));
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::stoi(argv[++i]));
    } else if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: groth16-bench [--lg 16,18,20] [--repeat N] [--json FILE]\n");
      return 2;
    }
  }
  std::printf("%-6s %11s %9s | %-26s | %-26s | %-26s | %s\n", "size", "constraints", "setup s",
              "witness s med [min,max]", "h (NTTs) s med [min,max]", "prove s med [min,max]", "peak RSS MiB");
  std::vector<result> results;
  for (unsigned lg : lgs) {
    const result r = run(lg, repeat);
    results.push_back(r);
    const auto fmt = [](const stats& s) {
      char b[64];
      std::snprintf(b, sizeof b, "%.3f [%.3f, %.3f]", s.median, s.min, s.max);
      return std::string(b);
    };
    std::printf("2^%-4u %11zu %9.2f | %-26s | %-26s | %-26s | %.0f\n", r.lg, r.constraints, r.setup_s,
                fmt(r.witness_s).c_str(), fmt(r.h_s).c_str(), fmt(r.prove_s).c_str(), r.peak_rss_mib);
    std::fflush(stdout);
  }
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "[\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      const auto js = [](const stats& s) {
        std::ostringstream o;
        o << "{\"median\": " << s.median << ", \"min\": " << s.min << ", \"max\": " << s.max << "}";
        return o.str();
      };
      out << "  {\"lg\": " << r.lg << ", \"constraints\": " << r.constraints << ", \"setup_s\": " << r.setup_s
          << ", \"witness_s\": " << js(r.witness_s) << ", \"h_s\": " << js(r.h_s) << ", \"prove_s\": " << js(r.prove_s)
          << ", \"repeat\": " << repeat << ", \"peak_rss_mib\": " << r.peak_rss_mib << "}"
          << (i + 1 < results.size() ? "," : "") << "\n";
    }
    out << "]\n";
  }
  return 0;
}
