// SPDX-License-Identifier: Apache-2.0
#pragma once
// SnapDeals as a whole (storage-proofs-update compound.rs
// EmptySectorUpdateCompound + filecoin-proofs api/update.rs
// generate_empty_sector_update_proof_with_vanilla /
// verify_empty_sector_update_proof): vanilla partition proofs and the three
// commitments in, one 192-byte Groth16 proof per partition out, and back to
// a yes/no.
//
// Public inputs are computed from (comm_r_old, comm_d_new, comm_r_new, h, k)
// alone, as the verifier does; the vanilla proofs only feed the witness.
// The registered update proofs map 0..4 to 2 KiB, 8 MiB, 512 MiB, 32 GiB,
// 64 GiB (rust-filecoin-proofs-api RegisteredUpdateProof, all V1 / api
// 1.1.0); h = h_default (filecoin-proofs SectorUpdateConfig).
// Parameter files: "v28-empty-sector-update-merkletree-poseidon_hasher-
// <b>-<s>-<t>-<sha256 hex of "empty_sector_update::PublicParams{ sector_nodes: N }">"
// (the Poseidon variant: "v28-empty-sector-update-poseidon-merkletree-...",
// same hash), as in parameters.json.
//
// Costs (shared 2-core dev host, Release, loaded): 2 KiB (1.7 M
// constraints): shape 7-8 s, seeded setup 160 s CPU (11 min wall under
// load), one partition proof 41 s CPU (~100 s wall); 8 MiB partitions have
// 10 M constraints (~6x). A witness costs the native hashes (SHA-256
// dominates: ~440 compressions per 8 MiB partition).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <cuzk/circuits/empty_sector_update.hpp>
#include <cuzk/circuits/empty_sector_update_generator.hpp>
#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/proof.hpp>
#include <cuzk/groth16/prover.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/snap_vanilla.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::circuits {

/// The published parameter file stem of the update circuit of |sector_size|
/// (without .params / .vk); throws std::invalid_argument for sizes that are not allowed.
std::string snap_param_file_stem(std::uint64_t sector_size, snap_variant variant = snap_variant::sha256);

/// RegisteredUpdateProof |id| (0..4) -> sector size; throws std::invalid_argument otherwise.
std::uint64_t snap_sector_size_for_registered_proof(std::uint64_t id);

/// The Groth16 shape of one partition circuit.
r1cs::r1cs_shape snap_shape(const snap_params& params);

/// compound.rs circuit(): the partition circuit of vanilla proof |proof| for
/// partition |k| (tree R roots from the first challenge's openings; paths
/// must fit the shapes). Throws std::invalid_argument naming the problem.
snap_circuit snap_circuit_from_partition(const snap_params& params, const snap_public& pub, std::size_t k,
                                         const io::snap_partition_proof& proof);

/// compound.rs generate_public_inputs (ONE excluded): k_and_h_select,
/// comm_r_old, comm_d_new, comm_r_new.
std::vector<ff::fr> snap_public_inputs(const snap_params& params, const snap_public& pub, std::size_t k);

/// The witness of a partition circuit (inputs[0] = ONE).
groth16::witness snap_witness(const snap_circuit& circuit);
/// The same witness in the coded form (groth16/coded_witness.hpp), never
/// written out whole: |num_inputs| and |num_aux| are the shape's counts
/// (std::logic_error when the circuit has others); nullopt when more than
/// |max_others| values are other than 0 and 1 (a generated 8 MiB partition
/// has 0.7% of them, a 2 KiB one 1.5%; the GPU prover takes up to 3.1%).
std::optional<groth16::coded_witness> snap_coded_witness(const snap_circuit& circuit, std::size_t num_inputs,
                                                         std::size_t num_aux, std::size_t max_others);

/// One proof per partition, fresh randomizers from the system's entropy.
/// Throws std::invalid_argument when the vanilla proofs do not fit.
std::vector<groth16::proof> prove_snap(const groth16::parameters& params, const r1cs::r1cs_shape& shape,
                                       const snap_params& sp, const snap_public& pub,
                                       std::span<const io::snap_partition_proof> partitions);

/// True when there is one proof per partition and each verifies.
bool verify_snap(const groth16::prepared_verifying_key& pvk, const snap_params& sp, const snap_public& pub,
                 std::span<const groth16::proof> proofs);

}  // namespace cuzk::circuits
