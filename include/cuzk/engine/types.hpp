// SPDX-License-Identifier: Apache-2.0
#pragma once
// Engine-side vocabulary: proof kinds and priorities (the numeric values of
// the cuzk.v1 proto enums), the request the service hands to the engine, a
// job's result and timings, and the exceptions the service maps to gRPC
// codes (invalid_request -> INVALID_ARGUMENT, unsupported_request ->
// UNIMPLEMENTED, shutting_down_error -> UNAVAILABLE, not_found_error -> NOT_FOUND, already_exists_error ->
// ALREADY_EXISTS, missing_parameters_error -> FAILED_PRECONDITION,
// budget_error -> the job fails with its message). No gRPC types here: the
// engine library does not depend on gRPC.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuzk::engine {

/// cuzk.v1.ProofKind values.
enum class proof_kind : std::uint8_t {
  unspecified = 0,
  porep_seal_commit = 1,
  snap_deals_update = 2,
  window_post_partition = 3,
  winning_post = 4,
};
inline constexpr std::size_t proof_kind_count = 5;

/// cuzk.v1.Priority values; larger runs first.
enum class priority : std::uint8_t { unspecified = 0, low = 1, normal = 2, high = 3, critical = 4 };

/// cuzk.v1.AwaitProofResponse.Status values.
enum class await_status : std::uint8_t { unknown = 0, completed = 1, failed = 2, cancelled = 3, timeout = 4 };

/// Metrics/status label of a kind: porep_c2, snap_update, window_post, winning_post.
std::string_view kind_label(proof_kind k);
/// "low", "normal", "high", "critical" ("unspecified" for 0).
std::string_view priority_label(priority p);
/// "COMPLETED", "FAILED", ... as the reference client prints them.
std::string_view status_label(await_status s);

/// One proof request (SubmitProofRequest without the wire types).
struct proof_request {
  std::string request_id;
  proof_kind kind = proof_kind::unspecified;
  std::uint64_t sector_size = 0;
  std::uint64_t registered_proof = 0;
  priority prio = priority::unspecified;
  std::vector<std::uint8_t> vanilla_proof;
  std::vector<std::vector<std::uint8_t>> vanilla_proofs;
  std::uint64_t sector_number = 0;
  std::uint64_t miner_id = 0;
  std::vector<std::uint8_t> randomness;
  std::uint32_t partition_index = 0;
  std::vector<std::uint8_t> comm_r_old, comm_r_new, comm_d_new;
};

/// One partition's path through the pipeline: (stage, milliseconds) in
/// pipeline order, microsecond resolution. The engine's own stages and waits
/// come first: prep_wait (SRS lease + memory reservation), synthesis,
/// gpu_queue_space_wait (synthesized, waiting for room in the GPU queue),
/// gpu_queue_wait (queued until a device worker takes it), prepare (the
/// backend's device-free work on the witness, only where it has some: the
/// CUDA backend codes it), lock_wait (the
/// device's kernel lock), gpu (the backend's prove_start), finalize_queue_wait,
/// finalize (finalize + verification + encoding); then the backend's own
/// stages of prove_start as "backend.<name>" (CPU: spmv, ntt_h, msm_a, ...;
/// CUDA: upload, spmv, ntt, msm_h, ...). Names may grow; readers must not
/// assume a fixed set.
struct partition_timing {
  std::uint32_t partition = 0;
  std::vector<std::pair<std::string, double>> stages;
  /// Host-to-device bytes the backend moved for the partition (witness and
  /// streamed queries; 0 on the CPU). Not on the wire (the protocol has no
  /// field for it): the GPU_END timeline line and the engine's callers.
  std::uint64_t h2d_bytes = 0;
};

/// AwaitProofResponse timings in milliseconds (sums over partitions).
struct proof_timings {
  std::uint64_t queue_wait_ms = 0;
  std::uint64_t srs_load_ms = 0;
  std::uint64_t synthesis_ms = 0;
  std::uint64_t gpu_compute_ms = 0;
  std::uint64_t total_ms = 0;
  std::vector<partition_timing> partitions;  ///< per partition, in partition order
};

/// What AwaitProof returns.
struct job_result {
  std::string job_id;
  await_status status = await_status::unknown;
  std::vector<std::uint8_t> proof;
  std::string error_message;
  proof_timings timings;
};

/// A request the engine refuses to queue (bad kind, size, bytes, ...).
class invalid_request : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A well-formed request for something this build cannot prove yet.
class unsupported_request : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A proof submitted after shutdown began: UNAVAILABLE (the client may try
/// another daemon or retry after the restart).
class shutting_down_error : public std::runtime_error {
 public:
  shutting_down_error() : std::runtime_error("the engine is shutting down and accepts no new proofs") {}
};

/// Unknown job or circuit id.
class not_found_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A reservation that can never fit in the memory budget.
class budget_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A request_id that names a live job of another request (another proof
/// kind or another payload): ALREADY_EXISTS. Idempotency means "the same
/// request again", never "the same id".
class already_exists_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A known circuit whose parameter file is missing or unreadable at submit:
/// FAILED_PRECONDITION, naming the file by its published name.
class missing_parameters_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown by cancel_token::check in a cancelled job.
class cancelled_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cuzk::engine
