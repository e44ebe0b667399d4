// SPDX-License-Identifier: Apache-2.0
// PoSt vanilla proofs in bincode (see include/cuzk/io/post_vanilla.hpp).
// A cursor over the bytes keeps the field path of what it is decoding, so
// that every error names the field and the offset where decoding stopped
// (the cursor and the MerkleProof codec live in bincode_cursor.hpp, shared
// with the SnapDeals partition proofs).

#include <cuzk/io/post_vanilla.hpp>

#include <string>

#include "bincode_cursor.hpp"

namespace cuzk::io {

namespace {

using bincode::domain_size;
using bincode::min_merkle_proof;
using bincode::put_domain;
using bincode::put_u64;
using reader = bincode::bincode_reader;

constexpr const char* kind_name = "post vanilla proof";
constexpr std::size_t min_sector_proof = 8 + 2 * domain_size;  // no inclusion proofs

std::vector<post_sector_proof> read_sector_proofs(reader& r) {
  r.push("sectors");
  const std::size_t n = r.vec_len(min_sector_proof);
  std::vector<post_sector_proof> sectors(n);
  for (std::size_t i = 0; i < n; ++i) {
    r.push_index(i);
    r.push("inclusion_proofs");
    const std::size_t m = r.vec_len(min_merkle_proof);
    sectors[i].inclusion_proofs.reserve(m);
    for (std::size_t j = 0; j < m; ++j) {
      r.push_index(j);
      sectors[i].inclusion_proofs.push_back(bincode::read_merkle_proof(r));
      r.pop_index();
    }
    r.pop();
    sectors[i].comm_c = r.domain("comm_c");
    sectors[i].comm_r_last = r.domain("comm_r_last");
    r.pop_index();
  }
  r.pop();
  return sectors;
}

// ---- writing ----

void put_sectors(std::vector<std::uint8_t>& out, std::span<const post_sector_proof> sectors) {
  put_u64(out, sectors.size());
  for (const post_sector_proof& s : sectors) {
    put_u64(out, s.inclusion_proofs.size());
    for (const merkle_proof& p : s.inclusion_proofs) bincode::put_merkle_proof(out, p);
    put_domain(out, s.comm_c);
    put_domain(out, s.comm_r_last);
  }
}

}  // namespace

fallback_post_sector_proof read_fallback_post_sector_proof(std::span<const std::uint8_t> bytes,
                                                           std::string_view label) {
  reader r(bytes, label, kind_name);
  fallback_post_sector_proof p;
  r.push("sector_id");
  p.sector_id = r.u64("sector_id");
  r.pop();
  p.comm_r = r.domain("comm_r");
  r.push("vanilla_proof");
  p.sectors = read_sector_proofs(r);
  r.pop();
  r.finish();
  return p;
}

std::vector<post_sector_proof> read_fallback_post_proof(std::span<const std::uint8_t> bytes, std::string_view label) {
  reader r(bytes, label, kind_name);
  std::vector<post_sector_proof> sectors = read_sector_proofs(r);
  r.finish();
  return sectors;
}

std::vector<std::uint8_t> write_fallback_post_sector_proof(const fallback_post_sector_proof& p) {
  std::vector<std::uint8_t> out;
  put_u64(out, p.sector_id);
  put_domain(out, p.comm_r);
  put_sectors(out, p.sectors);
  return out;
}

std::vector<std::uint8_t> write_fallback_post_proof(std::span<const post_sector_proof> sectors) {
  std::vector<std::uint8_t> out;
  put_sectors(out, sectors);
  return out;
}

}  // namespace cuzk::io
