// SPDX-License-Identifier: Apache-2.0
// Prover backend choice and GPU failure policy (see backend_select.hpp).
#include "backend_select.hpp"

#include <algorithm>

namespace cuzk::service {

std::unique_ptr<engine::prover_backend> choose_backend(const daemon_config& cfg, const backend_factory& gpu,
                                                       const backend_log_fn& log) {
  const auto cpu = [&] { return engine::make_cpu_backend(std::max<std::size_t>(1, cfg.gpu_devices.size())); };
  if (!gpu) return cpu();
  std::unique_ptr<engine::prover_backend> b;
  try {
    b = gpu();
  } catch (const std::exception& e) {
    if (!cfg.cpu_fallback)
      throw std::runtime_error(std::string("cannot start the CUDA prover backend: ") + e.what() +
                               " (set gpus.cpu_fallback = true to run on the CPU instead)");
    if (log)
      log(3, std::string("cannot start the CUDA prover backend (") + e.what() +
                 "); gpus.cpu_fallback is set: proving on the CPU backend");
    return cpu();
  }
  if (!cfg.cpu_fallback) return b;
  return engine::make_fallback_backend(std::move(b), cpu(), [log](const std::string& m) {
    if (log) log(2, m);
  });
}

}  // namespace cuzk::service
