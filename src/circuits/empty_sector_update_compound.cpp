// SPDX-License-Identifier: Apache-2.0
// SnapDeals compound proving and verification (see empty_sector_update_compound.hpp).
#include <cuzk/circuits/empty_sector_update_compound.hpp>

#include <random>
#include <stdexcept>
#include <string>

#include <cuzk/circuits/sector_tree.hpp>
#include <cuzk/gadgets/native_sha256.hpp>
#include <cuzk/groth16/coded_block_cs.hpp>
#include <cuzk/io/hex.hpp>
#include <cuzk/r1cs/synthesize.hpp>

namespace cuzk::circuits {
namespace {

struct os_random {
  std::random_device dev;
  std::uint64_t operator()() { return (std::uint64_t(dev()) << 32) | dev(); }
};

}  // namespace

std::string snap_param_file_stem(std::uint64_t sector_size, snap_variant variant) {
  const snap_params p = snap_params_for(sector_size, variant);
  const std::string ident = "empty_sector_update::PublicParams{ sector_nodes: " + std::to_string(p.sector_nodes) + " }";
  const auto d = gadgets::native::sha256(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(ident.data()), ident.size()));
  const gadgets::merkle_tree_shape& t = p.tree_r_shape;
  return std::string("v28-empty-sector-update-") + (variant == snap_variant::poseidon ? "poseidon-" : "") +
         "merkletree-poseidon_hasher-" + std::to_string(t.base_arity) + "-" + std::to_string(t.sub_arity) + "-" +
         std::to_string(t.top_arity) + "-" + io::to_hex(d);
}

std::uint64_t snap_sector_size_for_registered_proof(std::uint64_t id) {
  constexpr std::uint64_t sizes[] = {2ull << 10, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
  if (id >= std::size(sizes))
    throw std::invalid_argument("snap: registered update proof " + std::to_string(id) +
                                " is unknown (0..4: 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB)");
  return sizes[id];
}

r1cs::r1cs_shape snap_shape(const snap_params& params) { return r1cs::make_shape(blank_snap_circuit(params)); }

snap_circuit snap_circuit_from_partition(const snap_params& params, const snap_public& pub, std::size_t k,
                                         const io::snap_partition_proof& proof) {
  const std::string at = "snap: partition " + std::to_string(k) + ": ";
  if (k >= params.partition_count)
    throw std::invalid_argument(at + "beyond the partition count " + std::to_string(params.partition_count));
  if (proof.challenge_proofs.size() != params.challenge_count)
    throw std::invalid_argument(at + std::to_string(proof.challenge_proofs.size()) + " challenge proofs, " +
                                std::to_string(params.sector_size()) + "-byte sectors need " +
                                std::to_string(params.challenge_count));
  if (proof.apex_leafs.size() != params.apex_leaf_count)
    throw std::invalid_argument(at + std::to_string(proof.apex_leafs.size()) + " apex leaves, expected " +
                                std::to_string(params.apex_leaf_count));
  snap_circuit c;
  c.params = params;
  c.k_and_h_select = ff::fr::from_uint(snap_k_and_h_select(params, k, pub.h));
  c.comm_r_old = pub.comm_r_old;
  c.comm_d_new = pub.comm_d_new;
  c.comm_r_new = pub.comm_r_new;
  c.comm_c = proof.comm_c;
  c.root_r_old = proof.challenge_proofs[0].proof_r_old.root;
  c.root_r_new = proof.challenge_proofs[0].proof_r_new.root;
  c.apex_leafs = proof.apex_leafs;
  const gadgets::merkle_tree_shape d_shape = params.tree_d_shape();
  for (std::size_t i = 0; i < proof.challenge_proofs.size(); ++i) {
    const io::snap_challenge_proof& cp = proof.challenge_proofs[i];
    const auto path = [&](const char* name, const gadgets::merkle_tree_shape& shape, const io::merkle_proof& mp) {
      try {
        return merkle_path_from_proof(shape, mp);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(at + "challenge " + std::to_string(i) + ": " + name + ": " + e.what());
      }
    };
    snap_challenge_witness w;
    w.leaf_r_old = cp.proof_r_old.leaf;
    w.leaf_d_new = cp.proof_d_new.leaf;
    w.leaf_r_new = cp.proof_r_new.leaf;
    w.path_r_old = path("proof_r_old", params.tree_r_shape, cp.proof_r_old);
    w.path_d_new = path("proof_d_new", d_shape, cp.proof_d_new);
    w.path_r_new = path("proof_r_new", params.tree_r_shape, cp.proof_r_new);
    c.proofs.push_back(std::move(w));
  }
  try {
    c.check();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(at + e.what());
  }
  return c;
}

std::vector<ff::fr> snap_public_inputs(const snap_params& params, const snap_public& pub, std::size_t k) {
  return {ff::fr::from_uint(snap_k_and_h_select(params, k, pub.h)), pub.comm_r_old, pub.comm_d_new, pub.comm_r_new};
}

groth16::witness snap_witness(const snap_circuit& circuit) {
  auto [inputs, aux] = r1cs::make_witness(circuit).take();
  return {std::move(inputs), std::move(aux)};
}

std::optional<groth16::coded_witness> snap_coded_witness(const snap_circuit& circuit, std::size_t num_inputs,
                                                         std::size_t num_aux, std::size_t max_others) {
  return groth16::make_coded_witness(circuit, num_inputs, num_aux, max_others);
}

std::vector<groth16::proof> prove_snap(const groth16::parameters& params, const r1cs::r1cs_shape& shape,
                                       const snap_params& sp, const snap_public& pub,
                                       std::span<const io::snap_partition_proof> partitions) {
  if (partitions.size() != sp.partition_count)
    throw std::invalid_argument("snap: " + std::to_string(partitions.size()) + " partition proofs, " +
                                std::to_string(sp.sector_size()) + "-byte sectors need " +
                                std::to_string(sp.partition_count));
  os_random rng;
  std::vector<groth16::proof> proofs;
  proofs.reserve(partitions.size());
  for (std::size_t k = 0; k < partitions.size(); ++k) {
    const groth16::witness w = snap_witness(snap_circuit_from_partition(sp, pub, k, partitions[k]));
    const ff::fr r = ff::fr::random(rng);
    const ff::fr s = ff::fr::random(rng);
    proofs.push_back(groth16::prove(params, shape, w, r, s));
  }
  return proofs;
}

bool verify_snap(const groth16::prepared_verifying_key& pvk, const snap_params& sp, const snap_public& pub,
                 std::span<const groth16::proof> proofs) {
  if (proofs.size() != sp.partition_count) return false;
  for (std::size_t k = 0; k < proofs.size(); ++k) {
    const std::vector<ff::fr> inputs = snap_public_inputs(sp, pub, k);
    if (inputs.size() + 1 != pvk.ic.size()) return false;
    if (!groth16::verify(pvk, proofs[k], inputs)) return false;
  }
  return true;
}

}  // namespace cuzk::circuits
