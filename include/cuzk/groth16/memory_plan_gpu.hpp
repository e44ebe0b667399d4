// SPDX-License-Identifier: Apache-2.0
#pragma once
// The GPU prover's memory plan (gpu_memory_plan): where its queries, the A/B
// matrices and the per-proof vectors live, and how what stays on the host
// streams. gpu_prover chooses it at construction with choose_gpu_memory_plan
// from sizes alone (gpu_plan_inputs), so the choice at real sizes (the
// 32 GiB PoRep under a 16 or 24 GiB limit) is tested on machines without a
// GPU (tests/device_host/memory_plan_test.cpp).
//
// How it chooses: every plan of the search space (below) whose device bytes
// fit the usable bytes is priced by gpu_plan_streaming_ms, a model of the
// milliseconds its streaming adds to a partition; the cheapest wins (ties:
// fewer bytes). A greedy fill, largest query first, was wrong where it
// mattered: at a 24 GiB limit it made B_G2 resident (6.4 GB saving 106 ms)
// and then had no room for the matrices (5.6 GB, 102 ms) and L beside H
// (~1 GB, 123 ms); measured on an H100, 2026-12-06: 1784 ms per partition
// against 1629 for the plan the model picks. The search space: the vectors
// apart or compact; any subset of the five queries and the matrices
// resident; H streamed in chunks of 2^20-2^23 terms; L, A and B in chunks
// of 2^20-2^25; L beside H in chunks of 2^22 or 2^23 or not at all; all
// fixed where gpu_plan_inputs fixes them. ~10^4 plans, each a few size
// sums: ~6 ms per prover, once at construction.

#include <cstddef>

#include <cuzk/groth16/query_transfer_gpu.hpp>

namespace cuzk::groth16 {

/// Where a prover keeps its queries and per-proof vectors (see the header
/// comment for how it is chosen). Vectors: five apart, or compact: three of
/// max(m, nv) values instead of 2 nv + 3 m (the 32 GiB PoRep: 12.9 GB
/// instead of 21.2): w, dead once a and b are formed, holds the scratch of
/// H and is expanded again from the host's coded witness after the H MSM
/// (~90 MB moved; a witness sent as it is moves again whole), and the
/// compacted A/B scalars reuse h's vector. A streamed H MSM runs through the
/// NTT's scratch vector, dead by then; L, A and B through two chunk buffers
/// (under compact vectors a dead per-proof vector, when a chunk fits it);
/// streamed matrices in row blocks through the SpMV
/// (r1cs::gpu_spmv_config::stream_block_nnz).
struct gpu_memory_plan {
  bool compact_vectors = false;
  /// Resident queries (b_g2 also when B_G2 runs on the CPU: nothing to stream).
  bool h = false, l = false, a = false, b_g1 = false, b_g2 = false;
  /// The A and B matrices on the device (false: streamed by every SpMV).
  bool matrices = false;
  /// Some queries stream and their host memory is pinned (by its owner:
  /// pin_host_queries), so their copies run at the link's speed and overlap
  /// the MSMs; false with streamed queries: pageable copies (measured on the
  /// H200 host, 2026-12-04: 4-7 GB/s).
  bool streamed_pinned = false;
  /// Terms per streamed chunk of L, A and B_G1 (B_G2: half as many, the
  /// same bytes); 0: none of them streams.
  std::size_t chunk_terms = 0;
  std::size_t h_chunk_terms = 0;  ///< terms per streamed chunk of H (0: H resident)
  /// L and H both streamed: L's MSM runs beside H's on a second stream, in
  /// chunks of this many terms through the tail of the vector H lends its
  /// pairs from, with scratch of its own (0: L runs after H). Why: H's MSM
  /// is bound by arithmetic and leaves the link idle ~70% of its time,
  /// while L's is bound by the link (12.5 GB per 32 GiB partition), so L's
  /// copy fits in H's idle link time.
  std::size_t l_beside_h_chunk_terms = 0;
  std::size_t spmv_block_nnz = 0;  ///< non-zeros per streamed matrix block (0: resident)
  std::size_t planned_bytes = 0;   ///< device bytes the plan needs
  std::size_t usable_bytes = 0;    ///< what it was chosen against
  /// Every query resident (the matrices apart).
  bool all_resident() const { return h && l && a && b_g1 && b_g2; }
};

/// Non-zeros per block of streamed matrices: a 512 MiB staging buffer (the
/// 32 GiB PoRep's A, 309 M non-zeros, in 10 blocks).
inline constexpr std::size_t gpu_plan_spmv_block_nnz = std::size_t(1) << 25;

/// What a plan is chosen from: the circuit's sizes, its matrices' device
/// bytes, the queries, the prover's configuration and the usable bytes.
struct gpu_plan_inputs {
  unsigned lg_m = 0;              ///< log2 of the evaluation domain's size m
  std::size_t num_variables = 0;  ///< nv: inputs and aux
  query_sizes queries;
  /// The A/B matrices' device bytes resident (r1cs::gpu_shape_bytes) and
  /// streamed in blocks of gpu_plan_spmv_block_nnz (their row plans and
  /// staging), and the host bytes each streamed SpMV moves
  /// (r1cs::gpu_shape_stream_bytes).
  std::size_t matrices_resident_bytes = 0, matrices_streamed_bytes = 0, matrices_stream_traffic = 0;
  /// The queries are already in VRAM (gpu_parameters): resident, costing
  /// nothing here; only the vectors are chosen.
  bool queries_on_device = false;
  std::size_t usable_bytes = 0;
  int device = 0;  ///< for the error message
  // gpu_prover_config's choices
  bool b_g2_on_cpu = false;
  bool force_streaming = false;        ///< nothing resident, the matrices included
  std::size_t stream_chunk_terms = 0;  ///< every chunk this size, lent ones too (0: searched)
  unsigned h_window_bits = 0, sparse_window_bits = 0;
};

/// The cheapest plan that fits in.usable_bytes (gpu_plan_streaming_ms; ties:
/// fewer bytes), with planned_bytes and usable_bytes set (streamed_pinned is
/// the caller's). gpu::cuda_error (cudaErrorMemoryAllocation, saying how
/// many MiB are usable and how many the least plan needs) when none fits.
gpu_memory_plan choose_gpu_memory_plan(const gpu_plan_inputs& in);

/// Device bytes |p| takes: its resident queries (unless already there), the
/// vectors, the MSM scratch (the largest resident query of each group, a
/// chunk of a streamed one, a streamed H's held buckets, L's own beside H),
/// the chunk buffers of L, A and B when they do not fit a dead vector, the
/// matrices resident or their streaming's staging, the coded witness and
/// the NTT tables.
std::size_t gpu_plan_device_bytes(const gpu_memory_plan& p, const gpu_plan_inputs& in);

/// Modeled milliseconds per partition that |p|'s streaming adds to a prover
/// with everything resident (the model and its measurements: memory_plan.cu).
double gpu_plan_streaming_ms(const gpu_memory_plan& p, const gpu_plan_inputs& in);

}  // namespace cuzk::groth16
