// SPDX-License-Identifier: Apache-2.0
#pragma once
// A test backend of one virtual device that proves with the CPU backend:
// the daemon tests derive from it and override the calls they observe, hold
// or slow down (prove_start, prove_start_batch, ...).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cuzk/engine/prover_backend.hpp>

namespace cuzk::test {

class cpu_wrapping_backend : public engine::prover_backend {
 public:
  using engine::prover_backend::prove_start;
  explicit cpu_wrapping_backend(std::string name) : _name(std::move(name)), _cpu(engine::make_cpu_backend(1)) {}
  std::string name() const override { return _name; }
  std::vector<engine::device_info> devices() const override { return {{"one device", 0, 0}}; }
  std::uint64_t partition_bytes(const r1cs::r1cs_shape& s, std::uint64_t* after) const override {
    return _cpu->partition_bytes(s, after);
  }
  groth16::proof finalize(std::unique_ptr<engine::pending_proof> p) override { return _cpu->finalize(std::move(p)); }

 protected:
  engine::prover_backend& cpu() { return *_cpu; }

 private:
  std::string _name;
  std::unique_ptr<engine::prover_backend> _cpu;
};

}  // namespace cuzk::test
