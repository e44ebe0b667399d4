// SPDX-License-Identifier: Apache-2.0
// The SnapDeals proof kind (SNAP_DEALS_UPDATE): vanilla_proofs holds one
// bincode PartitionProof per partition (in order), comm_r_old, comm_r_new
// and comm_d_new are the raw 32-byte commitments, registered_proof is the
// RegisteredUpdateProof (0..4 = 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB; a
// non-zero sector_size must agree with it). h = h_default, as filecoin-proofs'
// SectorUpdateConfig. Parsing checks everything up front, so a bad request
// fails at submit with INVALID_ARGUMENT naming the partition and field:
// commitment sizes and canonical encodings, the partition count, the bincode
// (io::read_snap_partition_proof) and that every partition's openings fit
// the circuit. The vanilla proofs are verified natively at submit
// (check_vanilla, unless pipeline.check_vanilla_proofs is off; the reference
// does not), so a wrong one is refused before any partition is proved.
// Circuit ids "snap-<size>" ("snap-32g", as the reference), parameter files
// by the published names (circuits/empty_sector_update_compound.hpp).
// Synthesis is the circuit's witness; public inputs come from the
// commitments and the partition index only.
// Cost at parse: the bincode (~230 KB per 32 GiB partition) and one circuit
// conversion per partition (copies of the paths), milliseconds.
#include <string>

#include <tbb/parallel_for.h>

#include <cuzk/circuits/empty_sector_update_compound.hpp>
#include <cuzk/circuits/empty_sector_update_generator.hpp>
#include <cuzk/engine/proof_kind.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/snap_vanilla.hpp>
#include <cuzk/r1cs/synthesize.hpp>
#include <cuzk/r1cs/witness_cs.hpp>

namespace cuzk::engine {
namespace {

constexpr std::uint64_t snap_sizes[] = {2ull << 10, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};

// The revision of the EmptySectorUpdate circuit's constraints (circuits/
// empty_sector_update.hpp and its gadgets), the key of its cached shape:
// bump it with any change of the constraints (see
// circuit_info::shape_version).
constexpr std::uint32_t snap_shape_version = 1;

class snap_job final : public circuit_job {
 public:
  snap_job(std::string id, circuits::snap_params params, circuits::snap_public pub,
           std::vector<circuits::snap_circuit> circuits, std::vector<io::snap_partition_proof> proofs)
      : _id(std::move(id)), _params(params), _pub(pub), _circuits(std::move(circuits)), _proofs(std::move(proofs)) {}
  const std::string& circuit_id() const override { return _id; }
  std::size_t num_partitions() const override { return _circuits.size(); }
  // circuits::snap_witness, sized by the shape and appended into |reuse|'s
  // storage (witness_cs clears it, so every slot returned is written)
  groth16::witness synthesize(std::size_t p, const r1cs::r1cs_shape& shape, const cancel_token& token,
                              groth16::witness reuse) const override {
    token.check();
    auto [inputs, aux] = r1cs::make_witness(_circuits.at(p), shape.num_inputs, shape.num_aux,
                                            r1cs::witness_cs(std::move(reuse.inputs), std::move(reuse.aux)))
                             .take();
    groth16::witness w{std::move(inputs), std::move(aux)};
    if (w.inputs.size() != shape.num_inputs || w.aux.size() != shape.num_aux)
      throw std::runtime_error("snap: witness of partition " + std::to_string(p) + " does not match the shape of " +
                               _id);
    token.check();
    return w;
  }
  // the same values straight into the coded form (circuits::snap_coded_witness)
  bool synthesizes_coded() const override { return true; }
  std::optional<groth16::coded_witness> synthesize_coded(std::size_t p, const r1cs::r1cs_shape& shape,
                                                         const cancel_token& token,
                                                         std::size_t max_others) const override {
    token.check();
    std::optional<groth16::coded_witness> cw =
        circuits::snap_coded_witness(_circuits.at(p), shape.num_inputs, shape.num_aux, max_others);
    token.check();
    return cw;
  }
  std::vector<ff::fr> public_inputs(std::size_t p) const override {
    return circuits::snap_public_inputs(_params, _pub, p);
  }
  // EmptySectorUpdate::verify natively (circuits::check_snap_partition):
  // openings against comm_r_old / comm_d_new / comm_r_new, the encoding
  // new = old + data * rho, the apex leaves and partition path.
  void check_vanilla() const override {
    // partitions are independent: checked in parallel, reported in order
    std::vector<std::vector<std::string>> per_part(_proofs.size());
    tbb::parallel_for(std::size_t(0), _proofs.size(), [&](std::size_t k) {
      per_part[k] = circuits::check_snap_partition(_params, _pub, k, _proofs[k]);
    });
    std::vector<std::string> problems;
    for (auto& v : per_part)
      for (std::string& p : v) problems.push_back(std::move(p));
    if (problems.empty()) return;
    std::string msg = "vanilla proof check failed: " + problems[0];
    if (problems.size() > 1) msg += " (and " + std::to_string(problems.size() - 1) + " more)";
    throw invalid_request(msg);
  }

 private:
  std::string _id;
  circuits::snap_params _params;
  circuits::snap_public _pub;
  std::vector<circuits::snap_circuit> _circuits;
  std::vector<io::snap_partition_proof> _proofs;  // for check_vanilla
};

ff::fr commitment(const std::vector<std::uint8_t>& b, const char* name) {
  if (b.size() != 32)
    throw invalid_request(std::string(name) + " has " + std::to_string(b.size()) + " bytes, a commitment has 32");
  const std::optional<ff::fr> x = ff::fr::from_bytes_le(b.data());
  if (!x) throw invalid_request(std::string(name) + " is not a canonical field element");
  return *x;
}

class snap_kind final : public proof_kind_handler {
 public:
  proof_kind kind() const override { return proof_kind::snap_deals_update; }
  priority default_priority() const override { return priority::normal; }
  std::vector<circuit_info> circuits() const override {
    std::vector<circuit_info> v;
    for (std::uint64_t s : snap_sizes)
      v.push_back({"snap-" + sector_size_tag(s), circuits::snap_param_file_stem(s), s,
                   [s] { return circuits::snap_shape(circuits::snap_params_for(s)); }, snap_shape_version});
    return v;
  }
  std::unique_ptr<circuit_job> parse(const proof_request& req) const override {
    std::uint64_t size = 0;
    try {
      size = circuits::snap_sector_size_for_registered_proof(req.registered_proof);
    } catch (const std::invalid_argument& e) {
      throw invalid_request(e.what());
    }
    if (req.sector_size != 0 && req.sector_size != size)
      throw invalid_request("sector_size " + std::to_string(req.sector_size) +
                            " does not match registered update proof " + std::to_string(req.registered_proof) +
                            " (sector size " + std::to_string(size) + ")");
    const circuits::snap_params params = circuits::snap_params_for(size);
    circuits::snap_public pub;
    pub.comm_r_old = commitment(req.comm_r_old, "comm_r_old");
    pub.comm_r_new = commitment(req.comm_r_new, "comm_r_new");
    pub.comm_d_new = commitment(req.comm_d_new, "comm_d_new");
    pub.h = params.h_default();
    if (req.vanilla_proofs.size() != params.partition_count)
      throw invalid_request("vanilla_proofs holds " + std::to_string(req.vanilla_proofs.size()) +
                            " partition proofs, a " + sector_size_tag(size) + " update has " +
                            std::to_string(params.partition_count));
    std::vector<circuits::snap_circuit> parts;
    std::vector<io::snap_partition_proof> proofs;
    parts.reserve(params.partition_count);
    proofs.reserve(params.partition_count);
    for (std::size_t k = 0; k < req.vanilla_proofs.size(); ++k) {
      const std::string label = "vanilla_proofs[" + std::to_string(k) + "]";
      try {
        io::snap_partition_proof proof = io::read_snap_partition_proof(req.vanilla_proofs[k], label);
        parts.push_back(circuits::snap_circuit_from_partition(params, pub, k, proof));
        proofs.push_back(std::move(proof));
      } catch (const io::format_error& e) {
        throw invalid_request(e.what());
      } catch (const std::invalid_argument& e) {
        throw invalid_request(label + ": " + e.what());
      }
    }
    return std::make_unique<snap_job>("snap-" + sector_size_tag(size), params, pub, std::move(parts),
                                      std::move(proofs));
  }
};

}  // namespace

std::unique_ptr<proof_kind_handler> make_snap_kind() { return std::make_unique<snap_kind>(); }

}  // namespace cuzk::engine
