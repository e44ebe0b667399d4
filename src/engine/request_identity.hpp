// SPDX-License-Identifier: Apache-2.0
#pragma once
// What "the same request" means for request_id idempotency: the proof kind
// and a SHA-256 over every field a job's result depends on (each field
// length-prefixed, so no two different requests can collide by shifting
// bytes between fields). priority is left out on purpose: a resubmission
// at another priority is still the same proof. A repeated id with the
// same identity gets the existing job; another identity under a live id is
// refused (ALREADY_EXISTS), never served the other request's proof.
// Cost: one SHA-256 pass over the payload (OpenSSL, ~1-2 GB/s; a 39 MB
// 32 GiB C1 in ~30 ms), outside the engine lock.
#include <array>
#include <cstdint>

#include <cuzk/engine/types.hpp>

namespace cuzk::engine {

struct request_identity {
  proof_kind kind = proof_kind::unspecified;
  std::array<std::uint8_t, 32> digest{};
  friend bool operator==(const request_identity&, const request_identity&) = default;
};

request_identity identity_of(const proof_request& r);

/// Why |have| (the live job's) and |want| (the new request's) differ, for
/// the ALREADY_EXISTS message: "another proof kind (...)" or "another payload".
std::string identity_difference(const request_identity& have, const request_identity& want);

}  // namespace cuzk::engine
