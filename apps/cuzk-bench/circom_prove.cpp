// SPDX-License-Identifier: Apache-2.0
// `cuzk-bench circom-prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>`:
// a Groth16 proof for a circom circuit from a snarkjs zkey, written in
// snarkjs's JSON (rapidsnark's argument order). --r/--s fix the randomizers
// (hex, below r) for reproducible proofs; --vk checks the proof against a
// snarkjs verification_key.json before returning. Timings per stage go to
// stdout unless --quiet. Any error prints a message and exits non-zero.
//
// The same registration adds `cuzk-bench circom-verify <vk.json> <public.json>
// <proof.json>` (snarkjs's argument order): prints "OK!" and exits 0 for a
// valid proof, prints "Invalid proof" and exits 1 otherwise, so that proofs
// made by snarkjs can be checked by cuzk (the reverse interop direction).
#include <chrono>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

#include <cuzk/circom/prover.hpp>
#include <cuzk/io/circom.hpp>
#include <cuzk/io/snarkjs_json.hpp>

#include "commands.hpp"

namespace cuzk::bench_app {
namespace {

using ff::fr;

/// A scalar given as hex (optional 0x prefix, at most 64 digits), below r.
fr parse_hex_scalar(const std::string& text, const char* flag) {
  std::string s = text;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s = s.substr(2);
  if (s.empty() || s.size() > 64)
    throw std::invalid_argument(std::string(flag) + " expects 1 to 64 hex digits, got \"" + text + "\"");
  ff::detail::limbs<4> v{};
  for (char ch : s) {
    int d;
    if (ch >= '0' && ch <= '9') d = ch - '0';
    else if (ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
    else if (ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
    else throw std::invalid_argument(std::string(flag) + ": \"" + text + "\" is not hexadecimal");
    for (std::size_t i = 4; i-- > 1;) v[i] = (v[i] << 4) | (v[i - 1] >> 60);
    v[0] = (v[0] << 4) | std::uint64_t(d);
  }
  const auto x = fr::from_canonical(v);
  if (!x) throw std::invalid_argument(std::string(flag) + " " + text + " is not below r");
  return *x;
}

struct options {
  std::string zkey, wtns, proof, pub, r_hex, s_hex, vk;
  bool check_subgroup = false, quiet = false;
};

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(const options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const io::zkey_file zk = io::read_zkey(o.zkey, {.check_on_curve = true, .check_subgroup = o.check_subgroup});
  const double t_zkey = since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  const io::wtns_file wt = io::read_wtns(o.wtns);
  const double t_wtns = since(t1);
  if (wt.values.size() != zk.n_vars)
    throw std::runtime_error("witness '" + o.wtns + "' has " + std::to_string(wt.values.size()) + " values but zkey '" +
                             o.zkey + "' has nVars = " + std::to_string(zk.n_vars) +
                             ": they are not for the same circuit");
  const std::optional<fr> r = o.r_hex.empty() ? std::nullopt : std::optional(parse_hex_scalar(o.r_hex, "--r"));
  const std::optional<fr> s = o.s_hex.empty() ? std::nullopt : std::optional(parse_hex_scalar(o.s_hex, "--s"));
  circom::prove_stats st;
  groth16::proof pi;
  if (r && s) {
    pi = circom::prove(zk, wt.values, *r, *s, &st);
  } else if (!r && !s) {
    pi = circom::prove(zk, wt.values, &st);
  } else {
    throw std::invalid_argument("give both --r and --s, or neither (random randomizers)");
  }
  const auto inputs = circom::public_inputs(zk, wt.values);
  io::write_text_file(o.proof, io::proof_to_json(pi), "proof.json");
  io::write_text_file(o.pub, io::public_to_json(inputs), "public.json");
  if (!o.quiet) {
    std::printf("circom-prove: %u vars, %u public, domain 2^%u, %zu coefficients\n", zk.n_vars, zk.n_public,
                zk.lg_domain_size(), zk.coefs.size());
    std::printf("  read zkey %.3f s, wtns %.3f s\n", t_zkey, t_wtns);
    std::printf("  a,b,c %.3f s | coset NTTs %.3f s | MSM A %.3f, B1 %.3f, B2 %.3f, C %.3f, H %.3f s\n", st.evaluations,
                st.ntt, st.msm_a, st.msm_b1, st.msm_b2, st.msm_c, st.msm_h);
    std::printf("  prove %.3f s, total %.3f s; wrote %s and %s\n", st.total, since(t0), o.proof.c_str(), o.pub.c_str());
  }
  if (!o.vk.empty()) {
    const auto vk = io::vk_from_json(io::read_text_file(o.vk, "verification_key.json"), o.vk);
    if (!circom::verify(vk, pi, inputs)) {
      std::fprintf(stderr, "circom-prove: the proof does NOT verify against %s\n", o.vk.c_str());
      return 2;
    }
    if (!o.quiet) std::printf("  verified against %s: OK\n", o.vk.c_str());
  }
  return 0;
}

struct verify_options {
  std::string vk, pub, proof;
};

int run_verify(const verify_options& o) {
  const auto vk = io::vk_from_json(io::read_text_file(o.vk, "verification_key.json"), o.vk);
  const auto inputs = io::public_from_json(io::read_text_file(o.pub, "public.json"), o.pub);
  const auto pi = io::proof_from_json(io::read_text_file(o.proof, "proof.json"), o.proof);
  if (inputs.size() != vk.n_public) {
    std::printf("Invalid proof: %zu public inputs, the verification key expects %u\n", inputs.size(), vk.n_public);
    return 1;
  }
  if (!circom::verify(vk, pi, inputs)) {
    std::printf("Invalid proof\n");
    return 1;
  }
  std::printf("OK!\n");
  return 0;
}

}  // namespace

void register_circom_prove(CLI::App& app) {
  {
    static verify_options v;
    auto* cmd = app.add_subcommand("circom-verify", "verify a snarkjs Groth16 proof (bls12381) like snarkjs does");
    cmd->add_option("vk", v.vk, "verification_key.json")->required();
    cmd->add_option("public", v.pub, "public.json")->required();
    cmd->add_option("proof", v.proof, "proof.json")->required();
    cmd->callback([] {
      const int rc = run_verify(v);
      if (rc != 0) throw CLI::RuntimeError(rc);
    });
  }
  static options o;
  auto* cmd = app.add_subcommand("circom-prove", "Groth16 proof for a circom circuit from a snarkjs .zkey and a .wtns");
  cmd->add_option("zkey", o.zkey, "snarkjs Groth16 proving key (bls12381)")->required();
  cmd->add_option("wtns", o.wtns, "circom witness (.wtns)")->required();
  cmd->add_option("proof", o.proof, "output proof.json")->required();
  cmd->add_option("public", o.pub, "output public.json")->required();
  cmd->add_option("--r", o.r_hex, "randomizer r in hex (with --s: deterministic proof)");
  cmd->add_option("--s", o.s_hex, "randomizer s in hex");
  cmd->add_option("--vk", o.vk, "verify the proof against this verification_key.json");
  cmd->add_flag("--check-subgroup", o.check_subgroup, "subgroup-check every zkey point (slow)");
  cmd->add_flag("-q,--quiet", o.quiet, "print nothing on success");
  cmd->callback([] {
    const int rc = run(o);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace cuzk::bench_app
