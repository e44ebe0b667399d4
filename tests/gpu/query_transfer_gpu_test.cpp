// SPDX-License-Identifier: Apache-2.0
// Moving proving queries between files and VRAM in chunks (label gpu; every
// test skips without a device):
//  * upload_queries with staging buffers of a few points (many chunks, each
//    chunk's copy overlapping the next fill) gives the same points as the
//    host parameters (download_parameters compares them back);
//  * download_queries into io::parameter_file_writer writes the same bytes
//    as io::write_parameters of the host parameters;
//  * the CUDA backend's load_queries from a mapped .params file: proofs from
//    the device-resident queries equal, byte for byte, proofs from the host
//    parameters for the same r, s, and verify; a corrupt point fails the load
//    naming its section and the backend keeps proving.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "common/test_seed.hpp"
#include "gpu_test_util.hpp"

#include <cuzk/engine/prover_backend.hpp>
#include <cuzk/groth16/query_transfer_gpu.hpp>
#include <cuzk/groth16/setup_gpu.hpp>
#include <cuzk/groth16/prover.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/parameter_file_sink.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/io/proof_io.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#if !defined(CUZK_ENGINE_HAVE_GPU)
#error "query_transfer_gpu_test needs cuzk_engine built with the CUDA backend (CUZK_ENGINE_HAVE_GPU)"
#endif

namespace {

using namespace cuzk;
namespace eng = cuzk::engine;

struct chain_case {
  r1cs::r1cs_shape shape;
  groth16::parameters params;
  groth16::witness w;
  std::vector<ff::fr> publics;
};

chain_case make_case(std::size_t steps, std::uint64_t seed) {
  chain_case c;
  c.shape = r1cs::make_shape(r1cs::examples::chain_circuit{steps, std::nullopt});
  c.params = groth16::generate_parameters(c.shape, seed);
  const auto cs = r1cs::make_witness(r1cs::examples::chain_circuit{steps, ff::fr::from_uint(seed % 1000 + 3)},
                                     c.shape.num_inputs, c.shape.num_aux);
  c.w = {{cs.inputs().begin(), cs.inputs().end()}, {cs.aux().begin(), cs.aux().end()}};
  c.publics.assign(c.w.inputs.begin() + 1, c.w.inputs.end());
  return c;
}

/// Points straight from host parameters.
class host_source final : public groth16::query_source {
 public:
  explicit host_source(const groth16::parameters& p) : _p(p) {}
  void fill_g1(groth16::query_id q, std::size_t first, std::span<ec::g1_affine> out) override {
    const std::vector<ec::g1_affine>& v = q == groth16::query_id::h   ? _p.h
                                          : q == groth16::query_id::l ? _p.l
                                          : q == groth16::query_id::a ? _p.a
                                                                      : _p.b_g1;
    ASSERT_LE(first + out.size(), v.size());
    std::copy_n(v.begin() + std::ptrdiff_t(first), out.size(), out.begin());
    ++calls;
  }
  void fill_g2(std::size_t first, std::span<ec::g2_affine> out) override {
    ASSERT_LE(first + out.size(), _p.b_g2.size());
    std::copy_n(_p.b_g2.begin() + std::ptrdiff_t(first), out.size(), out.begin());
    ++calls;
  }
  std::size_t calls = 0;

 private:
  const groth16::parameters& _p;
};

std::vector<std::uint8_t> read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::filesystem::path temp_folder(const std::string& tag) {
  auto dir = std::filesystem::temp_directory_path() / ("cuzk-qt-" + tag + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(query_transfer_gpu, ChunkedUploadAndDownloadKeepEveryPoint) {
  CUZK_REQUIRE_GPU();
  const std::uint64_t seed = test::test_seed("query_transfer_gpu.ChunkedUploadAndDownloadKeepEveryPoint");
  const chain_case c = make_case(300, seed);
  const groth16::query_sizes sizes = groth16::sizes_of(c.params);
  // 7 G1 points (3.5 G2 points) per buffer: many chunks, none crossing a query
  groth16::query_transfer_config cfg;
  cfg.staging_bytes = 7 * sizeof(ec::g1_affine);
  std::size_t checks = 0;
  cfg.between_chunks = [&] { ++checks; };
  host_source src(c.params);
  const std::vector<int> devices{0};
  auto gp = groth16::upload_queries(devices, c.params.vk, sizes, src, cfg);
  ASSERT_EQ(gp.size(), 1u);
  EXPECT_EQ(groth16::sizes_of(gp[0]), sizes);
  EXPECT_EQ(src.calls, checks);
  EXPECT_GT(src.calls, 5 * 4u) << "every query in several chunks";
  const groth16::parameters back = groth16::download_parameters(gp[0]);
  EXPECT_EQ(back.h, c.params.h);
  EXPECT_EQ(back.l, c.params.l);
  EXPECT_EQ(back.a, c.params.a);
  EXPECT_EQ(back.b_g1, c.params.b_g1);
  EXPECT_EQ(back.b_g2, c.params.b_g2);
  EXPECT_EQ(back.vk, c.params.vk);

  // and back out to a file, in small chunks: the bytes write_parameters writes
  const auto dir = temp_folder("down");
  io::write_parameters(c.params, dir / "host.params");
  {
    io::parameter_file_writer w(dir / "dev.params", gp[0].vk, {sizes.h, sizes.l, sizes.a, sizes.b_g1, sizes.b_g2});
    io::parameter_file_sink sink(w);
    groth16::download_queries(gp[0], sink, cfg);
    w.finish();
  }
  EXPECT_EQ(read_all(dir / "dev.params"), read_all(dir / "host.params")) << "seed " << seed;
  std::filesystem::remove_all(dir);

  // a source that throws stops the upload; the next one still works
  struct failing final : groth16::query_source {
    void fill_g1(groth16::query_id, std::size_t first, std::span<ec::g1_affine>) override {
      if (first > 10) throw std::runtime_error("bad chunk");
    }
    void fill_g2(std::size_t, std::span<ec::g2_affine>) override {}
  } bad;
  EXPECT_THROW((void)groth16::upload_queries(devices, c.params.vk, sizes, bad, cfg), std::runtime_error);
  host_source again(c.params);
  EXPECT_EQ(groth16::download_parameters(groth16::upload_queries(devices, c.params.vk, sizes, again)[0]).l, c.params.l);
}

TEST(query_transfer_gpu, BackendProvesFromAFileLoadedStraightToTheDevice) {
  CUZK_REQUIRE_GPU();
  const std::uint64_t seed = test::test_seed("query_transfer_gpu.BackendProvesFromAFileLoadedStraightToTheDevice");
  chain_case c = make_case(200, seed);
  const auto dir = temp_folder("load");
  const auto path = dir / "chain.params";
  io::write_parameters(c.params, path);
  auto backend = eng::make_gpu_backend({});
  ASSERT_TRUE(backend->loads_queries());
  const io::mapped_parameter_file file(path);
  groth16::parameters vk_only;
  vk_only.vk = io::decode_verifying_key(file.layout());
  // the SRS manager's shape: the backend builds its provers from it at load,
  // after which its host matrices can go (release_matrices, as the manager does)
  r1cs::r1cs_shape shape = c.shape;
  const auto resident = backend->load_queries(file, vk_only, shape, {.check_points = true}, nullptr);
  ASSERT_NE(resident, nullptr);
  EXPECT_TRUE(resident->holds_shape());
  // the queries, and each device's prover (matrices, per-proof buffers)
  EXPECT_GT(resident->device_bytes(), groth16::sizes_of(c.params).bytes());
  r1cs::release_matrices(shape);
  ASSERT_FALSE(shape.has_matrices());

  std::mt19937_64 rng(seed);
  const auto pvk = groth16::prepare_verifying_key(c.params.vk);
  for (int k = 0; k < 2; ++k) {  // the second proof reuses the cached prover
    const ff::fr r = ff::fr::random(rng), s = ff::fr::random(rng);
    groth16::witness w1 = c.w, w2 = c.w;
    const groth16::proof from_device = backend->finalize(backend->prove_start(0, vk_only, shape, std::move(w1), r, s));
    const groth16::proof from_host = backend->finalize(backend->prove_start(0, c.params, c.shape, std::move(w2), r, s));
    EXPECT_EQ(io::write_proof(from_device), io::write_proof(from_host)) << "seed " << seed << " proof " << k;
    EXPECT_TRUE(groth16::verify(pvk, from_device, c.publics));
    std::vector<ff::fr> wrong = c.publics;
    wrong[0] += ff::fr::one();
    EXPECT_FALSE(groth16::verify(pvk, from_device, wrong));
  }

  // a corrupt point in the middle of l: the load fails naming it
  std::vector<std::uint8_t> bytes = read_all(path);
  const io::section& l = file.at("l");
  bytes[l.offset + (l.count / 2) * l.point_size + 70] ^= 1;
  const auto bad_path = dir / "bad.params";
  {
    std::ofstream out(bad_path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  const io::mapped_parameter_file bad(bad_path);
  groth16::parameters bad_vk;
  bad_vk.vk = io::decode_verifying_key(bad.layout());
  try {
    (void)backend->load_queries(bad, bad_vk, c.shape, {.check_points = false}, nullptr);
    FAIL() << "a corrupt point loaded";
  } catch (const io::format_error& e) {
    EXPECT_NE(std::string(e.what()).find("section 'l'"), std::string::npos) << e.what();
  }
  // still proving from the first load
  groth16::witness w = c.w;
  const groth16::proof again = backend->finalize(
      backend->prove_start(0, vk_only, shape, std::move(w), ff::fr::from_uint(5), ff::fr::from_uint(6)));
  EXPECT_TRUE(groth16::verify(pvk, again, c.publics));
  std::filesystem::remove_all(dir);
}

}  // namespace
