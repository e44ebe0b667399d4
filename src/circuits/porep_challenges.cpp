// SPDX-License-Identifier: Apache-2.0
// PoRep replica_id and challenge derivations (interactive, NI, synthetic)
// and the per-partition public-input data; see porep_challenges.hpp.
#include <cuzk/circuits/porep_challenges.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include <cuzk/circuits/porep_hashes.hpp>
#include <cuzk/gadgets/native_sha256.hpp>

namespace cuzk::circuits {
namespace {

using gadgets::native::sha256_hasher;

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::array<std::uint8_t, 4> u32le(std::uint32_t v) {
  return {std::uint8_t(v), std::uint8_t(v >> 8), std::uint8_t(v >> 16), std::uint8_t(v >> 24)};
}

void check_nodes(std::uint64_t nodes) {
  if (nodes < 2 || nodes > 0xffffffffULL)
    throw std::invalid_argument("porep challenges: node count " + std::to_string(nodes) + " is not in 2 .. 2^32 - 1");
}

constexpr std::uint64_t default_synth_count = std::uint64_t(1) << 18;
constexpr std::array<std::uint8_t, 12> synth_nonce = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};

chacha_stream synth_chacha(std::string_view key_tag, const bytes32& a, const bytes32& b) {
  blake2b h(32, bytes_of(key_tag));
  h.update(a).update(b);
  std::array<std::uint8_t, 32> key;
  h.finalize(key.data());
  return chacha_stream::ietf(key, synth_nonce, 20);
}

}  // namespace

bytes32 porep_prover_id(std::uint64_t miner_id) {
  bytes32 b{};
  std::size_t i = 0;
  do {  // at most 10 bytes for a u64
    std::uint8_t byte = miner_id & 0x7f;
    miner_id >>= 7;
    if (miner_id) byte |= 0x80;
    b[i++] = byte;
  } while (miner_id);
  return b;
}

bytes32 porep_replica_id(const bytes32& prover_id, std::uint64_t sector_id, const bytes32& ticket,
                         const bytes32& comm_d, const porep_id_bytes& porep_id) {
  std::array<std::uint8_t, 8> sid;
  for (int i = 0; i < 8; ++i) sid[std::size_t(i)] = std::uint8_t(sector_id >> (56 - 8 * i));
  sha256_hasher h;
  h.update(prover_id).update(sid).update(ticket).update(comm_d).update(porep_id);
  bytes32 d = h.finalize();
  gadgets::native::trim_to_fr32(d);
  return d;
}

std::uint64_t porep_challenge_from_hash(const std::array<std::uint8_t, 32>& h, std::uint64_t nodes) {
  check_nodes(nodes);
  const std::uint64_t m = nodes - 1;
  __extension__ using u128 = unsigned __int128;  // a GCC/Clang extension (-Wpedantic)
  u128 r = 0;
  for (int limb = 3; limb >= 0; --limb) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | h[std::size_t(8 * limb + i)];
    r = ((r << 64) | v) % m;
  }
  return std::uint64_t(r) + 1;
}

std::vector<std::uint64_t> interactive_porep_challenges(std::uint64_t nodes, const bytes32& replica_id,
                                                        const bytes32& seed, std::uint32_t challenges_per_partition,
                                                        std::uint32_t k) {
  std::vector<std::uint64_t> out;
  out.reserve(challenges_per_partition);
  sha256_hasher h;
  for (std::uint32_t i = 0; i < challenges_per_partition; ++i) {
    const std::uint32_t j = challenges_per_partition * k + i;
    h.update(replica_id).update(seed).update(u32le(j));
    out.push_back(porep_challenge_from_hash(h.finalize(), nodes));
  }
  return out;
}

std::vector<std::uint64_t> ni_porep_challenges(std::uint64_t nodes, const bytes32& replica_id, const bytes32& comm_r,
                                               std::uint32_t challenges_per_partition, std::uint32_t k) {
  static constexpr std::string_view tag = "filecoin.io|PoRep|1|NonInteractive|1";
  std::vector<std::uint64_t> out;
  out.reserve(challenges_per_partition);
  sha256_hasher h;
  for (std::uint32_t i = 0; i < challenges_per_partition; ++i) {
    const std::uint32_t j = challenges_per_partition * k + i;
    h.update(bytes_of(tag)).update(replica_id).update(comm_r).update(u32le(j));
    out.push_back(porep_challenge_from_hash(h.finalize(), nodes));
  }
  return out;
}

std::uint64_t default_synthetic_challenge_count(std::uint64_t nodes) { return std::min(nodes, default_synth_count); }

std::uint64_t synthetic_challenge(std::uint64_t nodes, const bytes32& replica_id, const bytes32& comm_r,
                                  std::uint64_t i) {
  chacha_stream s = synth_chacha("filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
  s.seek(i * 32);
  std::array<std::uint8_t, 32> r;
  s.keystream(r);
  return porep_challenge_from_hash(r, nodes);
}

std::vector<std::uint64_t> synthetic_partition_indexes(std::uint64_t num_synth, const bytes32& replica_id,
                                                       const bytes32& seed, std::uint32_t challenges_per_partition,
                                                       std::uint32_t k) {
  if (num_synth == 0) throw std::invalid_argument("porep challenges: zero synthetic challenges");
  chacha_stream s = synth_chacha("filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed);
  s.seek(std::uint64_t(k) * challenges_per_partition * 4);
  std::vector<std::uint64_t> out;
  out.reserve(challenges_per_partition);
  for (std::uint32_t i = 0; i < challenges_per_partition; ++i) {
    std::array<std::uint8_t, 4> b;
    s.keystream(b);
    const std::uint32_t v =
        std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 | std::uint32_t(b[3]) << 24;
    out.push_back(v % num_synth);
  }
  return out;
}

std::vector<std::uint64_t> synthetic_porep_challenges(std::uint64_t nodes, const bytes32& replica_id,
                                                      const bytes32& comm_r, const bytes32& seed,
                                                      std::uint32_t challenges_per_partition, std::uint32_t k,
                                                      std::uint64_t num_synth) {
  if (num_synth == 0) num_synth = default_synthetic_challenge_count(nodes);
  std::vector<std::uint64_t> out;
  for (std::uint64_t idx : synthetic_partition_indexes(num_synth, replica_id, seed, challenges_per_partition, k))
    out.push_back(synthetic_challenge(nodes, replica_id, comm_r, idx));
  return out;
}

std::vector<std::uint64_t> porep_partition_challenges(const io::seal_proof_info& info, const bytes32& replica_id,
                                                      const bytes32& comm_r, const bytes32& seed, std::uint32_t k) {
  if (k >= info.partitions)
    throw std::out_of_range("porep challenges: partition " + std::to_string(k) + " of a " +
                            std::to_string(info.partitions) + "-partition proof");
  switch (info.feature) {
    case io::porep_feature::none:
      return interactive_porep_challenges(info.nodes, replica_id, seed, info.challenges_per_partition, k);
    case io::porep_feature::synthetic_porep:
      return synthetic_porep_challenges(info.nodes, replica_id, comm_r, seed, info.challenges_per_partition, k);
    case io::porep_feature::non_interactive_porep:
      return ni_porep_challenges(info.nodes, replica_id, comm_r, info.challenges_per_partition, k);
  }
  throw std::invalid_argument("porep challenges: unknown porep feature");
}

porep_partition_inputs derive_porep_partition_inputs(const io::seal_proof_info& info, const stacked_graph& graph,
                                                     const bytes32& replica_id, const bytes32& comm_d,
                                                     const bytes32& comm_r, const bytes32& seed, std::uint32_t k) {
  if (graph.nodes() != info.nodes || graph.api() != info.api)
    throw std::invalid_argument("porep public inputs: the graph does not match " + std::string(info.name));
  porep_partition_inputs out{replica_id, comm_d, comm_r, k, {}};
  for (std::uint64_t c : porep_partition_challenges(info, replica_id, comm_r, seed, k)) {
    porep_challenge_parents p;
    p.challenge = c;
    graph.drg_parents(std::uint32_t(c), p.drg);
    graph.exp_parents(std::uint32_t(c), p.exp);
    out.challenges.push_back(p);
  }
  return out;
}

porep_partition_inputs derive_porep_partition_inputs(const io::seal_proof_info& info, const bytes32& replica_id,
                                                     const bytes32& comm_d, const bytes32& comm_r, const bytes32& seed,
                                                     std::uint32_t k) {
  return derive_porep_partition_inputs(info, stacked_graph::for_proof(info), replica_id, comm_d, comm_r, seed, k);
}

}  // namespace cuzk::circuits
