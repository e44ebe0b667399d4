// SPDX-License-Identifier: Apache-2.0
// SnapDeals phi, rho and challenges (see empty_sector_update_challenges.hpp).
#include <cuzk/circuits/empty_sector_update_challenges.hpp>

#include <stdexcept>
#include <string>

#include <cuzk/circuits/empty_sector_update_gadgets.hpp>
#include <cuzk/gadgets/poseidon.hpp>

namespace cuzk::circuits {
namespace {

ff::fr gen_randomness(const ff::fr& a, const ff::fr& b) {
  const ff::fr pre[2] = {a, b};
  return gadgets::poseidon_hash(std::span<const ff::fr>(pre, 2), snap_gadgets::gen_randomness_hash_type());
}

}  // namespace

ff::fr snap_phi(const ff::fr& comm_d_new, const ff::fr& comm_r_old) { return gen_randomness(comm_d_new, comm_r_old); }

ff::fr snap_rho(const ff::fr& phi, std::uint64_t high) { return gen_randomness(phi, ff::fr::from_uint(high)); }

std::vector<std::uint64_t> snap_challenges(const snap_params& p, const ff::fr& comm_r_new, std::size_t k) {
  if (k >= p.partition_count)
    throw std::invalid_argument("snap: partition " + std::to_string(k) + " of " + std::to_string(p.partition_count));
  const std::size_t bits = p.random_bits_per_challenge();
  const std::size_t per = snap_gadgets::challenges_per_digest(bits);
  const std::size_t dpp = snap_gadgets::digests_per_partition(p.challenge_count, bits);
  const std::uint64_t partition_bits = std::uint64_t(k) << bits;
  std::vector<std::uint64_t> out;
  out.reserve(p.challenge_count);
  std::uint64_t digest_index = std::uint64_t(k) * dpp;
  ff::fr::limbs digest{};
  for (std::size_t i = 0; out.size() < p.challenge_count; ++i) {
    const std::size_t slot = i % per;
    if (slot == 0) digest = gen_randomness(comm_r_new, ff::fr::from_uint(digest_index++)).to_canonical();
    std::uint64_t c = 0;
    for (std::size_t b = 0; b < bits; ++b) {
      const std::size_t at = slot * bits + b;
      c |= ((digest[at / 64] >> (at % 64)) & 1) << b;
    }
    out.push_back(c | partition_bits);
  }
  return out;
}

}  // namespace cuzk::circuits
