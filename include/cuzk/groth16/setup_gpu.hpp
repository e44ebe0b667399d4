// SPDX-License-Identifier: Apache-2.0
#pragma once
// Seeded Groth16 test parameters computed on a GPU (same toxic waste, same
// points as groth16::generate_parameters in setup.hpp, byte for byte), left
// in the GPU's memory for a gpu_prover. Host-includable (no CUDA headers).
// NOT a trusted setup: whoever knows the seed can forge proofs.
//
// Method (src/cuda/setup/setup.cu; index logic in setup_plan_gpu.hpp, tested
// on the host), m = domain size, nv = inputs + aux:
//  1. L_j(tau) = iNTT(tau^0 .. tau^(m-1)) on the device (powers from split
//     tables, 2 Fr multiplications each).
//  2. u, v, w = A^T L, B^T L, C^T L, one matrix at a time: CSR upload,
//     counting sort by column (atomic histogram, CUB scan, atomic scatter of
//     (row, coeff id)), one thread per column (one block for columns of more
//     than 256 non-zeros) sums coeff * L[row].
//  3. H scalars tau^i Z(tau) / delta into the L buffer; H points.
//  4. w <- (beta u + alpha v + w) / (gamma | delta) in place; IC scalars to
//     the host, L points from w[ni..).
//  5. A scalars compacted from u (every input, a_aux_density), A points;
//     B scalars compacted from v, B_G1 and B_G2 points.
//  Points: one thread per point, k * G = sum over 32 windows of 8 bits of a
//  table entry d * 2^(8w) * G (the ec::fixed_base_table of the CPU setup,
//  uploaded), XYZZ mixed additions, then affine with one Fermat inversion
//  per 8 (G2: 4) points of a thread (Montgomery's trick). Verifying key
//  (6 points + IC) on the host.
// Cost at the 32 GiB PoRep (m = 2^27, nv ~ 1.3e8, ~7e8 non-zeros): ~5e8 G1
// points x (<= 32 mixed additions (8M + 2S) + ~8 M + 1/8 inversion, about
// 400 Fp multiplications) and |b| G2 points x the same in Fp2 (1/4
// inversion); 3 transposes of O(nnz) atomics and gathers; one 2^27 iNTT.
// Device memory: gpu_setup_peak_bytes(shape) (formula: memory_plan::peak in
// setup_plan_gpu.hpp), about the final queries + 32 |b| + the NTT tables
// when the queries dominate; checked against the free memory before
// anything is allocated.

#include <cstddef>
#include <memory>

#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::groth16 {

struct device_queries;  // cuzk/groth16/device_queries.cuh

/// A verifying key on the host and the proving queries on one device.
struct gpu_parameters {
  verifying_key vk;
  std::shared_ptr<device_queries> queries;
};

struct gpu_setup_config {
  int device = 0;
};

/// Wall-clock milliseconds of each step (device work synchronised at the
/// end of each), for benchmark reports.
struct gpu_setup_timings {
  double lagrange_ms = 0;  ///< shape checks, power tables, tau powers, iNTT
  double uvw_ms = 0;       ///< the three transposed products
  double h_ms = 0;         ///< H scalars and points
  double l_ms = 0;         ///< IC / L scalars, L points
  double a_ms = 0;         ///< A compaction and points
  double b_g1_ms = 0;      ///< B compaction and B_G1 points
  double b_g2_ms = 0;      ///< B_G2 points
  double vk_ms = 0;        ///< verifying key on the host (tables, alpha..delta, IC)
  double total_ms = 0;
  std::size_t planned_peak_bytes = 0;  ///< gpu_setup_peak_bytes(shape)
};

/// Parameters for |shape| (input constraints included, as for setup.hpp),
/// computed on cfg.device. Throws std::invalid_argument for an unconstrained
/// aux variable (as generate_parameters does) and cuzk::gpu::cuda_error on
/// any CUDA failure, including too little device memory.
/// |timings|, when given, receives the time of each step.
gpu_parameters generate_parameters_gpu(const r1cs::r1cs_shape& shape, const toxic_waste& t,
                                       const gpu_setup_config& cfg = {}, gpu_setup_timings* timings = nullptr);

/// Peak device bytes generate_parameters_gpu(shape) allocates (the NTT's
/// cached tables for the domain included).
std::size_t gpu_setup_peak_bytes(const r1cs::r1cs_shape& shape);

/// Host copy of |p| (tests; writing a .params file).
parameters download_parameters(const gpu_parameters& p);

/// Device bytes held by |p|'s queries.
std::size_t device_bytes(const gpu_parameters& p);

}  // namespace cuzk::groth16
