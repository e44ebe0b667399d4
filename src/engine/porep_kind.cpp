// SPDX-License-Identifier: Apache-2.0
// The PoRep C2 proof kind (POREP_SEAL_COMMIT): the request's vanilla_proof
// is the C1 output as Curio / lotus write it (SealCommitPhase1Output JSON,
// bare or in the {"SectorNum","Phase1Out","SectorSize"} wrapper). Parsing
// checks everything up front, so a bad C1 fails at submit with
// INVALID_ARGUMENT naming the JSON path or the partition / challenge: the
// JSON schema (io::parse_c1_json), the partition and challenge counts of the
// registered proof, and that every partition's vanilla proofs fit the
// circuit. The registered proof comes from the C1 (the request's
// registered_proof is ignored, as the reference does); a non-zero
// sector_size must agree with it.
// Synthesis is the circuit's parallel witness (circuits/porep_compound.hpp),
// written straight into the coded form when the backend proves from it;
// public inputs are derived from the C1's commitments and seed through the
// graph, as a verifier does, so the engine's verification of each partition
// proof is independent of the vanilla proofs.
// Cost at parse: the JSON (~0.25 s for a 32 GiB C1) and one circuit
// conversion per partition (copies of the paths, milliseconds), which is
// the check that the vanilla proofs fit the circuit and is kept for
// synthesis, so no partition is converted twice; the vanilla check at
// submit (check_vanilla, docs/RELIABILITY.md for the measured cost).
// Memory: the converted partitions are about the size of the parsed C1
// (32 GiB: ~1 MB per partition); like the request itself they are held
// only until the job finishes (job_retention.hpp) and are not charged to
// the budget, which charges the GiB-sized witnesses and parameters.
#include <string>
#include <utility>
#include <vector>

#include <cuzk/circuits/porep_challenges.hpp>
#include <cuzk/circuits/porep_compound.hpp>
#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/circuits/stacked_porep.hpp>
#include <cuzk/engine/proof_kind.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/porep_c1.hpp>

namespace cuzk::engine {
namespace {

constexpr std::uint64_t porep_sizes[] = {2ull << 10, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};

class porep_job final : public circuit_job {
 public:
  porep_job(std::string id, io::c1_output c1, std::vector<circuits::stacked_porep_circuit> partitions,
            std::uint64_t miner_id, std::uint64_t sector_number)
      : _id(std::move(id)),
        _c1(std::move(c1)),
        _partitions(std::move(partitions)),
        _miner_id(miner_id),
        _sector_number(sector_number) {}
  const std::string& circuit_id() const override { return _id; }
  std::size_t num_partitions() const override { return _c1.partitions.size(); }
  // |reuse| of the shape's sizes is written in place: porep_witness writes every slot
  groth16::witness synthesize(std::size_t p, const r1cs::r1cs_shape& shape, const cancel_token& token,
                              groth16::witness reuse) const override {
    token.check();
    groth16::witness w = circuits::porep_witness(_partitions.at(p), 0, std::move(reuse));
    if (w.inputs.size() != shape.num_inputs || w.aux.size() != shape.num_aux)
      throw std::runtime_error("porep: witness of partition " + std::to_string(p) + " does not match the shape of " +
                               _id);
    token.check();
    return w;
  }
  // the same values straight into the coded form, challenge by challenge
  // (circuits::porep_coded_witness): ~90 MB at 32 GiB instead of 4.2 GB
  bool synthesizes_coded() const override { return true; }
  std::optional<groth16::coded_witness> synthesize_coded(std::size_t p, const r1cs::r1cs_shape& shape,
                                                         const cancel_token& token,
                                                         std::size_t max_others) const override {
    token.check();
    std::optional<groth16::coded_witness> cw = circuits::porep_coded_witness(_partitions.at(p), max_others, 0);
    if (cw && cw->size != shape.num_variables())
      throw std::runtime_error("porep: coded witness of partition " + std::to_string(p) +
                               " does not match the shape of " + _id);
    token.check();
    return cw;
  }
  std::vector<ff::fr> public_inputs(std::size_t p) const override { return circuits::porep_public_inputs(_c1, p); }
  // The vanilla verifier's checks (circuits::check_porep_c1: challenges,
  // every Merkle path, column hash, label, encoding, comm_r) and, when the
  // request names the miner (miner_id != 0), that replica_id commits to
  // that miner, sector_number, the ticket and comm_d.
  void check_vanilla() const override {
    std::vector<std::string> problems;
    if (_miner_id != 0) {
      const io::bytes32 want = circuits::porep_replica_id(circuits::porep_prover_id(_miner_id), _sector_number,
                                                          _c1.ticket, _c1.comm_d, _c1.proof->porep_id());
      if (want != _c1.replica_id)
        problems.push_back("c1: replica_id is not the one of miner " + std::to_string(_miner_id) + " sector " +
                           std::to_string(_sector_number) + " with this ticket and comm_d");
    }
    for (std::string& p : circuits::check_porep_c1(_c1)) problems.push_back(std::move(p));
    if (problems.empty()) return;
    std::string msg = "vanilla proof check failed: " + problems[0];
    if (problems.size() > 1) msg += " (and " + std::to_string(problems.size() - 1) + " more)";
    throw invalid_request(msg);
  }

 private:
  std::string _id;
  io::c1_output _c1;  // the vanilla proofs for check_vanilla; commitments and seed for the public inputs
  std::vector<circuits::stacked_porep_circuit> _partitions;  // converted once, at parse
  std::uint64_t _miner_id = 0, _sector_number = 0;
};

class porep_kind final : public proof_kind_handler {
 public:
  proof_kind kind() const override { return proof_kind::porep_seal_commit; }
  priority default_priority() const override { return priority::normal; }
  std::vector<circuit_info> circuits() const override {
    std::vector<circuit_info> v;
    for (std::uint64_t s : porep_sizes) {
      const io::seal_proof_info* info = io::find_seal_proof_by_size(s);
      v.push_back({porep_circuit_id(s), circuits::porep_param_file_stem(s), s,
                   [info] { return circuits::porep_shape(*info); }, circuits::porep_shape_version});
    }
    return v;
  }
  std::unique_ptr<circuit_job> parse(const proof_request& req) const override {
    if (req.vanilla_proof.empty()) throw invalid_request("vanilla_proof is empty: a PoRep needs the C1 output JSON");
    io::c1_output c1;
    try {
      c1 = io::parse_c1_json(
          std::string_view(reinterpret_cast<const char*>(req.vanilla_proof.data()), req.vanilla_proof.size()),
          "vanilla_proof");
    } catch (const io::format_error& e) {
      throw invalid_request(e.what());
    }
    const io::seal_proof_info& info = *c1.proof;
    if (req.sector_size != 0 && req.sector_size != info.sector_size)
      throw invalid_request("sector_size " + std::to_string(req.sector_size) + " does not match the C1's " +
                            std::string(info.name) + " (sector size " + std::to_string(info.sector_size) + ")");
    std::vector<circuits::stacked_porep_circuit> partitions;
    try {
      circuits::check_porep_c1_counts(c1);
      partitions.reserve(c1.partitions.size());
      for (std::size_t k = 0; k < c1.partitions.size(); ++k)
        partitions.push_back(circuits::porep_partition_circuit(c1, k));
    } catch (const std::invalid_argument& e) {
      throw invalid_request(e.what());
    }
    return std::make_unique<porep_job>(porep_circuit_id(info.sector_size), std::move(c1), std::move(partitions),
                                       req.miner_id, req.sector_number);
  }
};

}  // namespace

std::string porep_circuit_id(std::uint64_t sector_size) { return "porep-" + sector_size_tag(sector_size); }

std::unique_ptr<proof_kind_handler> make_porep_kind() { return std::make_unique<porep_kind>(); }

}  // namespace cuzk::engine
