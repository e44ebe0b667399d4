// SPDX-License-Identifier: Apache-2.0
#pragma once
// RAII owners of CUDA resources: device memory, pinned host memory, streams
// and events, plus a scoped device selection. Algorithm code allocates only
// through these (never cudaMalloc/cudaFree directly), so every exit path,
// exceptions included, returns what it took.
//
// Invariants:
//  - device_buffer<T> / pinned_buffer<T> hold |size()| elements of a
//    trivially copyable T, uninitialised; size 0 holds no allocation.
//  - Destructors never throw: a failure while freeing (a device that already
//    faulted) is dropped, the original error has been reported elsewhere.
//  - All types are move-only.
// Cost: cudaMalloc/cudaFree synchronise the device and take ~10 us to ms;
// allocate once per size and reuse (the NTT caches its tables, the MSM keeps
// scratch in the caller's buffers).

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include <cuzk/gpu/cuda_check.cuh>

namespace cuzk::gpu {

/// Number of usable devices, 0 when there is no driver or no device; never
/// throws and clears the error it may have caused.
inline int query_device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

/// Makes |ordinal| current for the scope; restores the previous device.
class device_guard {
 public:
  explicit device_guard(int ordinal) {
    CUZK_CUDA_CHECK(cudaGetDevice(&_previous));
    if (ordinal != _previous) CUZK_CUDA_CHECK(cudaSetDevice(ordinal));
  }
  ~device_guard() { (void)cudaSetDevice(_previous); }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int _previous = 0;
};

template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : _size(n) {
    if (n) CUZK_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&_ptr), n * sizeof(T)));
  }
  ~device_buffer() { reset(); }
  device_buffer(device_buffer&& o) noexcept : _ptr(std::exchange(o._ptr, nullptr)), _size(std::exchange(o._size, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      reset();
      _ptr = std::exchange(o._ptr, nullptr);
      _size = std::exchange(o._size, 0);
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* data() const noexcept { return _ptr; }
  std::size_t size() const noexcept { return _size; }
  std::size_t bytes() const noexcept { return _size * sizeof(T); }
  explicit operator bool() const noexcept { return _ptr != nullptr; }

  /// Copies |n| elements from host |h_src| into elements [offset, offset+n).
  void upload(const T* h_src, std::size_t n, cudaStream_t s, std::size_t offset = 0) {
    if (n) CUZK_CUDA_CHECK(cudaMemcpyAsync(_ptr + offset, h_src, n * sizeof(T), cudaMemcpyHostToDevice, s));
  }
  /// Copies elements [offset, offset+n) to host |h_dst|.
  void download(T* h_dst, std::size_t n, cudaStream_t s, std::size_t offset = 0) const {
    if (n) CUZK_CUDA_CHECK(cudaMemcpyAsync(h_dst, _ptr + offset, n * sizeof(T), cudaMemcpyDeviceToHost, s));
  }

  void reset() noexcept {
    if (_ptr) (void)cudaFree(_ptr);
    _ptr = nullptr;
    _size = 0;
  }

 private:
  T* _ptr = nullptr;
  std::size_t _size = 0;
};

template <class T>
class pinned_buffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t n) : _size(n) {
    if (n) CUZK_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&_ptr), n * sizeof(T)));
  }
  ~pinned_buffer() { reset(); }
  pinned_buffer(pinned_buffer&& o) noexcept : _ptr(std::exchange(o._ptr, nullptr)), _size(std::exchange(o._size, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& o) noexcept {
    if (this != &o) {
      reset();
      _ptr = std::exchange(o._ptr, nullptr);
      _size = std::exchange(o._size, 0);
    }
    return *this;
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;

  T* data() const noexcept { return _ptr; }
  std::size_t size() const noexcept { return _size; }
  T& operator[](std::size_t i) const noexcept { return _ptr[i]; }
  T* begin() const noexcept { return _ptr; }
  T* end() const noexcept { return _ptr + _size; }

  void reset() noexcept {
    if (_ptr) (void)cudaFreeHost(_ptr);
    _ptr = nullptr;
    _size = 0;
  }

 private:
  T* _ptr = nullptr;
  std::size_t _size = 0;
};

/// A non-blocking stream on the current device.
class stream {
 public:
  stream() { CUZK_CUDA_CHECK(cudaStreamCreateWithFlags(&_s, cudaStreamNonBlocking)); }
  ~stream() {
    if (_s) (void)cudaStreamDestroy(_s);
  }
  stream(stream&& o) noexcept : _s(std::exchange(o._s, nullptr)) {}
  stream& operator=(stream&& o) noexcept {
    if (this != &o) {
      if (_s) (void)cudaStreamDestroy(_s);
      _s = std::exchange(o._s, nullptr);
    }
    return *this;
  }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  cudaStream_t get() const noexcept { return _s; }
  operator cudaStream_t() const noexcept { return _s; }
  void synchronize() const { CUZK_CUDA_CHECK(cudaStreamSynchronize(_s)); }

 private:
  cudaStream_t _s = nullptr;
};

/// A timing-capable event.
class event {
 public:
  event() { CUZK_CUDA_CHECK(cudaEventCreate(&_e)); }
  ~event() {
    if (_e) (void)cudaEventDestroy(_e);
  }
  event(event&& o) noexcept : _e(std::exchange(o._e, nullptr)) {}
  event& operator=(event&& o) noexcept {
    if (this != &o) {
      if (_e) (void)cudaEventDestroy(_e);
      _e = std::exchange(o._e, nullptr);
    }
    return *this;
  }
  event(const event&) = delete;
  event& operator=(const event&) = delete;

  cudaEvent_t get() const noexcept { return _e; }
  void record(cudaStream_t s) { CUZK_CUDA_CHECK(cudaEventRecord(_e, s)); }
  void synchronize() const { CUZK_CUDA_CHECK(cudaEventSynchronize(_e)); }
  /// Milliseconds from |start| to this event (both recorded and complete).
  float elapsed_ms_since(const event& start) const {
    float ms = 0;
    CUZK_CUDA_CHECK(cudaEventElapsedTime(&ms, start._e, _e));
    return ms;
  }

 private:
  cudaEvent_t _e = nullptr;
};

}  // namespace cuzk::gpu
