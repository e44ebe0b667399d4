// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the SnapDeals vanilla partition proof bincode reader (one
// PartitionProof as SubmitProofRequest.vanilla_proofs carries it) and the
// JSON array of base64 partitions of the reference's vanilla file.
// Property: each reader succeeds or throws io::format_error; on success the
// bincode writer gives back exactly the input bytes (one encoding per value).
#include <string_view>
#include <vector>

#include <cuzk/io/format_error.hpp>
#include <cuzk/io/snap_vanilla.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto in = cuzk::fuzz::bytes(data, size);
  const std::vector<std::uint8_t> orig(in.begin(), in.end());
  try {
    const auto p = cuzk::io::read_snap_partition_proof(in, "fuzz");
    cuzk::fuzz::fuzz_check(cuzk::io::write_snap_partition_proof(p) == orig,
                           "snap PartitionProof does not re-encode to its input");
  } catch (const cuzk::io::format_error&) {
  }
  try {
    (void)cuzk::io::parse_snap_vanilla_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const cuzk::io::format_error&) {
  }
  return 0;
}
