// SPDX-License-Identifier: Apache-2.0
#pragma once
// load_or_build_shape: a circuit's shape from its .shape file when the file
// holds exactly this circuit at this shape version and passes every check of
// read_shape_file (digest, structure); otherwise from |build|, after which
// the file is (re)written for the next start. A stale file (other circuit
// id, other shape version, other format version) or a corrupt one
// (truncated, a flipped byte, a bad digest) is never trusted: the shape is
// rebuilt and the file replaced. A cache that cannot be written (read-only
// param_cache, disk full) costs only the next start's time: the shape is
// returned with a warning, the load never fails for it. Before writing,
// the temporaries a writer killed mid-write left beside the file (as large
// as the shape) are removed, when their process no longer exists.
//
// Costs: a hit is one read of the file (parallel preads, digest and
// structure checks in parallel); a miss is |build| plus one write and fsync
// of the file (writing is not on the path of a hit).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include <cuzk/io/shape_file.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::io {

enum class shape_source : std::uint8_t {
  cache_hit,  ///< read from the file
  built,      ///< no file: built (and written, unless |warning| says why not)
  rebuilt,    ///< a file was there but stale or corrupt (|reason|): built and rewritten
};
std::string_view shape_source_label(shape_source s);

struct shape_load {
  r1cs::r1cs_shape shape;
  shape_key key;
  std::filesystem::path file;
  shape_source source = shape_source::built;
  /// rebuilt: why the file was not used (the reader's error message).
  std::string reason;
  /// The file now holds this shape (a hit, or written after the build).
  bool cached = false;
  /// Non-empty when the file could not be written: the reason (the load
  /// succeeded anyway).
  std::string warning;
  double read_ms = 0;   ///< reading and checking the file (hit or failed attempt)
  double build_ms = 0;  ///< |build|
  double write_ms = 0;  ///< writing the file
  /// One line for a log: "shape of '<id>' read from <file> in 812 ms", ...
  std::string summary() const;
};

/// What the caller knows a shape must satisfy (e.g. the input and aux
/// counts of its parameter file): empty when |shape| fits, else why not.
using shape_check = std::function<std::string(const r1cs::r1cs_shape& shape)>;

/// The shape of |key| cached in |cache_file| (see above). A cached shape
/// that fails |check| is treated as stale (a circuit change whose shape
/// version was not bumped): rebuilt and rewritten; the built shape is
/// returned whatever |check| says (the caller reports that mismatch).
/// Exceptions of |build| propagate; nothing about the file does.
shape_load load_or_build_shape(const std::filesystem::path& cache_file, const shape_key& key,
                               const std::function<r1cs::r1cs_shape()>& build, const shape_check& check = {});

}  // namespace cuzk::io
