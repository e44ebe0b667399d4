// SPDX-License-Identifier: Apache-2.0
// The CUDA prover backend: the engine's prove_start / finalize on
// groth16::gpu_prover (built only with CUDA, CUZK_ENGINE_HAVE_GPU).
//
// One gpu_prover per (device, circuit), made on first use and cached: its
// constructor uploads the circuit's queries and matrices to VRAM once (or
// sets up streaming when they do not fit), so every later partition of that
// circuit on that device only moves its witness. The engine's SRS manager
// owns the parameters and the shape and keeps them alive while a job holds
// its lease; the provers see them through non-owning shared_ptrs. The cache
// key is (device, &params, &shape) plus a content fingerprint (sizes of the
// shape and of every query, the vk's IC length and delta_g2), so an address
// reused after an SRS eviction never finds the prover of the old circuit.
// When a new circuit's queries and per-proof buffers do not fit into the
// device's free memory, the cached provers of the other circuits on that
// device are dropped first (a prover still used by an in-flight proof dies
// with that proof); gpu_prover itself then streams the queries if they still
// do not fit.
//
// Parameters from a file (load_queries, the SRS manager's load): when the
// queries fit on every device beside the per-proof buffers, they are decoded
// chunk by chunk from the mapped .params file into pinned staging and copied
// to every device (groth16/query_transfer_gpu.hpp); the host keeps the
// verifying key only, and the mapping's pages are dropped as each chunk is
// done, so the load's host footprint is two staging buffers. The backend
// remembers the device copies under the host parameters' address (a weak
// reference: the SRS entry owns them) and builds one prover per device from
// them right away, while the host shape still has its matrices; those
// provers live with the device copies (never dropped for another circuit),
// so the SRS manager can release the host matrices (holds_shape; ~8.9 GiB
// for a 32 GiB PoRep). Dropping the SRS entry frees the copies and provers.
//
// Cost: the first partition of a circuit on a device pays the upload
// (queries ~ 96 bytes per G1 point, 192 per G2 point); later ones pay only
// gpu_prover::prove_start. Host memory per partition: the witness (freed
// when prove_start returns) plus, with B_G2 on the CPU, the compacted B
// scalars until finalize.
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/engine/prover_backend.hpp>
#include <cuzk/engine/srs_manager.hpp>
#include <cuzk/gpu/runtime.hpp>
#include <cuzk/groth16/prover_gpu.hpp>
#include <cuzk/groth16/query_transfer_gpu.hpp>
#include <cuzk/r1cs/spmv_gpu.hpp>

namespace cuzk::engine {
namespace {

/// What distinguishes two circuits that could share an address.
struct fingerprint {
  std::size_t inputs = 0, aux = 0, constraints = 0;
  std::size_t h = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0, ic = 0;
  ec::g2_affine delta_g2{};
  bool operator==(const fingerprint&) const = default;
};

fingerprint fingerprint_of(const groth16::parameters& p, const r1cs::r1cs_shape& s) {
  return {s.num_inputs, s.num_aux,     s.num_constraints, p.h.size(),     p.l.size(),
          p.a.size(),   p.b_g1.size(), p.b_g2.size(),     p.vk.ic.size(), p.vk.delta_g2};
}

struct cache_entry {
  std::size_t device = 0;
  const groth16::parameters* params = nullptr;
  const r1cs::r1cs_shape* shape = nullptr;
  fingerprint fp;
  std::shared_ptr<groth16::gpu_prover> prover;
};

class gpu_pending final : public pending_proof {
 public:
  std::shared_ptr<groth16::gpu_prover> prover;
  groth16::pending_proof sums;
  ff::fr r, s;
};

class gpu_backend;

/// Queries one loaded circuit holds on every device of the backend.
class gpu_resident final : public device_resident_queries {
 public:
  gpu_resident(gpu_backend* owner, const groth16::parameters* key, std::vector<groth16::gpu_parameters> per_device)
      : owner(owner), key(key), per_device(std::move(per_device)) {}
  ~gpu_resident() override;
  std::uint64_t device_bytes() const override {
    std::uint64_t n = 0;
    for (const auto& p : per_device) n += groth16::device_bytes(p);
    for (const auto& p : provers) n += p->device_bytes();
    return n;
  }
  bool holds_shape() const override { return !provers.empty() && provers.size() == per_device.size(); }
  gpu_backend* owner;
  const groth16::parameters* key;
  std::vector<groth16::gpu_parameters> per_device;  ///< index: the backend's device index
  /// One prover per device, built at load from per_device: they hold the
  /// A and B matrices on the device, so the host shape's matrices can go.
  /// They live as long as the queries (never dropped for another circuit).
  std::vector<std::shared_ptr<groth16::gpu_prover>> provers;
};

/// Decodes G1/G2 points of a mapped .params file for upload_queries,
/// dropping the mapping's pages of every chunk once decoded.
class file_query_source final : public groth16::query_source {
 public:
  file_query_source(const io::mapped_parameter_file& file, const io::read_options& opt) : _file(file), _opt(opt) {}
  void fill_g1(groth16::query_id q, std::size_t first, std::span<ec::g1_affine> out) override {
    fill(_file.at(name_of(q)), first, out);
  }
  void fill_g2(std::size_t first, std::span<ec::g2_affine> out) override { fill(_file.at("b_g2"), first, out); }

 private:
  static std::string_view name_of(groth16::query_id q) {
    switch (q) {
      case groth16::query_id::h: return "h";
      case groth16::query_id::l: return "l";
      case groth16::query_id::a: return "a";
      case groth16::query_id::b_g1: return "b_g1";
      case groth16::query_id::b_g2: return "b_g2";
    }
    return "";
  }
  template <class Point>
  void fill(const io::section& s, std::size_t first, std::span<Point> out) {
    io::decode_section_range(_file.layout(), s, first, out, _opt);
    _file.drop_pages(s.offset + first * s.point_size, out.size() * s.point_size);
  }

  const io::mapped_parameter_file& _file;
  io::read_options _opt;
};

/// The witness coded before the engine waits for the device (nullopt: too
/// dense to code, it travels as it is).
class gpu_prepared final : public prepared_witness {
 public:
  std::optional<groth16::coded_witness> coded;
};

class gpu_backend final : public prover_backend {
 public:
  using prover_backend::prove_start;
  explicit gpu_backend(const gpu_backend_options& o) : _opts(o) {
    if (gpu::device_count() == 0) throw std::invalid_argument("gpu backend: no CUDA device is visible");
    _ordinals = groth16::select_gpu_devices(o.devices);
    if (_ordinals.empty()) throw std::invalid_argument("gpu backend: no CUDA device selected");
  }

  std::string name() const override { return "cuda"; }

  std::vector<device_info> devices() const override {
    std::vector<device_info> v;
    for (const int ord : _ordinals) {
      std::size_t free_b = 0, total_b = 0;
      gpu::device_memory(ord, &free_b, &total_b);
      v.push_back({"cuda:" + std::to_string(ord) + " " + gpu::device_description(ord), total_b, free_b});
    }
    return v;
  }

  std::uint64_t resident_host_bytes() const override {
    return std::uint64_t(groth16::gpu_witness_staging_bytes) * _ordinals.size();
  }

  std::uint64_t partition_bytes(const r1cs::r1cs_shape& s, std::uint64_t* after_start) const override {
    // the witness, and its coded form while prove_start runs
    const std::uint64_t witness = std::uint64_t(s.num_inputs + s.num_aux) * sizeof(ff::fr) +
                                  groth16::gpu_coded_witness_host_bytes(s.num_inputs + s.num_aux);
    const std::uint64_t b_scalars =
        _opts.b_g2_on_cpu ? std::uint64_t(s.b_input_density.count() + s.b_aux_density.count()) * sizeof(ff::fr) : 0;
    *after_start = witness;
    return witness + b_scalars + 4096;  // + the MSM sums and bookkeeping until finalize
  }

  std::unique_ptr<prepared_witness> prepare(const r1cs::r1cs_shape& shape, const groth16::witness& w) override {
    const auto t0 = std::chrono::steady_clock::now();
    auto out = std::make_unique<gpu_prepared>();
    out->coded = groth16::encode_witness(w.inputs, w.aux, groth16::gpu_coded_witness_max_others(shape.num_variables()));
    // the prover reads only the coded form (B_G2's scalars on the CPU come
    // back from the device): the engine can let the witness go now
    out->replaces_witness = out->coded.has_value();
    out->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
  }

  // the prover reads only the coded form, up to the others its plan's
  // sparse scratch is for
  std::optional<std::size_t> coded_witness_max_others(const r1cs::r1cs_shape& shape) const override {
    return groth16::gpu_coded_witness_max_others(shape.num_variables());
  }

  std::unique_ptr<prepared_witness> prepare_coded(const r1cs::r1cs_shape& shape, groth16::coded_witness&& cw) override {
    if (cw.size != shape.num_variables() || cw.others.size() > groth16::gpu_coded_witness_max_others(cw.size))
      throw std::invalid_argument("gpu backend: a coded witness of " + std::to_string(cw.size) + " values with " +
                                  std::to_string(cw.others.size()) + " others for a circuit of " +
                                  std::to_string(shape.num_variables()) + " variables");
    auto out = std::make_unique<gpu_prepared>();
    out->coded = std::move(cw);
    out->replaces_witness = true;
    return out;
  }

  std::unique_ptr<pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                             const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                             const ff::fr& s) override {
    return start(device, params, shape, std::move(w), r, s, nullptr, {});
  }

  std::unique_ptr<pending_proof> prove_start(std::size_t device, const groth16::parameters& params,
                                             const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                             const ff::fr& s, const cancel_token& token,
                                             std::unique_ptr<prepared_witness> prepared,
                                             const phase_boundary& at_boundary) override {
    token.check();
    // between GPU stages: a cancelled job leaves the device after the stage
    // it is in, and a more urgent partition may take the device meanwhile
    // (the prover releases its device lock around the call)
    groth16::gpu_stage_check between = [&token] { token.check(); };
    if (at_boundary) between = at_boundary;
    return start(device, params, shape, std::move(w), r, s, dynamic_cast<const gpu_prepared*>(prepared.get()), between);
  }

  std::size_t batch_capacity(std::size_t device, const groth16::parameters& params,
                             const r1cs::r1cs_shape& shape) override {
    if (device >= _ordinals.size()) return 1;
    return prover_for(device, params, shape)->batch_capacity();
  }

  // The witness MSMs of the batch share one copy of each streamed query
  // (gpu_prover::prove_start_batch); more entries than the prover takes go
  // in consecutive passes.
  std::vector<std::unique_ptr<pending_proof>> prove_start_batch(std::size_t device, const groth16::parameters& params,
                                                                const r1cs::r1cs_shape& shape,
                                                                std::span<batch_entry> entries,
                                                                const phase_boundary& at_boundary) override {
    if (device >= _ordinals.size())
      throw std::invalid_argument("gpu backend: device index " + std::to_string(device) + " of " +
                                  std::to_string(_ordinals.size()));
    const std::shared_ptr<groth16::gpu_prover> prover = prover_for(device, params, shape);
    const std::size_t cap = std::max<std::size_t>(1, prover->batch_capacity());
    std::vector<std::unique_ptr<pending_proof>> out(entries.size());
    bool any = false;
    for (std::size_t first = 0; first < entries.size(); first += cap) {
      const std::size_t n = std::min(cap, entries.size() - first);
      std::vector<std::optional<groth16::coded_witness>> coded_here(n);
      std::vector<groth16::gpu_batch_member> members(n);
      for (std::size_t k = 0; k < n; ++k) {
        batch_entry& e = entries[first + k];
        const cancel_token* token = e.token;
        members[k].cancelled = [token] { return token && token->cancelled(); };
        const auto* prepared = dynamic_cast<const gpu_prepared*>(e.prepared.get());
        if (!prepared)
          coded_here[k] = groth16::encode_witness(e.w->inputs, e.w->aux,
                                                  groth16::gpu_coded_witness_max_others(shape.num_variables()));
        const std::optional<groth16::coded_witness>& coded = prepared ? prepared->coded : coded_here[k];
        if (coded) members[k].coded = &*coded;
        else members[k].raw = e.w;  // left intact: the engine reuses its buffer (witness pool)
      }
      std::vector<std::optional<groth16::pending_proof>> sums = prover->prove_start_batch(members, at_boundary);
      const std::vector<groth16::gpu_prove_timings> times = prover->last_batch_timings();
      for (std::size_t k = 0; k < n; ++k) {
        if (!sums[k]) continue;
        batch_entry& e = entries[first + k];
        auto p = std::make_unique<gpu_pending>();
        p->prover = prover;
        p->r = e.r;
        p->s = e.s;
        p->sums = std::move(*sums[k]);
        if (k < times.size()) fill_stages(*p, times[k]);
        out[first + k] = std::move(p);
        any = true;
      }
    }
    if (!any) throw cancelled_error("every partition of the batch was cancelled");
    return out;
  }

  groth16::proof finalize(std::unique_ptr<pending_proof> p) override {
    auto& g = static_cast<gpu_pending&>(*p);
    return g.prover->finalize(std::move(g.sums), g.r, g.s);
  }

  bool loads_queries() const override { return !_opts.b_g2_on_cpu && !_opts.make_prover; }

  // parameters on the host are streamed from there when a device cannot
  // hold them: pinned for as long as the SRS entry holds them (never by a
  // prover, which only borrows them and may be cached longer)
  std::shared_ptr<const void> pin_host_parameters(const groth16::parameters& p) override {
    return groth16::pin_host_queries(p);
  }

  std::shared_ptr<device_resident_queries> load_queries(const io::mapped_parameter_file& file,
                                                        const groth16::parameters& vk_only,
                                                        const r1cs::r1cs_shape& shape, const io::read_options& opt,
                                                        const cancel_token* token) override {
    // a prover from device queries runs B_G2 on the GPU; the hook's provers
    // (benchmarks) bring their own queries
    if (!loads_queries()) return nullptr;
    const groth16::query_sizes sizes{file.at("h").count, file.at("l").count, file.at("a").count, file.at("b_g1").count,
                                     file.at("b_g2").count};
    // the least a prover of resident queries takes (compact vectors,
    // groth16::gpu_memory_plan); it takes more where that fits
    const std::uint64_t need =
        sizes.bytes() + groth16::gpu_prover_working_bytes(shape, sizes.g1_max(), sizes.b_g2, /*compact=*/true);
    if (_opts.vram_limit_bytes && need > _opts.vram_limit_bytes) return nullptr;
    for (const int ord : _ordinals) {
      std::size_t free_b = 0, total_b = 0;
      gpu::device_memory(ord, &free_b, &total_b);
      if (need + _opts.vram_margin_bytes > free_b) return nullptr;
    }
    groth16::query_transfer_config cfg;
    cfg.staging_bytes = device_load_staging_bytes / 2;
    if (token) cfg.between_chunks = [token] { token->check(); };
    file_query_source src(file, opt);
    auto per_device = groth16::upload_queries(_ordinals, vk_only.vk, sizes, src, cfg);
    auto handle = std::make_shared<gpu_resident>(this, &vk_only, std::move(per_device));
    // the provers now, while the host still has the matrices: each uploads
    // A and B (for a 32 GiB PoRep ~5 GB, a few seconds per device) and its
    // per-proof buffers, which the fit test above already counted
    handle->provers = make_resident_provers(*handle, shape);
    std::lock_guard lock(_mutex);
    std::erase_if(_cache, [&](const cache_entry& e) { return e.params == &vk_only; });
    std::erase_if(_resident, [&](const auto& r) { return r.first == &vk_only; });
    _resident.emplace_back(&vk_only, handle);
    return handle;
  }

  /// The device copies of |key| are gone: forget them and the provers made
  /// from them (frees their VRAM once no proof in flight holds one).
  void forget(const groth16::parameters* key) {
    std::lock_guard lock(_mutex);
    std::erase_if(_cache, [&](const cache_entry& e) { return e.params == key; });
    std::erase_if(_resident, [&](const auto& r) { return r.first == key; });
  }

 private:
  /// prove_start from |prepared| when prepare ran (the witness coded
  /// before the device gate), else coding it here.
  std::unique_ptr<pending_proof> start(std::size_t device, const groth16::parameters& params,
                                       const r1cs::r1cs_shape& shape, groth16::witness&& w, const ff::fr& r,
                                       const ff::fr& s, const gpu_prepared* prepared,
                                       const groth16::gpu_stage_check& between_stages) {
    if (device >= _ordinals.size())
      throw std::invalid_argument("gpu backend: device index " + std::to_string(device) + " of " +
                                  std::to_string(_ordinals.size()));
    auto out = std::make_unique<gpu_pending>();
    out->prover = prover_for(device, params, shape);
    out->r = r;
    out->s = s;
    {
      const groth16::witness& local = w;  // left intact: the engine reuses its buffer (witness pool)
      if (!prepared) out->sums = out->prover->prove_start(local, between_stages);
      else if (prepared->coded) out->sums = out->prover->prove_start(*prepared->coded, between_stages);
      else out->sums = out->prover->prove_start_uncoded(local, between_stages);
    }
    // the engine holds this device's kernel lock: these are this proof's times
    fill_stages(*out, out->prover->last_timings());
    return out;
  }

  // encode: the witness coding when it ran inside the device gate (from
  // prepare it is the engine's own "prepare" stage, outside it); in a
  // batch the witness MSMs are this partition's share of the pass
  static void fill_stages(gpu_pending& p, const groth16::gpu_prove_timings& t) {
    p.stage_ms = {{"encode", t.encode_ms}, {"upload", t.upload_ms}, {"spmv", t.spmv_ms},
                  {"ntt", t.ntt_ms},       {"msm_h", t.msm_h_ms},   {"msm_l", t.msm_l_ms},
                  {"msm_a", t.msm_a_ms},   {"msm_b1", t.msm_b1_ms}, {"msm_b2", t.msm_b2_ms}};
    p.h2d_bytes = t.h2d_bytes;
  }

  // A prover per device from the device copies of |r|, config as prover_for
  // would give it (B_G2 on the GPU: the queries include it).
  std::vector<std::shared_ptr<groth16::gpu_prover>> make_resident_provers(const gpu_resident& r,
                                                                          const r1cs::r1cs_shape& shape) const {
    std::vector<std::shared_ptr<groth16::gpu_prover>> out;
    for (std::size_t d = 0; d < _ordinals.size(); ++d) {
      groth16::gpu_prover_config cfg;
      cfg.device = _ordinals[d];
      cfg.b_g2_on_cpu = false;
      cfg.vram_margin_bytes = _opts.vram_margin_bytes;
      cfg.vram_limit_bytes = _opts.vram_limit_bytes;
      // non-owning: the SRS entry owns the shape and outlives its device copies
      std::shared_ptr<const r1cs::r1cs_shape> sh(&shape, [](const r1cs::r1cs_shape*) {});
      out.push_back(std::make_shared<groth16::gpu_prover>(r.per_device.at(d), std::move(sh), cfg));
    }
    return out;
  }

  // Device bytes a resident prover of this circuit needs (queries, the
  // matrices, per-proof vectors); a lower bound of gpu_prover's own test.
  std::uint64_t resident_estimate(const groth16::parameters& p, const r1cs::r1cs_shape& s) const {
    const std::uint64_t queries = sizeof(ec::g1_affine) * (p.a.size() + p.b_g1.size() + p.l.size() + p.h.size()) +
                                  (_opts.b_g2_on_cpu ? 0 : sizeof(ec::g2_affine) * p.b_g2.size());
    return queries + besides_queries(s);
  }
  // The part of it that is not the queries.
  static std::uint64_t besides_queries(const r1cs::r1cs_shape& s) {
    std::uint64_t m = 1;
    while (m < s.num_constraints) m <<= 1;
    return r1cs::gpu_shape_bytes(s) + sizeof(ff::fr) * (2 * s.num_variables() + 3 * m);
  }

  std::shared_ptr<groth16::gpu_prover> prover_for(std::size_t device, const groth16::parameters& params,
                                                  const r1cs::r1cs_shape& shape) {
    const fingerprint fp = fingerprint_of(params, shape);
    // declared before the lock: should this be the last reference, its
    // destructor (forget) takes the lock after this scope released it
    std::shared_ptr<gpu_resident> resident;
    std::lock_guard lock(_mutex);
    for (const auto& [key, weak] : _resident) {
      if (key != &params) continue;
      if ((resident = weak.lock()) && device < resident->provers.size()) return resident->provers[device];
      break;
    }
    for (auto it = _cache.begin(); it != _cache.end(); ++it) {
      if (it->device != device || it->params != &params || it->shape != &shape) continue;
      if (it->fp == fp) return it->prover;
      _cache.erase(it);  // the address now holds another circuit
      break;
    }
    const int ord = _ordinals[device];
    std::size_t free_b = 0, total_b = 0;
    gpu::device_memory(ord, &free_b, &total_b);
    if (resident_estimate(params, shape) + _opts.vram_margin_bytes > free_b)
      std::erase_if(_cache, [&](const cache_entry& e) { return e.device == device; });
    groth16::gpu_prover_config cfg;
    cfg.device = ord;
    cfg.b_g2_on_cpu = _opts.b_g2_on_cpu;
    cfg.vram_margin_bytes = _opts.vram_margin_bytes;
    cfg.vram_limit_bytes = _opts.vram_limit_bytes;
    // Non-owning: the SRS manager keeps both alive while a job holds its lease,
    // and a cached prover is only used again for a live (params, shape) pair.
    std::shared_ptr<groth16::gpu_prover> prover;
    if (_opts.make_prover) prover = _opts.make_prover(ord, params, shape);
    if (!prover) {
      for (const auto& [key, weak] : _resident) {
        if (key != &params) continue;
        if ((resident = weak.lock())) {
          cfg.b_g2_on_cpu = false;
          std::shared_ptr<const r1cs::r1cs_shape> sh(&shape, [](const r1cs::r1cs_shape*) {});
          prover = std::make_shared<groth16::gpu_prover>(resident->per_device.at(device), std::move(sh), cfg);
        }
        break;
      }
    }
    if (!prover && !shape.has_matrices())
      throw std::logic_error(
          "gpu backend: the shape's host matrices were released but no prover of this circuit "
          "is resident on device " +
          std::to_string(ord));
    if (!prover) {
      std::shared_ptr<const groth16::parameters> p(&params, [](const groth16::parameters*) {});
      std::shared_ptr<const r1cs::r1cs_shape> sh(&shape, [](const r1cs::r1cs_shape*) {});
      prover = std::make_shared<groth16::gpu_prover>(std::move(p), std::move(sh), cfg);
    }
    _cache.push_back({device, &params, &shape, fp, prover});
    return prover;
  }

  gpu_backend_options _opts;
  std::vector<int> _ordinals;
  std::mutex _mutex;
  std::vector<cache_entry> _cache;
  /// Device copies of file-loaded circuits, by their host parameters.
  std::vector<std::pair<const groth16::parameters*, std::weak_ptr<gpu_resident>>> _resident;
};

gpu_resident::~gpu_resident() { owner->forget(key); }

}  // namespace

std::unique_ptr<prover_backend> make_gpu_backend(const gpu_backend_options& opts) {
  return std::make_unique<gpu_backend>(opts);
}

}  // namespace cuzk::engine
