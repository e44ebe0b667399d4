// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which prover backend the daemon runs, and what happens when the GPU one
// fails (docs/RELIABILITY.md, "GPU allocation failure"):
//  * a GPU factory is given (CUDA build, a device visible): it is called;
//    when it throws (a device that cannot be initialised, no memory) the
//    daemon starts on the CPU backend if gpus.cpu_fallback, else the error
//    propagates (the daemon refuses to start, naming it);
//  * with gpus.cpu_fallback the GPU backend is wrapped by
//    make_fallback_backend, so a partition whose device allocation fails is
//    proved on the CPU; without it such a job FAILS with the error and the
//    daemon keeps serving;
//  * no factory: the CPU backend, one virtual device per listed GPU.
// The factory is a parameter so tests can inject a failing one on a machine
// without a GPU.
#include <functional>
#include <memory>
#include <string>

#include <cuzk/engine/prover_backend.hpp>

#include "daemon_config.hpp"

namespace cuzk::service {

using backend_factory = std::function<std::unique_ptr<engine::prover_backend>()>;
using backend_log_fn = std::function<void(int level, const std::string& message)>;  ///< 1 info, 2 warn, 3 error

std::unique_ptr<engine::prover_backend> choose_backend(const daemon_config& cfg, const backend_factory& gpu,
                                                       const backend_log_fn& log);

}  // namespace cuzk::service
