// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which build this cuzk-bench is: generated at build time by build_info.cmake
// (git commit of the source tree, dirty flag, build type, compiler). Recorded
// in `batch --json` so a benchmark file names the code that produced it.
namespace cuzk::bench_app {
extern const char* const build_commit;  ///< 40 hex digits, or "unknown" outside git
extern const bool build_dirty;          ///< tracked files differed from the commit
extern const char* const build_type;    ///< CMAKE_BUILD_TYPE
extern const char* const build_compiler;
}  // namespace cuzk::bench_app
