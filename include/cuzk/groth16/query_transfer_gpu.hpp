// SPDX-License-Identifier: Apache-2.0
#pragma once
// Moving the proving queries (H, L, A, B_G1, B_G2) between a parameter file
// and GPU memory in chunks, so that the ~47 GB of a 32 GiB PoRep key never
// sits on the host:
//  - upload_queries: the engine's SRS load. A query_source (the caller's:
//    decoding a mapped .params file) fills one of two pinned staging buffers
//    with the next chunk of points while the previous chunk is copied to
//    every device; each device ends with a gpu_parameters a gpu_prover uses
//    in place (prover_gpu.hpp).
//  - download_queries: gen-params. Chunks of each query come back through
//    two pinned buffers, the device-to-host copy of chunk k + 1 running
//    while a query_sink (the caller's: encoding and writing a .params file)
//    takes chunk k.
// Both walk the queries in .params order (h, l, a, b_g1, b_g2), so a file
// is read or written front to back.
// Host-includable (no CUDA headers). Host memory: 2 staging buffers of
// |staging_bytes| pinned bytes, nothing per point. Device memory (upload):
// the queries themselves, device_query_bytes(sizes) per device, allocated
// before the first copy (cuda_error, out of memory, when they do not fit).
// Cost: the slower of the source/sink and the PCIe copies (~25 GB/s each way
// per device on a PCIe 5 x16 link), the two overlapped.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/groth16/setup_gpu.hpp>
#include <cuzk/groth16/keys.hpp>

namespace cuzk::groth16 {

/// The five proving queries in .params order.
enum class query_id : std::uint8_t { h, l, a, b_g1, b_g2 };

/// Point counts of the five queries (wherever they live: host, file, device).
struct query_sizes {
  std::size_t h = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0;

  std::size_t of(query_id q) const {
    switch (q) {
      case query_id::h: return h;
      case query_id::l: return l;
      case query_id::a: return a;
      case query_id::b_g1: return b_g1;
      case query_id::b_g2: return b_g2;
    }
    return 0;
  }
  /// The largest G1 query (the G1 MSM scratch is sized for it).
  std::size_t g1_max() const { return std::max({h, l, a, b_g1}); }
  /// Device (and file payload) bytes: 96 per G1 point, 192 per G2 point.
  std::size_t bytes() const { return sizeof(ec::g1_affine) * (h + l + a + b_g1) + sizeof(ec::g2_affine) * b_g2; }
  bool operator==(const query_sizes&) const = default;
};

/// The sizes of |p|'s queries (host parameters).
query_sizes sizes_of(const parameters& p);
/// The sizes of |p|'s queries (on a device).
query_sizes sizes_of(const gpu_parameters& p);

/// Where upload_queries takes its points from. Called from the uploading
/// thread only, in .params order, each call for the next |out.size()|
/// points of the query from |first|; may throw (the upload stops, the
/// device memory is freed, the exception leaves upload_queries).
struct query_source {
  virtual ~query_source() = default;
  /// Points [first, first + out.size()) of G1 query |q| (never b_g2).
  virtual void fill_g1(query_id q, std::size_t first, std::span<ec::g1_affine> out) = 0;
  /// Points [first, first + out.size()) of B_G2.
  virtual void fill_g2(std::size_t first, std::span<ec::g2_affine> out) = 0;
};

/// Where download_queries puts its points (same order and rules).
struct query_sink {
  virtual ~query_sink() = default;
  virtual void put_g1(query_id q, std::size_t first, std::span<const ec::g1_affine> pts) = 0;
  virtual void put_g2(std::size_t first, std::span<const ec::g2_affine> pts) = 0;
};

struct query_transfer_config {
  /// Pinned bytes of each of the two staging buffers (>= one G2 point).
  std::size_t staging_bytes = std::size_t(64) << 20;
  /// Called between chunks (upload only); may throw to abandon the load
  /// (the engine's cancellation).
  std::function<void()> between_chunks;
};

/// Allocates queries of |sizes| on each device of |devices| and fills them
/// from |src|, chunk by chunk (each chunk decoded once, copied to every
/// device). Returns one gpu_parameters per device, in |devices| order, each
/// with a copy of |vk|. Throws std::invalid_argument for no device or a
/// staging buffer smaller than a G2 point, cuzk::gpu::cuda_error on any CUDA
/// failure (including too little device memory), and whatever |src| or
/// between_chunks throws.
std::vector<gpu_parameters> upload_queries(std::span<const int> devices, const verifying_key& vk,
                                           const query_sizes& sizes, query_source& src,
                                           const query_transfer_config& cfg = {});

/// Copies every query of |p| to |sink| in .params order through pinned
/// staging. Throws cuzk::gpu::cuda_error and whatever |sink| throws.
void download_queries(const gpu_parameters& p, query_sink& sink, const query_transfer_config& cfg = {});

}  // namespace cuzk::groth16
