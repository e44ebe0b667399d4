// SPDX-License-Identifier: Apache-2.0
#pragma once
// PoSt vanilla proofs in bincode, as Curio sends them to a proving engine
// (one FallbackPoStSectorProof per challenged sector) and as rust-fil-proofs
// serializes them with bincode 1 defaults (serde derive):
//
//   FallbackPoStSectorProof (filecoin-proofs types/mod.rs)
//     sector_id     u64 LE
//     comm_r        32 raw bytes (PoseidonDomain: an Fr repr, little-endian)
//     vanilla_proof fallback::Proof { sectors: Vec<SectorProof> }
//   Vec<T>          u64 LE length, then the elements
//   SectorProof (storage-proofs-post fallback/vanilla.rs)
//     inclusion_proofs Vec<MerkleProof>, comm_c 32 B, comm_r_last 32 B
//   MerkleProof { data: ProofData } (storage-proofs-core merkle/proof.rs;
//                 the type: io/merkle_proof.hpp)
//     ProofData     u32 LE variant tag: 0 Single, 1 Sub, 2 Top
//     Single        root 32 B, leaf 32 B, path InclusionPath
//     Sub           base_proof InclusionPath, sub_proof InclusionPath, root, leaf
//     Top           base_proof, sub_proof, top_proof, root, leaf
//   InclusionPath   Vec<PathElement>
//   PathElement     hashes Vec<domain>, index u64 (usize)
// (the 32 GiB fixture: 8 + 32 + 8 + 8 + 10 x 2484 + 64 = 24960 bytes).
//
// Decoding never trusts a length: every Vec length is checked against the
// bytes that remain before anything is allocated, every domain must be a
// canonical Fr (bellperson would panic in Fr::from_repr), and every error
// is an io::format_error (kind "post vanilla proof") naming the field path
// and the byte offset, e.g.
//   post vanilla proof file '<memory>': sectors[0].inclusion_proofs[3].data
//   at byte offset 7508: unknown ProofData variant tag 7
// Trailing bytes after a complete proof are an error.
//
// Cost: one pass over the bytes plus one canonical check per domain
// (~25 KB for a 32 GiB sector: microseconds).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/merkle_proof.hpp>

namespace cuzk::io {

/// fallback::SectorProof: the inclusion proofs of one sector's challenges.
struct post_sector_proof {
  std::vector<merkle_proof> inclusion_proofs;
  ff::fr comm_c;
  ff::fr comm_r_last;
  friend bool operator==(const post_sector_proof&, const post_sector_proof&) = default;
};

/// filecoin-proofs FallbackPoStSectorProof: one challenged sector's vanilla proof.
struct fallback_post_sector_proof {
  std::uint64_t sector_id = 0;
  ff::fr comm_r;
  std::vector<post_sector_proof> sectors;  ///< vanilla_proof.sectors (one for a real sector)
  friend bool operator==(const fallback_post_sector_proof&, const fallback_post_sector_proof&) = default;
};

/// Decodes one bincode FallbackPoStSectorProof occupying all of |bytes|.
/// |label| names the source in error messages.
fallback_post_sector_proof read_fallback_post_sector_proof(std::span<const std::uint8_t> bytes,
                                                           std::string_view label = "<memory>");

/// Decodes one bincode fallback::Proof (Vec<SectorProof>) occupying all of |bytes|.
std::vector<post_sector_proof> read_fallback_post_proof(std::span<const std::uint8_t> bytes,
                                                        std::string_view label = "<memory>");

/// Bincode encoding (the exact inverse of the readers; tests and generators).
std::vector<std::uint8_t> write_fallback_post_sector_proof(const fallback_post_sector_proof& p);
std::vector<std::uint8_t> write_fallback_post_proof(std::span<const post_sector_proof> sectors);

}  // namespace cuzk::io
