// SPDX-License-Identifier: Apache-2.0
// load_or_build_shape (see include/cuzk/io/shape_cache.hpp).
#include <cuzk/io/shape_cache.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <system_error>
#include <utility>

#include <cuzk/io/format_error.hpp>

#include "atomic_write.hpp"

namespace cuzk::io {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f ms", ms);
  return buf;
}

}  // namespace

std::string_view shape_source_label(shape_source s) {
  switch (s) {
    case shape_source::cache_hit: return "cache hit";
    case shape_source::built: return "built";
    case shape_source::rebuilt: return "rebuilt";
  }
  return "?";
}

std::string shape_load::summary() const {
  const std::string name = file.filename().string();
  std::string s = "shape of '" + key.circuit_id + "' (version " + std::to_string(key.shape_version) + ") ";
  if (source == shape_source::cache_hit) return s + "read from " + name + " in " + ms_text(read_ms);
  s += "built in " + ms_text(build_ms);
  if (source == shape_source::rebuilt) s += " (the cache file was not used: " + reason + ")";
  if (cached) s += ", written to " + name + " in " + ms_text(write_ms);
  else s += "; WARNING: not cached, the next load builds it again: " + warning;
  return s;
}

shape_load load_or_build_shape(const std::filesystem::path& cache_file, const shape_key& key,
                               const std::function<r1cs::r1cs_shape()>& build, const shape_check& check) {
  shape_load out;
  out.key = key;
  out.file = cache_file;
  std::error_code ec;
  const bool present = std::filesystem::exists(cache_file, ec) || ec;  // an error to stat it: try, and say why
  if (present) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      // The header first: a stale file is recognised without reading its
      // payload (gigabytes for a large circuit).
      const shape_file_header h = read_shape_file_header(cache_file);
      if (!(h.key == key)) {
        out.reason = "stale: it holds '" + h.key.circuit_id + "' shape version " + std::to_string(h.key.shape_version) +
                     ", this build needs '" + key.circuit_id + "' version " + std::to_string(key.shape_version);
      } else {
        r1cs::r1cs_shape s = read_shape_file(cache_file, key);
        const std::string misfit = check ? check(s) : std::string();
        if (misfit.empty()) {
          out.shape = std::move(s);
          out.read_ms = ms_since(t0);
          out.source = shape_source::cache_hit;
          out.cached = true;
          return out;
        }
        out.reason = "stale: the cached shape " + misfit + " (was the circuit changed without a new shape version?)";
      }
    } catch (const std::exception& e) {  // format_error; std::bad_alloc for a shape that does not fit
      out.reason = e.what();
    }
    out.read_ms = ms_since(t0);
    out.source = shape_source::rebuilt;
  }
  const auto t1 = std::chrono::steady_clock::now();
  out.shape = build();
  out.build_ms = ms_since(t1);
  const auto t2 = std::chrono::steady_clock::now();
  detail::remove_orphaned_temporaries(cache_file);  // a writer killed mid-write leaves gigabytes
  try {
    write_shape_file(cache_file, out.shape, key);
    out.cached = true;
  } catch (const std::exception& e) {
    out.warning = e.what();
  }
  out.write_ms = ms_since(t2);
  return out;
}

}  // namespace cuzk::io
