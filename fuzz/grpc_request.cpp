// SPDX-License-Identifier: Apache-2.0
// Fuzz target: a gRPC request as the daemon receives it. The bytes are a
// serialized cuzk.v1.ProveRequest (whose submit field is the
// SubmitProofRequest that SubmitProof takes, so both RPCs' parsing is
// covered); a message protobuf cannot parse is dropped, as gRPC does. The
// rest is the daemon's own code: request_check (wire -> engine request:
// kind, priority, request_id rules, the kind's count/index/size limits) and
// then the parse() and check_vanilla() of the proof kind handler the
// request names (PoRep C1 JSON, WinningPoSt, WindowPoSt, SnapDeals), which
// is all of the validation a request gets before it is queued.
// Property: only engine::invalid_request (INVALID_ARGUMENT) escapes them;
// an accepted request names a circuit the kind registers and has at least
// one partition.
#include <map>
#include <memory>

#include <cuzk/engine/proof_kind.hpp>

#include "cuzk/v1/proving.pb.h"
#include "fuzz_common.hpp"
#include "request_check.hpp"

namespace {

namespace eng = cuzk::engine;

const std::map<eng::proof_kind, std::shared_ptr<eng::proof_kind_handler>>& handlers() {
  static const auto h = [] {
    std::map<eng::proof_kind, std::shared_ptr<eng::proof_kind_handler>> m;
    for (std::shared_ptr<eng::proof_kind_handler> k :
         {std::shared_ptr<eng::proof_kind_handler>(eng::make_porep_kind()),
          std::shared_ptr<eng::proof_kind_handler>(eng::make_window_post_kind()),
          std::shared_ptr<eng::proof_kind_handler>(eng::make_winning_post_kind()),
          std::shared_ptr<eng::proof_kind_handler>(eng::make_snap_kind())})
      m[k->kind()] = k;
    return m;
  }();
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (4u << 20)) return 0;
  cuzk::v1::ProveRequest msg;
  if (!msg.ParseFromArray(data, int(size))) return 0;
  try {
    const eng::proof_request req = cuzk::service::to_engine_request(msg.submit());
    const auto it = handlers().find(req.kind);
    if (it == handlers().end()) return 0;  // UNIMPLEMENTED / INVALID_ARGUMENT before any parsing
    const auto job = it->second->parse(req);
    cuzk::fuzz::fuzz_check(job != nullptr, "parse returned no job");
    cuzk::fuzz::fuzz_check(job->num_partitions() > 0, "accepted request with zero partitions");
    bool known = false;
    for (const auto& c : it->second->circuits()) known = known || c.id == job->circuit_id();
    cuzk::fuzz::fuzz_check(known, "accepted request names a circuit its kind does not register");
    job->check_vanilla();  // the submit-time vanilla check: refuses with invalid_request only
  } catch (const eng::invalid_request&) {
  }
  return 0;
}
