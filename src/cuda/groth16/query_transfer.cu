// SPDX-License-Identifier: Apache-2.0
// upload_queries / download_queries (cuzk/groth16/query_transfer_gpu.hpp).
//
// Upload, per chunk: wait until the staging buffer's previous copies have
// left it (one event per device and buffer), let the source fill it, queue
// its copy on every device's stream and record the events; the next chunk
// fills the other buffer meanwhile. Download, per chunk: queue the copy of
// chunk k + 1 into the free buffer, then wait for chunk k and hand it to
// the sink. Chunks never cross a query boundary (a query's points are
// contiguous on the device; the file's length fields sit between them).
#include <cuzk/groth16/query_transfer_gpu.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include <cuzk/groth16/device_queries.cuh>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>

namespace cuzk::groth16 {
namespace {

constexpr std::array<query_id, 5> file_order = {query_id::h, query_id::l, query_id::a, query_id::b_g1, query_id::b_g2};

gpu::device_buffer<ec::g1_affine>& g1_of(device_queries& q, query_id id) {
  switch (id) {
    case query_id::h: return q.h;
    case query_id::l: return q.l;
    case query_id::a: return q.a;
    default: return q.b_g1;
  }
}
const gpu::device_buffer<ec::g1_affine>& g1_of(const device_queries& q, query_id id) {
  return g1_of(const_cast<device_queries&>(q), id);
}

/// One device's half of an upload: its queries, a stream, and per staging
/// buffer an event that fires when that buffer's last copy is done.
struct upload_target {
  int ordinal = 0;
  std::shared_ptr<device_queries> q;
  gpu::stream s;
  std::array<gpu::event, 2> done;
  std::array<bool, 2> pending{false, false};
};

}  // namespace

query_sizes sizes_of(const parameters& p) { return {p.h.size(), p.l.size(), p.a.size(), p.b_g1.size(), p.b_g2.size()}; }

query_sizes sizes_of(const gpu_parameters& p) {
  if (!p.queries) return {};
  const device_queries& q = *p.queries;
  return {q.h.size(), q.l.size(), q.a.size(), q.b_g1.size(), q.b_g2.size()};
}

std::vector<gpu_parameters> upload_queries(std::span<const int> devices, const verifying_key& vk,
                                           const query_sizes& sizes, query_source& src,
                                           const query_transfer_config& cfg) {
  if (devices.empty()) throw std::invalid_argument("upload_queries: no device");
  if (cfg.staging_bytes < sizeof(ec::g2_affine))
    throw std::invalid_argument("upload_queries: staging buffers of " + std::to_string(cfg.staging_bytes) +
                                " bytes cannot hold one G2 point");
  std::vector<std::unique_ptr<upload_target>> targets;
  for (const int ord : devices) {
    gpu::device_guard guard(ord);
    auto t = std::make_unique<upload_target>();
    t->ordinal = ord;
    t->q = std::make_shared<device_queries>();
    t->q->device = ord;
    // everything allocated before the first copy: a device without room
    // fails here, before any decoding work
    t->q->h = gpu::device_buffer<ec::g1_affine>(sizes.h);
    t->q->l = gpu::device_buffer<ec::g1_affine>(sizes.l);
    t->q->a = gpu::device_buffer<ec::g1_affine>(sizes.a);
    t->q->b_g1 = gpu::device_buffer<ec::g1_affine>(sizes.b_g1);
    t->q->b_g2 = gpu::device_buffer<ec::g2_affine>(sizes.b_g2);
    targets.push_back(std::move(t));
  }
  // pinned staging on the first device's context (pinned memory is usable
  // by every device of the process)
  std::array<gpu::pinned_buffer<std::uint8_t>, 2> stage;
  {
    gpu::device_guard guard(devices[0]);
    for (auto& b : stage) b = gpu::pinned_buffer<std::uint8_t>(cfg.staging_bytes);
  }
  unsigned buf = 0;
  // waits until no device still copies out of staging buffer |b|
  const auto drain = [&](unsigned b) {
    for (auto& t : targets)
      if (t->pending[b]) {
        t->done[b].synchronize();
        t->pending[b] = false;
      }
  };
  try {
    for (const query_id id : file_order) {
      const bool g2 = id == query_id::b_g2;
      const std::size_t point = g2 ? sizeof(ec::g2_affine) : sizeof(ec::g1_affine);
      const std::size_t per_chunk = cfg.staging_bytes / point, total = sizes.of(id);
      for (std::size_t first = 0; first < total; first += per_chunk) {
        if (cfg.between_chunks) cfg.between_chunks();
        const std::size_t n = std::min(per_chunk, total - first);
        drain(buf);
        std::uint8_t* host = stage[buf].data();
        if (g2) src.fill_g2(first, {reinterpret_cast<ec::g2_affine*>(host), n});
        else src.fill_g1(id, first, {reinterpret_cast<ec::g1_affine*>(host), n});
        for (auto& t : targets) {
          gpu::device_guard guard(t->ordinal);
          if (g2) t->q->b_g2.upload(reinterpret_cast<const ec::g2_affine*>(host), n, t->s, first);
          else g1_of(*t->q, id).upload(reinterpret_cast<const ec::g1_affine*>(host), n, t->s, first);
          t->done[buf].record(t->s);
          t->pending[buf] = true;
        }
        buf ^= 1u;
      }
    }
  } catch (...) {
    // a failed chunk (the source, cancellation, a CUDA error): let every
    // queued copy leave the staging buffers before they are freed
    for (auto& t : targets) (void)cudaStreamSynchronize(t->s);
    throw;
  }
  drain(0);
  drain(1);
  std::vector<gpu_parameters> out;
  for (auto& t : targets) out.push_back(gpu_parameters{vk, std::move(t->q)});
  return out;
}

void download_queries(const gpu_parameters& p, query_sink& sink, const query_transfer_config& cfg) {
  if (!p.queries) throw std::invalid_argument("download_queries: the parameters hold no queries");
  if (cfg.staging_bytes < sizeof(ec::g2_affine))
    throw std::invalid_argument("download_queries: staging buffers of " + std::to_string(cfg.staging_bytes) +
                                " bytes cannot hold one G2 point");
  const device_queries& q = *p.queries;
  gpu::device_guard guard(q.device);
  gpu::stream s;
  std::array<gpu::pinned_buffer<std::uint8_t>, 2> stage;
  for (auto& b : stage) b = gpu::pinned_buffer<std::uint8_t>(cfg.staging_bytes);
  std::array<gpu::event, 2> ready;
  // every chunk of every query, in file order
  struct chunk {
    query_id id;
    std::size_t first, n;
  };
  std::vector<chunk> chunks;
  const query_sizes sizes = sizes_of(p);
  for (const query_id id : file_order) {
    const std::size_t point = id == query_id::b_g2 ? sizeof(ec::g2_affine) : sizeof(ec::g1_affine);
    const std::size_t per_chunk = cfg.staging_bytes / point, total = sizes.of(id);
    for (std::size_t first = 0; first < total; first += per_chunk)
      chunks.push_back({id, first, std::min(per_chunk, total - first)});
  }
  const auto start = [&](std::size_t k) {
    const chunk& c = chunks[k];
    std::uint8_t* host = stage[k % 2].data();
    if (c.id == query_id::b_g2) q.b_g2.download(reinterpret_cast<ec::g2_affine*>(host), c.n, s, c.first);
    else g1_of(q, c.id).download(reinterpret_cast<ec::g1_affine*>(host), c.n, s, c.first);
    ready[k % 2].record(s);
  };
  if (!chunks.empty()) start(0);
  try {
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      // buffer (k + 1) % 2 was handed to the sink at step k - 1, which has
      // returned: it is free for the next copy
      if (k + 1 < chunks.size()) start(k + 1);
      ready[k % 2].synchronize();
      const chunk& c = chunks[k];
      const std::uint8_t* host = stage[k % 2].data();
      if (c.id == query_id::b_g2) sink.put_g2(c.first, {reinterpret_cast<const ec::g2_affine*>(host), c.n});
      else sink.put_g1(c.id, c.first, {reinterpret_cast<const ec::g1_affine*>(host), c.n});
    }
  } catch (...) {
    // the sink failed: the next chunk's copy may still be writing into a
    // staging buffer that is about to be freed
    (void)cudaStreamSynchronize(s);
    throw;
  }
}

}  // namespace cuzk::groth16
