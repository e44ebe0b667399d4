// SPDX-License-Identifier: Apache-2.0
#pragma once
// prover_backend: where a synthesized partition becomes a Groth16 proof.
// The split API of the reference engine: prove_start() does the device part
// and runs while the engine holds the device's kernel lock; finalize() does
// what can run off the device (B_G2 on the CPU, assembly) on a finalizer
// thread, after the lock is released. The CPU backend does all the work in
// prove_start (groth16::prove) and finalize only hands the proof over; a
// GPU backend plugs in behind the same two calls.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuzk/engine/cancel_token.hpp>
#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/proof.hpp>
#include <cuzk/groth16/prover.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::engine {

struct device_info {
  std::string name;
  std::uint64_t memory_total = 0;  ///< VRAM bytes (0 on the CPU backend)
  std::uint64_t memory_free = 0;
};

/// What the engine runs at the boundaries of a backend's device phases
/// (upload, SpMV, the transforms, each MSM), with the device idle and no
/// queued work on the partition's buffers: the job's cancellation check
/// (throws cancelled_error), then the device lent to a waiting partition of
/// strictly higher priority and another circuit, if any (it returns when
/// the device is back: device_gate.hpp). A backend that calls it keeps a
/// WinningPoSt's wait for the device to one phase of a running partition
/// instead of the whole partition.
using phase_boundary = std::function<void()>;

/// A proof between prove_start and finalize (backend-specific state).
class pending_proof {
 public:
  virtual ~pending_proof() = default;
  /// The backend's stage times of prove_start, (name, ms), for diagnostics
  /// and regression analysis; names are the backend's own (no fixed set).
  std::vector<std::pair<std::string, double>> stage_ms;
  /// Host-to-device bytes prove_start moved (partition_timing::h2d_bytes).
  std::uint64_t h2d_bytes = 0;
};

/// What prover_backend::prepare made of a witness (backend-specific).
class prepared_witness {
 public:
  virtual ~prepared_witness() = default;
  /// Milliseconds prepare took (a stage of its own in the job's timings).
  double ms = 0;
  /// Whether prove_start needs nothing of the witness beside this form.
  /// The engine then gives the witness buffer back as soon as prepare
  /// returns (to its pool, for the next synthesis), so that a partition
  /// queued for a device holds only this form. prove_start then gets empty
  /// witness vectors. The CUDA backend's coded witness: ~90 MB instead of
  /// 4.2 GB for a 32 GiB PoRep partition.
  bool replaces_witness = false;
};

/// Proving queries a backend holds in device memory for one loaded circuit
/// (load_queries); opaque to the engine, freed with the last reference.
class device_resident_queries {
 public:
  virtual ~device_resident_queries() = default;
  /// Device bytes held, all devices together.
  virtual std::uint64_t device_bytes() const = 0;
  /// Whether every device also holds what proofs need of the shape's
  /// matrices (a prover built at load): the SRS manager then releases the
  /// host copy (r1cs::release_matrices) and the host keeps counts and
  /// density masks only.
  virtual bool holds_shape() const { return false; }
};

class prover_backend {
 public:
  virtual ~prover_backend() = default;
  virtual std::string name() const = 0;
  /// One entry per device; the engine runs gpus.gpu_workers_per_device workers on each.
  virtual std::vector<device_info> devices() const = 0;
  /// Host bytes one partition of |shape| holds from synthesis to finalize
  /// (witness + the backend's buffers); |*after_start| of them are freed
  /// when prove_start returns. The engine reserves this before synthesis.
  virtual std::uint64_t partition_bytes(const r1cs::r1cs_shape& shape, std::uint64_t* after_start) const = 0;
  /// Host bytes the backend keeps for its whole life (pinned staging
  /// buffers); charged to the budget when the engine starts.
  virtual std::uint64_t resident_host_bytes() const { return 0; }
  /// The device part of one proof with randomizers r, s. A backend should
  /// only read |w| and leave its vectors as they came: the engine then
  /// reuses them for a later partition (its witness pool). A backend may
  /// still move from it; that only costs the reuse.
  virtual std::unique_ptr<pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                                     const r1cs::r1cs_shape& shape, groth16::witness&& w,
                                                     const ff::fr& r, const ff::fr& s) = 0;
  /// prove_start for a job with cancel token |token|. A backend that can
  /// stop inside its work overrides this one (the CPU backend: inside every
  /// MSM and between NTTs; it then throws cancelled_error). The default
  /// checks the token once and runs the call above.
  virtual std::unique_ptr<pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                                     const r1cs::r1cs_shape& shape, groth16::witness&& w,
                                                     const ff::fr& r, const ff::fr& s, const cancel_token& token) {
    token.check();
    return prove_start(device, params, shape, std::move(w), r, s);
  }
  /// Work on a partition's witness that needs no device, which the engine
  /// runs when synthesis ends, before the partition queues for a device, so
  /// that the device never idles through it (the CUDA backend codes the
  /// witness there: groth16/coded_witness.hpp, ~90 ms of host time for a
  /// 32 GiB PoRep partition). |w| is not consumed; what comes back goes to
  /// prove_start with the same witness, or with empty vectors when it
  /// replaces_witness. Default: nothing to do.
  virtual std::unique_ptr<prepared_witness> prepare(const r1cs::r1cs_shape& shape, const groth16::witness& w) {
    (void)shape, (void)w;
    return {};
  }
  /// Whether this backend proves a partition of |shape| from a coded
  /// witness alone (groth16/coded_witness.hpp), and with how many values
  /// other than 0 and 1 at most: a proof kind that can then writes the
  /// witness straight into that form (circuit_job::synthesize_coded) and
  /// prepare_coded takes it; the engine charges the partition
  /// partition_bytes less the whole witness. nullopt (the default): it
  /// proves from the whole witness (the CPU backend; a GPU backend behind a
  /// CPU fallback, which would prove from it).
  virtual std::optional<std::size_t> coded_witness_max_others(const r1cs::r1cs_shape& shape) const {
    (void)shape;
    return std::nullopt;
  }
  /// prepare for a witness that exists only in its coded form: what comes
  /// back replaces_witness, and prove_start gets empty vectors. Called only
  /// when coded_witness_max_others(shape) is set, with at most that many
  /// other values.
  virtual std::unique_ptr<prepared_witness> prepare_coded(const r1cs::r1cs_shape& shape, groth16::coded_witness&& cw) {
    (void)shape, (void)cw;
    throw std::logic_error("prover_backend: " + name() + " takes no coded witness");
  }
  /// prove_start with what prepare returned for |w| (may be null; when it
  /// replaces_witness, |w|'s vectors are empty), calling |at_boundary| (when
  /// set) between its device phases. The default ignores both.
  virtual std::unique_ptr<pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                                     const r1cs::r1cs_shape& shape, groth16::witness&& w,
                                                     const ff::fr& r, const ff::fr& s, const cancel_token& token,
                                                     std::unique_ptr<prepared_witness> prepared,
                                                     const phase_boundary& at_boundary) {
    (void)prepared, (void)at_boundary;
    return prove_start(device, params, shape, std::move(w), r, s, token);
  }
  /// How many partitions of one circuit prove_start_batch takes in one
  /// pass on |device| with a saving (cross-sector batching,
  /// scheduler.max_batch_size): the CUDA backend's streamed queries are
  /// copied to the device once per pass instead of once per partition. 1:
  /// batching saves nothing here (every query resident, the CPU backend) or
  /// the device cannot hold a second witness. May build the device's prover
  /// of the circuit (as the first prove_start would).
  virtual std::size_t batch_capacity(std::size_t device, const groth16::parameters& params,
                                     const r1cs::r1cs_shape& shape) {
    (void)device, (void)params, (void)shape;
    return 1;
  }
  /// One partition of a batch: prove_start's arguments for it.
  struct batch_entry {
    groth16::witness* w = nullptr;  ///< read only, left as it came (as prove_start); empty as there
    ff::fr r, s;
    const cancel_token* token = nullptr;         ///< its job's
    std::unique_ptr<prepared_witness> prepared;  ///< from prepare (may be null)
  };
  /// Proves |entries|, partitions of one circuit (|params|, |shape|), in
  /// one pass: result i is entry i's pending proof, or null when entry i's
  /// token was cancelled before its part was done (the others complete).
  /// |at_boundary| (when set) runs between device phases and only lends
  /// the device (the backend checks each entry's token itself). Throws
  /// cancelled_error when every entry was cancelled; any other exception
  /// fails every entry. Default: prove_start entry by entry.
  virtual std::vector<std::unique_ptr<pending_proof>> prove_start_batch(std::size_t device,
                                                                        const groth16::parameters& params,
                                                                        const r1cs::r1cs_shape& shape,
                                                                        std::span<batch_entry> entries,
                                                                        const phase_boundary& at_boundary) {
    std::vector<std::unique_ptr<pending_proof>> out(entries.size());
    bool any = false;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      batch_entry& e = entries[i];
      if (e.token->cancelled()) continue;
      const phase_boundary check = [&] {
        e.token->check();
        if (at_boundary) at_boundary();
      };
      try {
        out[i] = prove_start(device, params, shape, std::move(*e.w), e.r, e.s, *e.token, std::move(e.prepared), check);
        any = true;
      } catch (const cancelled_error&) {
      }
    }
    if (!any) throw cancelled_error("every partition of the batch was cancelled");
    return out;
  }
  /// The rest, off the device lock.
  virtual groth16::proof finalize(std::unique_ptr<pending_proof> p) = 0;
  /// Moves the proving queries of |file| straight into device memory, when
  /// this backend proves from there and they fit beside what proofs of
  /// |shape| need; null otherwise (the SRS manager then decodes them into
  /// host memory, the default). |vk_only| is the host parameters they belong
  /// to (verifying key set, queries empty): prove_start later gets that same
  /// object. Throws io::format_error for a bad point, cancelled_error through
  /// |token|, cuda_error.
  /// Whether load_queries may load anything (the engine offers it file
  /// loads only then).
  virtual bool loads_queries() const { return false; }
  /// A circuit's parameters are in host memory (decoded from their file, or
  /// installed) and stay there as long as the returned handle: the backend
  /// may prepare them for its use (the CUDA backend pins the queries, so
  /// that streaming them to a device runs at the link's speed). Null: none.
  virtual std::shared_ptr<const void> pin_host_parameters(const groth16::parameters&) { return nullptr; }
  virtual std::shared_ptr<device_resident_queries> load_queries(const io::mapped_parameter_file& file,
                                                                const groth16::parameters& vk_only,
                                                                const r1cs::r1cs_shape& shape,
                                                                const io::read_options& opt,
                                                                const cancel_token* token) {
    (void)file, (void)vk_only, (void)shape, (void)opt, (void)token;
    return nullptr;
  }
};

/// The CPU backend: |devices| virtual devices (each a kernel lock; work runs
/// on the shared oneTBB pool).
std::unique_ptr<prover_backend> make_cpu_backend(std::size_t devices = 1);

/// Called with a message each time make_fallback_backend falls back.
using fallback_notice_fn = std::function<void(const std::string&)>;

/// |primary|, and |fallback| (the CPU backend) for a partition whose
/// primary prove_start throws (device allocation failure, cuda_error,
/// bad_alloc) before it consumed the witness; later failures still fail the
/// job. Partitions reserve the larger of the two backends' charges.
std::unique_ptr<prover_backend> make_fallback_backend(std::unique_ptr<prover_backend> primary,
                                                      std::unique_ptr<prover_backend> fallback,
                                                      fallback_notice_fn notice = {});

#if defined(CUZK_ENGINE_HAVE_GPU)
}  // namespace cuzk::engine
namespace cuzk::groth16 {
class gpu_prover;
}  // namespace cuzk::groth16
namespace cuzk::engine {

/// Options of the CUDA backend (built only with CUDA: CUZK_ENGINE_HAVE_GPU).
struct gpu_backend_options {
  /// CUDA ordinals ([gpus] devices); empty: every visible device.
  std::vector<int> devices;
  /// B_G2 MSM on the CPU in finalize instead of on the GPU.
  bool b_g2_on_cpu = false;
  /// VRAM left free when deciding whether a circuit's queries fit.
  std::uint64_t vram_margin_bytes = std::uint64_t(1) << 30;
  /// Most VRAM a circuit's prover may hold per device, queries included
  /// (gpus.vram_limit; 0: free memory minus vram_margin_bytes). Queries that
  /// do not fit are streamed (groth16::gpu_memory_plan).
  std::uint64_t vram_limit_bytes = 0;
  /// Makes the prover of a circuit on a device instead of the default
  /// (which uploads params' queries): for parameters that already live in
  /// VRAM (setup_gpu.hpp), installed in the SRS manager with their
  /// verifying key only. Return null to fall back to the default.
  std::function<std::shared_ptr<groth16::gpu_prover>(int ordinal, const groth16::parameters&, const r1cs::r1cs_shape&)>
      make_prover;
};

/// The CUDA backend: one groth16::gpu_prover per (device, circuit), made on
/// first use and cached. Throws std::invalid_argument when a configured
/// device does not exist or no device is visible.
std::unique_ptr<prover_backend> make_gpu_backend(const gpu_backend_options& opts = {});
#endif

}  // namespace cuzk::engine
