// SPDX-License-Identifier: Apache-2.0
// SnapDeals partition proofs in bincode (see include/cuzk/io/snap_vanilla.hpp),
// on the shared cursor and MerkleProof codec of bincode_cursor.hpp.
#include <cuzk/io/snap_vanilla.hpp>

#include <string>

#include "bincode_cursor.hpp"

namespace cuzk::io {
namespace {

constexpr const char* kind_name = "snap partition proof";
constexpr std::size_t min_challenge_proof = 3 * bincode::min_merkle_proof;

merkle_proof read_field(bincode::bincode_reader& r, const char* name) {
  r.push(name);
  merkle_proof p = bincode::read_merkle_proof(r);
  r.pop();
  return p;
}

}  // namespace

snap_partition_proof read_snap_partition_proof(std::span<const std::uint8_t> bytes, std::string_view label) {
  bincode::bincode_reader r(bytes, label, kind_name);
  snap_partition_proof p;
  p.comm_c = r.domain("comm_c");
  r.push("apex_leafs");
  const std::size_t n = r.vec_len(bincode::domain_size);
  p.apex_leafs.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    r.push_index(i);
    p.apex_leafs.push_back(r.domain("value"));
    r.pop_index();
  }
  r.pop();
  r.push("challenge_proofs");
  const std::size_t m = r.vec_len(min_challenge_proof);
  p.challenge_proofs.reserve(m);
  for (std::size_t i = 0; i < m; ++i) {
    r.push_index(i);
    snap_challenge_proof c;
    c.proof_r_old = read_field(r, "proof_r_old");
    c.proof_d_new = read_field(r, "proof_d_new");
    c.proof_r_new = read_field(r, "proof_r_new");
    p.challenge_proofs.push_back(std::move(c));
    r.pop_index();
  }
  r.pop();
  r.finish();
  return p;
}

std::vector<std::uint8_t> write_snap_partition_proof(const snap_partition_proof& p) {
  std::vector<std::uint8_t> out;
  bincode::put_domain(out, p.comm_c);
  bincode::put_u64(out, p.apex_leafs.size());
  for (const ff::fr& x : p.apex_leafs) bincode::put_domain(out, x);
  bincode::put_u64(out, p.challenge_proofs.size());
  for (const snap_challenge_proof& c : p.challenge_proofs) {
    bincode::put_merkle_proof(out, c.proof_r_old);
    bincode::put_merkle_proof(out, c.proof_d_new);
    bincode::put_merkle_proof(out, c.proof_r_new);
  }
  return out;
}

}  // namespace cuzk::io
