// SPDX-License-Identifier: Apache-2.0
#pragma once
// Error checks for CUDA runtime calls and kernel launches.
//
//   CUZK_CUDA_CHECK(cudaMemcpyAsync(...));   // throws cuzk::gpu::cuda_error
//   my_kernel<<<grid, block, smem, s>>>(...);
//   CUZK_CUDA_CHECK_LAUNCH();                // after every launch
//
// The message holds the failing expression, file:line and CUDA's error name
// and string. A launch check reads cudaGetLastError(), which catches bad
// launch configurations at once; faults inside the kernel surface at the next
// synchronising call, which is itself checked.
// Cost: one branch per call; cudaGetLastError is a host-side read.

#include <cuda_runtime.h>

#include <string>

#include <cuzk/gpu/runtime.hpp>

namespace cuzk::gpu::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " + cudaGetErrorName(err) +
                    " (" + cudaGetErrorString(err) + ")";
  throw cuda_error(int(err), msg);
}

}  // namespace cuzk::gpu::detail

#define CUZK_CUDA_CHECK(expr)                                                           \
  do {                                                                                  \
    const cudaError_t cuzk_cuda_err_ = (expr);                                          \
    if (cuzk_cuda_err_ != cudaSuccess)                                                  \
      ::cuzk::gpu::detail::throw_cuda_error(cuzk_cuda_err_, #expr, __FILE__, __LINE__); \
  } while (0)

#define CUZK_CUDA_CHECK_LAUNCH() CUZK_CUDA_CHECK(cudaGetLastError())
