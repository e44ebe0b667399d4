// SPDX-License-Identifier: Apache-2.0
// TOML configuration of the daemon (see daemon_config.hpp), on toml++.
#include "daemon_config.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <toml++/toml.h>

namespace cuzk::service {
namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// Keys we know: section -> key -> status.
enum class key_status { used, deprecated, unused };
const std::map<std::string, std::map<std::string, key_status>>& known_keys() {
  static const std::map<std::string, std::map<std::string, key_status>> k{
      {"daemon",
       {{"listen", key_status::used},
        {"status_listen", key_status::used},
        {"max_message_size", key_status::used},
        {"shutdown_timeout", key_status::used},
        {"unix_socket_mode", key_status::used},
        {"tls_cert_file", key_status::used},
        {"tls_key_file", key_status::used},
        {"tls_client_ca_file", key_status::used},
        {"auth_token_file", key_status::used},
        {"allow_abstract_socket", key_status::used},
        {"max_waiting_calls", key_status::used},
        {"max_connections", key_status::used}}},
      {"srs",
       {{"param_cache", key_status::used},
        {"check_points", key_status::used},
        {"shape_cache", key_status::used},
        {"parameters_json", key_status::used},
        {"preload", key_status::deprecated}}},
      {"memory",
       {{"total_budget", key_status::used},
        {"safety_margin", key_status::used},
        {"eviction_min_idle", key_status::used},
        {"priority_reserve", key_status::used},
        {"pinned_budget", key_status::deprecated},
        {"working_memory_budget", key_status::deprecated}}},
      {"gpus",
       {{"devices", key_status::used},
        {"gpu_threads", key_status::used},
        {"gpu_workers_per_device", key_status::used},
        {"cpu_fallback", key_status::used},
        {"vram_limit", key_status::used},
        {"affinity", key_status::unused}}},
      {"scheduler",
       {{"max_batch_size", key_status::used},
        {"max_batch_wait_ms", key_status::used},
        {"sort_by_type", key_status::unused}}},
      {"synthesis", {{"threads", key_status::used}, {"partition_workers", key_status::deprecated}}},
      {"pipeline",
       {{"enabled", key_status::used},
        {"synthesis_lookahead", key_status::unused},
        {"synthesis_concurrency", key_status::unused},
        {"max_parallel_synthesis", key_status::used},
        {"slot_size", key_status::unused},
        {"max_gpu_queue_depth", key_status::used},
        {"finalizer_threads", key_status::used},
        {"verify_proofs", key_status::used},
        {"check_vanilla_proofs", key_status::used},
        {"result_ttl", key_status::used},
        {"max_finished_jobs", key_status::used}}},
      {"logging", {{"level", key_status::used}, {"format", key_status::used}}},
  };
  return k;
}

struct reader {
  const toml::table& root;
  const std::string& label;

  const toml::node* node(const char* sec, const char* key) const {
    const toml::table* t = root[sec].as_table();
    return t ? t->get(key) : nullptr;
  }
  [[noreturn]] void bad(const char* sec, const char* key, const std::string& why) const {
    throw config_error(label + ": " + sec + "." + key + ": " + why);
  }
  std::optional<std::string> str(const char* sec, const char* key) const {
    const toml::node* n = node(sec, key);
    if (!n) return std::nullopt;
    if (!n->is_string()) bad(sec, key, "expected a string");
    return std::string(*n->value<std::string>());
  }
  std::optional<std::int64_t> integer(const char* sec, const char* key, std::int64_t lo, std::int64_t hi) const {
    const toml::node* n = node(sec, key);
    if (!n) return std::nullopt;
    if (!n->is_integer()) bad(sec, key, "expected an integer");
    const std::int64_t v = *n->value<std::int64_t>();
    if (v < lo || v > hi)
      bad(sec, key,
          "value " + std::to_string(v) + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }
  std::optional<bool> boolean(const char* sec, const char* key) const {
    const toml::node* n = node(sec, key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) bad(sec, key, "expected true or false");
    return *n->value<bool>();
  }
  // a size as a string or an integer of bytes; "auto" -> 0 when allowed
  std::optional<std::uint64_t> size(const char* sec, const char* key, bool allow_auto) const {
    const toml::node* n = node(sec, key);
    if (!n) return std::nullopt;
    if (n->is_integer()) {
      const std::int64_t v = *n->value<std::int64_t>();
      if (v < 0) bad(sec, key, "negative size");
      return std::uint64_t(v);
    }
    if (!n->is_string()) bad(sec, key, "expected a size such as \"64GiB\"");
    const std::string s = *n->value<std::string>();
    if (lower(s) == "auto") {
      if (!allow_auto) bad(sec, key, "\"auto\" is not allowed here");
      return 0;
    }
    return parse_size(s, std::string(sec) + "." + key);
  }
  std::optional<std::chrono::milliseconds> duration(const char* sec, const char* key) const {
    const toml::node* n = node(sec, key);
    if (!n) return std::nullopt;
    if (n->is_integer()) {
      const std::int64_t v = *n->value<std::int64_t>();
      if (v < 0) bad(sec, key, "negative duration");
      return std::chrono::seconds(v);
    }
    if (!n->is_string()) bad(sec, key, "expected a duration such as \"5m\"");
    return parse_duration(*n->value<std::string>(), std::string(sec) + "." + key);
  }
};

}  // namespace

std::vector<std::string> known_config_keys() {
  std::vector<std::string> out;
  for (const auto& [sec, keys] : known_keys())
    for (const auto& [k, st] : keys) out.push_back(sec + "." + k);
  return out;
}

std::uint64_t parse_size(std::string_view s, const std::string& key) {
  std::uint64_t n = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  while (b < e && *b == ' ') ++b;
  const auto [p, ec] = std::from_chars(b, e, n);
  if (ec != std::errc() || p == b) throw config_error(key + ": '" + std::string(s) + "' is not a size");
  std::string unit = lower(std::string_view(p, std::size_t(e - p)));
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  static const std::map<std::string, std::uint64_t> units{{"", 1},
                                                          {"b", 1},
                                                          {"kib", 1ull << 10},
                                                          {"mib", 1ull << 20},
                                                          {"gib", 1ull << 30},
                                                          {"tib", 1ull << 40},
                                                          {"kb", 1000},
                                                          {"mb", 1000000},
                                                          {"gb", 1000000000},
                                                          {"tb", 1000000000000}};
  const auto it = units.find(unit);
  if (it == units.end()) throw config_error(key + ": unknown size unit in '" + std::string(s) + "'");
  if (n > ~std::uint64_t(0) / it->second) throw config_error(key + ": size '" + std::string(s) + "' overflows");
  return n * it->second;
}

std::chrono::milliseconds parse_duration(std::string_view s, const std::string& key) {
  std::uint64_t n = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || p == s.data()) throw config_error(key + ": '" + std::string(s) + "' is not a duration");
  const std::string unit = lower(std::string_view(p, std::size_t(s.data() + s.size() - p)));
  if (unit == "ms") return std::chrono::milliseconds(n);
  if (unit.empty() || unit == "s") return std::chrono::seconds(n);
  if (unit == "m") return std::chrono::minutes(n);
  if (unit == "h") return std::chrono::hours(n);
  throw config_error(key + ": unknown duration unit in '" + std::string(s) + "' (ms, s, m, h)");
}

daemon_config parse_config(std::string_view text, const std::string& label) {
  toml::table root;
  try {
    root = toml::parse(text, label);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << label << ": TOML syntax error at line " << e.source().begin.line << ": " << e.description();
    throw config_error(os.str());
  }
  daemon_config c;
  // unknown and deprecated keys
  for (const auto& [sec, node] : root) {
    const std::string s(sec.str());
    const auto kit = known_keys().find(s);
    if (kit == known_keys().end()) {
      c.warnings.push_back(label + ": unknown section [" + s + "] ignored");
      continue;
    }
    const toml::table* t = node.as_table();
    if (!t) throw config_error(label + ": '" + s + "' must be a section");
    for (const auto& [key, v] : *t) {
      const std::string k(key.str());
      const auto st = kit->second.find(k);
      if (st == kit->second.end()) c.warnings.push_back(label + ": unknown key " + s + "." + k + " ignored");
      else if (st->second == key_status::deprecated)
        c.warnings.push_back(label + ": " + s + "." + k +
                             " is deprecated and has no effect (the memory budget governs)");
      else if (st->second == key_status::unused)
        c.warnings.push_back(label + ": " + s + "." + k + " is accepted for compatibility and has no effect");
    }
  }
  const reader r{root, label};
  if (auto v = r.str("daemon", "listen")) {
    if (v->empty()) r.bad("daemon", "listen", "must not be empty");
    c.listen = *v;
  }
  if (auto v = r.str("daemon", "status_listen")) c.status_listen = *v;
  if (auto v = r.size("daemon", "max_message_size", false)) {
    if (*v < 4096 || *v > (1ull << 31) - 1) r.bad("daemon", "max_message_size", "must be between 4 KiB and 2 GiB");
    c.max_message_size = *v;
  }
  if (auto v = r.duration("daemon", "shutdown_timeout")) c.shutdown_timeout = *v;
  if (auto v = r.str("daemon", "unix_socket_mode")) {
    unsigned m = 0;
    const auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), m, 8);
    if (ec != std::errc() || p != v->data() + v->size() || v->empty() || m > 0777)
      r.bad("daemon", "unix_socket_mode", "'" + *v + "' is not an octal mode such as \"0600\"");
    if (m & 0007) r.bad("daemon", "unix_socket_mode", "'" + *v + "' lets every local user connect; use 0600 or 0660");
    if ((m & 0600) != 0600) r.bad("daemon", "unix_socket_mode", "'" + *v + "' must give the owner read and write");
    c.unix_socket_mode = m;
  }
  if (auto v = r.boolean("daemon", "allow_abstract_socket")) c.allow_abstract_socket = *v;
  if (auto v = r.integer("daemon", "max_waiting_calls", 1, 1000000)) c.max_waiting_calls = std::size_t(*v);
  if (auto v = r.integer("daemon", "max_connections", 1, 1000000)) c.max_connections = std::size_t(*v);
  if (auto v = r.str("daemon", "tls_cert_file")) c.tls_cert_file = *v;
  if (auto v = r.str("daemon", "tls_key_file")) c.tls_key_file = *v;
  if (auto v = r.str("daemon", "tls_client_ca_file")) c.tls_client_ca_file = *v;
  if (c.tls_cert_file.empty() != c.tls_key_file.empty())
    r.bad("daemon", c.tls_cert_file.empty() ? "tls_cert_file" : "tls_key_file",
          "daemon.tls_cert_file and daemon.tls_key_file go together");
  if (!c.tls_client_ca_file.empty() && c.tls_cert_file.empty())
    r.bad("daemon", "tls_client_ca_file", "needs daemon.tls_cert_file and daemon.tls_key_file");
  if (auto v = r.str("daemon", "auth_token_file")) c.auth_token_file = *v;

  if (auto v = r.str("srs", "param_cache")) c.engine.param_cache = *v;
  if (auto v = r.boolean("srs", "check_points")) c.engine.check_points = *v;
  if (auto v = r.boolean("srs", "shape_cache")) c.engine.shape_cache = *v;
  if (auto v = r.str("srs", "parameters_json")) c.engine.parameters_json = *v;

  if (auto v = r.size("memory", "total_budget", true)) c.engine.total_budget = *v;
  if (auto v = r.size("memory", "safety_margin", false)) c.engine.safety_margin = *v;
  if (auto v = r.duration("memory", "eviction_min_idle")) c.engine.eviction_min_idle = *v;
  if (auto v = r.size("memory", "priority_reserve", true)) {
    if (*v != 0) c.engine.priority_reserve = *v;
  }

  if (const toml::node* n = r.node("gpus", "devices")) {
    const toml::array* a = n->as_array();
    if (!a) r.bad("gpus", "devices", "expected an array of device ordinals");
    for (const auto& e : *a) {
      if (!e.is_integer() || *e.value<std::int64_t>() < 0) r.bad("gpus", "devices", "expected non-negative integers");
      c.gpu_devices.push_back(int(*e.value<std::int64_t>()));
    }
  }
  if (auto v = r.integer("gpus", "gpu_threads", 0, 4096)) c.gpu_threads = std::size_t(*v);
  if (auto v = r.integer("gpus", "gpu_workers_per_device", 1, 16)) c.engine.gpu_workers_per_device = std::size_t(*v);
  if (auto v = r.boolean("gpus", "cpu_fallback")) c.cpu_fallback = *v;
  if (auto v = r.size("gpus", "vram_limit", true)) {
    if (*v != 0 && *v < (std::uint64_t(1) << 30)) r.bad("gpus", "vram_limit", "must be \"auto\" or at least 1 GiB");
    c.gpu_vram_limit = *v;
  }

  // cross-sector batching (engine_config::max_batch_size); 0 as 1: no batching
  if (auto v = r.integer("scheduler", "max_batch_size", 0, 30))
    c.engine.max_batch_size = std::size_t(std::max<std::int64_t>(1, *v));
  if (auto v = r.integer("scheduler", "max_batch_wait_ms", 0, 3600000))
    c.engine.max_batch_wait = std::chrono::milliseconds(*v);
  (void)r.boolean("scheduler", "sort_by_type");

  if (auto v = r.integer("synthesis", "threads", 0, 4096)) c.synthesis_threads = std::size_t(*v);

  if (auto v = r.boolean("pipeline", "enabled"); v && !*v)
    c.warnings.push_back(label + ": pipeline.enabled = false: there is no monolithic mode; the pipeline is used");
  (void)r.integer("pipeline", "synthesis_lookahead", 0, 1024);
  (void)r.integer("pipeline", "synthesis_concurrency", 0, 1024);
  (void)r.integer("pipeline", "slot_size", 0, 1024);
  if (auto v = r.integer("pipeline", "max_parallel_synthesis", 0, 1024))
    c.engine.max_parallel_synthesis = std::size_t(*v);
  if (auto v = r.integer("pipeline", "max_gpu_queue_depth", 0, 1024)) c.engine.gpu_queue_capacity = std::size_t(*v);
  if (auto v = r.integer("pipeline", "finalizer_threads", 1, 256)) c.engine.finalizer_threads = std::size_t(*v);
  if (auto v = r.str("pipeline", "verify_proofs")) {
    const std::string m = lower(*v);
    if (m == "all") c.engine.verify = engine::verify_mode::all;
    else if (m == "porep") c.engine.verify = engine::verify_mode::porep;
    else if (m == "none") c.engine.verify = engine::verify_mode::none;
    else r.bad("pipeline", "verify_proofs", "'" + *v + "' is not one of \"all\", \"porep\", \"none\"");
  }
  if (auto v = r.boolean("pipeline", "check_vanilla_proofs")) c.engine.check_vanilla_proofs = *v;
  if (auto v = r.duration("pipeline", "result_ttl")) c.engine.result_ttl = *v;
  if (auto v = r.integer("pipeline", "max_finished_jobs", 1, 10000000)) c.engine.max_finished_jobs = std::size_t(*v);

  if (auto v = r.str("logging", "level")) {
    static const std::set<std::string> levels{"trace", "debug", "info", "warn", "error", "off"};
    if (!levels.count(lower(*v)))
      r.bad("logging", "level", "'" + *v + "' is not one of trace, debug, info, warn, error, off");
    c.log_level = lower(*v);
  }
  if (auto v = r.str("logging", "format")) {
    if (lower(*v) != "text" && lower(*v) != "json")
      r.bad("logging", "format", "'" + *v + "' is not \"text\" or \"json\"");
    c.log_format = lower(*v);
  }
  return c;
}

daemon_config load_config(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    if (!std::filesystem::exists(path)) {
      daemon_config c;
      c.warnings.push_back("config file " + path.string() + " not found; using the defaults");
      return c;
    }
    throw config_error("cannot read config file " + path.string());
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_config(ss.str(), path.string());
}

}  // namespace cuzk::service
