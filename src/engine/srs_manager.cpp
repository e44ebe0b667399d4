// SPDX-License-Identifier: Apache-2.0
// srs_manager (see include/cuzk/engine/srs_manager.hpp).
#include <cuzk/engine/srs_manager.hpp>

#include <cuzk/engine/mapping_guard.hpp>
#include <cuzk/io/shape_cache.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <stop_token>
#include <tuple>
#include <utility>

namespace cuzk::engine {

using clock = std::chrono::steady_clock;

namespace {

// Which file a mapping came from: a parameter file replaced (new inode),
// truncated or rewritten (size, mtime) after it was mapped must not be read
// through the old mapping (pages past a truncation raise SIGBUS).
struct file_identity {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = -1;
  std::int64_t mtime_ns = 0;
  bool operator==(const file_identity&) const = default;
};

file_identity identity_of(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return {};
  return {st.st_dev, st.st_ino, st.st_size, std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// A file stem must name a file inside param_cache: no separator, no "." or
// "..", no NUL. Circuit ids are never used as paths; stems come from the
// kinds' tables, and this keeps a bad table entry from escaping the folder.
void check_file_stem(const std::string& stem, const std::string& id) {
  const bool bad = stem.empty() || stem == "." || stem == ".." || stem.find('/') != std::string::npos ||
                   stem.find('\\') != std::string::npos || stem.find('\0') != std::string::npos;
  if (bad)
    throw std::invalid_argument("circuit '" + id + "': parameter file stem '" + stem +
                                "' is not a plain file name inside srs.param_cache");
}

// The circuit's shape, from its .shape file when |shape_path| is set and
// the file holds this shape version with the parameter file's input and
// aux counts, else built; with the log line saying which. Never throws for
// the file: only for the build.
std::pair<r1cs::r1cs_shape, std::string> load_shape(const circuit_info& info, const std::filesystem::path& shape_path,
                                                    std::uint64_t file_inputs, std::uint64_t file_aux) {
  if (shape_path.empty()) {
    const auto t0 = clock::now();
    r1cs::r1cs_shape s = info.make_shape();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0).count();
    return {std::move(s), "shape of '" + info.id + "' built in " + std::to_string(ms) + " ms (not cached on disk)"};
  }
  const auto fits = [&](const r1cs::r1cs_shape& s) -> std::string {
    if (s.num_inputs == file_inputs && s.num_aux == file_aux) return {};
    return "has " + std::to_string(s.num_inputs) + " inputs and " + std::to_string(s.num_aux) +
           " aux, the parameter file " + std::to_string(file_inputs) + " and " + std::to_string(file_aux);
  };
  io::shape_load l = io::load_or_build_shape(shape_path, {info.id, info.shape_version}, info.make_shape, fits);
  return {std::move(l.shape), l.summary()};
}

}  // namespace

struct srs_manager::entry {
  circuit_info info;
  std::filesystem::path path;
  std::filesystem::path shape_path;  ///< empty: the shape is not cached on disk
  srs_tier tier = srs_tier::cold;
  std::unique_ptr<io::mapped_parameter_file> mapped;
  file_identity mapped_id;    ///< the file |mapped| was made from
  file_identity verified_id;  ///< the file identity whose digest matched parameters.json
  std::shared_ptr<const loaded_circuit> loaded;
  reservation srs_res, shape_res;
  std::uint32_t refs = 0;
  bool loading = false;
  bool installed = false;  // made hot by install(): no file behind it
  bool used = false;
  clock::time_point last_used{};
};

std::string_view tier_label(srs_tier t) {
  switch (t) {
    case srs_tier::hot: return "hot";
    case srs_tier::warm: return "warm";
    case srs_tier::cold: return "cold";
  }
  return "?";
}

std::uint64_t decoded_parameters_bytes(const io::parameter_layout& layout) {
  std::uint64_t g1 = 0, g2 = 0;
  for (const io::section& s : layout.sections()) (s.is_g2() ? g2 : g1) += s.count;
  return g1 * sizeof(ec::g1_affine) + g2 * sizeof(ec::g2_affine);
}

std::uint64_t verifying_key_bytes(const groth16::verifying_key& vk) {
  return sizeof(groth16::verifying_key) + vk.ic.size() * sizeof(ec::g1_affine);
}

std::uint64_t shape_bytes(const r1cs::r1cs_shape& s) {
  std::uint64_t n = s.coeffs.size() * sizeof(ff::fr);
  for (const r1cs::csr_matrix* m : {&s.a, &s.b, &s.c})
    n += m->row_ptr.size() * sizeof(std::uint64_t) + m->cols.size() * 4 + m->coeff_ids.size() * 4;
  n += (s.a_aux_density.size() + s.b_input_density.size() + s.b_aux_density.size()) / 8 + 64;
  return n;
}

srs_manager::srs_manager(srs_options opt, memory_budget& budget) : _opt(std::move(opt)), _budget(budget) {}
srs_manager::~srs_manager() = default;

void srs_manager::register_circuit(const circuit_info& info) {
  std::lock_guard lk(_mu);
  check_file_stem(info.file_stem, info.id);
  auto e = std::make_unique<entry>();
  e->info = info;
  e->path = _opt.param_cache / (info.file_stem + ".params");
  if (_opt.shape_cache && info.shape_version != 0) e->shape_path = _opt.param_cache / (info.file_stem + ".shape");
  _entries[info.id] = std::move(e);
}

bool srs_manager::known(const std::string& id) const {
  std::lock_guard lk(_mu);
  return _entries.count(id) != 0;
}

void srs_manager::check_available(const std::string& id) const {
  std::filesystem::path path;
  {
    std::lock_guard lk(_mu);
    auto it = _entries.find(id);
    if (it == _entries.end()) throw not_found_error("unknown circuit id '" + id + "'");
    const entry& e = *it->second;
    if (e.tier == srs_tier::hot || e.installed || e.loading) return;  // in memory, or on its way there
    path = e.path;
  }
  const std::string name = path.filename().string();
  // open, not stat: a file the daemon may not read is as missing as no file
  std::ifstream f(path, std::ios::binary);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw missing_parameters_error("parameter file " + name + " for circuit '" + id +
                                   "' is not in srs.param_cache (fetch the parameters or set srs.param_cache)");
  if (!f || std::filesystem::is_directory(path, ec))
    throw missing_parameters_error("parameter file " + name + " for circuit '" + id +
                                   "' in srs.param_cache cannot be read by the daemon");
  char probe = 0;
  if (!f.read(&probe, 1))
    throw missing_parameters_error("parameter file " + name + " for circuit '" + id + "' in srs.param_cache is empty");
}

void srs_manager::check_digest(entry& e) {
  const file_identity now = identity_of(e.path);
  {
    std::lock_guard lk(_mu);
    if (e.verified_id == now && now.size >= 0) return;  // this very file matched already
  }
  const std::filesystem::path json =
      _opt.parameters_json.empty() ? _opt.param_cache / "parameters.json" : _opt.parameters_json;
  std::error_code ec;
  if (!std::filesystem::exists(json, ec)) {
    if (!_opt.parameters_json.empty())
      throw std::runtime_error("srs.parameters_json '" + json.string() + "' does not exist");
    return;  // no digests to check against (documented policy)
  }
  // digest_error on a mismatch; no entry: test parameters, not checked
  if (io::verify_digest_recorded(e.path, json).result != io::digest_check::status::match) return;
  std::lock_guard lk(_mu);
  e.verified_id = now;
}

srs_manager::lease srs_manager::acquire(const std::string& id, priority p, const cancel_token* token,
                                        std::uint64_t* load_ms) {
  if (load_ms) *load_ms = 0;
  std::unique_lock lk(_mu);
  auto it = _entries.find(id);
  if (it == _entries.end()) throw not_found_error("unknown circuit id '" + id + "'");
  entry& e = *it->second;
  const std::stop_token stop = token ? token->stop_token() : std::stop_token();
  for (;;) {
    if (e.tier == srs_tier::hot) {
      ++e.refs;
      e.used = true;
      e.last_used = clock::now();
      return lease(this, &e, e.loaded);
    }
    if (!e.loading) break;
    if (token) token->check();
    // another job loads it: woken when that load ends, or by our cancellation
    _cv.wait(lk, stop, [&] { return !e.loading; });
  }
  e.loading = true;
  lk.unlock();
  const auto t0 = clock::now();
  try {
    const auto torn = [&] {
      return std::runtime_error("parameter file " + e.path.string() + " of circuit '" + id +
                                "' shrank while it was being read (truncated or rewritten under the daemon); "
                                "restore the file and retry");
    };
    std::unique_ptr<io::mapped_parameter_file> mapped;
    {
      std::lock_guard lk2(_mu);
      mapped = std::move(e.mapped);  // warm: already mapped
    }
    file_identity now = identity_of(e.path);
    if (mapped && !(now == e.mapped_id)) mapped.reset();  // the file changed since it was mapped: map it again
    if (!mapped) {
      if (!std::filesystem::exists(e.path))
        throw std::runtime_error("parameter file for circuit '" + id + "' not found: " + e.path.filename().string() +
                                 " (set srs.param_cache or fetch the parameters)");
      {
        // the constructor maps the file and walks its layout: guarded too
        const thread_mapping_guard guard;
        try {
          mapped = std::make_unique<io::mapped_parameter_file>(e.path);
        } catch (const std::exception&) {
          if (guard.faulted()) throw torn();
          throw;
        }
        if (guard.faulted()) {
          mapped.reset();
          throw torn();
        }
      }
      if (mapped->size() != std::uint64_t(now.size)) now = identity_of(e.path);
    }
    check_digest(e);
    auto lc = std::make_shared<loaded_circuit>();
    lc->id = id;
    // the shape first: a backend that loads the queries itself sizes its
    // device buffers from it
    const io::parameter_layout& layout = mapped->layout();
    std::tie(lc->shape, lc->shape_note) = load_shape(e.info, e.shape_path, layout.at("ic").count, layout.at("l").count);
    if (lc->shape.num_inputs != layout.at("ic").count || layout.at("l").count != lc->shape.num_aux)
      throw std::runtime_error("parameter file " + e.path.filename().string() + " does not match circuit '" + id +
                               "' (" + std::to_string(layout.at("ic").count) + " inputs and " +
                               std::to_string(layout.at("l").count) + " aux in the file, the circuit has " +
                               std::to_string(lc->shape.num_inputs) + " and " + std::to_string(lc->shape.num_aux) +
                               ")");
    reservation sres = _budget.acquire(shape_bytes(lc->shape), p, token, "the shape of circuit '" + id + "'");
    const io::read_options ro{.check_points = _opt.check_points};
    // a file truncated while it is read raises SIGBUS on the lost pages: the
    // guard absorbs it and the load fails naming the file (the mapping is
    // dropped with the exception)
    const auto guarded = [&](auto&& read) {
      const mapping_guard guard(mapped->bytes().data(), mapped->bytes().size());
      try {
        read();
      } catch (const std::exception&) {
        if (guard.faulted()) throw torn();
        throw;
      }
      if (guard.faulted()) throw torn();
    };
    reservation res;
    if (_opt.load_queries) {
      guarded([&] { lc->params.vk = io::decode_verifying_key(layout, ro); });
      // the loader's two pinned staging buffers, for the length of the load
      const reservation staging =
          _budget.acquire(device_load_staging_bytes, p, token, "the staging buffers loading circuit '" + id + "'");
      guarded([&] { lc->device_queries = _opt.load_queries(*mapped, lc->params, lc->shape, ro, token); });
      if (lc->device_queries)
        res =
            _budget.acquire(verifying_key_bytes(lc->params.vk), p, token, "the verifying key of circuit '" + id + "'");
      if (lc->device_queries && lc->device_queries->holds_shape()) {
        // every device proves from its own copy of the matrices: the host
        // keeps counts and density masks (32 GiB PoRep: 8.9 GiB -> ~50 MB)
        const std::uint64_t before = shape_bytes(lc->shape);
        r1cs::release_matrices(lc->shape);
        sres.release(before - std::min(before, shape_bytes(lc->shape)));
        lc->shape_note += "; host matrices released (" + std::to_string(before >> 20) + " MiB), the devices hold them";
      }
    }
    if (!lc->device_queries) {
      res = _budget.acquire(decoded_parameters_bytes(layout), p, token, "the parameters of circuit '" + id + "'");
      guarded([&] { lc->params = io::decode_parameters(layout, ro); });
      if (_opt.pin_parameters) lc->host_pins = _opt.pin_parameters(lc->params);
    }
    lc->pvk = groth16::prepare_verifying_key(lc->params.vk);
    lc->charged_bytes = res.bytes() + sres.bytes();
    lk.lock();
    e.mapped = std::move(mapped);
    e.mapped_id = now;
    e.loaded = std::move(lc);
    e.srs_res = std::move(res);
    e.shape_res = std::move(sres);
    e.tier = srs_tier::hot;
    e.loading = false;
    ++e.refs;
    e.used = true;
    e.last_used = clock::now();
    if (load_ms)
      *load_ms = std::uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0).count());
    _cv.notify_all();
    return lease(this, &e, e.loaded);
  } catch (...) {
    if (!lk.owns_lock()) lk.lock();
    if (!e.mapped && e.tier == srs_tier::warm) e.tier = srs_tier::cold;  // its mapping was dropped above
    e.loading = false;
    _cv.notify_all();
    throw;
  }
}

void srs_manager::install(const std::string& id, groth16::parameters params, r1cs::r1cs_shape shape) {
  if (shape.num_inputs != params.vk.ic.size())
    throw std::invalid_argument("install '" + id + "': the shape has " + std::to_string(shape.num_inputs) +
                                " inputs, the verifying key " + std::to_string(params.vk.ic.size()));
  {
    std::lock_guard lk(_mu);
    auto it = _entries.find(id);
    if (it == _entries.end()) throw not_found_error("unknown circuit id '" + id + "'");
    if (it->second->loading || it->second->refs > 0)
      throw std::logic_error("install '" + id + "': the circuit is loading or in use");
  }
  auto lc = std::make_shared<loaded_circuit>();
  lc->id = id;
  const std::uint64_t param_bytes = sizeof(ec::g1_affine) * (params.vk.ic.size() + params.h.size() + params.l.size() +
                                                             params.a.size() + params.b_g1.size()) +
                                    sizeof(ec::g2_affine) * params.b_g2.size();
  lc->params = std::move(params);
  if (_opt.pin_parameters) lc->host_pins = _opt.pin_parameters(lc->params);
  lc->pvk = groth16::prepare_verifying_key(lc->params.vk);
  lc->shape = std::move(shape);
  reservation res = _budget.acquire(param_bytes, priority::high, nullptr, "the parameters of circuit '" + id + "'");
  reservation sres =
      _budget.acquire(shape_bytes(lc->shape), priority::high, nullptr, "the shape of circuit '" + id + "'");
  lc->charged_bytes = res.bytes() + sres.bytes();
  std::lock_guard lk(_mu);
  entry& e = *_entries.at(id);
  if (e.loading || e.refs > 0) throw std::logic_error("install '" + id + "': the circuit is loading or in use");
  e.mapped.reset();
  e.loaded = std::move(lc);
  e.srs_res = std::move(res);
  e.shape_res = std::move(sres);
  e.tier = srs_tier::hot;
  e.installed = true;
  _cv.notify_all();
}

void srs_manager::release_ref(entry* e) {
  bool idle = false;
  {
    std::lock_guard lk(_mu);
    if (e->refs > 0) --e->refs;
    e->last_used = clock::now();
    idle = e->refs == 0;
  }
  if (idle) _budget.notify_evictable();  // a waiter may now evict it (or learn when it can)
}

srs_manager::preload_result srs_manager::preload(const std::string& id) {
  {
    std::lock_guard lk(_mu);
    auto it = _entries.find(id);
    if (it == _entries.end()) throw not_found_error("unknown circuit id '" + id + "'");
    if (it->second->tier == srs_tier::hot) return {true, 0};
  }
  std::uint64_t ms = 0;
  lease l = acquire(id, priority::high, nullptr, &ms);
  return {false, ms};
}

std::uint64_t srs_manager::drop_locked(entry& e, srs_tier to) {
  const std::uint64_t freed = e.srs_res.bytes() + e.shape_res.bytes();
  e.loaded.reset();
  e.srs_res.release_all();
  e.shape_res.release_all();
  if (to == srs_tier::cold) e.mapped.reset();
  e.tier = e.mapped ? srs_tier::warm : srs_tier::cold;
  return freed;
}

srs_manager::evict_result srs_manager::evict(const std::string& id) {
  std::lock_guard lk(_mu);
  auto it = _entries.find(id);
  if (it == _entries.end()) throw not_found_error("unknown circuit id '" + id + "'");
  entry& e = *it->second;
  if (e.refs > 0 || e.loading)
    throw std::logic_error("circuit '" + id + "' is in use by " + std::to_string(e.refs) + " proof(s)");
  if (e.installed)
    throw std::logic_error("circuit '" + id + "' was installed from memory and has no file to reload from");
  const bool was = e.tier == srs_tier::hot;
  return {was, drop_locked(e, srs_tier::cold)};
}

memory_budget::eviction srs_manager::evict_idle_for_budget(std::uint64_t needed) {
  // try_to_lock: an evictor runs inside a budget wait and never waits for
  // the manager's lock itself
  std::unique_lock lk(_mu, std::try_to_lock);
  const auto now = clock::now();
  // the lock is held only for bookkeeping: ask again in a moment
  if (!lk.owns_lock()) return {0, now + std::chrono::milliseconds(1)};
  std::vector<entry*> idle;
  memory_budget::eviction out;
  // bounded so that the time point cannot overflow (a waiter wakes at least yearly)
  const auto min_idle = std::min<std::chrono::milliseconds>(_opt.eviction_min_idle, std::chrono::hours(24 * 365));
  for (auto& [id, e] : _entries) {
    if (e->tier != srs_tier::hot || e->refs != 0 || e->loading || e->installed) continue;
    if (now - e->last_used >= min_idle) idle.push_back(e.get());
    else out.retry_at = std::min(out.retry_at, e->last_used + min_idle);
  }
  std::sort(idle.begin(), idle.end(), [](entry* a, entry* b) { return a->last_used < b->last_used; });
  for (entry* e : idle) {
    if (out.freed >= needed) break;
    out.freed += drop_locked(*e, srs_tier::warm);
  }
  return out;
}

std::vector<srs_entry_status> srs_manager::status() const {
  std::lock_guard lk(_mu);
  std::vector<srs_entry_status> out;
  const auto now = clock::now();
  for (const auto& [id, e] : _entries) {
    srs_entry_status s;
    s.circuit_id = id;
    s.file = e->path.filename().string();
    s.tier = e->tier;
    std::error_code ec;
    const auto fsz = std::filesystem::file_size(e->path, ec);
    s.file_present = !ec;
    s.size_bytes = e->tier == srs_tier::hot ? e->srs_res.bytes() : (ec ? 0 : fsz);
    s.shape_bytes = e->shape_res.bytes();
    if (e->tier == srs_tier::hot && e->loaded) {
      if (e->loaded->device_queries) s.device_bytes = e->loaded->device_queries->device_bytes();
      s.shape_matrices_released = !e->loaded->shape.has_matrices();
    }
    s.ref_count = e->refs;
    s.last_used_secs_ago = e->used ? std::chrono::duration<double>(now - e->last_used).count() : -1;
    out.push_back(std::move(s));
  }
  return out;
}

std::uint64_t srs_manager::hot_bytes() const {
  std::lock_guard lk(_mu);
  std::uint64_t n = 0;
  for (const auto& [id, e] : _entries)
    if (e->tier == srs_tier::hot) n += e->srs_res.bytes();
  return n;
}

}  // namespace cuzk::engine
