// SPDX-License-Identifier: Apache-2.0
// The Groth16 GPU prover: resident (or streamed) queries, GPU SpMV, H on the
// coset, density compaction and the five MSMs under a per-GPU kernel lock;
// proof assembly on the CPU. API, memory and the split: cuzk/groth16/prover_gpu.hpp.
//
// Density compaction (density_compact.cuh): the B (and A) queries hold
// points only for the variables whose density bit is set, so their MSMs take
// the scalars of those variables, in order.
// The kernel lock is per device ordinal and process-wide, so provers of
// different circuits on one GPU take turns. A prover's own buffers take one
// partition at a time (impl::partition); between stages, with the stream
// idle, the kernel lock is released around the caller's check, so another
// prover may run a whole partition there (the engine lends the device to a
// WinningPoSt that way) while this one's buffers wait untouched.

#include <cuzk/groth16/prover_gpu.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <future>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>
#include <cuzk/gpu/tuning.hpp>
#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/groth16/assemble.hpp>
#include <cuzk/groth16/device_queries.cuh>
#include <cuzk/groth16/query_transfer_gpu.hpp>
#include <cuzk/groth16/setup_gpu.hpp>
#include <cuzk/groth16/witness_upload_gpu.hpp>
#include <cuzk/msm/msm.hpp>
#include <cuzk/msm/msm_gpu.hpp>
#include <cuzk/ntt/domain.hpp>
#include <cuzk/ntt/ntt_gpu.hpp>
#include <cuzk/r1cs/spmv_gpu.hpp>

#include "density_compact.cuh"
#include "plan_sizes.cuh"

namespace cuzk::groth16 {
namespace {

using ff::fr;
using gpu::fr_d;

std::mutex& kernel_lock(int device) {
  static std::array<std::mutex, 64> locks;
  if (device < 0 || device >= int(locks.size()))
    throw std::invalid_argument("groth16::gpu_prover: device ordinal " + std::to_string(device) + " out of range");
  return locks[std::size_t(device)];
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("groth16::gpu_prover: " + what);
}

std::string num(std::size_t v) { return std::to_string(v); }

void check_params(const verifying_key& vk, const query_sizes& p, const r1cs::r1cs_shape& shape, std::size_t m) {
  require(vk.ic.size() == shape.num_inputs,
          "verifying key has " + num(vk.ic.size()) + " IC points, circuit has " + num(shape.num_inputs) + " inputs");
  require(p.h == m - 1, "parameters have " + num(p.h) + " H points, domain needs " + num(m - 1));
  require(p.l == shape.num_aux,
          "parameters have " + num(p.l) + " L points, circuit has " + num(shape.num_aux) + " aux variables");
  const std::size_t a_len = shape.num_inputs + shape.a_aux_density.count();
  require(p.a == a_len, "parameters have " + num(p.a) + " A points, circuit density needs " + num(a_len));
  const std::size_t b_len = shape.b_input_density.count() + shape.b_aux_density.count();
  require(p.b_g1 == b_len && p.b_g2 == b_len, "parameters have " + num(p.b_g1) + " B_G1 / " + num(p.b_g2) +
                                                  " B_G2 points, circuit density needs " + num(b_len));
  require(shape.a_aux_density.size() == shape.num_aux && shape.b_aux_density.size() == shape.num_aux &&
              shape.b_input_density.size() == shape.num_inputs,
          "density masks do not match the variable counts");
}

/// A witness sent as it is: its sizes, and inputs[0] = ONE.
void check_witness(const witness& w, const r1cs::r1cs_shape& sh) {
  require(w.inputs.size() == sh.num_inputs && w.aux.size() == sh.num_aux,
          "witness has " + num(w.inputs.size()) + " inputs and " + num(w.aux.size()) + " aux values, circuit has " +
              num(sh.num_inputs) + " and " + num(sh.num_aux));
  require(!w.inputs.empty() && w.inputs[0] == fr::one(), "inputs[0] must be ONE");
}

/// A coded witness: its size, consistency, and inputs[0] = ONE.
void check_witness(const coded_witness& cw, const r1cs::r1cs_shape& sh) {
  require(cw.size == sh.num_variables(),
          "coded witness has " + num(cw.size) + " values, circuit has " + num(sh.num_variables()));
  require(cw.codes.size() == coded_witness::code_words(cw.size), "coded witness is inconsistent");
  require(cw.size > 0 && (cw.codes[0] & 3) == coded_witness::code_one, "inputs[0] must be ONE");
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

using plan_sizes::beside_layout;
using plan_sizes::beside_layout_for;

/// |bytes| at |p| lent to a workspace as its pair buffer for a scope.
struct pair_loan {
  msm::gpu_msm_workspace& ws;
  pair_loan(msm::gpu_msm_workspace& w, void* p, std::size_t bytes) : ws(w) { ws.lend_pair_buffer(p, bytes); }
  ~pair_loan() { ws.lend_pair_buffer(nullptr, 0); }
  pair_loan(const pair_loan&) = delete;
  pair_loan& operator=(const pair_loan&) = delete;
};

}  // namespace

std::size_t gpu_prover_working_bytes(const r1cs::r1cs_shape& shape, std::size_t g1_terms, std::size_t g2_terms,
                                     bool compact) {
  const ntt::evaluation_domain domain(shape.num_constraints);
  return plan_sizes::working_bytes_for(shape.num_variables(), domain.lg_size(), g1_terms, g2_terms, compact,
                                       r1cs::gpu_shape_bytes(shape, /*with_c=*/false));
}

struct gpu_prover::impl {
  std::shared_ptr<const parameters> params;  // the vk only when |device_params|
  std::shared_ptr<device_queries> device_params;
  query_sizes counts;
  std::shared_ptr<const r1cs::r1cs_shape> shape;
  gpu_prover_config cfg;
  ntt::evaluation_domain domain;
  std::size_t m = 0, nv = 0, ni = 0;
  std::size_t matrix_h2d_bytes = 0;  // per SpMV when the matrices stream

  // everything below lives on cfg.device
  std::unique_ptr<gpu::stream> s;
  std::unique_ptr<r1cs::gpu_shape> d_shape;
  std::unique_ptr<gpu_witness_uploader> uploader;  // coded witness -> w
  gpu::device_density a_aux, b_in, b_aux;
  std::shared_ptr<msm::gpu_msm_workspace> ws;
  std::unique_ptr<msm::gpu_msm_context> ctx_a, ctx_b1, ctx_l, ctx_h;
  std::unique_ptr<msm::gpu_msm_g2_context> ctx_b2;
  // L beside H (plan.l_beside_h_chunk_terms): its own stream and scratch
  std::unique_ptr<gpu::stream> s_side;
  std::shared_ptr<msm::gpu_msm_workspace> ws_side;
  std::unique_ptr<msm::gpu_msm_context> ctx_l_side;
  gpu_memory_plan plan;
  // the per-proof vectors: five apart, or three (compact) that w, sel, a, b
  // and c point into by stage (gpu_memory_plan)
  std::vector<gpu::device_buffer<fr>> vectors;
  fr *w = nullptr, *sel = nullptr, *a = nullptr, *b = nullptr, *c = nullptr;

  mutable std::mutex timings_mutex;
  gpu_prove_timings timings;
  // held for a whole partition: the buffers above are its working state,
  // also while the kernel lock is lent out between stages
  std::mutex partition;

  impl(std::shared_ptr<const parameters> p, std::shared_ptr<const r1cs::r1cs_shape> sh, const gpu_prover_config& c)
      : params(std::move(p)), shape(std::move(sh)), cfg(c), domain(shape ? shape->num_constraints : 0) {}

  /// A query's MSM: on its resident bases, else streamed from the host in
  /// chunks of |chunk| terms (through |lent| when set: run_streamed).
  template <class F>
  ec::jacobian<F> run_msm(msm::gpu_msm_context_t<F>* ctx, const std::vector<ec::affine<F>>& host, const fr* d_scalars,
                          std::size_t n, unsigned window_bits, msm::gpu_scalar_mix mix, std::size_t& h2d,
                          std::size_t chunk, void* lent = nullptr, std::size_t lent_bytes = 0) {
    if (ctx->n_bases() >= n) return ctx->run_device(d_scalars, n, 0, window_bits, mix);
    h2d += n * sizeof(ec::affine<F>);
    return ctx->run_streamed(std::span<const ec::affine<F>>(host.data(), n), d_scalars, chunk, window_bits, mix, lent,
                             lent_bytes);
  }
  /// The H MSM: random scalars. b (m values) is free once h is in a:
  /// lent to the MSM as its pair buffer, which then takes each batch of
  /// windows in one partitioned stage at no VRAM of its own; c, the NTT's
  /// scratch, holds its two chunk buffers when H streams.
  ec::g1_jacobian run_h(const fr* d_scalars, std::size_t n, std::size_t& h2d) {
    const pair_loan lent(*ws, b, m * sizeof(fr));
    return run_msm(ctx_h.get(), params->h, d_scalars, n, h_window_bits.load(), msm::gpu_scalar_mix::random, h2d,
                   plan.h_chunk_terms, c, sizeof(fr) * plan_sizes::scratch_vector_len(nv, m, plan.compact_vectors));
  }
  /// Whether |cw| is a coded witness with at most the other values the
  /// plan's sparse scratch is for (gpu_coded_witness_max_others; a witness
  /// sent as it is may have any number: gpu_prover::prove_start).
  bool others_within_plan(const coded_witness* cw) const {
    return cw && cw->others.size() <= gpu_coded_witness_max_others(nv);
  }
  /// Whether this partition's L MSM runs beside H's: planned, and a
  /// witness within the plan's scratch.
  bool l_beside_h_for(const coded_witness* cw) const { return plan.l_beside_h_chunk_terms && others_within_plan(cw); }
  /// The H MSM with the L MSM beside it on s_side (w already in place):
  /// H's pairs and both MSMs' chunk buffers in b (beside_layout). The two
  /// copies share the link, which H alone leaves idle most of its time.
  ec::g1_jacobian run_h_beside_l(const fr* h_scalars, std::size_t n, gpu_prove_timings& t, ec::g1_jacobian& l_sum) {
    auto* zb = reinterpret_cast<unsigned char*>(b);
    const beside_layout z =
        beside_layout_for(vector_len_of(b) * sizeof(fr), plan.h_chunk_terms, plan.l_beside_h_chunk_terms);
    double l_ms = 0;
    std::future<ec::g1_jacobian> side = std::async(std::launch::async, [&] {
      gpu::device_guard guard(cfg.device);
      const auto t0 = std::chrono::steady_clock::now();
      const ec::g1_jacobian r = ctx_l_side->run_streamed(
          std::span<const ec::g1_affine>(params->l.data(), shape->num_aux), w + ni, plan.l_beside_h_chunk_terms,
          sparse_window_bits.load(), msm::gpu_scalar_mix::mostly_binary, zb + z.l_offset, z.l_bytes);
      l_ms = ms_since(t0);
      return r;
    });
    // |side| is waited for before anything it reads can go (a throw below
    // destroys the future, which waits)
    ec::g1_jacobian h;
    {
      const pair_loan lent(*ws, zb, z.pair_bytes);
      h = run_msm(ctx_h.get(), params->h, h_scalars, n, h_window_bits.load(), msm::gpu_scalar_mix::random, t.h2d_bytes,
                  plan.h_chunk_terms, zb + z.h_offset, z.h_bytes);
    }
    l_sum = side.get();
    t.msm_l_ms = l_ms;
    t.h2d_bytes += shape->num_aux * sizeof(ec::g1_affine);
    t.l_beside_h = true;
    return h;
  }
  /// A streamed witness MSM's chunks: their terms, and the memory that holds
  /// the two chunk buffers (null: the workspace's own). |lent| holds them
  /// when two of the plan's chunks fit there (a G2 chunk: half the terms of
  /// a G1 one, the same bytes); a |bounded| witness's chunks then grow to
  /// what it holds unless the chunk is configured.
  struct witness_chunking {
    std::size_t terms;
    void* lent;
    std::size_t lent_bytes;
  };
  template <class F>
  witness_chunking witness_chunks(std::span<fr> lent, bool bounded) const {
    const std::size_t own =
        std::is_same_v<F, ff::fp2> ? std::max<std::size_t>(1, plan.chunk_terms / 2) : plan.chunk_terms;
    const std::size_t in_lent = lent.size_bytes() / (2 * sizeof(ec::affine<F>));
    if (in_lent < own) return {own, nullptr, 0};
    return {bounded && !cfg.stream_chunk_terms ? in_lent : own, lent.data(), lent.size_bytes()};
  }
  /// L, A, B: witness scalars, mostly 0 and 1 (the MSM counts the others
  /// and takes its window and batches from that count: the 32 GiB PoRep has
  /// ~1.7 M others among 130 M terms), one scalar vector per member of a
  /// batch over the same query, whose streamed chunks are copied once for
  /// all of them. |lent|: a per-proof vector dead for the call, which then
  /// holds the two chunk buffers. |bounded|: every witness coded with at
  /// most the other values the plan's scratch is for (others_within_plan):
  /// its MSMs run in chunks of what is lent, up to a sixth of its values
  /// (22 M G1 terms at 32 GiB), instead of chunk_terms. A streamed chunk
  /// MSM has a fixed cost (its window sums, host round trips: ~4 ms at
  /// 2^22 terms on an H200, more than its additions), so a batch, whose
  /// MSMs no longer wait for the copies, runs fewer of them. A witness sent
  /// as it is may have any number of others: its MSMs keep to chunk_terms,
  /// whose random-scalar scratch the plan charges; so does a configured
  /// chunk (gpu_prover_config::stream_chunk_terms).
  template <class F>
  std::vector<ec::jacobian<F>> run_witness_msm_batch(msm::gpu_msm_context_t<F>* ctx,
                                                     const std::vector<ec::affine<F>>& host,
                                                     const std::vector<const fr*>& d_scalars, std::size_t n,
                                                     std::size_t& h2d, std::span<fr> lent, bool bounded) {
    const msm::gpu_scalar_mix mix = msm::gpu_scalar_mix::mostly_binary;
    std::vector<ec::jacobian<F>> out;
    if (ctx->n_bases() >= n) {
      for (const fr* v : d_scalars) out.push_back(ctx->run_device(v, n, 0, sparse_window_bits.load(), mix));
      return out;
    }
    const witness_chunking c = witness_chunks<F>(lent, bounded);
    h2d += n * sizeof(ec::affine<F>);
    return ctx->run_streamed_batch(std::span<const ec::affine<F>>(host.data(), n), d_scalars, c.terms,
                                   sparse_window_bits.load(), mix, c.lent, c.lent_bytes);
  }
  /// A coded batch pass's memory (shared_pass_coded), in the first two
  /// witness-sized vectors |vec|: x holds a query's chunk buffers (or one
  /// member's scalars of a resident query), y a chunk of scalars (the
  /// largest G1 chunk of run_witness_msm_filled, at most a query's terms),
  /// then each member's coded witness.
  struct coded_layout {
    std::span<fr> x;
    unsigned char* y;
    std::size_t y_bytes, scalar_bytes, member_bytes;
    /// Members it holds: 0 below two, at most tuning::groth16::max_coded_batch.
    std::size_t capacity() const {
      if (y_bytes < scalar_bytes + 2 * member_bytes) return 0;
      return std::min<std::size_t>(gpu::tuning::groth16::max_coded_batch, (y_bytes - scalar_bytes) / member_bytes);
    }
  };
  coded_layout coded_layout_of(const std::vector<fr*>& vec) const {
    const std::span<fr> x(vec[0], vector_len_of(vec[0]));
    return {x, reinterpret_cast<unsigned char*>(vec[1]), vector_len_of(vec[1]) * sizeof(fr),
            std::min(nv, witness_chunks<ff::fp>(x, true).terms) * sizeof(fr),
            gpu_coded_store_bytes(nv, gpu_coded_witness_max_others(nv))};
  }
  /// run_witness_msm_batch for a coded batch (shared_pass_coded): |fill|
  /// writes each vector's scalars of a chunk; |lent| holds the chunk
  /// buffers (or, for a resident query, one member's whole scalars at a
  /// time), |chunk_scalars| coded_layout::scalar_bytes of them.
  template <class F>
  std::vector<ec::jacobian<F>> run_witness_msm_filled(msm::gpu_msm_context_t<F>* ctx,
                                                      const std::vector<ec::affine<F>>& host, std::size_t vectors,
                                                      const msm::gpu_scalar_fill& fill, std::size_t n, std::size_t& h2d,
                                                      std::span<fr> lent, fr* chunk_scalars) {
    const msm::gpu_scalar_mix mix = msm::gpu_scalar_mix::mostly_binary;
    std::vector<ec::jacobian<F>> out;
    if (ctx->n_bases() >= n) {
      require(lent.size() >= n, "a resident query's scalars do not fit the lent vector");
      for (std::size_t v = 0; v < vectors; ++v) {
        fill(v, 0, n, lent.data(), *s);
        out.push_back(ctx->run_device(lent.data(), n, 0, sparse_window_bits.load(), mix));
      }
      return out;
    }
    const witness_chunking c = witness_chunks<F>(lent, /*bounded=*/true);
    h2d += n * sizeof(ec::affine<F>);
    return ctx->run_streamed_batch_filled(std::span<const ec::affine<F>>(host.data(), n), vectors, fill, chunk_scalars,
                                          c.terms, sparse_window_bits.load(), mix, c.lent, c.lent_bytes);
  }
  template <class F>
  ec::jacobian<F> run_witness_msm(msm::gpu_msm_context_t<F>* ctx, const std::vector<ec::affine<F>>& host,
                                  const fr* d_scalars, std::size_t n, std::size_t& h2d, std::span<fr> lent,
                                  bool bounded) {
    return run_witness_msm_batch(ctx, host, {d_scalars}, n, h2d, lent, bounded).front();
  }
  /// Elements of the per-proof vector at |v|.
  std::size_t vector_len_of(const fr* v) const {
    for (const auto& x : vectors)
      if (x.data() == v) return x.size();
    return 0;
  }
  std::atomic<unsigned> h_window_bits{0}, sparse_window_bits{0};
  std::vector<gpu_prove_timings> batch_timings;  // of the last prove_start_batch (under timings_mutex)
};

gpu_prover::gpu_prover(std::shared_ptr<const parameters> params, std::shared_ptr<const r1cs::r1cs_shape> shape,
                       const gpu_prover_config& cfg) {
  require(params && shape, "null parameters or shape");
  _impl = std::make_unique<impl>(std::move(params), std::move(shape), cfg);
  _impl->counts = sizes_of(*_impl->params);
  init();
}

gpu_prover::gpu_prover(const gpu_parameters& params, std::shared_ptr<const r1cs::r1cs_shape> shape,
                       const gpu_prover_config& cfg) {
  require(params.queries && shape, "null device parameters or shape");
  require(params.queries->device == cfg.device, "parameters live on device " +
                                                    num(std::size_t(params.queries->device)) +
                                                    ", prover configured for device " + num(std::size_t(cfg.device)));
  require(!cfg.b_g2_on_cpu && !cfg.force_streaming, "device-resident parameters cannot stream or run B_G2 on the CPU");
  auto vk_only = std::make_shared<parameters>();
  vk_only->vk = params.vk;
  _impl = std::make_unique<impl>(std::move(vk_only), std::move(shape), cfg);
  _impl->device_params = params.queries;
  _impl->counts = sizes_of(params);
  init();
}

namespace {
void check_window(const char* which, unsigned c) {
  constexpr unsigned lo = gpu::tuning::msm::min_explicit_window, hi = gpu::tuning::msm::max_window;
  if (c != 0 && (c < lo || c > hi))
    throw std::invalid_argument(std::string("groth16::gpu_prover: ") + which + " window " + std::to_string(c) +
                                " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}
}  // namespace

void gpu_prover::set_h_window_bits(unsigned c) {
  check_window("H", c);
  _impl->h_window_bits = c;
}

void gpu_prover::set_sparse_window_bits(unsigned c) {
  check_window("L/A/B", c);
  _impl->sparse_window_bits = c;
}

namespace {
/// Device bytes the prover may take on cfg.device besides queries already
/// there (|present|): free memory minus the margin, at most the limit.
std::size_t usable_bytes(const gpu_prover_config& cfg, std::size_t present) {
  std::size_t free_b = 0, total_b = 0;
  CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  std::size_t usable = free_b > cfg.vram_margin_bytes ? free_b - cfg.vram_margin_bytes : 0;
  if (cfg.vram_limit_bytes)
    usable = std::min(usable, cfg.vram_limit_bytes > present ? cfg.vram_limit_bytes - present : 0);
  return usable;
}

}  // namespace

gpu_plan_inputs gpu_plan_inputs_for(const r1cs::r1cs_shape& sh, const query_sizes& q, const gpu_prover_config& cfg,
                                    bool on_device, std::size_t usable) {
  gpu_plan_inputs in;
  in.lg_m = ntt::evaluation_domain(sh.num_constraints).lg_size();
  in.num_variables = sh.num_variables();
  in.queries = q;
  in.matrices_resident_bytes = r1cs::gpu_shape_bytes(sh, /*with_c=*/false);
  // queries already on the device: the matrices go there too
  in.matrices_streamed_bytes = on_device
                                   ? in.matrices_resident_bytes
                                   : r1cs::gpu_shape_bytes(sh, false, {.stream_block_nnz = gpu_plan_spmv_block_nnz});
  in.matrices_stream_traffic = r1cs::gpu_shape_stream_bytes(sh, false);
  in.queries_on_device = on_device;
  in.usable_bytes = usable;
  in.device = cfg.device;
  in.b_g2_on_cpu = cfg.b_g2_on_cpu;
  in.force_streaming = cfg.force_streaming;
  in.stream_chunk_terms = cfg.stream_chunk_terms;
  in.h_window_bits = cfg.h_window_bits;
  in.sparse_window_bits = cfg.sparse_window_bits;
  return in;
}

void gpu_prover::init() {
  impl& d = *_impl;
  // H MSM window: the MSM's default unless configured (20 at the 32 GiB
  // PoRep's 2^27 - 1 terms; swept there on the H200, bench/RESULTS.md
  // 2026-12-02: 883 / 927 / 909 ms at c = 20 / 21 / 22)
  d.h_window_bits = d.cfg.h_window_bits;
  check_window("H", d.cfg.h_window_bits);
  check_window("L/A/B", d.cfg.sparse_window_bits);
  d.sparse_window_bits = d.cfg.sparse_window_bits;
  const gpu_prover_config& cfg = d.cfg;
  const parameters& p = *d.params;
  const r1cs::r1cs_shape& sh = *d.shape;
  const query_sizes& q = d.counts;
  d.m = d.domain.size();
  d.ni = sh.num_inputs;
  d.nv = sh.num_variables();
  require(d.m >= 2, "circuit has fewer than 2 constraints");
  check_params(p.vk, q, sh, d.m);
  require(d.nv < (std::size_t(1) << 31), "more than 2^31 variables");
  if (gpu::query_device_count() <= cfg.device || cfg.device < 0)
    throw gpu::cuda_error(int(cudaErrorInvalidDevice),
                          "groth16::gpu_prover: no CUDA device " + std::to_string(cfg.device));

  gpu::device_guard guard(cfg.device);
  const bool on_device = d.device_params != nullptr;
  d.plan =
      choose_gpu_memory_plan(gpu_plan_inputs_for(sh, q, cfg, on_device, usable_bytes(cfg, on_device ? q.bytes() : 0)));

  d.s = std::make_unique<gpu::stream>();
  // A and B only: H comes from a and b (c = a o b on the domain); streamed
  // from the host shape (pinned in place) when the plan has no room for them
  d.d_shape = std::make_unique<r1cs::gpu_shape>(d.shape, cfg.device, /*with_c=*/false,
                                                r1cs::gpu_spmv_config{.stream_block_nnz = d.plan.spmv_block_nnz});
  if (d.d_shape->streamed()) d.matrix_h2d_bytes = r1cs::gpu_shape_stream_bytes(sh, false);
  d.a_aux = gpu::device_density(sh.a_aux_density.words(), sh.a_aux_density.size(), *d.s);
  d.b_in = gpu::device_density(sh.b_input_density.words(), sh.b_input_density.size(), *d.s);
  d.b_aux = gpu::device_density(sh.b_aux_density.words(), sh.b_aux_density.size(), *d.s);
  d.ws = std::make_shared<msm::gpu_msm_workspace>(cfg.device);
  CUstream_st* st = d.s->get();
  d.ctx_a = std::make_unique<msm::gpu_msm_context>(cfg.device, st, d.ws);
  d.ctx_b1 = std::make_unique<msm::gpu_msm_context>(cfg.device, st, d.ws);
  d.ctx_l = std::make_unique<msm::gpu_msm_context>(cfg.device, st, d.ws);
  d.ctx_h = std::make_unique<msm::gpu_msm_context>(cfg.device, st, d.ws);
  d.ctx_b2 = std::make_unique<msm::gpu_msm_g2_context>(cfg.device, st, d.ws);
  if (d.plan.l_beside_h_chunk_terms) {
    d.s_side = std::make_unique<gpu::stream>();
    d.ws_side = std::make_shared<msm::gpu_msm_workspace>(cfg.device);
    d.ctx_l_side = std::make_unique<msm::gpu_msm_context>(cfg.device, d.s_side->get(), d.ws_side);
  }
  if (d.device_params) {
    const device_queries& dq = *d.device_params;
    const std::shared_ptr<const void> owner = d.device_params;
    d.ctx_a->use_device_bases(owner, dq.a.data(), dq.a.size());
    d.ctx_b1->use_device_bases(owner, dq.b_g1.data(), dq.b_g1.size());
    d.ctx_l->use_device_bases(owner, dq.l.data(), dq.l.size());
    d.ctx_h->use_device_bases(owner, dq.h.data(), dq.h.size());
    d.ctx_b2->use_device_bases(owner, dq.b_g2.data(), dq.b_g2.size());
  } else {
    if (d.plan.a) d.ctx_a->upload_bases(p.a);
    if (d.plan.b_g1) d.ctx_b1->upload_bases(p.b_g1);
    if (d.plan.l) d.ctx_l->upload_bases(p.l);
    if (d.plan.h) d.ctx_h->upload_bases(p.h);
    if (d.plan.b_g2 && !cfg.b_g2_on_cpu) d.ctx_b2->upload_bases(p.b_g2);
    // the others stream every partition: at the link's speed when their
    // owner pinned them (pin_host_queries)
    bool pinned = true, streams = false;
    auto check = [&](bool resident, const auto& host) {
      if (resident || host.empty()) return;
      streams = true;
      cudaPointerAttributes attr{};
      const bool registered =
          cudaPointerGetAttributes(&attr, host.data()) == cudaSuccess && attr.type == cudaMemoryTypeHost;
      if (!registered) (void)cudaGetLastError();
      pinned = pinned && registered;
    };
    check(d.plan.h, p.h);
    check(d.plan.l, p.l);
    check(d.plan.a, p.a);
    check(d.plan.b_g1, p.b_g1);
    check(d.plan.b_g2, p.b_g2);
    d.plan.streamed_pinned = streams && pinned;
  }
  d.uploader = std::make_unique<gpu_witness_uploader>(cfg.device, d.nv);
  if (d.plan.compact_vectors) {
    // X: w, H's scratch, w again; Y: the coded witness's others, a (then h),
    // the others again, the compacted scalars; Z: b (the H MSM's pair buffer)
    const std::size_t len = plan_sizes::compact_vector_len(d.nv, d.m);
    for (int k = 0; k < 3; ++k) d.vectors.emplace_back(len);
    d.w = d.c = d.vectors[0].data();
    d.sel = d.a = d.vectors[1].data();
    d.b = d.vectors[2].data();
  } else {
    for (const std::size_t len : {d.nv, d.nv, d.m, d.m, d.m}) d.vectors.emplace_back(len);
    d.w = d.vectors[0].data();
    d.sel = d.vectors[1].data();
    d.a = d.vectors[2].data();
    d.b = d.vectors[3].data();
    d.c = d.vectors[4].data();  // scratch of the six-transform H
  }
  ntt::gpu_prepare(d.domain.lg_size(), {.device = cfg.device, .stream = st});
}

gpu_prover::~gpu_prover() = default;

pending_proof gpu_prover::prove_start(const witness& w, const gpu_stage_check& between_stages) {
  const r1cs::r1cs_shape& sh = *_impl->shape;
  require(w.inputs.size() == sh.num_inputs,
          "witness has " + num(w.inputs.size()) + " inputs, circuit has " + num(sh.num_inputs));
  require(w.aux.size() == sh.num_aux,
          "witness has " + num(w.aux.size()) + " aux values, circuit has " + num(sh.num_aux));
  require(!w.inputs.empty() && w.inputs[0] == fr::one(), "inputs[0] must be ONE");
  // the coded witness (2 bits per value + the ~1% other values), with all
  // host threads before the lock: under it only ~2% of the bytes move.
  // A witness with more other values than gpu_coded_witness_max_others
  // travels as it is (bounded host memory; no gain from coding it).
  const auto t_encode = std::chrono::steady_clock::now();
  const std::optional<coded_witness> cw =
      encode_witness(w.inputs, w.aux, gpu_coded_witness_max_others(sh.num_variables()));
  return start(cw ? &*cw : nullptr, cw ? nullptr : &w, ms_since(t_encode), between_stages);
}

pending_proof gpu_prover::prove_start_uncoded(const witness& w, const gpu_stage_check& between_stages) {
  check_witness(w, *_impl->shape);
  return start(nullptr, &w, 0, between_stages);
}

pending_proof gpu_prover::prove_start(const coded_witness& cw, const gpu_stage_check& between_stages) {
  check_witness(cw, *_impl->shape);
  return start(&cw, nullptr, 0, between_stages);
}

/// The clock of prove_start's stages: every stage ends with its stream
/// synchronised, the device idle, so abandoning the proof (a throwing
/// between_stages) leaves nothing running on the prover's buffers, and
/// another prover may use the device meanwhile (not counted in the times).
class gpu_prover::stage_clock {
 public:
  stage_clock(cudaStream_t s, std::unique_lock<std::mutex>& device_lock, const gpu_stage_check& between)
      : _s(s), _lock(device_lock), _between(between) {}
  /// Waits for the stream, writes the stage's milliseconds to |slot|, then
  /// runs the caller's check with the device lock released.
  void end(double& slot) {
    CUZK_CUDA_CHECK(cudaStreamSynchronize(_s));
    slot = ms_since(_t0);
    if (_between) {
      const auto away = std::chrono::steady_clock::now();
      _lock.unlock();
      _between();
      _lock.lock();
      _t_all += std::chrono::steady_clock::now() - away;
    }
    _t0 = std::chrono::steady_clock::now();
  }
  /// Milliseconds since construction, the time away excluded.
  double total_ms() const { return ms_since(_t_all); }

 private:
  cudaStream_t _s;
  std::unique_lock<std::mutex>& _lock;
  const gpu_stage_check& _between;
  std::chrono::steady_clock::time_point _t_all = std::chrono::steady_clock::now(), _t0 = _t_all;
};

void gpu_prover::upload_witness(const coded_witness* cw, const witness* raw, fr* d_w, fr* d_others,
                                gpu_prove_timings& t) {
  impl& d = *_impl;
  if (cw) d.uploader->upload(*cw, d_w, d_others, *d.s);
  else d.uploader->upload_raw(raw->inputs, raw->aux, d_w, *d.s);
  t.h2d_bytes += cw ? cw->bytes() : sizeof(fr) * (raw->inputs.size() + raw->aux.size());
}

bool gpu_prover::start_h(const coded_witness* cw, const witness* raw, gpu_prove_timings& t, stage_clock& clock,
                         ec::g1_jacobian& h_sum, ec::g1_jacobian* l_beside) {
  impl& d = *_impl;
  const r1cs::r1cs_shape& sh = *d.shape;
  const cudaStream_t s = *d.s;
  // w = inputs || aux; sel is free until the density compaction: it takes
  // the other values of a coded witness
  upload_witness(cw, raw, d.w, d.sel, t);
  clock.end(t.upload_ms);

  // a, b = A·w, B·w, zero-padded to m (c = C·w is not needed: below)
  const std::size_t rows = sh.num_constraints;
  for (fr* v : {d.a, d.b})
    if (d.m > rows) CUZK_CUDA_CHECK(cudaMemsetAsync(v + rows, 0, (d.m - rows) * sizeof(fr), s));
  d.d_shape->evaluate_ab(d.w, d.a, d.b, s);
  t.h2d_bytes += d.matrix_h2d_bytes;
  clock.end(t.spmv_ms);

  // H in six transforms from a and b alone: for a satisfied system a_i b_i
  // = c_i on the domain (the padded rows are 0 * 0 = 0), and then h equals
  // the textbook seven-transform h exactly (docs/H-SIX-TRANSFORMS.md), so
  // the proof is byte-identical to the CPU prover's. c is scratch (w's
  // vector under a compact plan: w is not read again before it is expanded
  // again).
  const ntt::gpu_config ncfg{.device = d.cfg.device, .stream = d.s->get()};
  ntt::compute_h_from_ab_gpu(d.domain, ntt::device_ptr{d.a}, ntt::device_ptr{d.b}, ntt::device_ptr{d.c}, ncfg);
  clock.end(t.ntt_ms);

  if (l_beside && d.l_beside_h_for(cw)) {
    if (d.plan.compact_vectors) {
      // w again, into its vector (the NTT's scratch, dead now), the coded
      // witness's others in b (dead until H's MSM)
      double again_ms = 0;
      upload_witness(cw, raw, d.w, d.b, t);
      clock.end(again_ms);
      t.upload_ms += again_ms;
    }
    h_sum = d.run_h_beside_l(d.a, d.m - 1, t, *l_beside);
    clock.end(t.msm_h_ms);
    return true;
  }
  h_sum = d.run_h(d.a, d.m - 1, t.h2d_bytes);
  clock.end(t.msm_h_ms);
  return false;
}

pending_proof gpu_prover::start(const coded_witness* cw, const witness* raw, double encode_ms,
                                const gpu_stage_check& between_stages) {
  impl& d = *_impl;
  const r1cs::r1cs_shape& sh = *d.shape;
  const parameters& p = *d.params;
  gpu_prove_timings t;
  t.encode_ms = encode_ms;
  t.witness_coded = cw != nullptr;
  t.upload_bytes = cw ? cw->bytes() : sizeof(fr) * (raw->inputs.size() + raw->aux.size());

  std::lock_guard mine(d.partition);
  std::unique_lock device_lock(kernel_lock(d.cfg.device));
  gpu::device_guard guard(d.cfg.device);
  const cudaStream_t s = *d.s;
  stage_clock clock(s, device_lock, between_stages);

  pending_proof out;
  const bool l_done = start_h(cw, raw, t, clock, out.h_sum, &out.l_sum);
  if (d.plan.compact_vectors && !l_done) {  // w again, counted as upload
    double again_ms = 0;
    upload_witness(cw, raw, d.w, d.sel, t);
    clock.end(again_ms);
    t.upload_ms += again_ms;
  }
  // b is dead after the H MSM: the witness MSMs' chunk buffers
  const std::span<fr> dead_b(d.b, d.vector_len_of(d.b));
  const bool bounded = d.others_within_plan(cw);
  if (!l_done) {
    out.l_sum = d.run_witness_msm(d.ctx_l.get(), p.l, d.w + d.ni, sh.num_aux, t.h2d_bytes, dead_b, bounded);
    clock.end(t.msm_l_ms);
  }

  // A: every input, then aux[A density]
  CUZK_CUDA_CHECK(cudaMemcpyAsync(d.sel, d.w, d.ni * sizeof(fr), cudaMemcpyDeviceToDevice, s));
  d.a_aux.compact(d.w + d.ni, d.sel + d.ni, s);
  out.a_sum = d.run_witness_msm(d.ctx_a.get(), p.a, d.sel, d.counts.a, t.h2d_bytes, dead_b, bounded);
  clock.end(t.msm_a_ms);

  // B: inputs[B density], then aux[B density]
  d.b_in.compact(d.w, d.sel, s);
  d.b_aux.compact(d.w + d.ni, d.sel + d.b_in.count, s);
  out.b1_sum = d.run_witness_msm(d.ctx_b1.get(), p.b_g1, d.sel, d.counts.b_g1, t.h2d_bytes, dead_b, bounded);
  clock.end(t.msm_b1_ms);
  if (d.cfg.b_g2_on_cpu) {
    out.b_scalars.resize(d.counts.b_g2);
    CUZK_CUDA_CHECK(
        cudaMemcpyAsync(out.b_scalars.data(), d.sel, out.b_scalars.size() * sizeof(fr), cudaMemcpyDeviceToHost, s));
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
  } else {
    out.b2_sum = d.run_witness_msm(d.ctx_b2.get(), p.b_g2, d.sel, d.counts.b_g2, t.h2d_bytes, dead_b, bounded);
    out.b2_done = true;
  }
  clock.end(t.msm_b2_ms);
  t.total_ms = clock.total_ms();
  {
    std::lock_guard tl(d.timings_mutex);
    d.timings = t;
    d.batch_timings.assign(1, t);
  }
  return out;
}

/// The per-proof vectors that can hold a whole witness (nv values), which a
/// batch's witness MSMs use: one per member and one spare.
std::vector<fr*> gpu_prover::witness_sized_vectors() const {
  const impl& d = *_impl;
  std::vector<fr*> out;
  for (const auto& v : d.vectors)
    if (v.size() >= d.nv) out.push_back(const_cast<fr*>(v.data()));
  return out;
}

std::size_t gpu_prover::batch_capacity() const {
  const impl& d = *_impl;
  const gpu_memory_plan& pl = d.plan;
  // only the witness MSMs share a pass; nothing to share when their
  // queries are resident
  const bool witness_query_streams = !pl.l || !pl.a || !pl.b_g1 || (!pl.b_g2 && !d.cfg.b_g2_on_cpu);
  if (!witness_query_streams) return 1;
  return std::max<std::size_t>({1, vector_batch_capacity(), coded_batch_capacity()});
}

/// Members a vector pass takes: one per witness-sized vector, less a spare.
std::size_t gpu_prover::vector_batch_capacity() const {
  const std::size_t vectors = witness_sized_vectors().size();
  return vectors >= 3 ? vectors - 1 : 1;
}

/// Coded members a coded pass takes (0: none): what the second
/// witness-sized vector holds beside a chunk of scalars, at most
/// gpu::tuning::groth16::max_coded_batch.
std::size_t gpu_prover::coded_batch_capacity() const {
  const std::vector<fr*> vec = witness_sized_vectors();
  return vec.size() < 2 ? 0 : _impl->coded_layout_of(vec).capacity();
}

std::vector<std::optional<pending_proof>> gpu_prover::prove_start_batch(std::span<const gpu_batch_member> members,
                                                                        const gpu_stage_check& between_stages) {
  impl& d = *_impl;
  const r1cs::r1cs_shape& sh = *d.shape;
  const parameters& p = *d.params;
  const std::size_t cap = batch_capacity();
  require(!members.empty(), "empty batch");
  require(members.size() <= cap,
          "a batch of " + num(members.size()) + " partitions, this prover takes at most " + num(cap));
  for (const gpu_batch_member& m : members) {
    require(m.coded || m.raw, "batch member without a witness");
    if (m.coded) check_witness(*m.coded, sh);
    else check_witness(*m.raw, sh);
  }
  const std::size_t n = members.size();
  std::vector<gpu_prove_timings> t(n);
  std::vector<std::optional<pending_proof>> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    t[i].witness_coded = members[i].coded != nullptr;
    t[i].upload_bytes = members[i].coded ? members[i].coded->bytes()
                                         : sizeof(fr) * (members[i].raw->inputs.size() + members[i].raw->aux.size());
    t[i].batch = n;
  }
  auto cancelled = [&](std::size_t i) { return members[i].cancelled && members[i].cancelled(); };

  std::lock_guard mine(d.partition);
  std::unique_lock device_lock(kernel_lock(d.cfg.device));
  gpu::device_guard guard(d.cfg.device);
  const cudaStream_t s = *d.s;
  std::vector<double> own_ms(n, 0);
  // each member's own stages: upload, SpMV, transforms, H (its h vector
  // fills the per-proof vectors, so they cannot overlap)
  // (a member cancelled at one of its boundaries leaves at once)
  struct member_cancelled {};
  for (std::size_t i = 0; i < n; ++i) {
    if (cancelled(i)) continue;
    const gpu_stage_check between_own = [&] {
      if (between_stages) between_stages();
      if (cancelled(i)) throw member_cancelled{};
    };
    stage_clock clock(s, device_lock, between_own);
    try {
      out[i].emplace();
      start_h(members[i].coded, members[i].raw, t[i], clock, out[i]->h_sum);
      own_ms[i] = clock.total_ms();
    } catch (const member_cancelled&) {
      out[i].reset();
      if (!device_lock.owns_lock()) device_lock.lock();  // thrown while released
    }
  }
  // the live members share passes over each witness query: the coded ones
  // within the plan's bound in one pass, their scalars expanded a chunk at a
  // time (shared_pass_coded); the others in passes of what the per-proof
  // vectors hold (shared_pass_vectors)
  std::vector<std::size_t> coded, rest;
  for (std::size_t i = 0; i < n; ++i) {
    if (!out[i]) continue;
    if (cancelled(i)) {
      out[i].reset();
      continue;
    }
    (d.others_within_plan(members[i].coded) ? coded : rest).push_back(i);
  }
  if (coded.size() < 2 || coded_batch_capacity() < coded.size()) {
    rest.insert(rest.end(), coded.begin(), coded.end());
    std::sort(rest.begin(), rest.end());
    coded.clear();
  }
  const std::size_t per_pass = std::max<std::size_t>(1, vector_batch_capacity());
  std::vector<std::vector<std::size_t>> passes;
  if (!coded.empty()) passes.push_back(coded);
  for (std::size_t k = 0; k < rest.size(); k += per_pass)
    passes.emplace_back(rest.begin() + std::ptrdiff_t(k),
                        rest.begin() + std::ptrdiff_t(std::min(rest.size(), k + per_pass)));
  for (std::size_t pass = 0; pass < passes.size(); ++pass) {
    std::vector<std::size_t>& live = passes[pass];
    const bool coded_pass = !coded.empty() && pass == 0;
    stage_clock clock(s, device_lock, between_stages);
    gpu_prove_timings shared;
    if (coded_pass) shared_pass_coded(members, live, out, shared, clock);
    else shared_pass_vectors(members, live, out, shared, clock);
    // each live member: its own stages, and its share of the pass
    const double share = live.empty() ? 0 : 1.0 / double(live.size());
    const double shared_total = clock.total_ms();
    for (const std::size_t i : live) {
      if (!out[i]) continue;
      t[i].coded_pass = coded_pass;
      t[i].pass_members = live.size();
      t[i].upload_ms += shared.upload_ms * share;
      t[i].msm_l_ms = shared.msm_l_ms * share;
      t[i].msm_a_ms = shared.msm_a_ms * share;
      t[i].msm_b1_ms = shared.msm_b1_ms * share;
      t[i].msm_b2_ms = shared.msm_b2_ms * share;
      t[i].h2d_bytes += std::size_t(double(shared.h2d_bytes) * share);
      t[i].total_ms = own_ms[i] + shared_total * share;
    }
  }
  {
    std::lock_guard tl(d.timings_mutex);
    std::size_t first = 0;
    while (first + 1 < n && !out[first]) ++first;
    d.timings = t[first];
    d.batch_timings = t;
  }
  return out;
}

/// Drops from |live| the members cancelled now (their results reset).
void gpu_prover::drop_cancelled(std::span<const gpu_batch_member> members, std::vector<std::size_t>& live,
                                std::vector<std::optional<pending_proof>>& out) {
  std::erase_if(live, [&](std::size_t i) {
    if (!members[i].cancelled || !members[i].cancelled()) return false;
    out[i].reset();
    return true;
  });
}

/// One pass of a batch's witness MSMs with every member's scalars in a
/// per-proof vector: |live| at most vector_batch_capacity() members.
void gpu_prover::shared_pass_vectors(std::span<const gpu_batch_member> members, std::vector<std::size_t>& live,
                                     std::vector<std::optional<pending_proof>>& out, gpu_prove_timings& shared,
                                     stage_clock& clock) {
  impl& d = *_impl;
  const r1cs::r1cs_shape& sh = *d.shape;
  const parameters& p = *d.params;
  const cudaStream_t s = *d.s;
  const std::size_t n = members.size();
  const bool bounded =
      std::all_of(live.begin(), live.end(), [&](std::size_t i) { return d.others_within_plan(members[i].coded); });
  const std::vector<fr*> vec = witness_sized_vectors();
  // a vector that holds no live member's scalars (by_member), lent to the
  // pass as its chunk buffers
  auto free_of = [&](const std::vector<fr*>& by_member) -> std::span<fr> {
    for (fr* v : vec)
      if (std::none_of(live.begin(), live.end(), [&](std::size_t i) { return by_member[i] == v; })) return {v, d.nv};
    return {};
  };
  auto pointers = [&](const std::vector<fr*>& by_member, std::size_t offset) {
    std::vector<const fr*> v;
    for (const std::size_t i : live) v.push_back(by_member[i] + offset);
    return v;
  };
  // L: member k's w in vector k, the coded witness's others in the spare
  std::vector<fr*> w_of(n, nullptr);
  {
    std::size_t k = 0;
    for (const std::size_t i : live)
      upload_witness(members[i].coded, members[i].raw, w_of[i] = vec[k++], vec[live.size()], shared);
  }
  clock.end(shared.upload_ms);
  drop_cancelled(members, live, out);
  if (live.empty()) return;
  const std::vector<ec::g1_jacobian> l = d.run_witness_msm_batch(d.ctx_l.get(), p.l, pointers(w_of, d.ni), sh.num_aux,
                                                                 shared.h2d_bytes, free_of(w_of), bounded);
  for (std::size_t k = 0; k < live.size(); ++k) out[live[k]]->l_sum = l[k];
  clock.end(shared.msm_l_ms);
  drop_cancelled(members, live, out);
  if (live.empty()) return;

  // A: every input, then aux[A density], each member compacted into the
  // vector the previous one left
  std::vector<fr*> a_of(n, nullptr);
  {
    // the first into a vector that holds no live member's w (members
    // cancelled after L left theirs behind)
    fr* free_vector = free_of(w_of).data();
    for (const std::size_t i : live) {
      a_of[i] = free_vector;
      CUZK_CUDA_CHECK(cudaMemcpyAsync(a_of[i], w_of[i], d.ni * sizeof(fr), cudaMemcpyDeviceToDevice, s));
      d.a_aux.compact(w_of[i] + d.ni, a_of[i] + d.ni, s);
      free_vector = w_of[i];
    }
  }
  const std::vector<ec::g1_jacobian> a = d.run_witness_msm_batch(d.ctx_a.get(), p.a, pointers(a_of, 0), d.counts.a,
                                                                 shared.h2d_bytes, free_of(a_of), bounded);
  for (std::size_t k = 0; k < live.size(); ++k) out[live[k]]->a_sum = a[k];
  clock.end(shared.msm_a_ms);
  drop_cancelled(members, live, out);
  if (live.empty()) return;

  // B: member k's w expanded again into the spare (its others in the vector
  // of the last member, not yet written), then inputs[B density] and
  // aux[B density] compacted into vector k
  std::vector<fr*> b_of(n, nullptr);
  {
    const std::size_t spare = live.size(), others = live.size() - 1;
    double again_ms = 0;
    for (std::size_t k = 0; k < live.size(); ++k) {
      const std::size_t i = live[k];
      upload_witness(members[i].coded, members[i].raw, vec[spare], vec[others], shared);
      b_of[i] = vec[k];
      d.b_in.compact(vec[spare], b_of[i], s);
      d.b_aux.compact(vec[spare] + d.ni, b_of[i] + d.b_in.count, s);
    }
    clock.end(again_ms);
    shared.upload_ms += again_ms;
  }
  const std::vector<ec::g1_jacobian> b1 = d.run_witness_msm_batch(
      d.ctx_b1.get(), p.b_g1, pointers(b_of, 0), d.counts.b_g1, shared.h2d_bytes, free_of(b_of), bounded);
  for (std::size_t k = 0; k < live.size(); ++k) out[live[k]]->b1_sum = b1[k];
  clock.end(shared.msm_b1_ms);
  if (d.cfg.b_g2_on_cpu) {
    for (const std::size_t i : live) {
      out[i]->b_scalars.resize(d.counts.b_g2);
      CUZK_CUDA_CHECK(
          cudaMemcpyAsync(out[i]->b_scalars.data(), b_of[i], d.counts.b_g2 * sizeof(fr), cudaMemcpyDeviceToHost, s));
    }
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
  } else {
    const std::vector<ec::g2_jacobian> b2 = d.run_witness_msm_batch(
        d.ctx_b2.get(), p.b_g2, pointers(b_of, 0), d.counts.b_g2, shared.h2d_bytes, free_of(b_of), bounded);
    for (std::size_t k = 0; k < live.size(); ++k) {
      out[live[k]]->b2_sum = b2[k];
      out[live[k]]->b2_done = true;
    }
  }
  clock.end(shared.msm_b2_ms);
  drop_cancelled(members, live, out);
}

/// One pass of a batch's witness MSMs over coded witnesses within the
/// plan's bound (prove_start_batch's coded members): each kept coded on the
/// device, its scalars of every streamed chunk expanded just before that
/// chunk's MSM (run_streamed_batch_filled). Two per-proof vectors serve any
/// number of members (coded_batch_capacity): X holds the query's chunk
/// buffers, Y a chunk of scalars and then every member's coded witness
/// (~165 MB at 32 GiB, against a 4.2 GB vector each in a vector pass).
void gpu_prover::shared_pass_coded(std::span<const gpu_batch_member> members, std::vector<std::size_t>& live,
                                   std::vector<std::optional<pending_proof>>& out, gpu_prove_timings& shared,
                                   stage_clock& clock) {
  impl& d = *_impl;
  const r1cs::r1cs_shape& sh = *d.shape;
  const parameters& p = *d.params;
  const cudaStream_t s = *d.s;
  const impl::coded_layout z = d.coded_layout_of(witness_sized_vectors());
  require(live.size() <= z.capacity(), "a coded batch of " + num(live.size()) + " does not fit its vector");
  const std::span<fr> x = z.x;
  fr* const chunk_scalars = reinterpret_cast<fr*>(z.y);
  std::vector<gpu_coded_view> view_of(members.size());
  for (std::size_t k = 0; k < live.size(); ++k) {
    const coded_witness& cw = *members[live[k]].coded;
    view_of[live[k]] = d.uploader->upload_coded(cw, z.y + z.scalar_bytes + k * z.member_bytes, z.member_bytes, s);
    shared.h2d_bytes += cw.bytes();
  }
  clock.end(shared.upload_ms);
  drop_cancelled(members, live, out);
  if (live.empty()) return;

  // a query's scalars: ranges of the witness, each through its density
  struct segment {
    std::size_t value_lo, n_bits, rank_off;
    gpu_value_selection sel;
    std::size_t count() const { return sel.words ? sel.count : n_bits; }
  };
  const gpu_value_selection all{};
  const std::vector<segment> l_scalars{{d.ni, sh.num_aux, 0, all}};
  const std::vector<segment> a_scalars{{0, d.ni, 0, all}, {d.ni, sh.num_aux, d.ni, d.a_aux.selection()}};
  const std::vector<segment> b_scalars{{0, d.ni, 0, d.b_in.selection()},
                                       {d.ni, sh.num_aux, d.b_in.count, d.b_aux.selection()}};
  auto fill_of = [&](const std::vector<segment>& query) -> msm::gpu_scalar_fill {
    return [&, query](std::size_t v, std::size_t first, std::size_t count, fr* dst, CUstream_st* st) {
      for (const segment& g : query) {
        const std::size_t lo = std::max(first, g.rank_off), hi = std::min(first + count, g.rank_off + g.count());
        if (lo < hi)
          gpu_expand_selected(view_of[live[v]], g.value_lo, g.n_bits, g.sel, lo - g.rank_off, hi - lo,
                              dst + (lo - first), st);
      }
    };
  };
  const std::vector<ec::g1_jacobian> l = d.run_witness_msm_filled(d.ctx_l.get(), p.l, live.size(), fill_of(l_scalars),
                                                                  sh.num_aux, shared.h2d_bytes, x, chunk_scalars);
  for (std::size_t k = 0; k < live.size(); ++k) out[live[k]]->l_sum = l[k];
  clock.end(shared.msm_l_ms);
  drop_cancelled(members, live, out);
  if (live.empty()) return;
  const std::vector<ec::g1_jacobian> a = d.run_witness_msm_filled(d.ctx_a.get(), p.a, live.size(), fill_of(a_scalars),
                                                                  d.counts.a, shared.h2d_bytes, x, chunk_scalars);
  for (std::size_t k = 0; k < live.size(); ++k) out[live[k]]->a_sum = a[k];
  clock.end(shared.msm_a_ms);
  drop_cancelled(members, live, out);
  if (live.empty()) return;
  const msm::gpu_scalar_fill b_fill = fill_of(b_scalars);
  const std::vector<ec::g1_jacobian> b1 = d.run_witness_msm_filled(d.ctx_b1.get(), p.b_g1, live.size(), b_fill,
                                                                   d.counts.b_g1, shared.h2d_bytes, x, chunk_scalars);
  for (std::size_t k = 0; k < live.size(); ++k) out[live[k]]->b1_sum = b1[k];
  clock.end(shared.msm_b1_ms);
  if (d.cfg.b_g2_on_cpu) {
    // each member's B scalars to the host a chunk at a time
    const std::size_t piece = z.scalar_bytes / sizeof(fr);
    for (std::size_t k = 0; k < live.size(); ++k) {
      std::vector<fr>& host = out[live[k]]->b_scalars;
      host.resize(d.counts.b_g2);
      for (std::size_t first = 0; first < host.size(); first += piece) {
        const std::size_t len = std::min(piece, host.size() - first);
        b_fill(k, first, len, chunk_scalars, s);
        CUZK_CUDA_CHECK(
            cudaMemcpyAsync(host.data() + first, chunk_scalars, len * sizeof(fr), cudaMemcpyDeviceToHost, s));
        CUZK_CUDA_CHECK(cudaStreamSynchronize(s));  // the buffer is filled again next
      }
    }
  } else {
    const std::vector<ec::g2_jacobian> b2 = d.run_witness_msm_filled(d.ctx_b2.get(), p.b_g2, live.size(), b_fill,
                                                                     d.counts.b_g2, shared.h2d_bytes, x, chunk_scalars);
    for (std::size_t k = 0; k < live.size(); ++k) {
      out[live[k]]->b2_sum = b2[k];
      out[live[k]]->b2_done = true;
    }
  }
  clock.end(shared.msm_b2_ms);
  drop_cancelled(members, live, out);
}

proof gpu_prover::finalize(pending_proof&& pending, const fr& r, const fr& s) const {
  const parameters& p = *_impl->params;
  ec::g2_jacobian b2_sum = pending.b2_sum;
  if (!pending.b2_done) {
    require(pending.b_scalars.size() == p.b_g2.size(), "pending proof lacks its B scalars");
    b2_sum = msm::msm<ff::fp2>(std::span<const ec::g2_affine>(p.b_g2), std::span<const fr>(pending.b_scalars));
  }
  return assemble_proof(proof_points::of(p.vk), {pending.a_sum, pending.b1_sum, pending.l_sum, pending.h_sum, b2_sum},
                        r, s);
}

proof gpu_prover::prove(const witness& w, const fr& r, const fr& s) { return finalize(prove_start(w, {}), r, s); }

int gpu_prover::device() const { return _impl->cfg.device; }
bool gpu_prover::queries_resident() const { return _impl->plan.all_resident(); }
gpu_memory_plan gpu_prover::memory_plan() const { return _impl->plan; }

std::size_t gpu_prover::device_bytes() const {
  const impl& d = *_impl;
  std::size_t b = d.d_shape->device_bytes() + d.uploader->device_bytes() + d.a_aux.bytes() + d.b_in.bytes() +
                  d.b_aux.bytes() + d.ws->bytes() + (d.ws_side ? d.ws_side->bytes() : 0) +
                  ntt::gpu_twiddle_bytes(d.domain.lg_size());
  for (const auto& v : d.vectors) b += v.bytes();
  b += sizeof(ec::g1_affine) * (d.ctx_a->n_bases() + d.ctx_b1->n_bases() + d.ctx_l->n_bases() + d.ctx_h->n_bases());
  b += sizeof(ec::g2_affine) * d.ctx_b2->n_bases();
  return b;
}

gpu_prove_timings gpu_prover::last_timings() const {
  std::lock_guard tl(_impl->timings_mutex);
  return _impl->timings;
}

std::vector<gpu_prove_timings> gpu_prover::last_batch_timings() const {
  std::lock_guard tl(_impl->timings_mutex);
  return _impl->batch_timings;
}

std::shared_ptr<const void> pin_host_queries(const parameters& p) {
  std::vector<std::shared_ptr<const void>> pins;
  auto pin = [&](const auto& v) {
    if (v.empty()) return true;
    pins.push_back(gpu::pin_host_range(v.data(), v.size() * sizeof(v[0])));
    return pins.back() != nullptr;
  };
  if (!(pin(p.h) && pin(p.l) && pin(p.a) && pin(p.b_g1) && pin(p.b_g2))) return nullptr;
  return std::make_shared<const std::vector<std::shared_ptr<const void>>>(std::move(pins));
}

std::vector<int> select_gpu_devices(std::span<const int> configured) {
  const int n = gpu::query_device_count();
  std::vector<int> out;
  if (configured.empty()) {
    for (int i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (const int dev : configured) {
    if (dev < 0 || dev >= n)
      throw std::invalid_argument("groth16: configured GPU " + std::to_string(dev) + " does not exist (" +
                                  std::to_string(n) + " visible)");
    if (std::find(out.begin(), out.end(), dev) != out.end())
      throw std::invalid_argument("groth16: GPU " + std::to_string(dev) + " listed twice");
    out.push_back(dev);
  }
  return out;
}

}  // namespace cuzk::groth16
