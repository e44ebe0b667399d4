// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Groth16 prover on one GPU, with the split API the engine schedules:
//
//   gpu_prover prover(params, shape, {.device = 0});   // uploads once
//   pending_proof p = prover.prove_start(witness);      // GPU, under the lock
//   proof pi = prover.finalize(std::move(p), r, s);     // CPU, no lock
//   // or prover.prove(witness, r, s) for both
//
// One gpu_prover per (device, circuit shape). Construction copies the
// shape's A/B matrices and the parameters' queries (A, B_G1, B_G2, L, H)
// into VRAM, what fits by the plan that streams fastest (gpu_memory_plan,
// memory_plan_gpu.hpp: cudaMemGetInfo free bytes minus
// gpu_prover_config::vram_margin_bytes, at most vram_limit_bytes); the MSM
// of a query left on the host streams it in chunks whose copies overlap the
// MSM of the previous chunk.
//
// prove_start (the GPU critical path): first, before the lock, the witness
// is encoded with all host threads (coded_witness.hpp: 2 bits per value for
// 0 / 1 / other, plus the other values; a witness with more than 1/32 other
// values is sent as it is); then under the per-GPU kernel lock:
//   upload the coded form (through two pinned 64 MiB staging buffers per
//   device, host copies overlapping the DMA) and expand it into w = inputs ||
//   aux on the device (witness_upload_gpu.hpp); a, b, c = A·w, B·w, C·w (GPU SpMV, zero-padded
//   to the domain size m); h = (a·b − c)/Z on the coset (GPU NTTs);
//   MSMs H over h, L over aux, A over inputs || aux[A density], B_G1 (and
//   B_G2 unless b_g2_on_cpu) over inputs[B density] || aux[B density] (the
//   density compaction runs on the GPU).
// It returns as soon as the GPU work is done and the lock is released.
// finalize (CPU): B_G2 when b_g2_on_cpu (CPU Pippenger, all host threads),
// then A = α + ΣA + rδ, B = β + ΣB + sδ, C = ΣL + ΣH + sA + rB₁ − rsδ, the
// same equations and therefore the same bytes as groth16::prove.
//
// Threads: every member function is safe to call concurrently; prove_start
// calls serialise on the kernel lock, finalize runs without it.
// Memory (device, resident mode): 96 (|A| + |B_G1| + |L| + |H|) + 192 |B_G2|
// bytes of queries, the matrices (8 bytes per non-zero), 32 (2 nv + 3 m)
// bytes of per-proof vectors (nv = inputs + aux; 96 max(m, nv) under a
// compact plan, gpu_memory_plan), ~nv / 4 bytes for the coded
// witness (its other values land in a per-proof vector), one shared MSM scratch
// (msm_gpu.hpp) and the NTT tables (16 m bytes).
// Errors: std::invalid_argument when parameters, shape and witness sizes
// disagree; cuzk::gpu::cuda_error on any CUDA failure (the prover stays
// usable for the next call when the failure was not a device fault).

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/groth16/setup_gpu.hpp>
#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/memory_plan_gpu.hpp>
#include <cuzk/groth16/proof.hpp>
#include <cuzk/groth16/prover.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::groth16 {

/// Pinned host bytes of each of the two witness staging buffers a device
/// gets on its first proof (src/cuda/groth16/witness_upload.cu, staged_copy).
inline constexpr std::size_t witness_stage_bytes = std::size_t(64) << 20;
/// Pinned host bytes the prover keeps per device it has proved on.
inline constexpr std::size_t gpu_witness_staging_bytes = 2 * witness_stage_bytes;

/// Other values (neither 0 nor 1) a witness of |n| values may have for
/// prove_start(witness) to send it coded (1/32 of them; a PoRep witness has
/// ~1.3%); beyond that it is sent as it is.
constexpr std::size_t gpu_coded_witness_max_others(std::size_t n) { return n / 32; }
/// Host bytes prove_start(witness) holds for the coded form of |n| values
/// while it runs (at most ~4% of the witness's 32 n bytes).
constexpr std::size_t gpu_coded_witness_host_bytes(std::size_t n) {
  return coded_witness_bytes_bound(n, gpu_coded_witness_max_others(n));
}

struct gpu_prover_config {
  /// CUDA device ordinal.
  int device = 0;
  /// Run the B_G2 MSM on the CPU in finalize (frees the GPU sooner when the
  /// host has cores to spare; the default runs it on the GPU).
  bool b_g2_on_cpu = false;
  /// Device bytes left free when deciding whether the queries fit.
  std::size_t vram_margin_bytes = std::size_t(1) << 30;
  /// Most device bytes the prover may hold, queries included (gpus.vram_limit;
  /// 0: the device's free memory minus vram_margin_bytes, which also bounds
  /// a set limit). The plan (gpu_memory_plan) is chosen against it.
  std::size_t vram_limit_bytes = 0;
  /// Keep the queries and the matrices on the host and stream them even
  /// when they fit (tests).
  bool force_streaming = false;
  /// Terms per streamed chunk (H, L beside H, and L, A, B); 0: the memory
  /// plan's choice, powers of two from 2^20 (memory_plan_gpu.hpp).
  std::size_t stream_chunk_terms = 0;
  /// Pippenger window of the H MSM (random scalars over the whole domain,
  /// the largest MSM of a proof); 0: the MSM's default for the size.
  unsigned h_window_bits = 0;
  /// Pippenger window of the L, A and B MSMs (witness scalars, mostly 0 and
  /// 1, run as msm::gpu_scalar_mix::mostly_binary); 0: the MSM's
  /// gpu_sparse_window_bits of the count of other scalars.
  unsigned sparse_window_bits = 0;
};

/// What prove_start hands to finalize: the MSM sums (and, for a CPU B_G2,
/// the compacted B scalars). Move-only in practice; opaque to callers.
struct pending_proof {
  ec::g1_jacobian a_sum, b1_sum, l_sum, h_sum;
  ec::g2_jacobian b2_sum;
  bool b2_done = false;
  std::vector<ff::fr> b_scalars;  ///< inputs[B density] || aux[B density] when !b2_done
};

/// Milliseconds spent in the stages of the last prove_start (diagnostics).
/// encode_ms: the host encoding of the witness, before the kernel lock;
/// total_ms: from taking the lock to the end (the GPU critical path; upload_ms
/// is the coded copy plus the expansion on the device). upload_bytes: host
/// bytes moved for the witness (the coded form, or 32 per value when it was
/// sent as it is: witness_coded false).
struct gpu_prove_timings {
  double upload_ms = 0, spmv_ms = 0, ntt_ms = 0, msm_h_ms = 0, msm_l_ms = 0, msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0,
         total_ms = 0, encode_ms = 0;
  std::size_t upload_bytes = 0;
  /// Host-to-device bytes of the partition: the witness (twice under a
  /// compact plan) and every streamed query.
  std::size_t h2d_bytes = 0;
  bool witness_coded = false;
  /// Partitions of the prove_start_batch these times belong to (1: alone).
  /// In a batch the witness MSMs and their uploads ran once for all
  /// members: each member's msm_l/a/b1/b2 and h2d_bytes are its share (the
  /// pass divided by the members that completed it).
  std::size_t batch = 1;
  /// The L MSM ran beside the H MSM on a second stream
  /// (gpu_memory_plan::l_beside_h_chunk_terms): msm_l_ms is L's own time,
  /// inside msm_h_ms (the two together), not after it.
  bool l_beside_h = false;
  /// Its witness MSMs ran in a coded batch pass (the witness kept coded on
  /// the device and expanded a chunk at a time: prove_start_batch).
  bool coded_pass = false;
  /// Members of the pass its witness MSMs ran in (1 outside a batch).
  std::size_t pass_members = 1;
};

/// One partition of gpu_prover::prove_start_batch: its witness coded
/// (encode_witness) or, when too dense to code, as it is.
struct gpu_batch_member {
  const coded_witness* coded = nullptr;
  const witness* raw = nullptr;  ///< when |coded| is null
  /// True once the member's job is cancelled: read between stages; the
  /// member's remaining stages are then skipped (empty: never).
  std::function<bool()> cancelled;
};

/// Called by prove_start between its GPU stages (upload, SpMV, NTT, each
/// MSM), with the stage's stream synchronised and the device's kernel lock
/// released (the prover's own buffers stay reserved for this partition). It
/// may throw to abandon the proof (the engine's cancellation): the
/// exception leaves prove_start and the prover is usable for the next call.
/// A cancelled partition thus holds the GPU for at most the stage it is in
/// (the H MSM, ~0.85 s at 32 GiB on an H200). It may also block while
/// another prover (another circuit) proves on the device: the engine lends
/// the device to a WinningPoSt there; the time away is not in total_ms.
using gpu_stage_check = std::function<void()>;

class gpu_prover {
 public:
  gpu_prover(std::shared_ptr<const parameters> params, std::shared_ptr<const r1cs::r1cs_shape> shape,
             const gpu_prover_config& cfg = {});
  /// From parameters already in cfg.device's memory (setup_gpu.hpp): the
  /// queries are used in place (never copied, never streamed; B_G2 on the
  /// GPU). std::invalid_argument when they live on another device or cfg
  /// asks for streaming or a CPU B_G2.
  gpu_prover(const gpu_parameters& params, std::shared_ptr<const r1cs::r1cs_shape> shape,
             const gpu_prover_config& cfg = {});
  ~gpu_prover();
  gpu_prover(const gpu_prover&) = delete;
  gpu_prover& operator=(const gpu_prover&) = delete;

  /// The GPU critical path for one witness of this prover's shape (encodes
  /// it first, before taking the kernel lock).
  /// |between_stages|: see gpu_stage_check (empty: none).
  pending_proof prove_start(const witness& w, const gpu_stage_check& between_stages = {});
  /// The same from a witness already encoded (encode_witness), for callers
  /// that encode before they queue for the device; encode_ms is then 0.
  pending_proof prove_start(const coded_witness& w, const gpu_stage_check& between_stages = {});
  /// The same sending |w| as it is (for callers whose encode_witness found
  /// it too dense to code); encode_ms is then 0.
  pending_proof prove_start_uncoded(const witness& w, const gpu_stage_check& between_stages = {});
  /// Cross-sector batching: how many partitions prove_start_batch takes
  /// in one call with a saving. 1 when the L, A and B queries are all
  /// resident (nothing to share). Else the larger of two passes' sizes: a
  /// coded pass takes coded witnesses within the plan's bound of other
  /// values (any witness the engine codes), as many as one per-proof
  /// vector holds beside a chunk of scalars (~165 MB each at 32 GiB, at most
  /// gpu::tuning::groth16::max_coded_batch); a vector pass takes any
  /// witnesses, one less than the vectors that hold one (a compact plan: 2,
  /// five vectors: 4 when m >= the variable count).
  std::size_t batch_capacity() const;
  /// Several witnesses of this prover's shape in one call (at most
  /// batch_capacity(); std::invalid_argument beyond, or on a bad witness):
  /// each member's upload, SpMV, transforms and H MSM as prove_start's;
  /// then the L, A, B_G1 and B_G2 MSMs of the members run chunk by chunk
  /// over one copy of each streamed query per pass. The coded members
  /// within the plan's bound (two or more) share one pass
  /// (run_streamed_batch_filled): each is kept coded on the device and its
  /// scalars of a chunk are expanded just before that chunk's MSM. The rest
  /// go in vector passes of at most the vector pass's size
  /// (run_streamed_batch), each witness expanded twice more on the device
  /// (for L, then for the compacted B scalars; A's are compacted from
  /// L's). Result i: member i's
  /// sums, the same as prove_start's for that witness (so the same proof
  /// bytes for the same r, s), or nullopt when it was cancelled; between
  /// stages |between_stages| runs as in prove_start and every member's
  /// cancelled() is read.
  std::vector<std::optional<pending_proof>> prove_start_batch(std::span<const gpu_batch_member> members,
                                                              const gpu_stage_check& between_stages = {});
  /// Proof assembly on the CPU (and B_G2 when configured so).
  proof finalize(pending_proof&& pending, const ff::fr& r, const ff::fr& s) const;
  /// prove_start + finalize.
  proof prove(const witness& w, const ff::fr& r, const ff::fr& s);

  int device() const;
  /// True when every query lives in VRAM (false: some are streamed).
  bool queries_resident() const;
  /// The memory plan chosen at construction.
  gpu_memory_plan memory_plan() const;
  /// Device bytes this prover holds now.
  std::size_t device_bytes() const;
  /// Stage times of the most recent prove_start (of a batch: its first
  /// completed member's).
  gpu_prove_timings last_timings() const;
  /// Per member of the most recent prove_start_batch (one entry after a
  /// prove_start).
  std::vector<gpu_prove_timings> last_batch_timings() const;
  /// Changes the H MSM window for later calls (tuning sweeps; 0: default).
  void set_h_window_bits(unsigned c);
  /// The same for the L, A and B MSMs (0: from the count of other scalars).
  void set_sparse_window_bits(unsigned c);

 private:
  void init();
  /// Under the kernel lock, from |cw| or (when null) |raw|.
  pending_proof start(const coded_witness* cw, const witness* raw, double encode_ms,
                      const gpu_stage_check& between_stages);
  class stage_clock;
  /// Upload, SpMV, transforms and the H MSM of one partition; with
  /// |l_beside| set and the plan's l_beside_h_chunk_terms, the L MSM too,
  /// beside H's (its result in *l_beside; false: L is left to the caller).
  bool start_h(const coded_witness* cw, const witness* raw, gpu_prove_timings& t, stage_clock& clock,
               ec::g1_jacobian& h_sum, ec::g1_jacobian* l_beside = nullptr);
  /// The witness into d_w (a coded one's others through d_others).
  void upload_witness(const coded_witness* cw, const witness* raw, ff::fr* d_w, ff::fr* d_others, gpu_prove_timings& t);
  std::vector<ff::fr*> witness_sized_vectors() const;
  std::size_t vector_batch_capacity() const;
  std::size_t coded_batch_capacity() const;
  /// A batch's witness MSMs for the members |live| (indices into |members|;
  /// cancelled ones leave it, their result reset).
  void shared_pass_vectors(std::span<const gpu_batch_member> members, std::vector<std::size_t>& live,
                           std::vector<std::optional<pending_proof>>& out, gpu_prove_timings& shared,
                           stage_clock& clock);
  void shared_pass_coded(std::span<const gpu_batch_member> members, std::vector<std::size_t>& live,
                         std::vector<std::optional<pending_proof>>& out, gpu_prove_timings& shared, stage_clock& clock);
  static void drop_cancelled(std::span<const gpu_batch_member> members, std::vector<std::size_t>& live,
                             std::vector<std::optional<pending_proof>>& out);
  struct impl;
  std::unique_ptr<impl> _impl;
};

/// Device bytes a resident gpu_prover of |shape| needs besides its queries
/// (per-proof vectors, A/B matrices, MSM scratch for MSMs of up to
/// |g1_terms| G1 / |g2_terms| G2 terms, NTT tables, the coded witness), the
/// test its constructor applies: for callers deciding where to put queries.
/// |compact|: with gpu_memory_plan's compact vectors (the least a prover with
/// every query resident can take).
std::size_t gpu_prover_working_bytes(const r1cs::r1cs_shape& shape, std::size_t g1_terms, std::size_t g2_terms,
                                     bool compact = false);

/// The memory plan's inputs (memory_plan_gpu.hpp) for a prover of |shape|
/// with queries of |queries| (already on the device: |on_device|) under
/// |cfg|, against |usable_bytes| (the prover's: cudaMemGetInfo's free bytes
/// less vram_margin_bytes, at most vram_limit_bytes). Host code only: the
/// matrices' sizes come from their row plans (r1cs::gpu_shape_bytes).
gpu_plan_inputs gpu_plan_inputs_for(const r1cs::r1cs_shape& shape, const query_sizes& queries,
                                    const gpu_prover_config& cfg, bool on_device, std::size_t usable_bytes);

/// Pins the host memory of |p|'s five queries for DMA (gpu::pin_host_range)
/// while the handle lives; null when the driver refuses (the prover then
/// streams from pageable memory). For the owner of the parameters: the
/// handle must not outlive them (a registration of freed memory would hand
/// the device stale pages), so provers never pin what they only borrow.
std::shared_ptr<const void> pin_host_queries(const parameters& p);

/// The device ordinals to use: |configured| as given (each checked to exist,
/// std::invalid_argument otherwise), or every visible device when empty.
std::vector<int> select_gpu_devices(std::span<const int> configured);

}  // namespace cuzk::groth16
