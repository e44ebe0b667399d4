// SPDX-License-Identifier: Apache-2.0
#pragma once
// The host half of the GPU parameter setup (setup_gpu.hpp): every index
// computation and table the device kernels of src/cuda/setup/*.cu use,
// in plain C++, plus a host run of the same scalar pipeline so the indexing
// is unit-tested on machines without a GPU (tests/unit/setup_plan_gpu_test.cpp).
//
// Pieces, each mirrored by one kernel:
//  - split power tables: tau^i = lo[i mod 2^12] * mid[(i >> 12) mod 2^12] *
//    hi[i >> 24] (i < 2^36), so every thread gets its power with 2 (3 with a
//    scale) Fr multiplications and no sequential dependency. Tables:
//    3 x 4096 Fr = 384 KiB, ~12 k host multiplications.
//  - transposed products u = A^T L (and v, w) by a counting sort of the
//    non-zeros by column (count, exclusive scan, scatter of (row, coeff id)),
//    then one sum per column. Field sums are exact, so the order inside a
//    column (the device scatter uses atomics) does not change the result.
//  - query densities over the unified column space (inputs then aux): bit c
//    set when column c has a point in the A (every input, aux by
//    a_aux_density) or B (b_input_density, b_aux_density) query; a point's
//    position is rank(c) = word_off[c / 64] + popcount(word & bits below c).
//  - the IC / L combination (beta u + alpha v + w) / (gamma or delta) and the
//    H scalars tau^i Z(tau) / delta.
//  - the device-memory plan: bytes of every phase and the peak.
// Cost of the host pipeline (tests only): O(nnz + nv + m) Fr operations.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::groth16::gpu_setup_detail {

using ff::fr;

// ---- split power tables -------------------------------------------------------

inline constexpr unsigned power_split_bits = 12;
inline constexpr std::size_t power_split_size = std::size_t(1) << power_split_bits;
/// Largest exponent the three tables cover (exclusive).
inline constexpr std::uint64_t power_limit = std::uint64_t(1) << (3 * power_split_bits);

/// lo, mid, hi back to back (3 x 4096 Fr), the layout uploaded to the device.
std::vector<fr> make_power_tables(const fr& base);

/// base^i from the tables (i < power_limit); the device kernel's formula.
fr power_from_tables(std::span<const fr> tables, std::uint64_t i);

/// out[i] = scale * base^i for i < out.size(), by the tables.
void powers_host(std::span<const fr> tables, const fr& scale, std::span<fr> out);

// ---- transposed products --------------------------------------------------------

/// The transpose of one CSR matrix as the device builds it: col_ptr
/// (num_variables + 1 offsets) and, per non-zero sorted by column, its row
/// and coefficient id.
struct csc_matrix {
  std::vector<std::uint32_t> col_ptr;
  std::vector<std::uint32_t> rows, coeff_ids;
};

/// Counting sort by column (sequential; the device does the same with
/// atomics). Throws std::invalid_argument when the matrix has 2^32 or more
/// non-zeros (32-bit column offsets) or a column is out of range.
csc_matrix transpose(const r1cs::csr_matrix& m, std::size_t num_variables);

/// out[c] = sum over the non-zeros (row, id) of column c of
/// coeffs[id] * lagrange[row] (ids 0 / 1 add / subtract).
void column_sums(const csc_matrix& t, std::span<const fr> coeffs, std::span<const fr> lagrange, std::span<fr> out);

/// Columns longer than this are summed by a whole block on the device
/// (shared-memory tree), shorter ones by one thread.
inline constexpr std::uint32_t long_column = 256;

// ---- query densities ------------------------------------------------------------

/// A query's density over the unified column space, with the set bits before
/// each 64-bit word.
struct query_density {
  std::size_t n_bits = 0, count = 0;
  std::vector<std::uint64_t> words;
  std::vector<std::uint64_t> word_off;

  bool test(std::size_t c) const { return (words[c >> 6] >> (c & 63)) & 1; }
  /// Position of column c's point in the compressed query (c must be set).
  std::size_t rank(std::size_t c) const {
    const std::uint64_t w = words[c >> 6];
    const unsigned bit = unsigned(c & 63);
    const std::uint64_t below = bit ? (w & (~std::uint64_t(0) >> (64 - bit))) : 0;
    return std::size_t(word_off[c >> 6]) + std::size_t(__builtin_popcountll(below));
  }
};

/// A query: every input, then the aux variables of a_aux_density.
query_density a_query_density(const r1cs::r1cs_shape& shape);
/// B_G1 / B_G2: the inputs of b_input_density, then the aux of b_aux_density.
query_density b_query_density(const r1cs::r1cs_shape& shape);

/// dst[rank(c)] = src[c] for every set c (dst holds d.count elements).
void compact(const query_density& d, std::span<const fr> src, std::span<fr> dst);

// ---- scalars ------------------------------------------------------------------

/// Field constants of the scalar kernels.
struct scalar_constants {
  fr alpha, beta, gamma_inv, delta_inv, z_over_delta;
};
scalar_constants make_scalar_constants(const toxic_waste& t, std::size_t domain_size);

/// In place: w[i] = (beta u[i] + alpha v[i] + w[i]) * (i < num_inputs ?
/// 1/gamma : 1/delta), so w[0, ni) are the IC scalars and w[ni, nv) the L
/// scalars.
void combine_ic_l(const scalar_constants& k, std::size_t num_inputs, std::span<const fr> u, std::span<const fr> v,
                  std::span<fr> w);

/// Every query's scalars in the order of groth16::parameters, computed by
/// the pipeline above on the host (tests: the device runs the same steps).
struct query_scalars {
  std::vector<fr> h, l, a, b, ic;
};
query_scalars host_query_scalars(const r1cs::r1cs_shape& shape, const toxic_waste& t);

// ---- device memory plan ------------------------------------------------------------

/// Device bytes of each phase of generate_parameters_gpu (see setup_gpu.hpp).
struct memory_plan {
  std::size_t lagrange = 0;                             ///< 32 m (L, later the H scalars)
  std::size_t uvw = 0;                                  ///< 3 x 32 nv
  std::size_t transpose = 0;                            ///< largest matrix: CSR + counts + offsets + entries
  std::size_t ntt_tables = 0;                           ///< the GPU NTT's cached twiddles for m (stay cached)
  std::size_t h = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0;  ///< the queries
  std::size_t scratch_a = 0, scratch_b = 0;             ///< compacted A / B scalars
  std::size_t fixed_tables = 0;                         ///< G1 + G2 fixed-base tables
  std::size_t queries() const { return h + l + a + b_g1 + b_g2; }
  /// Largest sum of live buffers over the phases.
  std::size_t peak() const;
};
/// |ntt_table_bytes|: gpu_twiddle_bytes(lg m), passed in so this stays host-only.
memory_plan plan_memory(const r1cs::r1cs_shape& shape, std::size_t ntt_table_bytes);

/// Bytes of one matrix's transpose phase (CSR on the device, counts,
/// column offsets, (row, id) entries, long-column list).
std::size_t transpose_bytes(const r1cs::csr_matrix& m, std::size_t num_variables);

}  // namespace cuzk::groth16::gpu_setup_detail
