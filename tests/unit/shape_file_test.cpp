// SPDX-License-Identifier: Apache-2.0
// The .shape file (io/shape_file.hpp): a round trip of a real circuit's
// shape (the 2 KiB WinningPoSt, ~91k constraints) equals the built shape
// piece by piece; every header byte flipped, payload bytes flipped at
// random (seed printed), truncations and trailing bytes are refused with a
// format_error naming the file; shapes whose digest is right but whose
// structure is wrong (written on purpose) are refused naming the problem.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/shape_file.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "common/test_seed.hpp"
#include "unit/shape_test_support.hpp"

namespace {

using namespace cuzk;
namespace fs = std::filesystem;
using test::shape_dir;

const io::shape_key key{"winning-2k", 3};

TEST(shape_file, RoundTripEqualsTheBuiltShape) {
  const r1cs::r1cs_shape& s = test::winning_2k_shape();
  shape_dir d("roundtrip");
  const fs::path p = d.path / "w.shape";
  io::write_shape_file(p, s, key);
  const r1cs::r1cs_shape r = io::read_shape_file(p, key);
  EXPECT_EQ(r.num_inputs, s.num_inputs);
  EXPECT_EQ(r.num_aux, s.num_aux);
  EXPECT_EQ(r.num_constraints, s.num_constraints);
  EXPECT_TRUE(r.coeffs == s.coeffs);
  EXPECT_TRUE(r.a == s.a);
  EXPECT_TRUE(r.b == s.b);
  EXPECT_TRUE(r.c == s.c);
  EXPECT_TRUE(r.a_aux_density == s.a_aux_density);
  EXPECT_TRUE(r.b_input_density == s.b_input_density);
  EXPECT_TRUE(r.b_aux_density == s.b_aux_density);
  // the counts this file is about (a 2 KiB WinningPoSt, sanity)
  EXPECT_EQ(s.num_constraints, 66u * (313 + 2 * 530 + 2) + s.num_inputs);
  EXPECT_GT(s.a.nnz(), s.num_constraints);

  const io::shape_file_header h = io::read_shape_file_header(p);
  EXPECT_EQ(h.key, key);
  EXPECT_EQ(h.num_inputs, s.num_inputs);
  EXPECT_EQ(h.num_aux, s.num_aux);
  EXPECT_EQ(h.num_constraints, s.num_constraints);
  EXPECT_EQ(h.nnz_a, s.a.nnz());
  EXPECT_EQ(h.nnz_b, s.b.nnz());
  EXPECT_EQ(h.nnz_c, s.c.nnz());
  EXPECT_EQ(fs::file_size(p), 120 + key.circuit_id.size() + h.payload_bytes);
  // only the file itself is left in the folder (no temporary)
  EXPECT_EQ(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()), 1);
}

/// The problem in |p|'s format_error, which must name |p|.
std::string refusal(const fs::path& p, const io::shape_key& k) {
  try {
    (void)io::read_shape_file(p, k);
  } catch (const io::format_error& e) {
    EXPECT_EQ(e.path(), p.string());
    EXPECT_EQ(e.kind(), "shape");
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "read_shape_file accepted " << p;
  return "";
}

TEST(shape_file, EveryFlippedHeaderByteIsRefused) {
  // a small shape, so that reading it once per header byte is quick
  const r1cs::r1cs_shape s = r1cs::make_shape(r1cs::examples::chain_circuit{50, std::nullopt});
  shape_dir d("header");
  const fs::path good = d.path / "good.shape", bad = d.path / "bad.shape";
  io::write_shape_file(good, s, key);
  const std::vector<char> bytes = test::read_all(good);
  const std::size_t header = 120 + key.circuit_id.size();
  for (std::size_t i = 0; i < header; ++i) {
    for (std::uint8_t mask : {std::uint8_t(0x01), std::uint8_t(0x80)}) {
      std::vector<char> b = bytes;
      b[i] = char(std::uint8_t(b[i]) ^ mask);
      test::write_all(bad, b);
      SCOPED_TRACE("header byte " + std::to_string(i) + " ^ " + std::to_string(mask));
      refusal(bad, key);
    }
  }
}

TEST(shape_file, FlippedPayloadBytesAreRefusedByTheDigest) {
  const r1cs::r1cs_shape& s = test::winning_2k_shape();
  shape_dir d("payload");
  const fs::path good = d.path / "good.shape", bad = d.path / "bad.shape";
  io::write_shape_file(good, s, key);
  const std::vector<char> bytes = test::read_all(good);
  const std::size_t header = 120 + key.circuit_id.size();
  std::mt19937_64 rng(test::test_seed("shape_file.FlippedPayloadBytesAreRefusedByTheDigest"));
  std::vector<std::size_t> at = {header, bytes.size() - 1};  // first and last payload byte
  for (int i = 0; i < 6; ++i) at.push_back(header + rng() % (bytes.size() - header));
  for (std::size_t i : at) {
    std::vector<char> b = bytes;
    b[i] = char(std::uint8_t(b[i]) ^ std::uint8_t(1u << (rng() % 8)));
    test::write_all(bad, b);
    SCOPED_TRACE("payload byte " + std::to_string(i));
    EXPECT_NE(refusal(bad, key).find("digest mismatch"), std::string::npos);
  }
}

TEST(shape_file, TruncatedOrLongerFilesAreRefused) {
  const r1cs::r1cs_shape s = r1cs::make_shape(r1cs::examples::chain_circuit{50, std::nullopt});
  shape_dir d("truncated");
  const fs::path good = d.path / "good.shape", bad = d.path / "bad.shape";
  io::write_shape_file(good, s, key);
  const std::vector<char> bytes = test::read_all(good);
  for (std::size_t len : {std::size_t(0), std::size_t(7), std::size_t(119), std::size_t(125), std::size_t(130),
                          bytes.size() / 2, bytes.size() - 1}) {
    test::write_all(bad, {bytes.begin(), bytes.begin() + std::ptrdiff_t(len)});
    SCOPED_TRACE("length " + std::to_string(len));
    EXPECT_NE(refusal(bad, key).find("truncated"), std::string::npos);
    EXPECT_THROW(io::read_shape_file_header(bad), io::format_error);
  }
  std::vector<char> longer = bytes;
  longer.push_back(0);
  test::write_all(bad, longer);
  EXPECT_NE(refusal(bad, key).find("trailing"), std::string::npos);
}

TEST(shape_file, AnotherKeyIsRefusedAsStale) {
  const r1cs::r1cs_shape s = r1cs::make_shape(r1cs::examples::chain_circuit{50, std::nullopt});
  shape_dir d("stale");
  const fs::path p = d.path / "s.shape";
  io::write_shape_file(p, s, key);
  EXPECT_NE(refusal(p, {key.circuit_id, key.shape_version + 1}).find("stale"), std::string::npos);
  EXPECT_NE(refusal(p, {"winning-8m", key.shape_version}).find("stale"), std::string::npos);
  EXPECT_NO_THROW(io::read_shape_file(p, key));
}

// Shapes that the writer accepts (it checks sizes only) but whose contents
// break an invariant: the digest is right, the structure check refuses them.
TEST(shape_file, BadStructureWithAValidDigestIsRefused) {
  const r1cs::r1cs_shape base = r1cs::make_shape(r1cs::examples::chain_circuit{20, std::nullopt});
  ASSERT_GE(base.a.nnz(), 4u);
  shape_dir d("structure");
  const fs::path p = d.path / "x.shape";
  const auto refused = [&](const char* what, const std::string& expect, auto&& edit) {
    r1cs::r1cs_shape s = base;
    edit(s);
    io::write_shape_file(p, s, key);
    SCOPED_TRACE(what);
    const std::string msg = refusal(p, key);
    EXPECT_NE(msg.find(expect), std::string::npos) << msg;
  };
  refused("column out of range", "not below num_variables",
          [](r1cs::r1cs_shape& s) { s.a.cols.back() = std::uint32_t(s.num_variables()); });
  refused("coefficient id out of range", "not below the dictionary size",
          [](r1cs::r1cs_shape& s) { s.b.coeff_ids.front() = std::uint32_t(s.coeffs.size()); });
  refused("row_ptr decreasing", "row_ptr decreases", [](r1cs::r1cs_shape& s) {
    s.c.row_ptr[1] = s.c.row_ptr[2] + 1;  // row 1 then ends before it starts
  });
  refused("row_ptr not from 0", "row_ptr[0]", [](r1cs::r1cs_shape& s) { s.a.row_ptr[0] = 1; });
  refused("columns not increasing in a row", "not increasing", [](r1cs::r1cs_shape& s) {
    for (r1cs::csr_matrix* m : {&s.a, &s.b, &s.c})
      for (std::size_t i = 0; i < s.num_constraints; ++i)
        if (m->row_ptr[i + 1] - m->row_ptr[i] >= 2) {
          std::swap(m->cols[m->row_ptr[i]], m->cols[m->row_ptr[i] + 1]);
          return;
        }
    FAIL() << "no row with two entries";
  });
  refused("coefficient not reduced", "not reduced",
          [](r1cs::r1cs_shape& s) { s.coeffs.push_back(ff::fr::from_raw(ff::fr::modulus)); });
  refused("dictionary without 1 first", "coefficient 0 is not 1",
          [](r1cs::r1cs_shape& s) { s.coeffs[0] = ff::fr::from_uint(2); });
  refused("density bit of an absent variable", "marked present but the matrices say it is absent",
          [](r1cs::r1cs_shape& s) {
            for (std::size_t j = 0; j < s.num_aux; ++j)
              if (!s.a_aux_density.test(j)) {
                s.a_aux_density.set(j);
                return;
              }
            FAIL() << "every aux is in A";
          });
  refused("density bit of a present variable cleared", "not marked but the matrices say it is present",
          [](r1cs::r1cs_shape& s) {
            ASSERT_GT(s.b_aux_density.count(), 0u);
            s.b_aux_density = r1cs::density_mask(s.num_aux);
          });
  refused("density bit past the end", "bits set past", [](r1cs::r1cs_shape& s) {
    ASSERT_NE(s.num_aux % 64, 0u);
    s.b_aux_density.set(s.num_aux);  // inside the last word, past the last variable
  });
}

TEST(shape_file, ShapesTheFormatCannotHoldAreRefusedByTheWriter) {
  const r1cs::r1cs_shape base = r1cs::make_shape(r1cs::examples::chain_circuit{5, std::nullopt});
  shape_dir d("writer");
  const fs::path p = d.path / "w.shape";
  r1cs::r1cs_shape s = base;
  s.b_aux_density = r1cs::density_mask(s.num_aux + 1);
  EXPECT_THROW(io::write_shape_file(p, s, key), std::invalid_argument);
  s = base;
  s.c.cols.pop_back();
  EXPECT_THROW(io::write_shape_file(p, s, key), std::invalid_argument);
  EXPECT_THROW(io::write_shape_file(p, base, {"", 1}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(p));
  // a folder that does not exist: a format_error naming the file, no file left
  const fs::path nowhere = d.path / "no-such-folder" / "w.shape";
  try {
    io::write_shape_file(nowhere, base, key);
    ADD_FAILURE() << "wrote into a missing folder";
  } catch (const io::format_error& e) {
    EXPECT_EQ(e.path(), nowhere.string());
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()), 0);
}

}  // namespace
