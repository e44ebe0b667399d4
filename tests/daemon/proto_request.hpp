// SPDX-License-Identifier: Apache-2.0
#pragma once
// An engine proof_request as the SubmitProofRequest a gRPC client sends
// (every field the request carries), for the daemon tests that go through
// the wire.

#include <string>

#include <cuzk/engine/types.hpp>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::test {

inline cuzk::v1::SubmitProofRequest to_pb(const engine::proof_request& r) {
  namespace pb = cuzk::v1;
  pb::SubmitProofRequest q;
  q.set_request_id(r.request_id);
  q.set_proof_kind(pb::ProofKind(int(r.kind)));
  q.set_sector_size(r.sector_size);
  q.set_registered_proof(r.registered_proof);
  q.set_priority(pb::Priority(int(r.prio)));
  q.set_vanilla_proof(std::string(r.vanilla_proof.begin(), r.vanilla_proof.end()));
  for (const auto& v : r.vanilla_proofs) q.add_vanilla_proofs(std::string(v.begin(), v.end()));
  q.set_randomness(std::string(r.randomness.begin(), r.randomness.end()));
  q.set_partition_index(r.partition_index);
  q.set_sector_number(r.sector_number);
  q.set_miner_id(r.miner_id);
  q.set_comm_r_old(std::string(r.comm_r_old.begin(), r.comm_r_old.end()));
  q.set_comm_r_new(std::string(r.comm_r_new.begin(), r.comm_r_new.end()));
  q.set_comm_d_new(std::string(r.comm_d_new.begin(), r.comm_d_new.end()));
  return q;
}

}  // namespace cuzk::test
