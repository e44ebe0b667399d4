// SPDX-License-Identifier: Apache-2.0
// A prover backend that falls back to another one (the CPU backend) when the
// first cannot prove a partition: the GPU answer to "allocation failed".
//
// prove_start runs the primary; when it throws anything but cancelled_error
// (cuda_error, std::bad_alloc, a driver error) and the witness is still
// whole, the same partition is proved on the fallback and the failure is
// reported through the callback (the daemon logs it). The GPU backend
// allocates the circuit's device buffers before it takes the witness, so an
// allocation failure is exactly the case that falls back; a failure after
// the witness was consumed cannot be retried here and fails the job with the
// primary's message. Memory: a partition reserves the larger of the two
// backends' charges, so a fallback proof is inside the budget too (the
// price: less concurrency than the primary alone). finalize goes to the
// backend that started the proof. Parameters the primary loaded straight
// into device memory (load_queries) have no host queries, so a partition of
// such a circuit cannot move to the fallback: its failure fails the job,
// with a message saying why. Batches (prove_start_batch) are the
// primary's, and a failed pass moves to the fallback whole under the same
// rule (the CPU fallback then proves its partitions one by one). Cost: one
// virtual call and a tag per proof.
#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include <cuzk/engine/prover_backend.hpp>
#include <cuzk/engine/types.hpp>

namespace cuzk::engine {
namespace {

class tagged_pending final : public pending_proof {
 public:
  tagged_pending(std::unique_ptr<pending_proof> p, bool fb) : inner(std::move(p)), on_fallback(fb) {}
  std::unique_ptr<pending_proof> inner;
  bool on_fallback;
};

class fallback_backend final : public prover_backend {
 public:
  fallback_backend(std::unique_ptr<prover_backend> primary, std::unique_ptr<prover_backend> fallback,
                   fallback_notice_fn notice)
      : _primary(std::move(primary)), _fallback(std::move(fallback)), _notice(std::move(notice)) {}

  std::string name() const override { return _primary->name() + " (falls back to " + _fallback->name() + ")"; }
  std::vector<device_info> devices() const override { return _primary->devices(); }
  std::uint64_t partition_bytes(const r1cs::r1cs_shape& shape, std::uint64_t* after_start) const override {
    std::uint64_t a1 = 0, a2 = 0;
    const std::uint64_t n1 = _primary->partition_bytes(shape, &a1), n2 = _fallback->partition_bytes(shape, &a2);
    const std::uint64_t n = std::max(n1, n2);
    *after_start = std::min(n, std::max(a1, a2));
    return n;
  }
  std::uint64_t resident_host_bytes() const override {
    return _primary->resident_host_bytes() + _fallback->resident_host_bytes();
  }
  std::unique_ptr<pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                             const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                             const ff::fr& s) override {
    return prove_start(device, params, shape, std::move(w), r, s, cancel_token());
  }
  std::unique_ptr<pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                             const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                             const ff::fr& s, const cancel_token& token) override {
    return prove_start(device, params, shape, std::move(w), r, s, token, nullptr, {});
  }
  // no coded_witness_max_others (the default, nullopt): a partition keeps
  // its whole witness here, which the fallback would prove from
  // the primary's device-free work (the fallback only runs when it fails);
  // the witness stays with the partition, since the fallback proves from it
  std::unique_ptr<prepared_witness> prepare(const r1cs::r1cs_shape& shape, const groth16::witness& w) override {
    std::unique_ptr<prepared_witness> p = _primary->prepare(shape, w);
    if (p) p->replaces_witness = false;
    return p;
  }
  // the job's token goes to whichever backend proves the partition; the
  // fallback does without the primary's prepared form
  std::unique_ptr<pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                             const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                             const ff::fr& s, const cancel_token& token,
                                             std::unique_ptr<prepared_witness> prepared,
                                             const phase_boundary& at_boundary) override {
    const std::size_t want = w.inputs.size() + w.aux.size();
    const bool host_queries = !params.h.empty() || !params.l.empty() || !params.a.empty();
    try {
      return std::make_unique<tagged_pending>(
          _primary->prove_start(device, params, shape, std::move(w), r, s, token, std::move(prepared), at_boundary),
          false);
    } catch (const cancelled_error&) {
      throw;
    } catch (const std::exception& e) {
      if (want == 0 || w.inputs.size() + w.aux.size() != want) throw;  // witness consumed: cannot retry
      if (!host_queries)
        throw std::runtime_error(std::string(e.what()) + " (no " + _fallback->name() +
                                 " fallback: this circuit's proving queries live in device memory only)");
      if (_notice)
        _notice(_primary->name() + " backend failed on device " + std::to_string(device) + " (" + e.what() +
                "); proving this partition on the " + _fallback->name() + " backend");
    }
    const std::size_t fb_device = device % std::max<std::size_t>(1, _fallback->devices().size());
    return std::make_unique<tagged_pending>(
        _fallback->prove_start(fb_device, params, shape, std::move(w), r, s, token, nullptr, at_boundary), true);
  }
  // batching is the primary's (the CPU fallback proves one at a time)
  std::size_t batch_capacity(std::size_t device, const groth16::parameters& params,
                             const r1cs::r1cs_shape& shape) override {
    return _primary->batch_capacity(device, params, shape);
  }
  // the primary's pass; when it fails with every witness whole (a batch
  // only reads them), the pass goes to the fallback as prove_start's
  // partition would, without the primary's prepared forms
  std::vector<std::unique_ptr<pending_proof>> prove_start_batch(std::size_t device, const groth16::parameters& params,
                                                                const r1cs::r1cs_shape& shape,
                                                                std::span<batch_entry> entries,
                                                                const phase_boundary& at_boundary) override {
    std::vector<std::size_t> sizes;
    for (const batch_entry& e : entries) sizes.push_back(e.w->inputs.size() + e.w->aux.size());
    const bool host_queries = !params.h.empty() || !params.l.empty() || !params.a.empty();
    try {
      return tagged(_primary->prove_start_batch(device, params, shape, entries, at_boundary), false);
    } catch (const cancelled_error&) {
      throw;
    } catch (const std::exception& e) {
      for (std::size_t i = 0; i < entries.size(); ++i)
        if (sizes[i] == 0 || entries[i].w->inputs.size() + entries[i].w->aux.size() != sizes[i]) throw;
      if (!host_queries)
        throw std::runtime_error(std::string(e.what()) + " (no " + _fallback->name() +
                                 " fallback: this circuit's proving queries live in device memory only)");
      if (_notice)
        _notice(_primary->name() + " backend failed on device " + std::to_string(device) + " for a batch of " +
                std::to_string(entries.size()) + " partitions (" + e.what() + "); proving them on the " +
                _fallback->name() + " backend");
    }
    for (batch_entry& e : entries) e.prepared.reset();
    const std::size_t fb_device = device % std::max<std::size_t>(1, _fallback->devices().size());
    return tagged(_fallback->prove_start_batch(fb_device, params, shape, entries, at_boundary), true);
  }
  bool loads_queries() const override { return _primary->loads_queries(); }
  std::shared_ptr<device_resident_queries> load_queries(const io::mapped_parameter_file& file,
                                                        const groth16::parameters& vk_only,
                                                        const r1cs::r1cs_shape& shape, const io::read_options& opt,
                                                        const cancel_token* token) override {
    return _primary->load_queries(file, vk_only, shape, opt, token);
  }
  std::shared_ptr<const void> pin_host_parameters(const groth16::parameters& p) override {
    return _primary->pin_host_parameters(p);
  }
  groth16::proof finalize(std::unique_ptr<pending_proof> p) override {
    auto& t = static_cast<tagged_pending&>(*p);
    return (t.on_fallback ? _fallback : _primary)->finalize(std::move(t.inner));
  }

 private:
  static std::vector<std::unique_ptr<pending_proof>> tagged(std::vector<std::unique_ptr<pending_proof>> proofs,
                                                            bool on_fallback) {
    for (auto& p : proofs)
      if (p) p = std::make_unique<tagged_pending>(std::move(p), on_fallback);
    return proofs;
  }
  std::unique_ptr<prover_backend> _primary, _fallback;
  fallback_notice_fn _notice;
};

}  // namespace

std::unique_ptr<prover_backend> make_fallback_backend(std::unique_ptr<prover_backend> primary,
                                                      std::unique_ptr<prover_backend> fallback,
                                                      fallback_notice_fn notice) {
  return std::make_unique<fallback_backend>(std::move(primary), std::move(fallback), std::move(notice));
}

}  // namespace cuzk::engine
