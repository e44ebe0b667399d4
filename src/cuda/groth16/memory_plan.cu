// SPDX-License-Identifier: Apache-2.0
// The GPU prover's memory plan: its device bytes, the model of what its
// streaming costs, and the search for the cheapest plan that fits
// (cuzk/groth16/memory_plan_gpu.hpp). Host code only.
//
// The model (gpu_plan_streaming_ms), in milliseconds per partition against
// a prover with everything resident, from measurements of the 32 GiB PoRep
// on the H100 host (bench/RESULTS.md, 2026-12-06):
//  - the link: 50 GB/s pinned host to device (the streamed matrices, 5.60 GB
//    per SpMV, take it from 11 to 113 ms; L, 12.5 GB streamed, 238-252 ms);
//  - a streamed L, A or B MSM: its bytes at that rate, plus 0.25 ms per
//    chunk (L one after H: 1063 ms together in chunks of 2^20, against
//    ~1036 in chunks of 2^23, 108 chunks fewer);
//  - L beside H: half of that (H and L together 913 ms against H 786 and
//    L 250 one after the other);
//  - a streamed H: a fifth of its bytes at that rate (its copies run
//    under its arithmetic: 786-806 ms streamed against 741 resident for
//    12.9 GB, 258 ms of link), plus 0.1 ms per chunk, a bound from 793 ms
//    in 24 chunks against 794 in 6, there only to prefer fewer chunks;
//  - the matrices streamed: their bytes at that rate;
//  - compact vectors: the coded witness uploaded again (its bound).
// A card with a slower link (PCIe 4.0: ~25 GB/s) scales every byte term
// alike, so the order of plans mostly holds; the per-chunk terms only break
// ties between chunk sizes.

#include <cuzk/groth16/memory_plan_gpu.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include <cuzk/gpu/runtime.hpp>
#include <cuzk/groth16/prover_gpu.hpp>
#include <cuzk/groth16/witness_upload_gpu.hpp>
#include <cuzk/msm/msm_gpu.hpp>
#include <cuzk/ntt/ntt_gpu.hpp>

#include "plan_sizes.cuh"

namespace cuzk::groth16 {

namespace plan_sizes {
std::size_t working_bytes_for(std::size_t nv, unsigned lg_m, std::size_t msm_terms_g1, std::size_t msm_terms_g2,
                              bool compact, std::size_t shape_bytes, std::size_t held_scratch) {
  const std::size_t m = std::size_t(1) << lg_m;
  const std::size_t vectors = sizeof(ff::fr) * (compact ? 3 * compact_vector_len(nv, m) : 2 * nv + 3 * m);
  // the H MSM borrows the b vector (m values) as its pair buffer (run_h);
  // every MSM of the prover takes its scalars in place (device vectors)
  const std::size_t scratch =
      std::max({msm::gpu_msm_scratch_bytes<ff::fp>(msm_terms_g1, 0, sizeof(ff::fr) * m, /*host_scalars=*/false),
                msm::gpu_msm_scratch_bytes<ff::fp2>(msm_terms_g2, 0, 0, /*host_scalars=*/false), held_scratch});
  return vectors + scratch + shape_bytes + gpu_witness_uploader::device_bytes_for(nv) + ntt::gpu_twiddle_bytes(lg_m) +
         (std::size_t(3) << 20);  // densities, CUB and runtime slack
}
}  // namespace plan_sizes

namespace {

constexpr double link_bytes_per_ms = 50e6;
constexpr double witness_chunk_ms = 0.25, h_chunk_ms = 0.1;
constexpr double beside_share = 0.5, h_streamed_share = 0.2;

using flag = bool gpu_memory_plan::*;

/// One of the four witness queries (L, A, B_G1, B_G2).
struct witness_query {
  flag resident;
  std::size_t count;
  bool g2;
};

std::array<witness_query, 4> witness_queries(const query_sizes& q) {
  return {{{&gpu_memory_plan::l, q.l, false},
           {&gpu_memory_plan::a, q.a, false},
           {&gpu_memory_plan::b_g1, q.b_g1, false},
           {&gpu_memory_plan::b_g2, q.b_g2, true}}};
}

std::size_t point_bytes(bool g2) { return g2 ? sizeof(ec::g2_affine) : sizeof(ec::g1_affine); }

/// Terms of a streamed chunk of |g1_terms| G1 terms' bytes.
std::size_t chunk_terms_of(std::size_t g1_terms, bool g2) {
  return g2 ? std::max<std::size_t>(1, g1_terms / 2) : g1_terms;
}

std::size_t chunks_of(std::size_t n, std::size_t chunk) { return chunk ? (n + chunk - 1) / chunk : 0; }

/// B_G2 runs in finalize on the CPU: nothing of it on the device.
bool on_cpu(const witness_query& x, const gpu_plan_inputs& in) { return x.g2 && in.b_g2_on_cpu; }

bool witness_queries_stream(const gpu_memory_plan& p, const gpu_plan_inputs& in) {
  for (const witness_query& x : witness_queries(in.queries))
    if (x.count && !(p.*x.resident) && !on_cpu(x, in)) return true;
  return false;
}

/// The vectors the witness MSMs are lent as their chunk buffers (b after
/// the H MSM, a witness-sized one in a batch) hold two chunks of at least
/// |least| and at most |most| G1 terms. While the plan's chunk fits the
/// least, no chunk buffers of their own; unless the chunk is configured, a
/// coded witness's MSMs then run in chunks of what they are lent (fewer,
/// larger MSMs: gpu_prover's run_witness_msm_batch), a witness sent as it
/// is in the plan's chunks.
struct lent_chunks {
  std::size_t least, most;
};
lent_chunks lent_for(const gpu_plan_inputs& in) {
  const std::size_t m = std::size_t(1) << in.lg_m, nv = in.num_variables;
  return {plan_sizes::two_chunk_terms(std::min(nv, m)), plan_sizes::two_chunk_terms(std::max(nv, m))};
}

/// Whether a coded witness's MSMs run in chunks of what they are lent.
bool witness_runs_lent(const gpu_memory_plan& p, const gpu_plan_inputs& in) {
  return !in.stream_chunk_terms && p.chunk_terms <= lent_for(in).least;
}

/// The G1 terms per chunk the witness MSMs of a coded witness run in.
std::size_t witness_run_chunk(const gpu_memory_plan& p, const gpu_plan_inputs& in) {
  return witness_runs_lent(p, in) ? lent_for(in).least : p.chunk_terms;
}

unsigned h_window_for(const gpu_plan_inputs& in, std::size_t h_chunk) {
  return in.h_window_bits ? in.h_window_bits : msm::gpu_streamed_window_bits(in.queries.h, h_chunk);
}

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20); }

}  // namespace

std::size_t gpu_plan_device_bytes(const gpu_memory_plan& p, const gpu_plan_inputs& in) {
  const query_sizes& q = in.queries;
  const std::size_t m = std::size_t(1) << in.lg_m, nv = in.num_variables;
  const std::size_t max_others = gpu_coded_witness_max_others(nv);
  std::size_t held = 0, g1_terms = 0, g2_terms = 0, held_scratch = 0;
  if (q.h) {
    if (p.h) {
      held += in.queries_on_device ? 0 : q.h * sizeof(ec::g1_affine);
      g1_terms = q.h;
    } else {
      // one MSM over every chunk, its buckets held throughout
      held_scratch =
          msm::gpu_msm_streamed_scratch_bytes<ff::fp>(q.h, p.h_chunk_terms, in.h_window_bits, sizeof(ff::fr) * m);
    }
  }
  std::size_t streamed_g1 = 0, streamed_g2 = 0;  // the largest streamed witness query of each group
  for (const witness_query& x : witness_queries(q)) {
    if (x.count == 0 || on_cpu(x, in)) continue;
    std::size_t& terms = x.g2 ? g2_terms : g1_terms;
    if (p.*x.resident) {
      held += in.queries_on_device ? 0 : x.count * point_bytes(x.g2);
      terms = std::max(terms, x.count);
    } else {
      // a witness sent as it is: random-scalar scratch for a chunk
      terms = std::max(terms, std::min(x.count, chunk_terms_of(p.chunk_terms, x.g2)));
      std::size_t& streamed = x.g2 ? streamed_g2 : streamed_g1;
      streamed = std::max(streamed, x.count);
    }
  }
  std::size_t chunk_buffers = 0;
  if (streamed_g1 || streamed_g2) {
    const lent_chunks lent = lent_for(in);
    if (p.chunk_terms > lent.least) chunk_buffers = 2 * p.chunk_terms * sizeof(ec::g1_affine);
    if (witness_runs_lent(p, in)) {
      // a coded witness (at most max_others other values) in chunks of
      // what it is lent, up to lent.most: the held plan's scratch bounds
      // a batch's per-chunk MSMs too (theirs take the windows in turn)
      held_scratch = std::max({held_scratch,
                               msm::gpu_msm_streamed_sparse_scratch_bytes<ff::fp>(streamed_g1, lent.most, max_others,
                                                                                  in.sparse_window_bits),
                               msm::gpu_msm_streamed_sparse_scratch_bytes<ff::fp2>(
                                   streamed_g2, chunk_terms_of(lent.most, true), max_others, in.sparse_window_bits)});
    }
  }
  // L beside H: its own scratch (its chunk buffers are in b), for a coded
  // witness's most other values (gpu_prover's l_beside_h_for)
  const std::size_t beside = p.l_beside_h_chunk_terms
                                 ? msm::gpu_msm_streamed_sparse_scratch_bytes<ff::fp>(q.l, p.l_beside_h_chunk_terms,
                                                                                      max_others, in.sparse_window_bits)
                                 : 0;
  const std::size_t shape = p.matrices ? in.matrices_resident_bytes : in.matrices_streamed_bytes;
  return held + chunk_buffers + beside +
         plan_sizes::working_bytes_for(nv, in.lg_m, g1_terms, g2_terms, p.compact_vectors, shape, held_scratch);
}

double gpu_plan_streaming_ms(const gpu_memory_plan& p, const gpu_plan_inputs& in) {
  const query_sizes& q = in.queries;
  auto link_ms = [](std::size_t bytes) { return double(bytes) / link_bytes_per_ms; };
  double ms = 0;
  if (p.compact_vectors) ms += link_ms(gpu_coded_witness_host_bytes(in.num_variables));
  if (!p.matrices) ms += link_ms(in.matrices_stream_traffic);
  if (q.h && !p.h)
    ms +=
        h_streamed_share * link_ms(q.h * sizeof(ec::g1_affine)) + h_chunk_ms * double(chunks_of(q.h, p.h_chunk_terms));
  const std::size_t run_chunk = witness_run_chunk(p, in);
  for (const witness_query& x : witness_queries(q)) {
    if (x.count == 0 || on_cpu(x, in) || p.*x.resident) continue;
    const bool beside = x.resident == &gpu_memory_plan::l && p.l_beside_h_chunk_terms;
    const std::size_t chunk = beside ? p.l_beside_h_chunk_terms : chunk_terms_of(run_chunk, x.g2);
    const double serial = link_ms(x.count * point_bytes(x.g2)) + witness_chunk_ms * double(chunks_of(x.count, chunk));
    ms += beside ? beside_share * serial : serial;
  }
  return ms;
}

gpu_memory_plan choose_gpu_memory_plan(const gpu_plan_inputs& in) {
  const query_sizes& q = in.queries;
  const std::size_t m = std::size_t(1) << in.lg_m, nv = in.num_variables;
  const std::size_t configured = in.stream_chunk_terms;
  // the search space (memory_plan_gpu.hpp)
  std::vector<std::size_t> h_caps, chunks, beside_chunks;
  if (configured) {
    h_caps = chunks = {configured};
    beside_chunks = {0, std::min(configured, q.l)};
  } else {
    // H's chunks from 2^23 to 2^22 terms, where they were measured to cost
    // the same (the model's h_chunk_ms); smaller ones only when nothing fits
    h_caps = {std::size_t(1) << 23, std::size_t(1) << 22};
    for (unsigned lg = 25; lg >= 20; --lg) chunks.push_back(std::size_t(1) << lg);
    // not smaller: each chunk of a held mostly_binary MSM costs ~2.6 ms of
    // kernels beside H's (2^20-term chunks on an H100, 2026-12-06: H and L
    // together 1138 ms, one after the other 1063)
    beside_chunks = {0, std::min(std::size_t(1) << 23, q.l), std::min(std::size_t(1) << 22, q.l)};
  }
  // residency: bits h, l, a, b_g1, b_g2, matrices
  constexpr std::array<flag, 6> flags{&gpu_memory_plan::h,    &gpu_memory_plan::l,    &gpu_memory_plan::a,
                                      &gpu_memory_plan::b_g1, &gpu_memory_plan::b_g2, &gpu_memory_plan::matrices};
  std::vector<unsigned> masks;
  if (in.queries_on_device) masks = {0x3f};
  else if (in.force_streaming) masks = {0};
  else
    for (unsigned mask = 0x3f + 1; mask-- > 0;) masks.push_back(mask);

  gpu_memory_plan best;
  double best_ms = std::numeric_limits<double>::infinity();
  std::size_t best_bytes = 0, least_bytes = std::numeric_limits<std::size_t>::max();
  auto consider = [&](const gpu_memory_plan& p) {
    const std::size_t bytes = gpu_plan_device_bytes(p, in);
    least_bytes = std::min(least_bytes, bytes);
    if (bytes > in.usable_bytes) return;
    const double ms = gpu_plan_streaming_ms(p, in);
    if (ms < best_ms || (ms == best_ms && bytes < best_bytes)) {
      best = p;
      best_ms = ms;
      best_bytes = bytes;
    }
  };
  auto search = [&](const std::vector<std::size_t>& h_caps) {
    for (const bool compact : {false, true})
      for (const unsigned mask : masks) {
        gpu_memory_plan p;
        p.compact_vectors = compact;
        for (std::size_t k = 0; k < flags.size(); ++k) p.*flags[k] = (mask >> k) & 1;
        if (in.b_g2_on_cpu) p.b_g2 = true;
        if (!p.matrices) p.spmv_block_nnz = gpu_plan_spmv_block_nnz;
        const bool h_streams = q.h && !p.h;
        for (const std::size_t h_cap : h_streams ? h_caps : std::vector<std::size_t>{0}) {
          p.h_chunk_terms = h_streams ? plan_sizes::h_chunk_for(nv, m, compact, q.h, h_cap) : 0;
          for (const std::size_t chunk : witness_queries_stream(p, in) ? chunks : std::vector<std::size_t>{0}) {
            p.chunk_terms = chunk;
            for (const std::size_t l_c : beside_chunks) {
              if (l_c && (p.l || !h_streams || !q.l)) continue;
              p.l_beside_h_chunk_terms = l_c;
              if (l_c) {
                const std::size_t b_bytes = sizeof(ff::fr) * plan_sizes::scratch_vector_len(nv, m, compact);
                if (!plan_sizes::beside_layout_for(b_bytes, p.h_chunk_terms, l_c)
                         .fits(p.h_chunk_terms, h_window_for(in, p.h_chunk_terms)))
                  continue;
              }
              consider(p);
            }
          }
        }
      }
  };
  search(h_caps);
  if (best_ms == std::numeric_limits<double>::infinity() && !configured)
    search({std::size_t(1) << 21, std::size_t(1) << 20});
  if (best_ms == std::numeric_limits<double>::infinity()) {
    const std::string where =
        "groth16::gpu_prover: device " + std::to_string(in.device) + " has " + mib(in.usable_bytes) + " MiB usable";
    throw gpu::cuda_error(
        int(cudaErrorMemoryAllocation),
        in.queries_on_device
            ? where + " besides the resident parameters, proving needs " + mib(least_bytes) + " MiB"
            : where + ", streaming every query and the matrices still needs " + mib(least_bytes) + " MiB");
  }
  best.planned_bytes = best_bytes;
  best.usable_bytes = in.usable_bytes;
  return best;
}

}  // namespace cuzk::groth16
