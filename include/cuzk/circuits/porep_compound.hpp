// SPDX-License-Identifier: Apache-2.0
#pragma once
// PoRep C2 as a whole (rust-fil-proofs StackedCompound + filecoin-proofs
// seal_commit_phase2 / verify_seal): from a C1 output to partition proofs and
// back to a yes/no, on top of the partition circuit (stacked_porep.hpp), its
// fast witness (stacked_porep_witness.hpp; or its coded form without the
// plain one, stacked_porep_coded.hpp) and the verifier-side public
// inputs derived from the graph (porep_challenges.hpp).
//
// The verifier never trusts the C1's vanilla proofs for public inputs: the
// challenges and parents are re-derived from (registered proof, replica_id,
// comm_d, comm_r, seed, partition), as verify_seal does, so a proof made for
// another C1 is rejected.
//
// Costs: the shape of a partition circuit is built once per registered
// proof size (2 KiB: ~2.4 M constraints, seconds; 32 GiB: 130 M constraints,
// tens of GiB: the engine caches it); a witness costs about a core-second at
// 32 GiB; public inputs ~10 us per challenge (graph parents).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/groth16/keys.hpp>
#include <cuzk/groth16/proof.hpp>
#include <cuzk/groth16/prover.hpp>
#include <cuzk/groth16/verifier.hpp>
#include <cuzk/io/porep_c1.hpp>
#include <cuzk/r1cs/shape.hpp>

namespace cuzk::circuits {

struct stacked_porep_circuit;  // stacked_porep.hpp

/// The published parameter file stem of the PoRep circuit of |sector_size|
/// ("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-
/// sha256_hasher-<hex>", without .params / .vk; one per size, shared by
/// every api version). Throws std::invalid_argument for other sizes.
std::string porep_param_file_stem(std::uint64_t sector_size);

/// The Groth16 shape (A, B, C and densities, input constraints appended) of
/// one partition circuit of |info|.
r1cs::r1cs_shape porep_shape(const io::seal_proof_info& info);

/// The revision of the StackedDrg PoRep circuit's constraints (stacked_porep.hpp,
/// this file and the gadgets they use), the key of its cached shape file
/// (io/shape_cache.hpp; engine::circuit_info::shape_version): bump it with
/// any change of the constraints, so that no stale .shape file is read.
inline constexpr std::uint32_t porep_shape_version = 1;

/// Checks that |c1| has the partition / challenge counts of its registered
/// proof; throws std::invalid_argument naming the problem.
void check_porep_c1_counts(const io::c1_output& c1);

/// The witness of partition |k| (inputs[0] = ONE), |threads| = 0: all cores.
/// Throws std::invalid_argument when the vanilla proofs do not fit the circuit.
/// |reuse|: vectors of an earlier witness; when they have exactly this
/// circuit's sizes the witness is written into them as they are (no
/// allocation, no zero fill). That is safe because the fast witness writes
/// every slot: the globals and each challenge fill their slices front to
/// back and are checked to end exactly at the layout's sizes
/// (stacked_porep_witness_into). Other sizes: fresh vectors.
groth16::witness porep_witness(const io::c1_output& c1, std::size_t k, unsigned threads = 0,
                               groth16::witness reuse = {});

/// Partition |k| of |c1| as its circuit: the vanilla proofs converted to
/// circuit paths and checked to fit (stacked_porep_circuit_from_c1 with the
/// C1's registered proof). Throws std::invalid_argument. A caller that
/// checks a C1 once and proves it later keeps these and hands them to the
/// porep_witness below, so each partition is converted once (32 GiB: about
/// 1 MB per partition, as much as its vanilla proofs).
stacked_porep_circuit porep_partition_circuit(const io::c1_output& c1, std::size_t k);
/// porep_witness of a partition already converted by porep_partition_circuit.
groth16::witness porep_witness(const stacked_porep_circuit& circuit, unsigned threads = 0, groth16::witness reuse = {});

/// The coded witness (groth16/coded_witness.hpp) of a partition, synthesized
/// straight into the coded form (stacked_porep_coded.hpp): equal to
/// encode_witness of porep_witness, without the plain assignment (32 GiB:
/// 0.18 GiB peak instead of 4.2 GB). nullopt when more than |max_others|
/// values are other than 0 and 1; |threads| = 0: all cores.
std::optional<groth16::coded_witness> porep_coded_witness(const stacked_porep_circuit& circuit, std::size_t max_others,
                                                          unsigned threads = 0);

/// The public inputs of partition |k| without ONE, derived as the verifier
/// does (graph and challenge derivation, not the vanilla proofs).
std::vector<ff::fr> porep_public_inputs(const io::c1_output& c1, std::size_t k);

/// One proof per partition, fresh randomizers from the system's entropy.
std::vector<groth16::proof> prove_porep(const groth16::parameters& params, const r1cs::r1cs_shape& shape,
                                        const io::c1_output& c1, unsigned threads = 0);

/// True when there is one proof per partition of |c1|'s registered proof
/// and each verifies against the public inputs derived from |c1|.
bool verify_porep(const groth16::prepared_verifying_key& pvk, const io::c1_output& c1,
                  std::span<const groth16::proof> proofs);

}  // namespace cuzk::circuits
