// SPDX-License-Identifier: Apache-2.0
// SnapDeals (EmptySectorUpdate) without the daemon, reached through the
// shared subcommands with -t snap:
//   cuzk-bench gen-vanilla -t snap --sector-size S --seed N --out vanilla.json [--check]
//       [--commitments-out FILE]   synthetic partition proofs (empty_sector_update_generator.hpp)
//       as the reference's vanilla file (JSON array of base64 bincode PartitionProofs);
//       prints comm_r_old / comm_d_new / comm_r_new (32-byte LE hex); --commitments-out
//       writes them as "--comm-r-old H --comm-d-new H --comm-r-new H" for the other commands
//   cuzk-bench gen-params -t snap --sector-size S --out DIR [--seed N]
//   cuzk-bench prove -t snap --vanilla FILE --comm-r-old H --comm-d-new H --comm-r-new H
//       --params DIR --out proof.bin [--sector-size S]
//   cuzk-bench public-inputs -t snap --sector-size S --comm-* H [--partition K]
// verify -t snap goes through the daemon's proof kind (verify_post.cpp),
// run_snap_verify here without it. The sector size comes from
// --sector-size or, for prove, from the number of partition proofs' shape
// (2 KiB: 1 partition of 10 challenges, 8 MiB: 4, 512 MiB+: 16 of 86 ...):
// give --sector-size when ambiguous. h = h_default.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

#include <cuzk/circuits/empty_sector_update_compound.hpp>
#include <cuzk/circuits/empty_sector_update_generator.hpp>
#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/io/hex.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/io/proof_io.hpp>
#include <cuzk/io/snap_vanilla.hpp>

#include "commands.hpp"

namespace cuzk::bench_app {
namespace {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

std::uint64_t size_of(const std::string& s) {
  const std::optional<std::uint64_t> size = circuits::parse_sector_size(s);
  if (!size) throw std::invalid_argument("bad --sector-size '" + s + "' (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)");
  return *size;
}

std::string hex_of(const ff::fr& x) {
  std::uint8_t b[32];
  x.to_bytes_le(b);
  return io::to_hex(b);
}

ff::fr fr_of_hex(const std::string& h, const char* flag) {
  if (h.empty()) throw std::invalid_argument(std::string(flag) + " is required for -t snap");
  std::string s = h.rfind("0x", 0) == 0 ? h.substr(2) : h;
  if (s.size() != 64) throw std::invalid_argument(std::string(flag) + ": expected 64 hex digits (32 bytes)");
  std::uint8_t b[32];
  for (std::size_t i = 0; i < 32; ++i) {
    const auto nib = [&](char c) {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      throw std::invalid_argument(std::string(flag) + ": not hex");
    };
    b[i] = std::uint8_t(nib(s[2 * i]) * 16 + nib(s[2 * i + 1]));
  }
  const std::optional<ff::fr> x = ff::fr::from_bytes_le(b);
  if (!x) throw std::invalid_argument(std::string(flag) + ": not a canonical field element");
  return *x;
}

std::filesystem::path param_path(const std::string& dir, std::uint64_t sector_size, const char* ext) {
  return std::filesystem::path(dir) / (circuits::snap_param_file_stem(sector_size) + ext);
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open '" + path + "'");
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write_text(const std::string& path, std::string_view text) {
  std::ofstream f(path, std::ios::binary);
  f.write(text.data(), std::streamsize(text.size()));
  if (!f.flush()) throw std::runtime_error("writing '" + path + "' failed");
}

circuits::snap_public public_of(const snap_options& o, const circuits::snap_params& p) {
  return {fr_of_hex(o.comm_r_old, "--comm-r-old"), fr_of_hex(o.comm_d_new, "--comm-d-new"),
          fr_of_hex(o.comm_r_new, "--comm-r-new"), p.h_default()};
}

// The partition proofs of a vanilla file and the sector size they are for.
struct loaded_vanilla {
  circuits::snap_params params;
  std::vector<io::snap_partition_proof> partitions;
};

loaded_vanilla load_vanilla(const snap_options& o) {
  if (o.vanilla.empty()) throw std::invalid_argument("-t snap needs --vanilla FILE");
  const std::vector<std::vector<std::uint8_t>> raw = io::parse_snap_vanilla_json(read_text(o.vanilla), o.vanilla);
  loaded_vanilla v;
  for (std::size_t k = 0; k < raw.size(); ++k)
    v.partitions.push_back(io::read_snap_partition_proof(raw[k], o.vanilla + "[" + std::to_string(k) + "]"));
  if (!o.sector_size.empty()) {
    v.params = circuits::snap_params_for(size_of(o.sector_size));
    return v;
  }
  // Infer the size from the partition count and the tree D path length.
  if (v.partitions.empty() || v.partitions[0].challenge_proofs.empty())
    throw std::invalid_argument("the vanilla file holds no partition proofs");
  const std::size_t height = v.partitions[0].challenge_proofs[0].proof_d_new.base.size();
  v.params = circuits::snap_params_for(std::uint64_t(32) << height);
  return v;
}

}  // namespace

int run_snap_gen_vanilla(const snap_options& o, std::uint64_t seed, const std::string& out, bool check,
                         const std::string& commitments_out) {
  const circuits::snap_params p = circuits::snap_params_for(size_of(o.sector_size));
  const auto t0 = clock_type::now();
  const circuits::synthetic_snap s = circuits::generate_synthetic_snap(p, seed);
  const double gen_s = seconds_since(t0);
  if (check)
    for (std::size_t k = 0; k < s.partitions.size(); ++k) {
      const std::vector<std::string> problems = circuits::check_snap_partition(p, s.pub, k, s.partitions[k]);
      for (const std::string& e : problems) std::fprintf(stderr, "gen-vanilla: check: %s\n", e.c_str());
      if (!problems.empty()) return 1;
    }
  std::vector<std::vector<std::uint8_t>> raw;
  for (const io::snap_partition_proof& part : s.partitions) raw.push_back(io::write_snap_partition_proof(part));
  const std::string text = io::write_snap_vanilla_json(raw);
  write_text(out, text);
  const std::string comms = "--comm-r-old " + hex_of(s.pub.comm_r_old) + " --comm-d-new " + hex_of(s.pub.comm_d_new) +
                            " --comm-r-new " + hex_of(s.pub.comm_r_new);
  if (!commitments_out.empty()) write_text(commitments_out, comms + "\n");
  std::printf("wrote %s: snap %s, %zu partition(s) x %zu challenges, %zu bytes\n", out.c_str(), o.sector_size.c_str(),
              p.partition_count, p.challenge_count, text.size());
  std::printf("comm_r_old %s\ncomm_d_new %s\ncomm_r_new %s\n", hex_of(s.pub.comm_r_old).c_str(),
              hex_of(s.pub.comm_d_new).c_str(), hex_of(s.pub.comm_r_new).c_str());
  std::printf("generate %.3f s, total %.3f s\n", gen_s, seconds_since(t0));
  return 0;
}

int run_snap_gen_params(const snap_options& o, const std::string& out, std::uint64_t seed) {
  const std::uint64_t size = size_of(o.sector_size);
  std::fprintf(stderr,
               "gen-params: WARNING: parameters from a seeded setup are for tests only; anyone with the "
               "seed can forge proofs\n");
  std::filesystem::create_directories(out);
  const auto t0 = clock_type::now();
  const r1cs::r1cs_shape shape = circuits::snap_shape(circuits::snap_params_for(size));
  const double shape_s = seconds_since(t0);
  const auto t1 = clock_type::now();
  const groth16::parameters params = groth16::generate_parameters(shape, seed);
  const double setup_s = seconds_since(t1);
  const auto t2 = clock_type::now();
  io::write_parameters(params, param_path(out, size, ".params"));
  io::write_verifying_key(params.vk, param_path(out, size, ".vk"));
  io::write_meta(param_path(out, size, ".meta"), size);
  std::printf("wrote %s.{params,vk,meta}\n", param_path(out, size, "").string().c_str());
  std::printf("constraints %zu, inputs %zu, aux %zu; shape %.2f s, setup %.2f s, write %.2f s\n", shape.num_constraints,
              shape.num_inputs, shape.num_aux, shape_s, setup_s, seconds_since(t2));
  return 0;
}

int run_snap_prove(const snap_options& o, const std::string& params_dir, const std::string& out, bool check_points) {
  const auto t0 = clock_type::now();
  const loaded_vanilla v = load_vanilla(o);
  const circuits::snap_public pub = public_of(o, v.params);
  const double parse_s = seconds_since(t0);
  const auto t1 = clock_type::now();
  const groth16::parameters params = io::read_parameters(param_path(params_dir, v.params.sector_size(), ".params"),
                                                         io::read_options{.check_points = check_points});
  const double params_s = seconds_since(t1);
  const auto t2 = clock_type::now();
  const r1cs::r1cs_shape shape = circuits::snap_shape(v.params);
  const double shape_s = seconds_since(t2);
  const auto t3 = clock_type::now();
  const std::vector<groth16::proof> proofs = circuits::prove_snap(params, shape, v.params, pub, v.partitions);
  const double prove_s = seconds_since(t3);
  write_text(out, [&] {
    const std::vector<std::uint8_t> b = io::write_proofs(proofs);
    return std::string(b.begin(), b.end());
  }());
  std::printf("wrote %s: %zu partition proof(s), %zu bytes (snap %llu bytes)\n", out.c_str(), proofs.size(),
              proofs.size() * io::proof_size, static_cast<unsigned long long>(v.params.sector_size()));
  std::printf("parse %.2f s, params %.2f s, shape %.2f s, prove %.2f s\n", parse_s, params_s, shape_s, prove_s);
  return 0;
}

int run_snap_verify(const snap_options& o, const std::string& params_dir, const std::string& proof_path) {
  const circuits::snap_params p = circuits::snap_params_for(size_of(o.sector_size));
  const circuits::snap_public pub = public_of(o, p);
  const groth16::verifying_key vk = io::read_verifying_key(param_path(params_dir, p.sector_size(), ".vk"));
  const std::string bytes = read_text(proof_path);
  if (bytes.size() != p.partition_count * io::proof_size) {
    std::printf("invalid\n");
    std::fprintf(stderr, "verify: %s has %zu bytes, snap %s needs %zu partition proofs of %zu bytes\n",
                 proof_path.c_str(), bytes.size(), o.sector_size.c_str(), p.partition_count, io::proof_size);
    return 1;
  }
  const std::vector<groth16::proof> proofs =
      io::read_proofs(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()),
                      p.partition_count, proof_path);
  const bool ok = circuits::verify_snap(groth16::prepare_verifying_key(vk), p, pub, proofs);
  std::printf("%s\n", ok ? "valid" : "invalid");
  return ok ? 0 : 1;
}

int run_snap_public_inputs(const snap_options& o, int partition) {
  const circuits::snap_params p = circuits::snap_params_for(size_of(o.sector_size));
  const circuits::snap_public pub = public_of(o, p);
  const std::size_t first = partition < 0 ? 0 : std::size_t(partition);
  const std::size_t last = partition < 0 ? p.partition_count : first + 1;
  if (first >= p.partition_count)
    throw std::invalid_argument("--partition " + std::to_string(partition) + " of " +
                                std::to_string(p.partition_count));
  for (std::size_t k = first; k < last; ++k)
    for (const ff::fr& x : circuits::snap_public_inputs(p, pub, k)) std::printf("%s\n", hex_of(x).c_str());
  return 0;
}

}  // namespace cuzk::bench_app
