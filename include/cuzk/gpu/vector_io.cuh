// SPDX-License-Identifier: Apache-2.0
#pragma once
// 16-byte vector loads and stores of whole device structures (field
// elements, points): one 128-bit access per 16 bytes instead of four 32-bit
// ones. Device arrays are 16-byte aligned (cudaMalloc), and every type used
// here is a multiple of 16 bytes (checked at compile time). One copy for
// the MSM, NTT and SpMV kernels.

#include <cstddef>

namespace cuzk::gpu {

namespace detail {
template <bool ReadOnly, class T>
__device__ __forceinline__ T load16_as(const T* p) {
  static_assert(sizeof(T) % 16 == 0, "16-byte loads need a multiple of 16 bytes");
  T r;
  const uint4* s = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (std::size_t i = 0; i < sizeof(T) / 16; ++i) {
    if constexpr (ReadOnly) d[i] = __ldg(s + i);
    else d[i] = s[i];
  }
  return r;
}
}  // namespace detail

/// *p through the read-only data path (__ldg): for data no thread of the
/// kernel writes.
template <class T>
__device__ __forceinline__ T load16_ro(const T* p) {
  return detail::load16_as<true>(p);
}

/// *p by plain loads: for data the kernel may also write.
template <class T>
__device__ __forceinline__ T load16(const T* p) {
  return detail::load16_as<false>(p);
}

template <class T>
__device__ __forceinline__ void store16(T* p, const T& v) {
  static_assert(sizeof(T) % 16 == 0, "store16 needs a multiple of 16 bytes");
  const uint4* s = reinterpret_cast<const uint4*>(&v);
  uint4* d = reinterpret_cast<uint4*>(p);
#pragma unroll
  for (std::size_t i = 0; i < sizeof(T) / 16; ++i) d[i] = s[i];
}

}  // namespace cuzk::gpu
