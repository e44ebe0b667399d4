// SPDX-License-Identifier: Apache-2.0
#pragma once
// The FallbackPoSt vanilla verifier's checks on a circuit's sector slots,
// natively (storage-proofs-post fallback vanilla verify): per slot,
// comm_r = Poseidon2(comm_c, comm_r_last), and every challenged leaf's
// path hashes to comm_r_last. The leaf indices are checked against the
// challenges where the request is parsed (post_kinds.cpp). Slots past the
// filled ones repeat the last sector and are not checked twice.
// Cost: one arity-2 Poseidon per sector and one Poseidon per path level
// (2 KiB: 2 levels; 32 GiB: 10 levels); measured (vanilla-check-bench,
// docs/RELIABILITY.md) 4.7 ms of one core per 32 GiB sector on a quiet core
// (26 ms on a loaded one), so slots are checked in parallel (TBB): a full
// 2349-sector partition took 8.9 s on 2 cores.
#include <functional>
#include <string>
#include <vector>

#include <cuzk/circuits/fallback_post.hpp>

namespace cuzk::circuits {

/// |where(slot, challenge)| names a place for the messages ("vanilla_proofs[1]
/// (sector 42) inclusion proof 3"; challenge == SIZE_MAX: the sector itself).
/// Returns the problems found, each naming its place; empty: consistent.
std::vector<std::string> check_post_slots(const fallback_post_circuit& c,
                                          const std::function<std::string(std::size_t, std::size_t)>& where);

}  // namespace cuzk::circuits
