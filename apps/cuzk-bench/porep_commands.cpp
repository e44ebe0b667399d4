// SPDX-License-Identifier: Apache-2.0
// PoRep C2 without the daemon:
//   cuzk-bench gen-params --type porep --sector-size S --out DIR [--seed N]
//   cuzk-bench prove --type porep --c1 c1.json --params DIR --out proof.bin [--threads N]
//   cuzk-bench verify --type porep --c1 c1.json --params DIR --proof proof.bin   (run_porep_verify)
//   cuzk-bench public-inputs --type porep --c1 c1.json [--partition K]
// Parameter files are named by the published stems (parameters.json), so a
// folder of real Filecoin parameters works as well as ours. gen-params runs
// our seeded setup: its toxic waste follows from the seed, so such
// parameters are for tests and benchmarks only (a warning says so). With a
// GPU (a CUDA build and a visible device; --cpu forces the CPU setup) the
// setup runs there (the same points byte for byte) and the queries stream
// from VRAM to the file through pinned staging (groth16/query_transfer_gpu.hpp
// into io::parameter_file_writer), so a 32 GiB PoRep's ~47 GB never sit on
// the host. prove
// reads parameters as rust-fil-proofs does for its cache (no subgroup check
// per point, which would cost minutes) unless --check-points is given.
// public-inputs prints one 32-byte little-endian hex Fr per line (ONE
// excluded), as the verifier derives them, for external verifiers.
// -t snap: the same commands for SnapDeals (snap_commands.cpp).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/circuits/porep_compound.hpp>
#include <cuzk/groth16/setup.hpp>
#if CUZK_HAVE_CUDA
#include <cuzk/gpu/runtime.hpp>
#include <cuzk/groth16/query_transfer_gpu.hpp>
#include <cuzk/groth16/setup_gpu.hpp>
#endif
#include <cuzk/engine/proof_kind.hpp>
#include <cuzk/io/hex.hpp>
#include <cuzk/io/parameter_file_sink.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/io/porep_c1.hpp>
#include <cuzk/io/proof_io.hpp>
#include <cuzk/io/shape_file.hpp>

#include "commands.hpp"

namespace cuzk::bench_app {
namespace {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

void require_porep(const std::string& type) {
  if (type != "porep") throw std::invalid_argument("unsupported --type '" + type + "' (porep, snap)");
}

std::filesystem::path param_path(const std::string& dir, std::uint64_t sector_size, const char* ext) {
  return std::filesystem::path(dir) / (circuits::porep_param_file_stem(sector_size) + ext);
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open '" + path + "'");
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f.flush()) throw std::runtime_error("writing '" + path + "' failed");
}

struct gen_params_options {
  std::string type = "porep", sector_size, out;
  std::uint64_t seed = 0;
  bool seed_given = false;
  bool cpu = false;  ///< the CPU setup even with a GPU present
  int device = 0;
};

#if CUZK_HAVE_CUDA
/// The setup on GPU |device|, streamed to |path|; returns the verifying key.
groth16::verifying_key gpu_setup_to_file(const r1cs::r1cs_shape& shape, std::uint64_t seed, int device,
                                         const std::filesystem::path& path, double* setup_s, double* write_s) {
  const auto t0 = clock_type::now();
  groth16::gpu_setup_timings st;
  const groth16::gpu_parameters gp =
      groth16::generate_parameters_gpu(shape, groth16::toxic_waste_from_seed(seed), {.device = device}, &st);
  *setup_s = seconds_since(t0);
  const auto t1 = clock_type::now();
  const groth16::query_sizes n = groth16::sizes_of(gp);
  io::parameter_file_writer w(path, gp.vk, {n.h, n.l, n.a, n.b_g1, n.b_g2});
  io::parameter_file_sink sink(w);
  groth16::download_queries(gp, sink);
  w.finish();
  *write_s = seconds_since(t1);
  std::printf(
      "gpu setup on device %d (s): lagrange %.2f, uvw %.2f, h %.2f, l %.2f, a %.2f, b_g1 %.2f, b_g2 %.2f, "
      "vk %.2f\n",
      device, st.lagrange_ms / 1e3, st.uvw_ms / 1e3, st.h_ms / 1e3, st.l_ms / 1e3, st.a_ms / 1e3, st.b_g1_ms / 1e3,
      st.b_g2_ms / 1e3, st.vk_ms / 1e3);
  return gp.vk;
}
#endif

int gen_params(const gen_params_options& o) {
  if (o.type == "snap") {
    const std::uint64_t seed =
        o.seed_given ? o.seed : (std::uint64_t(std::random_device{}()) << 32) | std::random_device{}();
    return run_snap_gen_params({o.sector_size, {}, {}, {}, {}}, o.out, seed);
  }
  require_porep(o.type);
  const std::optional<std::uint64_t> size = circuits::parse_sector_size(o.sector_size);
  if (!size) throw std::invalid_argument("bad --sector-size '" + o.sector_size + "'");
  const io::seal_proof_info* info = io::find_seal_proof_by_size(*size);
  if (!info) throw std::invalid_argument("no PoRep for sector size " + o.sector_size);
  std::uint64_t seed = o.seed;
  if (!o.seed_given) seed = (std::uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  std::fprintf(stderr,
               "gen-params: WARNING: parameters from a seeded setup are for tests only; anyone with the "
               "seed can forge proofs\n");
  std::filesystem::create_directories(o.out);
  const auto t0 = clock_type::now();
  const r1cs::r1cs_shape shape = circuits::porep_shape(*info);
  const double shape_s = seconds_since(t0);
  // the daemon's shape cache next to the parameters, so that its first
  // load reads the shape instead of synthesizing it again
  const auto t_shape = clock_type::now();
  io::write_shape_file(param_path(o.out, *size, ".shape"), shape,
                       {engine::porep_circuit_id(*size), circuits::porep_shape_version});
  std::printf("wrote %s (%.2f s)\n", param_path(o.out, *size, ".shape").string().c_str(), seconds_since(t_shape));
#if CUZK_HAVE_CUDA
  if (!o.cpu && gpu::device_count() > 0) {
    double setup_s = 0, write_s = 0;
    const groth16::verifying_key vk =
        gpu_setup_to_file(shape, seed, o.device, param_path(o.out, *size, ".params"), &setup_s, &write_s);
    io::write_verifying_key(vk, param_path(o.out, *size, ".vk"));
    io::write_meta(param_path(o.out, *size, ".meta"), *size);
    std::printf("wrote %s.{params,vk,meta}\n", param_path(o.out, *size, "").string().c_str());
    std::printf("constraints %zu, inputs %zu, aux %zu; shape %.2f s, gpu setup %.2f s, download and write %.2f s\n",
                shape.num_constraints, shape.num_inputs, shape.num_aux, shape_s, setup_s, write_s);
    return 0;
  }
#endif
  const auto t1 = clock_type::now();
  groth16::setup_timings st;
  const groth16::parameters params = groth16::generate_parameters(shape, seed, &st);
  const double setup_s = seconds_since(t1);
  const auto t2 = clock_type::now();
  io::write_parameters(params, param_path(o.out, *size, ".params"));
  io::write_verifying_key(params.vk, param_path(o.out, *size, ".vk"));
  io::write_meta(param_path(o.out, *size, ".meta"), *size);
  std::printf("wrote %s.{params,vk,meta}\n", param_path(o.out, *size, "").string().c_str());
  std::printf("constraints %zu, inputs %zu, aux %zu; shape %.2f s, setup %.2f s, write %.2f s\n", shape.num_constraints,
              shape.num_inputs, shape.num_aux, shape_s, setup_s, seconds_since(t2));
  std::printf(
      "setup steps (s): lagrange %.2f, uvw %.2f, scalars %.2f, tables %.2f, vk %.2f, h %.2f (%zu), "
      "l %.2f (%zu), a %.2f (%zu), b_g1 %.2f (%zu), b_g2 %.2f (%zu)\n",
      st.lagrange_ms / 1e3, st.uvw_ms / 1e3, st.scalars_ms / 1e3, st.tables_ms / 1e3, st.vk_ms / 1e3, st.h_ms / 1e3,
      params.h.size(), st.l_ms / 1e3, params.l.size(), st.a_ms / 1e3, params.a.size(), st.b_g1_ms / 1e3,
      params.b_g1.size(), st.b_g2_ms / 1e3, params.b_g2.size());
  return 0;
}

struct prove_options {
  std::string type = "porep", c1, params, out;
  unsigned threads = 0;
  bool check_points = false;
  snap_options snap;
};

int prove(const prove_options& o) {
  if (o.type == "snap") return run_snap_prove(o.snap, o.params, o.out, o.check_points);
  require_porep(o.type);
  if (o.c1.empty()) throw std::invalid_argument("-t porep needs --c1 FILE");
  const auto t0 = clock_type::now();
  const io::c1_output c1 = io::read_c1_file(o.c1);
  const std::uint64_t size = c1.proof->sector_size;
  const double parse_s = seconds_since(t0);
  const auto t1 = clock_type::now();
  const groth16::parameters params =
      io::read_parameters(param_path(o.params, size, ".params"), io::read_options{.check_points = o.check_points});
  const double params_s = seconds_since(t1);
  const auto t2 = clock_type::now();
  const r1cs::r1cs_shape shape = circuits::porep_shape(*c1.proof);
  const double shape_s = seconds_since(t2);
  const auto t3 = clock_type::now();
  const std::vector<groth16::proof> proofs = circuits::prove_porep(params, shape, c1, o.threads);
  const double prove_s = seconds_since(t3);
  write_bytes(o.out, io::write_proofs(proofs));
  std::printf("wrote %s: %zu partition proof(s), %zu bytes (%s)\n", o.out.c_str(), proofs.size(),
              proofs.size() * io::proof_size, std::string(c1.proof->name).c_str());
  std::printf("parse %.2f s, params %.2f s, shape %.2f s, prove %.2f s\n", parse_s, params_s, shape_s, prove_s);
  return 0;
}

struct public_inputs_options {
  std::string type = "porep", c1;
  int partition = -1;
  snap_options snap;
};

int public_inputs(const public_inputs_options& o) {
  if (o.type == "snap") return run_snap_public_inputs(o.snap, o.partition);
  require_porep(o.type);
  if (o.c1.empty()) throw std::invalid_argument("-t porep needs --c1 FILE");
  const io::c1_output c1 = io::read_c1_file(o.c1);
  const std::size_t first = o.partition < 0 ? 0 : std::size_t(o.partition);
  const std::size_t last = o.partition < 0 ? c1.proof->partitions : first + 1;
  if (first >= c1.proof->partitions)
    throw std::invalid_argument("--partition " + std::to_string(o.partition) + " of " +
                                std::to_string(c1.proof->partitions));
  for (std::size_t k = first; k < last; ++k)
    for (const ff::fr& x : circuits::porep_public_inputs(c1, k)) {
      std::uint8_t b[32];
      x.to_bytes_le(b);
      std::printf("%s\n", io::to_hex(b).c_str());
    }
  return 0;
}

}  // namespace

int run_porep_verify(const std::string& c1_path, const std::string& params_dir, const std::string& proof_path) {
  const io::c1_output c1 = io::read_c1_file(c1_path);
  const groth16::verifying_key vk = io::read_verifying_key(param_path(params_dir, c1.proof->sector_size, ".vk"));
  const std::vector<std::uint8_t> bytes = read_bytes(proof_path);
  if (bytes.size() != std::size_t(c1.proof->partitions) * io::proof_size) {
    std::printf("invalid\n");
    std::fprintf(stderr, "verify: %s has %zu bytes, %s needs %u partition proofs of %zu bytes\n", proof_path.c_str(),
                 bytes.size(), std::string(c1.proof->name).c_str(), c1.proof->partitions, io::proof_size);
    return 1;
  }
  const std::vector<groth16::proof> proofs = io::read_proofs(bytes, c1.proof->partitions, proof_path);
  const bool ok = circuits::verify_porep(groth16::prepare_verifying_key(vk), c1, proofs);
  std::printf("%s\n", ok ? "valid" : "invalid");
  return ok ? 0 : 1;
}

void register_porep_commands(CLI::App& app) {
  static gen_params_options g;
  auto* gp = app.add_subcommand("gen-params", "generate test Groth16 parameters (seeded setup) for a circuit");
  gp->add_option("-t,--type", g.type, "porep | snap")->default_val("porep");
  gp->add_option("--sector-size", g.sector_size, "2KiB | 8MiB | 512MiB | 32GiB | 64GiB | bytes")->required();
  gp->add_option("--out", g.out, "output folder (files named as in parameters.json)")->required();
  gp->add_option("--seed", g.seed, "setup seed (default: random)")->each([](const std::string&) {
    g.seed_given = true;
  });
  gp->add_flag("--cpu", g.cpu, "porep: the CPU setup even when a GPU is present");
  gp->add_option("--device", g.device, "porep: CUDA device of the GPU setup")->default_val(0);
  gp->callback([] { run_subcommand("gen-params", [] { return gen_params(g); }); });

  static prove_options p;
  auto* pr = app.add_subcommand("prove", "prove a PoRep C2 or a SnapDeals update on this machine (no daemon)");
  pr->add_option("-t,--type", p.type, "porep | snap")->default_val("porep");
  pr->add_option("--c1", p.c1, "porep: C1 output JSON (bare or lotus-bench wrapper)");
  pr->add_option("--sector-size", p.snap.sector_size, "snap: sector size (default: from the vanilla proofs)");
  add_snap_options(pr, p.snap);
  pr->add_option("--params", p.params, "folder holding the parameters by published name")->required();
  pr->add_option("--out", p.out, "proof file (192 bytes per partition)")->required();
  pr->add_option("--threads", p.threads, "witness threads (0: all)");
  pr->add_flag("--check-points", p.check_points,
               "subgroup-check every parameter point while reading (~80x slower; the curve equation and "
               "canonical encodings are always checked)");
  pr->callback([] { run_subcommand("prove", [] { return prove(p); }); });

  static public_inputs_options q;
  auto* pi = app.add_subcommand("public-inputs", "print a PoRep's public inputs, one LE hex Fr per line");
  pi->add_option("-t,--type", q.type, "porep | snap")->default_val("porep");
  pi->add_option("--c1", q.c1, "porep: C1 output JSON");
  pi->add_option("--sector-size", q.snap.sector_size, "snap: sector size");
  add_snap_options(pi, q.snap);
  pi->add_option("--partition", q.partition, "only this partition (default: all, in order)");
  pi->callback([] { run_subcommand("public-inputs", [] { return public_inputs(q); }); });
}

}  // namespace cuzk::bench_app
