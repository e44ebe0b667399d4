// SPDX-License-Identifier: Apache-2.0
#pragma once
// srs_manager: circuit id -> Groth16 parameters, in three tiers.
//   cold  the .params file in param_cache (by its published name), nothing in memory
//   warm  the file mapped read-only (page cache; costs no budget, reclaimable)
//   hot   parameters decoded into memory + the circuit's shape + the prepared
//         verifying key, ready to prove; with a backend that loads queries
//         itself (srs_options::load_queries, the GPU backend when they fit
//         in VRAM) the host keeps the verifying key only and the queries go
//         from the mapped file to the devices chunk by chunk
// Hot entries are charged to the memory budget (decoded point bytes, then
// the shape's bytes once built). Every proof in flight holds a lease, the
// entry's reference count; an entry with leases is never evicted. Under
// memory pressure the budget's evictor drops idle hot entries (no lease for
// memory.eviction_min_idle) to warm, least recently used first. PreloadSRS
// loads to hot; EvictSRS drops to cold (refused while leased).
//
// Cost of a load: mmap + one parallel decode of every point (plus the
// subgroup checks when srs.check_points is on, ~80x slower) + the shape:
// read from <param_cache>/<file_stem>.shape when that file holds this
// circuit's shape version, else built by synthesizing the blank circuit
// once and written there for the next load (srs.shape_cache, on by
// default; a param_cache that cannot be written only costs the rebuild).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cuzk/engine/memory_budget.hpp>
#include <cuzk/engine/proof_kind.hpp>
#include <cuzk/engine/prover_backend.hpp>
#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::engine {

enum class srs_tier : std::uint8_t { hot = 0, warm = 1, cold = 2 };
std::string_view tier_label(srs_tier t);

/// What a partition needs from its circuit's hot entry.
struct loaded_circuit {
  std::string id;
  groth16::parameters params;
  groth16::prepared_verifying_key pvk;
  r1cs::r1cs_shape shape;
  /// The backend's device copies of the proving queries when it loaded them
  /// (params then holds the verifying key only), else null.
  std::shared_ptr<const device_resident_queries> device_queries;
  /// The backend's hold on |params|' host memory (pinned for DMA when the
  /// CUDA backend streams queries from it): declared after |params|, so
  /// released before they are freed.
  std::shared_ptr<const void> host_pins;
  /// How the shape was obtained, one line for the log: read from its
  /// .shape file, built (and cached), rebuilt (the file was stale or
  /// corrupt: why), or a warning that it could not be cached.
  std::string shape_note;
  /// Budget bytes this entry holds while hot (parameters + shape).
  std::uint64_t charged_bytes = 0;
};

/// Bytes the decoded parameters occupy in memory (the budget charge).
std::uint64_t decoded_parameters_bytes(const io::parameter_layout& layout);
/// Bytes of a circuit shape in memory (matrices, coefficients, densities).
std::uint64_t shape_bytes(const r1cs::r1cs_shape& s);

struct srs_entry_status {
  std::string circuit_id;
  std::string file;
  srs_tier tier = srs_tier::cold;
  bool file_present = false;
  std::uint64_t size_bytes = 0;   ///< charged bytes when hot, else the file size
  std::uint64_t shape_bytes = 0;  ///< charged shape bytes (hot only)
  /// Device bytes of the backend's copies (queries and resident provers,
  /// every device), when it loaded the queries itself; 0 otherwise.
  std::uint64_t device_bytes = 0;
  /// Hot, and the host shape's matrices were released (the devices hold them).
  bool shape_matrices_released = false;
  std::uint32_t ref_count = 0;
  double last_used_secs_ago = -1;  ///< -1: never used
};

/// Host bytes a query loader may pin while it loads (two 64 MiB staging
/// buffers); reserved from the budget for the length of the load.
inline constexpr std::uint64_t device_load_staging_bytes = std::uint64_t(128) << 20;

/// prover_backend::pin_host_parameters, as the SRS manager calls it.
using parameter_pinner = std::function<std::shared_ptr<const void>(const groth16::parameters&)>;

/// prover_backend::load_queries, as the SRS manager calls it.
using query_loader = std::function<std::shared_ptr<device_resident_queries>(
    const io::mapped_parameter_file&, const groth16::parameters& vk_only, const r1cs::r1cs_shape&,
    const io::read_options&, const cancel_token*)>;

struct srs_options {
  std::filesystem::path param_cache;
  bool check_points = false;  ///< subgroup-check every point on load
  std::chrono::milliseconds eviction_min_idle{std::chrono::minutes(5)};
  /// Keep each circuit's shape in <param_cache>/<file_stem>.shape, read
  /// instead of synthesized at the next load (io/shape_cache.hpp; circuits
  /// with shape_version 0 are never cached).
  bool shape_cache = true;
  /// Digest policy (srs.parameters_json): the BLAKE2b digest of a .params
  /// file is checked against this parameters.json ("": param_cache's own
  /// parameters.json, when there is one) once per file identity (device,
  /// inode, size, mtime); the identity that matched is recorded beside the
  /// file (<file>.verified) and in memory, so a restarted daemon or a
  /// reload does not hash 47 GB again (~2.5 min at ~300 MB/s). A file with
  /// no entry (test parameters) is not checked; a mismatch fails the load.
  /// Without any parameters.json nothing is checked beyond every point's
  /// encoding and curve equation (and check_points).
  std::filesystem::path parameters_json;
  /// Offered every file load first (empty: always decode to the host).
  query_loader load_queries;
  /// Given parameters decoded (or installed) into host memory; what it
  /// returns lives exactly as long as they do (loaded_circuit::host_pins).
  parameter_pinner pin_parameters;
};

class srs_manager {
 public:
  class lease;

  srs_manager(srs_options opt, memory_budget& budget);
  ~srs_manager();
  srs_manager(const srs_manager&) = delete;
  srs_manager& operator=(const srs_manager&) = delete;

  void register_circuit(const circuit_info& info);
  bool known(const std::string& id) const;
  /// Throws missing_parameters_error, naming the file by its published name
  /// (never the host path), when |id|'s parameters are neither in memory nor
  /// in a readable file in param_cache; called at submit so a job is not
  /// queued only to fail at its first partition.
  void check_available(const std::string& id) const;

  /// The hot entry of |id| with one more reference; loads it when needed
  /// (blocking on the budget at priority |p|). |load_ms| gets the time this
  /// call spent loading (0 when already hot). Throws not_found_error for an
  /// unknown id, io::format_error / std::runtime_error for a missing or bad
  /// file, budget_error, cancelled_error.
  lease acquire(const std::string& id, priority p, const cancel_token* token, std::uint64_t* load_ms = nullptr);

  struct preload_result {
    bool already_loaded = false;
    std::uint64_t load_ms = 0;
  };
  preload_result preload(const std::string& id);

  struct evict_result {
    bool was_loaded = false;
    std::uint64_t freed_bytes = 0;
  };
  /// Makes |id| (registered) hot from parameters and a shape already in
  /// memory, e.g. computed on a GPU by a benchmark when no file exists:
  /// |params| may hold the verifying key alone when the backend proves from
  /// elsewhere (the gpu backend's make_prover hook). Charged to the budget
  /// (params and shape bytes, blocking at high priority); never evicted (no
  /// file to come back from): evict() refuses it and evict_idle() skips it.
  /// Throws not_found_error for an unknown id, std::logic_error while the
  /// entry is loading or leased, std::invalid_argument when the shape's
  /// input count differs from the vk's.
  void install(const std::string& id, groth16::parameters params, r1cs::r1cs_shape shape);

  /// Drops |id| to cold; throws std::logic_error while it has leases.
  evict_result evict(const std::string& id);
  /// Budget evictor: idle hot entries to warm, LRU first, until |needed| freed.
  std::uint64_t evict_idle(std::uint64_t needed) { return evict_idle_for_budget(needed).freed; }
  /// evict_idle, and when an entry not yet idle for eviction_min_idle will
  /// be (the budget's waiters sleep until then; an entry whose last lease
  /// goes wakes them through memory_budget::notify_evictable).
  memory_budget::eviction evict_idle_for_budget(std::uint64_t needed);

  std::vector<srs_entry_status> status() const;
  /// Charged bytes of hot entries (parameters only).
  std::uint64_t hot_bytes() const;

 private:
  struct entry;
  void release_ref(entry* e);
  /// The digest policy of srs_options::parameters_json for |e|'s file (as
  /// it is now); throws io::digest_error on a mismatch.
  void check_digest(entry& e);
  std::uint64_t drop_locked(entry& e, srs_tier to);

  srs_options _opt;
  memory_budget& _budget;
  mutable std::mutex _mu;
  std::condition_variable_any _cv;  // _any: a wait for another loader ends at the waiter's cancellation
  std::map<std::string, std::unique_ptr<entry>> _entries;

 public:
  /// A reference to a hot entry; the entry stays hot while any lease lives.
  class lease {
   public:
    lease() = default;
    lease(lease&& o) noexcept : _mgr(std::exchange(o._mgr, nullptr)), _e(o._e), _c(std::move(o._c)) {}
    lease& operator=(lease&& o) noexcept {
      if (this != &o) {
        reset();
        _mgr = std::exchange(o._mgr, nullptr);
        _e = o._e;
        _c = std::move(o._c);
      }
      return *this;
    }
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    ~lease() { reset(); }
    const loaded_circuit* get() const noexcept { return _c.get(); }
    const loaded_circuit* operator->() const noexcept { return _c.get(); }
    explicit operator bool() const noexcept { return _c != nullptr; }
    void reset() noexcept {
      if (_mgr) _mgr->release_ref(_e);
      _mgr = nullptr;
      _c.reset();
    }

   private:
    friend class srs_manager;
    lease(srs_manager* m, entry* e, std::shared_ptr<const loaded_circuit> c) : _mgr(m), _e(e), _c(std::move(c)) {}
    srs_manager* _mgr = nullptr;
    entry* _e = nullptr;
    std::shared_ptr<const loaded_circuit> _c;
  };
};

}  // namespace cuzk::engine
