// SPDX-License-Identifier: Apache-2.0
// Host-callable device queries declared in cuzk/gpu/runtime.hpp.
// device_count() caches the first answer: the set of devices visible to a
// process does not change while it runs (CUDA_VISIBLE_DEVICES is read once
// by the runtime).
#include <cuzk/gpu/runtime.hpp>

#include <cstdio>
#include <mutex>

#include <cuzk/gpu/device.cuh>

namespace cuzk::gpu {

int device_count() noexcept {
  static std::once_flag once;
  static int count = 0;
  try {
    std::call_once(once, [] { count = query_device_count(); });
  } catch (...) {
    return 0;
  }
  return count;
}

std::string device_description(int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) return {};
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB", prop.name,
                prop.major, prop.minor, prop.multiProcessorCount,
                double(prop.totalGlobalMem) / double(1ull << 30), prop.l2CacheSize >> 20);
  return buf;
}

bool device_memory(int ordinal, std::size_t* free_bytes, std::size_t* total_bytes) noexcept {
  *free_bytes = 0;
  *total_bytes = 0;
  if (ordinal < 0 || ordinal >= device_count()) return false;
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess || cudaSetDevice(ordinal) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  std::size_t f = 0, t = 0;
  const bool ok = cudaMemGetInfo(&f, &t) == cudaSuccess;
  if (!ok) (void)cudaGetLastError();
  (void)cudaSetDevice(prev);
  if (ok) {
    *free_bytes = f;
    *total_bytes = t;
  }
  return ok;
}

}  // namespace cuzk::gpu
