// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every count, index and size of a SubmitProofRequest checked against the
// proof type's limits before anything is copied or allocated for it
// (to_engine_request calls this first). Before, a WindowPoSt request of
// 15 KB with partition_index 1e7 allocated 1.6 GB of placeholder sectors
// and 2^32-1 ended in std::bad_alloc; a request with millions of empty
// vanilla_proofs entries was copied entry by entry before its kind looked
// at the count. The limits are the protocol's, not tunables:
//   * WindowPoSt partition_index < 3000 (Filecoin's max partitions per
//     deadline), vanilla_proofs <= the partition's sector count of the
//     registered proof (2 at the test sizes, 2349 at 32 GiB, 2300 at 64 GiB);
//   * WinningPoSt: one vanilla proof, partition_index 0;
//   * PoRep: the C1 in vanilla_proof, no vanilla_proofs, partition_index
//     below the 10 partitions of the largest sector;
//   * SnapDeals: at most 16 partition proofs, partition_index < 16;
//   * randomness and the three commitments at most 32 bytes (the kinds
//     then require exactly 32 where they are used);
//   * a PoSt sector proof at most 4 MiB (a 32 GiB one is 25 KB), a SnapDeals
//     partition proof at most 64 MiB (32 GiB: ~230 KB).
// AwaitProof timeout_ms saturates (await_deadline).
// A refusal is engine::invalid_request (INVALID_ARGUMENT) naming the field,
// its value and the limit; the check reads sizes only, O(entries).
#include <chrono>
#include <cstdint>
#include <optional>

#include "cuzk/v1/proving.pb.h"

namespace cuzk::service {

inline constexpr std::uint32_t max_window_post_partitions = 3000;
inline constexpr std::size_t max_porep_partitions = 10;
inline constexpr std::size_t max_snap_partitions = 16;
inline constexpr std::size_t max_post_sector_proof_bytes = 4u << 20;
inline constexpr std::size_t max_snap_partition_proof_bytes = 64u << 20;

/// Throws engine::invalid_request when a count, index or size of |r| is
/// beyond what its proof kind allows.
void check_request_limits(const cuzk::v1::SubmitProofRequest& r);

/// The end of an AwaitProof wait of |timeout_ms| from |now|; nullopt (no
/// end but the client's own deadline) for 0 and for any value the clock
/// cannot represent. Before, timeout_ms >= 2^63 became a negative
/// std::chrono::milliseconds and the call answered TIMEOUT at once.
std::optional<std::chrono::steady_clock::time_point> await_deadline(std::chrono::steady_clock::time_point now,
                                                                    std::uint64_t timeout_ms);

}  // namespace cuzk::service
