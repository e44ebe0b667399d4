// SPDX-License-Identifier: Apache-2.0
// The coded witness on the GPU (groth16/witness_upload_gpu.hpp): encode on
// the host, upload and expand on the device, download: equals the original
// witness, on random seeded witnesses with the PoRep mix, all-zero, all-one
// and all-other ones, at lengths around the word (32) and group (256)
// boundaries; a witness larger than the uploader is rejected; witnesses
// larger than the pinned staging ring (slots reused within and across uploads).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <cuzk/gpu/device.cuh>
#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/groth16/prover_gpu.hpp>
#include <cuzk/groth16/witness_upload_gpu.hpp>

#include "common/test_seed.hpp"
#include "common/witness_values.hpp"
#include "gpu/gpu_test_util.hpp"

namespace {

using namespace cuzk;
using ff::fr;

using cuzk::test::witness_values;

/// Uploads |all| (split at |n_inputs|) through |up| and checks the device copy;
/// d_w gets two sentinel elements past the end that must stay untouched.
void check_upload(groth16::gpu_witness_uploader& up, const std::vector<fr>& all, std::size_t n_inputs) {
  SCOPED_TRACE(::testing::Message() << all.size() << " values, " << n_inputs << " inputs");
  const std::span<const fr> inputs(all.data(), n_inputs), aux(all.data() + n_inputs, all.size() - n_inputs);
  const groth16::coded_witness cw = groth16::encode_witness(inputs, aux);
  gpu::stream s;
  const std::size_t len = all.size() + 2;
  const std::vector<fr> fill(len, fr::from_uint(99));
  gpu::device_buffer<fr> d_w(len), d_others(std::max<std::size_t>(cw.others.size(), 1));
  d_w.upload(fill.data(), len, s);
  up.upload(cw, d_w.data(), d_others.data(), s.get());
  std::vector<fr> got(len);
  d_w.download(got.data(), len, s);
  s.synchronize();
  EXPECT_EQ(got[all.size()], fill[0]);
  EXPECT_EQ(got[all.size() + 1], fill[0]);
  got.resize(all.size());
  EXPECT_EQ(test::first_mismatch(got, all), all.size());
}

TEST(gpu_coded_witness, ExpandEqualsOriginal) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(test::test_seed("gpu_coded_witness.ExpandEqualsOriginal"));
  groth16::gpu_witness_uploader up(0, std::size_t(1) << 21);
  EXPECT_EQ(up.device_bytes(), groth16::gpu_witness_uploader::device_bytes_for(std::size_t(1) << 21));
  for (const std::size_t n :
       {std::size_t(1), std::size_t(31), std::size_t(32), std::size_t(33), std::size_t(255), std::size_t(256),
        std::size_t(257), std::size_t(4097), std::size_t(100003), std::size_t(1) << 21}) {
    check_upload(up, witness_values(n, 0.51, 0.47, rng), std::min<std::size_t>(n, 7));
    check_upload(up, std::vector<fr>(n, fr::zero()), std::min<std::size_t>(n, 7));
    check_upload(up, std::vector<fr>(n, fr::one()), std::min<std::size_t>(n, 7));
    check_upload(up, witness_values(n, 0, 0, rng), std::min<std::size_t>(n, 7));
  }
  // larger than the uploader
  const auto big = witness_values((std::size_t(1) << 21) + 1, 0.5, 0.5, rng);
  const auto cw = groth16::encode_witness(big, {});
  gpu::device_buffer<fr> d_w(big.size()), d_o(1);
  EXPECT_THROW(up.upload(cw, d_w.data(), d_o.data(), nullptr), std::invalid_argument);
}

TEST(gpu_coded_witness, ExpandWrapsTheStagingRing) {
  // ~6.7 M other values = ~215 MB: more than the 2 x 64 MiB pinned ring, so
  // slots are reused within one upload, and again by the next upload
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(test::test_seed("gpu_coded_witness.ExpandWrapsTheStagingRing"));
  const std::size_t n = (std::size_t(1) << 23) + 77;
  static_assert(groth16::gpu_witness_staging_bytes == std::size_t(128) << 20);
  groth16::gpu_witness_uploader up(0, n);
  check_upload(up, witness_values(n, 0.1, 0.1, rng), 40);
  check_upload(up, witness_values(n, 0.3, 0.3, rng), 40);
}

}  // namespace
