// SPDX-License-Identifier: Apache-2.0
// Fuzz target: proof bytes (concatenated 192-byte compressed A || B || C
// partition proofs, as AwaitProof returns them and the chain checks them).
// Property: read_proofs(bytes, n) for the n the length implies succeeds or
// throws io::format_error, and so does a wrong count; on success the proofs
// re-encode to exactly the input (the encoding is canonical).
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/proof_io.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cuzk::io;
  if (size > 16 * proof_size) return 0;
  const auto in = cuzk::fuzz::bytes(data, size);
  const std::size_t n = size / proof_size;
  try {
    const auto proofs = read_proofs(in, n, "fuzz");
    const auto out = write_proofs(proofs);
    cuzk::fuzz::fuzz_check(out.size() == size && std::equal(out.begin(), out.end(), in.begin()),
                           "proofs do not re-encode to their input");
  } catch (const format_error&) {
  }
  try {
    (void)read_proofs(in, n + 1, "fuzz");
    cuzk::fuzz::fuzz_check(false, "read_proofs accepted the wrong count");
  } catch (const format_error&) {
  }
  return 0;
}
