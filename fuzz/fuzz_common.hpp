// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by the fuzz targets: the libFuzzer entry point's signature and the
// one rule every target enforces, namely that a parser given bad bytes either
// succeeds or throws the exception type its header promises
// (io::format_error for files). Any other exception escapes
// LLVMFuzzerTestOneInput, which libFuzzer (and the replay driver) report as
// a crash. |fuzz_check| aborts with a message when a property of a
// successful parse does not hold (round trips): abort, not an exception, so
// libFuzzer stops there and keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace cuzk::fuzz {

inline void fuzz_check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz property violated: %s\n", what);
    std::abort();
  }
}

inline std::span<const std::uint8_t> bytes(const std::uint8_t* data, std::size_t size) { return {data, size}; }

}  // namespace cuzk::fuzz
