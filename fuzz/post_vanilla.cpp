// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the PoSt vanilla proof bincode readers (one
// FallbackPoStSectorProof as SubmitProofRequest.vanilla_proofs carries it,
// and a whole fallback::Proof as lotus writes it). Property: each reader
// succeeds or throws io::format_error; on success the writer gives back
// exactly the input bytes (bincode has one encoding per value).
#include <vector>

#include <cuzk/io/format_error.hpp>
#include <cuzk/io/post_vanilla.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto in = cuzk::fuzz::bytes(data, size);
  const std::vector<std::uint8_t> orig(in.begin(), in.end());
  try {
    const auto p = cuzk::io::read_fallback_post_sector_proof(in, "fuzz");
    cuzk::fuzz::fuzz_check(cuzk::io::write_fallback_post_sector_proof(p) == orig,
                           "FallbackPoStSectorProof does not re-encode to its input");
  } catch (const cuzk::io::format_error&) {
  }
  try {
    const auto v = cuzk::io::read_fallback_post_proof(in, "fuzz");
    cuzk::fuzz::fuzz_check(cuzk::io::write_fallback_post_proof(v) == orig,
                           "fallback::Proof does not re-encode to its input");
  } catch (const cuzk::io::format_error&) {
  }
  return 0;
}
