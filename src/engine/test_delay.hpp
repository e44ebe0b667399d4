// SPDX-License-Identifier: Apache-2.0
#pragma once
// TEST ONLY: the injected stage delay of engine_config::test_delay_stage,
// "<stage>:<ms>", a sleep of <ms> inside one stage's timed span of every
// partition, so regression tests can check that a known slowdown is found
// and blamed on the right stage (docs/REGRESSION.md). The engine never reads
// the environment for it: the cuzk daemon fills the field from
// CUZK_TEST_DELAY_STAGE (apps/cuzk/main.cpp). Cost when off: one compare
// per stage.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include <cuzk/engine/cancel_token.hpp>

namespace cuzk::engine {

struct test_delay {
  enum class where : std::uint8_t { none, synthesis, gpu, finalize } at = where::none;
  std::chrono::milliseconds ms{0};
  // sleeps in slices and stops at the job's cancellation, like a real stage
  void apply(where w, const cancel_token& token) const {
    using clock = std::chrono::steady_clock;
    if (w != at || ms.count() <= 0) return;
    const auto until = clock::now() + ms;
    while (clock::now() < until) {
      token.check();
      std::this_thread::sleep_for(std::min<clock::duration>(std::chrono::milliseconds(10), until - clock::now()));
    }
  }
};

/// Empty |spec|: no delay. Throws std::invalid_argument for anything but
/// synthesis|gpu|finalize:<ms 0..600000>.
inline test_delay parse_test_delay(const std::string& spec) {
  test_delay d;
  if (spec.empty()) return d;
  const auto colon = spec.find(':');
  const std::string stage = spec.substr(0, colon);
  if (stage == "synthesis") d.at = test_delay::where::synthesis;
  else if (stage == "gpu") d.at = test_delay::where::gpu;
  else if (stage == "finalize") d.at = test_delay::where::finalize;
  long ms = -1;
  if (colon != std::string::npos) {
    char* end = nullptr;
    ms = std::strtol(spec.c_str() + colon + 1, &end, 10);
    if (end == spec.c_str() + colon + 1 || *end != '\0') ms = -1;
  }
  if (d.at == test_delay::where::none || ms < 0 || ms > 600000)
    throw std::invalid_argument("test delay '" + spec +
                                "' (CUZK_TEST_DELAY_STAGE, test only): want synthesis|gpu|finalize:<ms 0..600000>");
  d.ms = std::chrono::milliseconds(ms);
  return d;
}

}  // namespace cuzk::engine
