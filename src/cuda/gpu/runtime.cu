// SPDX-License-Identifier: Apache-2.0
// Host-callable device queries declared in cuzk/gpu/runtime.hpp.
// device_count() caches the first answer: the set of devices visible to a
// process does not change while it runs (CUDA_VISIBLE_DEVICES is read once
// by the runtime).
#include <cuzk/gpu/runtime.hpp>

#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

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
  std::snprintf(buf, sizeof buf, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount, double(prop.totalGlobalMem) / double(1ull << 30), prop.l2CacheSize >> 20);
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

namespace {
/// One cudaHostRegister of a range, undone when its last holder lets go.
class host_registration {
 public:
  explicit host_registration(void* p) : _ptr(p) {}
  ~host_registration() {
    if (cudaHostUnregister(_ptr) != cudaSuccess) (void)cudaGetLastError();  // not sticky
  }
  host_registration(const host_registration&) = delete;
  host_registration& operator=(const host_registration&) = delete;

 private:
  void* _ptr;
};
}  // namespace

std::shared_ptr<const void> pin_host_range(const void* ptr, std::size_t bytes) {
  if (!ptr || !bytes) return nullptr;
  static std::mutex mu;
  static std::map<std::pair<const void*, std::size_t>, std::weak_ptr<const void>> pinned;
  std::lock_guard lock(mu);
  const auto key = std::make_pair(ptr, bytes);
  if (auto it = pinned.find(key); it != pinned.end()) {
    if (auto held = it->second.lock()) return held;
    pinned.erase(it);
  }
  void* p = const_cast<void*>(ptr);  // registration does not write the range
  if (cudaHostRegister(p, bytes, cudaHostRegisterPortable | cudaHostRegisterReadOnly) != cudaSuccess) {
    (void)cudaGetLastError();
    // read-only registration needs device support; plain pinning otherwise
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
  }
  std::shared_ptr<const void> held = std::make_shared<const host_registration>(p);
  pinned[key] = held;
  return held;
}

}  // namespace cuzk::gpu
