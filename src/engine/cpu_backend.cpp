// SPDX-License-Identifier: Apache-2.0
// The CPU prover backend: groth16::prove under the device lock, nothing left
// for finalize; its step times (spmv, ntt_h, msm_a, msm_b1, msm_b2, msm_l,
// msm_h) go with the pending proof. Cost: the whole CPU proof (SpMV, NTTs,
// MSMs) in prove_start. The job's cancel token reaches the MSMs and the
// steps between NTTs (groth16::prove's |stop|), so a cancelled partition
// gives the device lock back within milliseconds of an MSM block.
#include <thread>

#include <cuzk/engine/prover_backend.hpp>
#include <cuzk/engine/types.hpp>
#include <cuzk/msm/msm.hpp>

namespace cuzk::engine {
namespace {

class cpu_pending final : public pending_proof {
 public:
  explicit cpu_pending(groth16::proof p) : proof(p) {}
  groth16::proof proof;
};

class cpu_backend final : public prover_backend {
 public:
  explicit cpu_backend(std::size_t n) : _n(n == 0 ? 1 : n) {}
  std::string name() const override { return "cpu"; }
  std::vector<device_info> devices() const override {
    std::vector<device_info> v;
    for (std::size_t i = 0; i < _n; ++i)
      v.push_back({"cpu (" + std::to_string(std::thread::hardware_concurrency()) + " threads)", 0, 0});
    return v;
  }
  // witness (inputs + aux) and groth16::prove's a, b, c, h over the 2^k domain
  std::uint64_t partition_bytes(const r1cs::r1cs_shape& s, std::uint64_t* after_start) const override {
    std::uint64_t m = 1;
    while (m < s.num_constraints) m <<= 1;
    const std::uint64_t witness = std::uint64_t(s.num_inputs + s.num_aux) * sizeof(ff::fr);
    const std::uint64_t temp = 4 * m * sizeof(ff::fr);
    *after_start = witness + temp;
    return witness + temp + 4096;  // + the proof and bookkeeping until finalize
  }
  std::unique_ptr<pending_proof> prove_start(std::size_t d, const groth16::parameters& params,
                                             const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                             const ff::fr& s) override {
    return prove_start(d, params, shape, std::move(w), r, s, cancel_token());
  }
  std::unique_ptr<pending_proof> prove_start(std::size_t d, const groth16::parameters& params,
                                             const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                             const ff::fr& s, const cancel_token& token) override {
    return prove_start(d, params, shape, std::move(w), r, s, token, nullptr, {});
  }
  // |at_boundary| between groth16::prove's steps (H, each MSM): a more
  // urgent partition of another circuit takes the cores there
  std::unique_ptr<pending_proof> prove_start(std::size_t, const groth16::parameters& params,
                                             const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                             const ff::fr& s, const cancel_token& token,
                                             std::unique_ptr<prepared_witness>,
                                             const phase_boundary& at_boundary) override {
    // |w| is only read: the engine gives its buffer to the witness pool
    groth16::prove_timings t;
    std::unique_ptr<cpu_pending> out;
    try {
      out = std::make_unique<cpu_pending>(groth16::prove(params, shape, w, r, s, &t, token.flag(), at_boundary));
    } catch (const msm::stopped&) {
      throw cancelled_error("job cancelled while proving on the cpu backend");
    }
    out->stage_ms = {{"spmv", t.spmv_ms},     {"ntt_h", t.ntt_h_ms}, {"msm_a", t.msm_a_ms}, {"msm_b1", t.msm_b1_ms},
                     {"msm_b2", t.msm_b2_ms}, {"msm_l", t.msm_l_ms}, {"msm_h", t.msm_h_ms}};
    return out;
  }
  groth16::proof finalize(std::unique_ptr<pending_proof> p) override { return static_cast<cpu_pending&>(*p).proof; }

 private:
  std::size_t _n;
};

}  // namespace

std::unique_ptr<prover_backend> make_cpu_backend(std::size_t devices) { return std::make_unique<cpu_backend>(devices); }

}  // namespace cuzk::engine
