// SPDX-License-Identifier: Apache-2.0
// Wire request -> engine request, with the checks that need no engine
// (see request_check.hpp). Cost: one copy of the payload bytes.
#include "request_check.hpp"
#include "request_limits.hpp"

#include <algorithm>
#include <string>

namespace cuzk::service {
namespace {

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

}  // namespace

void check_request_id(std::string_view id, const char* field) {
  if (id.size() > max_request_id_bytes)
    throw engine::invalid_request(std::string(field) + " is " + std::to_string(id.size()) + " bytes, more than the " +
                                  std::to_string(max_request_id_bytes) + " allowed");
  for (std::size_t i = 0; i < id.size(); ++i) {
    const auto c = static_cast<unsigned char>(id[i]);
    if (c < 0x20 || c == 0x7f || c == ',')
      throw engine::invalid_request(std::string(field) + " has a forbidden character (byte " +
                                    std::to_string(unsigned(c)) + " at offset " + std::to_string(i) +
                                    "; control characters and ',' are not allowed)");
  }
}

engine::proof_request to_engine_request(const cuzk::v1::SubmitProofRequest& r) {
  if (r.proof_kind() < 0 || r.proof_kind() >= int(engine::proof_kind_count))
    throw engine::invalid_request("unknown proof_kind " + std::to_string(r.proof_kind()));
  if (r.priority() < 0 || r.priority() > int(engine::priority::critical))
    throw engine::invalid_request("unknown priority " + std::to_string(r.priority()));
  check_request_id(r.request_id());
  check_request_limits(r);  // before a byte of the payload is copied
  engine::proof_request q;
  q.request_id = r.request_id();
  q.kind = engine::proof_kind(std::uint8_t(r.proof_kind()));
  q.prio = engine::priority(r.priority());
  q.sector_size = r.sector_size();
  q.registered_proof = r.registered_proof();
  q.vanilla_proof = bytes_of(r.vanilla_proof());
  q.vanilla_proofs.reserve(std::size_t(r.vanilla_proofs_size()));
  for (const auto& v : r.vanilla_proofs()) q.vanilla_proofs.push_back(bytes_of(v));
  q.sector_number = r.sector_number();
  q.miner_id = r.miner_id();
  q.randomness = bytes_of(r.randomness());
  q.partition_index = r.partition_index();
  q.comm_r_old = bytes_of(r.comm_r_old());
  q.comm_r_new = bytes_of(r.comm_r_new());
  q.comm_d_new = bytes_of(r.comm_d_new());
  return q;
}

}  // namespace cuzk::service
