// SPDX-License-Identifier: Apache-2.0
#pragma once
// The per-proof-kind plug-in interface of the engine.
//
// A proof_kind_handler turns a proof_request into a circuit_job (parse and
// validate everything up front, so bad requests fail at submit with
// invalid_request) and declares the circuits it proves (circuit_info: the
// circuit id the SRS manager keys on, the published parameter file stem,
// a factory for the blank circuit's shape and that shape's version). A
// circuit_job knows its circuit id, its number of partitions, how to
// synthesize the witness of one partition against the cached shape, and the
// public inputs a verifier checks that partition's proof against.
//
// Adding a kind = one handler class plus one engine::register_kind() call;
// nothing else in the engine changes. Kinds without a registered handler are
// refused with unsupported_request (UNIMPLEMENTED).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cuzk/engine/cancel_token.hpp>
#include <cuzk/engine/types.hpp>
#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/groth16/prover.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::engine {

/// One circuit the engine can prove.
struct circuit_info {
  std::string id;         ///< "winning-2k", "wpost-32g", "porep-32g", ...
  std::string file_stem;  ///< "v28-proof-of-spacetime-fallback-...-<sha256>" (+ .params / .vk)
  std::uint64_t sector_size = 0;
  /// Builds the Groth16 shape of the blank circuit (cached by the engine).
  std::function<r1cs::r1cs_shape()> make_shape;
  /// The revision of the constraints make_shape produces, the key of the
  /// shape cached on disk (<param_cache>/<file_stem>.shape, io/shape_cache.hpp)
  /// beside the circuit id. RULE: bump it in the same commit as any change
  /// of the circuit code that changes its constraints, variables or their
  /// order (gadgets included), or daemons keep proving with the old shape
  /// read from their cache (proofs that fail verification). The constants
  /// sit next to the kinds (src/engine/porep_kind.cpp, post_kinds.cpp,
  /// snap_kind.cpp). 0: never cached on disk (built at every load; test kinds).
  std::uint32_t shape_version = 0;
};

/// A parsed, validated request.
class circuit_job {
 public:
  virtual ~circuit_job() = default;
  virtual const std::string& circuit_id() const = 0;
  virtual std::size_t num_partitions() const = 0;
  /// The witness of partition |p| (inputs[0] = ONE). Checks |token| between
  /// steps; may throw cancelled_error or std::exception. |reuse| is empty or
  /// holds the vectors of an earlier witness of the same shape (the
  /// engine's witness pool): a kind may build its witness in them, saving
  /// the allocation and the first touch of every page (~4 GiB for a 32 GiB
  /// PoRep partition), and then must write every slot of what it returns,
  /// because |reuse| still holds another partition's values.
  virtual groth16::witness synthesize(std::size_t p, const r1cs::r1cs_shape& shape, const cancel_token& token,
                                      groth16::witness reuse) const = 0;
  /// Whether this job's witnesses can be written straight into the coded
  /// form (synthesize_coded). The engine asks for that form when its
  /// backend proves from it alone (prover_backend::coded_witness_max_others):
  /// the whole witness then never exists (a 32 GiB PoRep partition holds
  /// ~90 MB through synthesis instead of 4.2 GB).
  virtual bool synthesizes_coded() const { return false; }
  /// The witness of partition |p| in the coded form (groth16/coded_witness.hpp:
  /// inputs with ONE first, then aux, the values synthesize would return),
  /// or nullopt when more than |max_others| of its values are other than 0
  /// and 1 (the engine then calls synthesize). Checks |token| as
  /// synthesize does. Only called when synthesizes_coded().
  virtual std::optional<groth16::coded_witness> synthesize_coded(std::size_t p, const r1cs::r1cs_shape& shape,
                                                                 const cancel_token& token,
                                                                 std::size_t max_others) const {
    (void)p, (void)shape, (void)token, (void)max_others;
    throw std::logic_error("circuit_job: this kind does not synthesize coded witnesses");
  }
  /// The public inputs of partition |p| without ONE, as a verifier derives them.
  virtual std::vector<ff::fr> public_inputs(std::size_t p) const = 0;
  /// The vanilla verifier's checks, natively (paths against the request's
  /// commitments, labels, encodings), run by the engine at submit unless
  /// engine_config::check_vanilla_proofs is off. Throws invalid_request
  /// naming the partition, challenge and what did not match. Kinds whose
  /// request carries no vanilla proof (test circuits) keep the default.
  virtual void check_vanilla() const {}
};

class proof_kind_handler {
 public:
  virtual ~proof_kind_handler() = default;
  virtual proof_kind kind() const = 0;
  /// The priority when the request says PRIORITY_UNSPECIFIED.
  virtual priority default_priority() const = 0;
  /// Circuits this kind proves (registered with the SRS manager).
  virtual std::vector<circuit_info> circuits() const = 0;
  /// Parses and validates; throws invalid_request naming the problem.
  virtual std::unique_ptr<circuit_job> parse(const proof_request& req) const = 0;
};

/// WinningPoSt (CRITICAL) and WindowPoSt (HIGH) at every published sector size.
std::unique_ptr<proof_kind_handler> make_winning_post_kind();
std::unique_ptr<proof_kind_handler> make_window_post_kind();
/// PoRep C2 (NORMAL): vanilla_proof = the C1 output JSON (src/engine/porep_kind.cpp).
std::unique_ptr<proof_kind_handler> make_porep_kind();
/// SnapDeals (NORMAL): vanilla_proofs = one bincode PartitionProof per
/// partition, comm_r_old / comm_r_new / comm_d_new raw (src/engine/snap_kind.cpp).
std::unique_ptr<proof_kind_handler> make_snap_kind();

/// "2k", "8m", "512m", "32g", "64g" (the circuit id suffix of a sector size).
std::string sector_size_tag(std::uint64_t sector_size);
/// The PoRep circuit id of a sector size ("porep-32g"): the SRS manager's
/// key, PreloadSRS's argument and the key of its shape cache file.
std::string porep_circuit_id(std::uint64_t sector_size);

/// The published parameter file stem of a FallbackPoSt circuit:
/// "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-<b>-<s>-<t>-"
/// + hex(SHA-256 of "FallbackPoSt::PublicParams{sector_size: N,
/// challenge_count: C, sector_count: S}"), as rust-fil-proofs names them.
std::string post_param_file_stem(std::uint64_t sector_size, std::size_t challenge_count, std::size_t sector_count);

}  // namespace cuzk::engine
