// SPDX-License-Identifier: Apache-2.0
#pragma once
// Randomness the engine hands out: the Groth16 randomizers r and s of every
// partition (they must be unpredictable, or a proof leaks the witness) and
// the ids of jobs submitted without a request_id. Both come from the OS
// CSPRNG through OpenSSL's RAND_bytes. Cost: one RAND_bytes call per 64-bit
// word, microseconds per partition.
#include <openssl/rand.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace cuzk::engine {

/// 64-bit words from the OS CSPRNG (a UniformRandomBitGenerator).
struct os_rng {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type(0); }
  result_type operator()() {
    result_type v = 0;
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&v), sizeof v) != 1)
      throw std::runtime_error("OS random generator failed");
    return v;
  }
};

/// "job-" and 96 random bits in hex.
inline std::string random_job_id() {
  os_rng rng;
  char buf[40];
  std::snprintf(buf, sizeof buf, "job-%016llx%08llx", (unsigned long long)rng(), (unsigned long long)(rng() >> 32));
  return buf;
}

}  // namespace cuzk::engine
