// SPDX-License-Identifier: Apache-2.0
#pragma once
// Sizes the memory plan (memory_plan.cu) charges and the prover (prover.cu)
// allocates by: the per-proof vectors, H's streamed chunks, the layout of
// the vector H's MSM lends when L runs beside it, and the working bytes of
// a prover besides its queries. Host code only; one definition for both
// sides, so what is planned is what is taken.

#include <cstddef>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::groth16::plan_sizes {

/// Elements of each per-proof vector under a compact plan (gpu_memory_plan):
/// each holds w, a domain vector or the compacted scalars in turn.
inline std::size_t compact_vector_len(std::size_t nv, std::size_t m) { return m > nv ? m : nv; }

/// Elements of the vector the NTT uses as scratch (c), which the H MSM
/// lends as its chunk buffers when H streams.
inline std::size_t scratch_vector_len(std::size_t nv, std::size_t m, bool compact) {
  return compact ? compact_vector_len(nv, m) : m;
}

/// G1 terms of each of two chunk buffers a vector of |values| Fr values
/// holds (a G2 chunk: half the terms, the same bytes).
inline std::size_t two_chunk_terms(std::size_t values) { return values * sizeof(ff::fr) / (2 * sizeof(ec::g1_affine)); }

/// Terms per streamed H chunk: two chunks fill the scratch vector (at most
/// |cap| terms when set, at most |h| terms).
inline std::size_t h_chunk_for(std::size_t nv, std::size_t m, bool compact, std::size_t h, std::size_t cap) {
  std::size_t chunk = two_chunk_terms(scratch_vector_len(nv, m, compact));
  if (cap && cap < chunk) chunk = cap;
  if (h < chunk) chunk = h;
  return chunk > 0 ? chunk : 1;
}

/// The vector H's MSM lends its pair buffer from (b, |vector_bytes|) when L
/// runs beside it (gpu_memory_plan::l_beside_h_chunk_terms): the pairs
/// first, then H's two chunk buffers, then L's.
struct beside_layout {
  std::size_t pair_bytes = 0, h_offset = 0, h_bytes = 0, l_offset = 0, l_bytes = 0;
  /// Whether the pairs' part holds the most pairs H's MSM takes: one per
  /// non-zero digit of a chunk, every window of it at once.
  bool fits(std::size_t h_chunk, unsigned h_window_bits) const {
    const std::size_t windows = (256 + h_window_bits - 1) / h_window_bits;
    return pair_bytes >= windows * h_chunk * 8;
  }
};
inline beside_layout beside_layout_for(std::size_t vector_bytes, std::size_t h_chunk, std::size_t l_chunk) {
  auto two_chunks = [](std::size_t terms) { return 2 * ((terms * sizeof(ec::g1_affine) + 15) / 16 * 16); };
  beside_layout z;
  z.h_bytes = two_chunks(h_chunk);
  z.l_bytes = two_chunks(l_chunk);
  if (vector_bytes < z.h_bytes + z.l_bytes) return {};
  z.pair_bytes = (vector_bytes - z.h_bytes - z.l_bytes) / 16 * 16;
  z.h_offset = z.pair_bytes;
  z.l_offset = z.h_offset + z.h_bytes;
  return z;
}

/// Device bytes a prover needs besides the queries, with MSMs of at most
/// |msm_terms_g1| / |msm_terms_g2| terms at once, a streamed H MSM's
/// |h_streamed_scratch| (msm::gpu_msm_streamed_scratch_bytes, 0 when H is
/// resident) and the matrices' |shape_bytes| (resident or streamed).
/// Defined in memory_plan.cu.
std::size_t working_bytes_for(std::size_t nv, unsigned lg_m, std::size_t msm_terms_g1, std::size_t msm_terms_g2,
                              bool compact, std::size_t shape_bytes, std::size_t h_streamed_scratch = 0);

}  // namespace cuzk::groth16::plan_sizes
