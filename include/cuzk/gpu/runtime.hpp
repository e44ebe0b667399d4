// SPDX-License-Identifier: Apache-2.0
#pragma once
// Host-callable view of the CUDA backend that compiles with a plain C++
// compiler (no CUDA headers): the error type every GPU entry point throws and
// the device-count query the engine and the tests use to decide whether a GPU
// path exists at all.
//
// Invariants: device_count() never throws and never leaves a sticky CUDA
// error behind; it returns 0 when the library was built without a usable
// driver, when no device is present, or when the driver refuses to start
// (for example inside a container without /dev/nvidia*).
// Cost: the first call initialises the CUDA runtime (tens to hundreds of ms);
// later calls are a cached integer read.

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

namespace cuzk::gpu {

/// A failed CUDA runtime call or kernel launch: what() holds the expression,
/// the file:line and CUDA's own message.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(int code, const std::string& what) : std::runtime_error(what), _code(code) {}
  /// The cudaError_t value.
  int code() const noexcept { return _code; }

 private:
  int _code;
};

/// Number of CUDA devices usable by this process; 0 when none (never throws).
int device_count() noexcept;

/// One-line description of device |ordinal| ("NVIDIA H200, sm_90, 132 SMs,
/// 139.8 GiB"); empty when it does not exist.
std::string device_description(int ordinal);

/// Free and total bytes of device |ordinal| (cudaMemGetInfo on it); false,
/// with both left at 0, when it does not exist or the query fails.
bool device_memory(int ordinal, std::size_t* free_bytes, std::size_t* total_bytes) noexcept;

/// Pins the |bytes| of host memory at |ptr| for DMA to every device
/// (cudaHostRegister, portable) while the returned handle lives: copies
/// from it then run at the link's speed and overlap kernels, where copies
/// from pageable memory go through the driver's bounce buffers (measured
/// on the H200 host, 2026-12-04: 4-7 GB/s). Holders of the same range share
/// one registration (a prover per device over one host copy of the
/// parameters). Null when the driver refuses (e.g. the range overlaps one
/// pinned otherwise): copies still work, at the pageable speed. Pinning
/// holds no new memory; it only keeps the range's pages resident.
std::shared_ptr<const void> pin_host_range(const void* ptr, std::size_t bytes);

}  // namespace cuzk::gpu

namespace cuzk {
using gpu::cuda_error;  // CONVENTIONS.md item 12 names it cuzk::cuda_error
}  // namespace cuzk
