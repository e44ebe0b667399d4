// SPDX-License-Identifier: Apache-2.0
#include <cuzk/circuits/porep_compound.hpp>

#include <random>
#include <stdexcept>
#include <string>

#include <cuzk/circuits/porep_challenges.hpp>
#include <cuzk/circuits/stacked_porep.hpp>
#include <cuzk/circuits/stacked_porep_coded.hpp>
#include <cuzk/circuits/stacked_porep_witness.hpp>
#include <cuzk/r1cs/synthesize.hpp>

namespace cuzk::circuits {
namespace {

// The stems of the published PoRep parameters (filecoin-proofs
// parameters.json, v28): the suffix is rust-fil-proofs' cache identifier
// hash of the circuit's public parameters, one per sector size.
struct porep_stem {
  std::uint64_t sector_size;
  const char* shape;
  const char* hash;
};
constexpr porep_stem porep_stems[] = {
    {std::uint64_t(2) << 10, "8-0-0", "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f"},
    {std::uint64_t(8) << 20, "8-0-0", "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb"},
    {std::uint64_t(512) << 20, "8-0-0", "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472"},
    {std::uint64_t(32) << 30, "8-8-0", "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
    {std::uint64_t(64) << 30, "8-8-2", "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2"},
};

// Randomizers for production proofs come from the OS.
struct os_random {
  std::random_device dev;
  std::uint64_t operator()() { return (std::uint64_t(dev()) << 32) | dev(); }
};

const io::seal_proof_info& info_of(const io::c1_output& c1) {
  if (c1.proof == nullptr) throw std::invalid_argument("porep: the C1 output names no registered proof");
  return *c1.proof;
}

}  // namespace

std::string porep_param_file_stem(std::uint64_t sector_size) {
  for (const porep_stem& s : porep_stems)
    if (s.sector_size == sector_size)
      return std::string("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-") + s.shape + "-sha256_hasher-" +
             s.hash;
  throw std::invalid_argument("porep: no published parameters for sector size " + std::to_string(sector_size));
}

r1cs::r1cs_shape porep_shape(const io::seal_proof_info& info) {
  return r1cs::make_shape(blank_stacked_porep_circuit(stacked_porep_params_for(info)));
}

void check_porep_c1_counts(const io::c1_output& c1) {
  const io::seal_proof_info& info = info_of(c1);
  if (c1.partitions.size() != info.partitions)
    throw std::invalid_argument("porep: " + std::string(info.name) + " has " + std::to_string(info.partitions) +
                                " partitions but the C1 output has " + std::to_string(c1.partitions.size()));
  for (std::size_t k = 0; k < c1.partitions.size(); ++k)
    if (c1.partitions[k].size() != info.challenges_per_partition)
      throw std::invalid_argument("porep: partition " + std::to_string(k) + " has " +
                                  std::to_string(c1.partitions[k].size()) + " challenges, " + std::string(info.name) +
                                  " needs " + std::to_string(info.challenges_per_partition));
}

stacked_porep_circuit porep_partition_circuit(const io::c1_output& c1, std::size_t k) {
  return stacked_porep_circuit_from_c1(stacked_porep_params_for(info_of(c1)), c1, k);
}

groth16::witness porep_witness(const io::c1_output& c1, std::size_t k, unsigned threads, groth16::witness reuse) {
  return porep_witness(porep_partition_circuit(c1, k), threads, std::move(reuse));
}

groth16::witness porep_witness(const stacked_porep_circuit& circuit, unsigned threads, groth16::witness reuse) {
  const stacked_witness_layout layout = stacked_witness_layout_for(circuit.params);
  if (reuse.inputs.size() != layout.num_inputs() || reuse.aux.size() != layout.num_aux()) {
    reuse.inputs = std::vector<ff::fr>(layout.num_inputs());
    reuse.aux = std::vector<ff::fr>(layout.num_aux());
  }
  stacked_porep_witness_into(circuit, layout, reuse.inputs, reuse.aux, threads);
  return reuse;
}

std::optional<groth16::coded_witness> porep_coded_witness(const stacked_porep_circuit& circuit, std::size_t max_others,
                                                          unsigned threads) {
  return stacked_porep_coded_witness(circuit, stacked_witness_layout_for(circuit.params), max_others, threads);
}

std::vector<ff::fr> porep_public_inputs(const io::c1_output& c1, std::size_t k) {
  const io::seal_proof_info& info = info_of(c1);
  if (k >= info.partitions)
    throw std::invalid_argument("porep: partition " + std::to_string(k) + " of " + std::to_string(info.partitions));
  return stacked_porep_public_inputs(
      derive_porep_partition_inputs(info, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, static_cast<std::uint32_t>(k)));
}

std::vector<groth16::proof> prove_porep(const groth16::parameters& params, const r1cs::r1cs_shape& shape,
                                        const io::c1_output& c1, unsigned threads) {
  check_porep_c1_counts(c1);
  os_random rng;
  std::vector<groth16::proof> proofs;
  proofs.reserve(c1.partitions.size());
  for (std::size_t k = 0; k < c1.partitions.size(); ++k) {
    const groth16::witness w = porep_witness(c1, k, threads);
    const ff::fr r = ff::fr::random(rng);
    const ff::fr s = ff::fr::random(rng);
    proofs.push_back(groth16::prove(params, shape, w, r, s));
  }
  return proofs;
}

bool verify_porep(const groth16::prepared_verifying_key& pvk, const io::c1_output& c1,
                  std::span<const groth16::proof> proofs) {
  const io::seal_proof_info& info = info_of(c1);
  if (proofs.size() != info.partitions) return false;
  for (std::size_t k = 0; k < proofs.size(); ++k) {
    const std::vector<ff::fr> inputs = porep_public_inputs(c1, k);
    if (inputs.size() + 1 != pvk.ic.size()) return false;
    if (!groth16::verify(pvk, proofs[k], inputs)) return false;
  }
  return true;
}

}  // namespace cuzk::circuits
