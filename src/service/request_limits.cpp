// SPDX-License-Identifier: Apache-2.0
// Request limits by proof kind (see request_limits.hpp).
#include "request_limits.hpp"

#include <string>

#include <cuzk/circuits/fallback_post.hpp>
#include <cuzk/engine/types.hpp>

namespace cuzk::service {
namespace {

namespace pb = cuzk::v1;
using engine::invalid_request;

constexpr std::uint64_t sizes[] = {2ull << 10, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};

void at_most(std::uint64_t value, std::uint64_t limit, const std::string& what, const std::string& why) {
  if (value > limit)
    throw invalid_request(what + " is " + std::to_string(value) + ", more than the " + std::to_string(limit) + " " +
                          why);
}

// The sectors of one WindowPoSt partition of |registered_proof| (5-14);
// the largest (32 GiB) when the proof type is unknown (the kind refuses it).
std::size_t window_sectors(std::uint64_t registered_proof) {
  if (registered_proof < 5 || registered_proof > 14) return circuits::window_post_params(32ull << 30).sector_count;
  return circuits::window_post_params(sizes[(registered_proof - 5) % 5]).sector_count;
}

void entries_at_most(const pb::SubmitProofRequest& r, std::size_t limit, const std::string& why) {
  at_most(std::uint64_t(r.vanilla_proofs_size()), limit, "the number of vanilla_proofs", why);
}

void entry_bytes_at_most(const pb::SubmitProofRequest& r, std::size_t limit, const char* what) {
  for (int i = 0; i < r.vanilla_proofs_size(); ++i)
    at_most(r.vanilla_proofs(i).size(), limit, "vanilla_proofs[" + std::to_string(i) + "] size", what);
}

}  // namespace

void check_request_limits(const pb::SubmitProofRequest& r) {
  at_most(r.randomness().size(), 32, "randomness size", "bytes of a field element");
  at_most(r.comm_r_old().size(), 32, "comm_r_old size", "bytes of a commitment");
  at_most(r.comm_r_new().size(), 32, "comm_r_new size", "bytes of a commitment");
  at_most(r.comm_d_new().size(), 32, "comm_d_new size", "bytes of a commitment");
  switch (r.proof_kind()) {
    case pb::WINDOW_POST_PARTITION:
      at_most(
          r.partition_index(), max_window_post_partitions - 1, "partition_index",
          "allowed (Filecoin has at most " + std::to_string(max_window_post_partitions) + " partitions per deadline)");
      entries_at_most(r, window_sectors(r.registered_proof()),
                      "sectors of a WindowPoSt partition of registered_proof " + std::to_string(r.registered_proof()));
      entry_bytes_at_most(r, max_post_sector_proof_bytes, "bytes allowed for one PoSt sector proof");
      break;
    case pb::WINNING_POST:
      at_most(r.partition_index(), 0, "partition_index", "of a WinningPoSt (one partition)");
      entries_at_most(r, circuits::winning_post_sector_count, "vanilla proof a WinningPoSt takes");
      entry_bytes_at_most(r, max_post_sector_proof_bytes, "bytes allowed for one PoSt sector proof");
      break;
    case pb::POREP_SEAL_COMMIT:
      at_most(r.partition_index(), max_porep_partitions - 1, "partition_index",
              "allowed (a PoRep has at most " + std::to_string(max_porep_partitions) + " partitions)");
      entries_at_most(r, 0, "allowed for a PoRep (the C1 output goes in vanilla_proof)");
      break;
    case pb::SNAP_DEALS_UPDATE:
      at_most(r.partition_index(), max_snap_partitions - 1, "partition_index",
              "allowed (a SnapDeals update has at most " + std::to_string(max_snap_partitions) + " partitions)");
      entries_at_most(r, max_snap_partitions, "partition proofs of a SnapDeals update");
      entry_bytes_at_most(r, max_snap_partition_proof_bytes, "bytes allowed for one SnapDeals partition proof");
      break;
    default: break;  // unknown kinds are refused by to_engine_request
  }
}

std::optional<std::chrono::steady_clock::time_point> await_deadline(std::chrono::steady_clock::time_point now,
                                                                    std::uint64_t timeout_ms) {
  using clock = std::chrono::steady_clock;
  if (timeout_ms == 0 || now >= clock::time_point::max()) return std::nullopt;
  // compare in the clock's own unit, so neither side can overflow
  const auto room = std::chrono::duration_cast<std::chrono::milliseconds>(clock::time_point::max() - now).count();
  if (room <= 0 || timeout_ms >= std::uint64_t(room)) return std::nullopt;
  return now + std::chrono::milliseconds(std::int64_t(timeout_ms));
}

}  // namespace cuzk::service
