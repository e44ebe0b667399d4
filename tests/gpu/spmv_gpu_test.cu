// SPDX-License-Identifier: Apache-2.0
// The load-balanced GPU SpMV (r1cs::gpu_shape) against r1cs::evaluate_abc on
// random seeded shapes whose row lengths exercise every path of the row
// classification: empty rows, thread-per-row rows, rows of one warp task,
// rows cut into many warp tasks (10^5 and 10^6 non-zeros in one row), a
// single row, every row long; coefficient ids +1, -1 and dictionary entries
// mixed, and all of one kind; assignments with 0, 1 and -1 among random
// values. Each shape runs under several classifications (gpu_spmv_config),
// through the host overload (A, B, C) and the device one (A, B only, outputs
// at an offset inside larger buffers whose other elements must stay
// untouched). The streamed configs keep the matrices on the host and copy
// them in row blocks per call: blocks of a few rows (every long row a block
// of its own, tasks and partial sums numbered over the whole matrix), a
// middle size, and one block for everything. device_bytes() must equal
// gpu_shape_bytes(). Resident matrices are packed (32-bit row offsets per
// group of rows, 16-bit ids for small dictionaries): group ends and both id
// widths are covered. Seeds printed (CUZK_TEST_SEED replays one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include <cuzk/gpu/device.cuh>
#include <cuzk/r1cs/shape.hpp>
#include <cuzk/r1cs/spmv_gpu.hpp>

#include "common/test_seed.hpp"
#include "gpu/gpu_test_util.hpp"

namespace {

using namespace cuzk;
using ff::fr;

/// Share of coefficient ids: +1, -1, the rest dictionary entries.
struct id_mix {
  double one = 0.4, minus_one = 0.3;
};

/// |len_of(row, rng)| non-zeros per row (capped at |vars|), distinct sorted
/// random columns, ids drawn by |mix| from a dictionary of 2 + |extra|
/// entries; the three matrices drawn independently.
r1cs::r1cs_shape random_shape(std::size_t rows, std::size_t vars, std::mt19937_64& rng,
                              const std::function<std::size_t(std::size_t, std::mt19937_64&)>& len_of, id_mix mix = {},
                              std::size_t extra = 40) {
  r1cs::r1cs_shape s;
  s.num_inputs = 1;
  s.num_aux = vars - 1;
  s.num_constraints = rows;
  s.coeffs = {fr::one(), -fr::one()};
  for (std::size_t i = 0; i < extra; ++i) s.coeffs.push_back(fr::random(rng));
  std::vector<std::uint32_t> all(vars);
  std::iota(all.begin(), all.end(), 0u);
  std::vector<char> seen(vars, 0);
  std::uniform_real_distribution<double> u(0, 1);
  for (r1cs::csr_matrix* m : {&s.a, &s.b, &s.c}) {
    for (std::size_t i = 0; i < rows; ++i) {
      const std::size_t len = std::min(vars, len_of(i, rng));
      const std::size_t at = m->cols.size();
      if (len * 8 > vars) {  // dense-ish: a partial shuffle
        for (std::size_t j = 0; j < len; ++j)
          std::swap(all[j], all[j + std::uniform_int_distribution<std::size_t>(0, vars - 1 - j)(rng)]);
        m->cols.insert(m->cols.end(), all.begin(), all.begin() + std::ptrdiff_t(len));
      } else {
        while (m->cols.size() - at < len) {
          const auto c = std::uint32_t(std::uniform_int_distribution<std::size_t>(0, vars - 1)(rng));
          if (!seen[c]) seen[c] = 1, m->cols.push_back(c);
        }
        for (std::size_t k = at; k < m->cols.size(); ++k) seen[m->cols[k]] = 0;
      }
      std::sort(m->cols.begin() + std::ptrdiff_t(at), m->cols.end());
      for (std::size_t k = 0; k < len; ++k) {
        const double x = u(rng);
        m->coeff_ids.push_back(x < mix.one ? r1cs::r1cs_shape::coeff_one
                               : x < mix.one + mix.minus_one || extra == 0
                                   ? r1cs::r1cs_shape::coeff_minus_one
                                   : std::uint32_t(2 + std::uniform_int_distribution<std::size_t>(0, extra - 1)(rng)));
      }
      m->row_ptr.push_back(m->cols.size());
    }
  }
  return s;
}

/// w[0] = 1, then random values with 0, 1 and -1 sprinkled in.
std::vector<fr> random_assignment(std::size_t vars, std::mt19937_64& rng) {
  std::vector<fr> w(vars);
  for (std::size_t i = 0; i < vars; ++i) {
    switch (rng() % 8) {
      case 0: w[i] = fr::zero(); break;
      case 1: w[i] = fr::one(); break;
      case 2: w[i] = -fr::one(); break;
      default: w[i] = fr::random(rng);
    }
  }
  w[0] = fr::one();
  return w;
}

const r1cs::gpu_spmv_config configs[] = {
    {},                                         // the defaults
    {.short_row_max = 1, .warp_chunk = 32},     // almost everything through warps, many partials
    {.short_row_max = 64, .warp_chunk = 4096},  // the other extreme
    {.short_row_max = 3, .warp_chunk = 96},
    // streamed in row blocks
    {.short_row_max = 3, .warp_chunk = 96, .stream_block_nnz = 7},
    {.short_row_max = 1, .warp_chunk = 32, .stream_block_nnz = 5000},
    {.stream_block_nnz = std::size_t(1) << 40},
};

/// The gpu_shape of |cfg|: streamed ones from the shared shape.
r1cs::gpu_shape make_shape(const std::shared_ptr<const r1cs::r1cs_shape>& s, bool with_c,
                           const r1cs::gpu_spmv_config& cfg) {
  if (!cfg.stream_block_nnz) return r1cs::gpu_shape(*s, 0, with_c, cfg);
  r1cs::gpu_shape gs(s, 0, with_c, cfg);
  EXPECT_TRUE(gs.streamed());
  EXPECT_TRUE(gs.streamed_pinned()) << "the host matrices could not be pinned";
  return gs;
}

/// GPU == CPU for |s| under every config, both overloads.
void check_shape(const r1cs::r1cs_shape& shape, std::mt19937_64& rng, const char* what) {
  const auto held = std::make_shared<const r1cs::r1cs_shape>(shape);
  const r1cs::r1cs_shape& s = *held;
  const std::size_t n = s.num_constraints;
  const std::vector<fr> w = random_assignment(s.num_variables(), rng);
  const auto want = r1cs::evaluate_abc(s, w);
  for (const auto& cfg : configs) {
    SCOPED_TRACE(::testing::Message() << what << ", short_row_max " << cfg.short_row_max << ", warp_chunk "
                                      << cfg.warp_chunk << ", stream_block_nnz " << cfg.stream_block_nnz);
    {  // host overload, A B C
      const r1cs::gpu_shape gs = make_shape(held, true, cfg);
      EXPECT_EQ(gs.device_bytes(), r1cs::gpu_shape_bytes(s, true, cfg));
      std::vector<fr> a(n), b(n), c(n);
      gs.evaluate_abc(w, a, b, c);
      EXPECT_EQ(test::first_mismatch(want.a, a), n);
      EXPECT_EQ(test::first_mismatch(want.b, b), n);
      EXPECT_EQ(test::first_mismatch(want.c, c), n);
    }
    {  // device overload, A B only, outputs at an offset of 2 elements
      const r1cs::gpu_shape gs = make_shape(held, false, cfg);
      EXPECT_EQ(gs.device_bytes(), r1cs::gpu_shape_bytes(s, false, cfg));
      gpu::stream st;
      const std::size_t len = n + 5;
      const std::vector<fr> fill(len, fr::from_uint(77));
      gpu::device_buffer<fr> d_w(w.size()), d_a(len), d_b(len);
      d_w.upload(w.data(), w.size(), st);
      d_a.upload(fill.data(), len, st);
      d_b.upload(fill.data(), len, st);
      gs.evaluate_ab(d_w.data(), d_a.data() + 2, d_b.data() + 2, st.get());
      std::vector<fr> a(len), b(len);
      d_a.download(a.data(), len, st);
      d_b.download(b.data(), len, st);
      st.synchronize();
      for (auto* v : {&a, &b}) {
        EXPECT_EQ((*v)[0], fill[0]);
        EXPECT_EQ((*v)[1], fill[0]);
        for (std::size_t k = n + 2; k < len; ++k) EXPECT_EQ((*v)[k], fill[0]) << "past the rows";
      }
      EXPECT_EQ(test::first_mismatch(want.a, std::vector<fr>(a.begin() + 2, a.begin() + 2 + std::ptrdiff_t(n))), n);
      EXPECT_EQ(test::first_mismatch(want.b, std::vector<fr>(b.begin() + 2, b.begin() + 2 + std::ptrdiff_t(n))), n);
    }
  }
}

/// PoRep-like lengths: mostly 1-3, some 9..66, a few 250..1000, some empty.
std::size_t porep_like(std::size_t, std::mt19937_64& rng) {
  const auto x = rng() % 1000;
  if (x < 5) return 0;
  if (x < 600) return 1;
  if (x < 850) return 2;
  if (x < 985) return 3;
  if (x < 990) return 4 + rng() % 5;
  if (x < 997) return 9 + rng() % 58;
  return 250 + rng() % 750;
}

TEST(gpu_spmv, PorepLikeRowsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(test::test_seed("gpu_spmv.PorepLikeRowsMatchCpu"));
  check_shape(random_shape(60000, 50000, rng, porep_like), rng, "porep-like");
}

TEST(gpu_spmv, VeryLongRowsMatchCpu) {
  // one row of 10^6 and one of 10^5 non-zeros among short rows
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(test::test_seed("gpu_spmv.VeryLongRowsMatchCpu"));
  const auto len = [](std::size_t i, std::mt19937_64& r) -> std::size_t {
    if (i == 3) return 1000000;
    if (i == 17) return 100000;
    return porep_like(i, r);
  };
  check_shape(random_shape(40, (std::size_t(1) << 20) + 12345, rng, len), rng, "10^6 and 10^5");
}

TEST(gpu_spmv, SingleRowMatchesCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(test::test_seed("gpu_spmv.SingleRowMatchesCpu"));
  for (const std::size_t l :
       {std::size_t(0), std::size_t(1), std::size_t(8), std::size_t(9), std::size_t(33), std::size_t(100000)}) {
    const auto len = [l](std::size_t, std::mt19937_64&) { return l; };
    const std::string what = "single row of " + std::to_string(l);
    check_shape(random_shape(1, 200000, rng, len), rng, what.c_str());
  }
}

TEST(gpu_spmv, AllRowsLongMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(test::test_seed("gpu_spmv.AllRowsLongMatchCpu"));
  const auto len = [](std::size_t, std::mt19937_64& r) -> std::size_t { return 1500 + r() % 3000; };
  check_shape(random_shape(300, 20000, rng, len), rng, "all rows long");
}

TEST(gpu_spmv, EmptyRowsAndUniformIdsMatchCpu) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(test::test_seed("gpu_spmv.EmptyRowsAndUniformIdsMatchCpu"));
  const auto none = [](std::size_t, std::mt19937_64&) -> std::size_t { return 0; };
  check_shape(random_shape(1000, 100, rng, none), rng, "all rows empty");
  check_shape(random_shape(5000, 6000, rng, porep_like, {1.0, 0.0}), rng, "all +1");
  check_shape(random_shape(5000, 6000, rng, porep_like, {0.0, 1.0}), rng, "all -1");
  check_shape(random_shape(5000, 6000, rng, porep_like, {0.0, 0.0}, 1000), rng, "all dictionary");
  // an empty dictionary beyond 1 and -1
  check_shape(random_shape(5000, 6000, rng, porep_like, {0.5, 0.5}, 0), rng, "only +-1");
}

TEST(gpu_spmv, PackedOffsetsAndIdsMatchCpu) {
  // resident matrices are packed: row offsets within groups of 4096 rows
  // (a row count that ends a group exactly, long rows across group ends),
  // 16-bit ids up to a dictionary of 2^16 entries (the largest id used) and
  // 32-bit ids beyond it
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(test::test_seed("gpu_spmv.PackedOffsetsAndIdsMatchCpu"));
  const auto long_at_group_ends = [](std::size_t i, std::mt19937_64& r) -> std::size_t {
    return (i + 1) % 4096 < 2 ? 3000 + r() % 2000 : porep_like(i, r);
  };
  check_shape(random_shape(8192, 9000, rng, long_at_group_ends), rng, "two whole groups");
  check_shape(random_shape(3 * 4096 + 17, 9000, rng, long_at_group_ends), rng, "three groups and a part");
  auto largest_id = [](r1cs::r1cs_shape s) {
    for (r1cs::csr_matrix* m : {&s.a, &s.b, &s.c})
      if (!m->coeff_ids.empty()) m->coeff_ids.back() = std::uint32_t(s.coeffs.size() - 1);
    return s;
  };
  const std::size_t short_max = std::size_t(1) << 16;
  check_shape(largest_id(random_shape(6000, 7000, rng, porep_like, {0.1, 0.1}, short_max - 2)), rng,
              "2^16 coefficients: 16-bit ids, the largest used");
  check_shape(largest_id(random_shape(6000, 7000, rng, porep_like, {0.1, 0.1}, short_max - 1)), rng,
              "2^16 + 1 coefficients: 32-bit ids");
}

TEST(gpu_spmv, RejectsBadConfigAndMisalignedVectors) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(test::test_seed("gpu_spmv.RejectsBadConfigAndMisalignedVectors"));
  const auto s = random_shape(100, 100, rng, porep_like);
  EXPECT_THROW(r1cs::gpu_shape(s, 0, false, {.short_row_max = 0}), std::invalid_argument);
  EXPECT_THROW(r1cs::gpu_shape(s, 0, false, {.short_row_max = 65}), std::invalid_argument);
  // streaming needs the shape held
  EXPECT_THROW(r1cs::gpu_shape(s, 0, false, {.stream_block_nnz = 64}), std::invalid_argument);
  EXPECT_THROW(r1cs::gpu_shape(std::shared_ptr<const r1cs::r1cs_shape>(), 0, false, {.stream_block_nnz = 64}),
               std::invalid_argument);
  EXPECT_THROW(r1cs::gpu_shape(s, 0, false, {.warp_chunk = 48}), std::invalid_argument);
  EXPECT_THROW((void)r1cs::gpu_shape_bytes(s, false, {.warp_chunk = 0}), std::invalid_argument);
  const r1cs::gpu_shape gs(s, 0, false);
  gpu::device_buffer<fr> d_w(s.num_variables() + 1), d_a(101), d_b(101);
  const auto* odd = reinterpret_cast<const fr*>(reinterpret_cast<const char*>(d_w.data()) + 8);
  EXPECT_THROW(gs.evaluate_ab(odd, d_a.data(), d_b.data(), nullptr), std::invalid_argument);
}

}  // namespace
