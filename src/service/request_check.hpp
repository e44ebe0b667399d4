// SPDX-License-Identifier: Apache-2.0
#pragma once
// The service's request validation, apart from the gRPC server so that the
// fuzz target (fuzz/grpc_request.cpp) runs exactly the code a request meets:
// the wire message becomes an engine::proof_request, and everything that can
// be refused without the engine is refused here with invalid_request (the
// service answers INVALID_ARGUMENT naming the problem). request_id rules:
// at most 256 bytes, no control characters and no commas, because the id is
// written into log lines and comma-separated TIMELINE records, and a
// client-chosen id must not be able to forge or split them.
#include <string_view>

#include <cuzk/engine/types.hpp>

#include "cuzk/v1/proving.pb.h"

namespace cuzk::service {

inline constexpr std::size_t max_request_id_bytes = 256;

/// Throws engine::invalid_request when |id| breaks the request_id rules;
/// |field| names it in the message ("request_id", "job_id"). The message
/// never echoes the id (a 100 KB one gets a one-line answer).
void check_request_id(std::string_view id, const char* field = "request_id");

/// The engine's view of |r|; throws engine::invalid_request on an unknown
/// proof_kind or priority, a bad request_id, or a count, index or size
/// beyond the kind's limits (request_limits.hpp).
engine::proof_request to_engine_request(const cuzk::v1::SubmitProofRequest& r);

}  // namespace cuzk::service
