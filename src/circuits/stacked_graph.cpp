// SPDX-License-Identifier: Apache-2.0
// StackedDRG parents (DRSample bucket graph + Feistel expander); the method
// and its costs are described in stacked_graph.hpp.
#include <cuzk/circuits/stacked_graph.hpp>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include <cuzk/circuits/porep_hashes.hpp>
#include <cuzk/gadgets/native_sha256.hpp>

namespace cuzk::circuits {
namespace {

constexpr std::string_view drsample_dst = "Filecoin_DRSample";
constexpr std::string_view feistel_dst = "Filecoin_Feistel";
constexpr int feistel_rounds = 3;

// feistel.rs feistel(): BLAKE2b-512 of u64be(right) || u64be(key), first 8 bytes BE.
std::uint64_t feistel_round(std::uint64_t right, std::uint64_t key, std::uint64_t right_mask) {
  std::uint8_t data[16];
  for (int i = 0; i < 8; ++i) {
    data[i] = std::uint8_t(right >> (56 - 8 * i));
    data[8 + i] = std::uint8_t(key >> (56 - 8 * i));
  }
  const std::array<std::uint8_t, 64> h = blake2b::hash512(std::span<const std::uint8_t>(data, 16));
  std::uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r = (r << 8) | h[std::size_t(i)];
  return r & right_mask;
}

}  // namespace

std::array<std::uint8_t, 32> derive_porep_domain_seed(std::string_view tag, const porep_id_bytes& porep_id) {
  return gadgets::native::sha256(
      {std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(tag.data()), tag.size()),
       std::span<const std::uint8_t>(porep_id)});
}

stacked_graph::stacked_graph(std::uint64_t nodes, const porep_id_bytes& porep_id, io::porep_api_version api)
    : _nodes(nodes), _api(api) {
  if (nodes < 2 || nodes > 0xffffffffULL)
    throw std::invalid_argument("stacked graph: node count " + std::to_string(nodes) + " is not in 2 .. 2^32 - 1");
  const std::array<std::uint8_t, 32> drg = derive_porep_domain_seed(drsample_dst, porep_id);
  std::memcpy(_drg_seed.data(), drg.data(), 28);
  const std::array<std::uint8_t, 32> fk = derive_porep_domain_seed(feistel_dst, porep_id);
  for (int k = 0; k < 4; ++k) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | fk[std::size_t(8 * k + i)];
    _feistel_keys[std::size_t(k)] = v;
  }
  // feistel.rs precompute(num_elements = 8 nodes): the smallest 4^k >= n, k >= 1.
  const std::uint64_t elements = nodes * exp_degree;
  std::uint64_t next_pow4 = 4, log4 = 1;
  while (next_pow4 < elements) {
    next_pow4 *= 4;
    ++log4;
  }
  _right_mask = (std::uint64_t(1) << log4) - 1;
  _left_mask = _right_mask << log4;
  _half_bits = log4;
}

stacked_graph stacked_graph::for_proof(const io::seal_proof_info& info) {
  return stacked_graph(info.nodes, info.porep_id(), info.api);
}

void stacked_graph::drg_parents(std::uint32_t node, std::span<std::uint32_t, drg_degree> out) const {
  if (node >= _nodes) throw std::out_of_range("stacked graph: node " + std::to_string(node) + " out of range");
  if (node < 2) {
    std::fill(out.begin(), out.end(), 0u);
    return;
  }
  std::array<std::uint8_t, 32> seed{};
  std::memcpy(seed.data(), _drg_seed.data(), 28);
  for (int i = 0; i < 4; ++i) seed[std::size_t(28 + i)] = std::uint8_t(node >> (8 * i));
  chacha_stream rng = chacha_stream::rng(seed, 8);

  constexpr std::uint64_t m_prime = drg_degree - 1;
  const std::uint64_t meta = std::uint64_t(node) * m_prime;
  // ceil(log2(meta)) as drgraph.rs computes it in f64; exact here since meta >= 10.
  const std::uint64_t buckets = std::uint64_t(std::bit_width(meta - 1));
  const bool v1_0 = _api == io::porep_api_version::v1_0_0;
  const std::size_t first = v1_0 ? 0 : 1;
  for (std::size_t k = 0; k < m_prime; ++k) {
    const std::uint64_t bucket = rng.next_u64() % buckets + 1;
    const std::uint64_t largest = std::min(meta, std::uint64_t(1) << bucket);
    const std::uint64_t smallest = std::max<std::uint64_t>(2, largest >> 1);
    const std::uint64_t distance = smallest + rng.next_u64() % (largest - smallest + 1);
    const std::uint32_t mapped = std::uint32_t((meta - distance) / m_prime);
    out[first + k] = mapped == node ? node - 1 : mapped;
  }
  out[v1_0 ? m_prime : 0] = node - 1;
}

std::uint64_t stacked_graph::feistel_permute(std::uint64_t index) const {
  const std::uint64_t elements = _nodes * exp_degree;
  std::uint64_t u = index;
  do {
    std::uint64_t left = (u & _left_mask) >> _half_bits;
    std::uint64_t right = u & _right_mask;
    for (int r = 0; r < feistel_rounds; ++r) {
      const std::uint64_t next_right = left ^ feistel_round(right, _feistel_keys[std::size_t(r)], _right_mask);
      left = right;
      right = next_right;
    }
    u = (left << _half_bits) | right;
  } while (u >= elements);
  return u;
}

void stacked_graph::exp_parents(std::uint32_t node, std::span<std::uint32_t, exp_degree> out) const {
  if (node >= _nodes) throw std::out_of_range("stacked graph: node " + std::to_string(node) + " out of range");
  for (std::size_t i = 0; i < exp_degree; ++i) {
    const std::uint64_t t = feistel_permute(std::uint64_t(node) * exp_degree + i);
    out[i] = _api == io::porep_api_version::v1_0_0 ? std::uint32_t(t) / std::uint32_t(exp_degree)
                                                   : std::uint32_t(t / exp_degree);
  }
}

std::array<std::uint32_t, graph_degree> stacked_graph::parents(std::uint32_t node) const {
  std::array<std::uint32_t, graph_degree> p;
  drg_parents(node, std::span<std::uint32_t, drg_degree>(p.data(), drg_degree));
  exp_parents(node, std::span<std::uint32_t, exp_degree>(p.data() + drg_degree, exp_degree));
  return p;
}

void stacked_graph::for_each_parents(
    std::uint64_t first, std::uint64_t count,
    const std::function<void(std::uint32_t, const std::array<std::uint32_t, graph_degree>&)>& fn) const {
  if (first > _nodes || count > _nodes - first) throw std::out_of_range("stacked graph: node range out of range");
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(first, first + count, 256),
                    [&](const tbb::blocked_range<std::uint64_t>& r) {
                      for (std::uint64_t n = r.begin(); n != r.end(); ++n) {
                        const std::array<std::uint32_t, graph_degree> p = parents(std::uint32_t(n));
                        fn(std::uint32_t(n), p);
                      }
                    });
}

std::vector<std::uint32_t> stacked_graph::parent_cache(std::uint64_t first, std::uint64_t count) const {
  std::vector<std::uint32_t> out(count * graph_degree);
  for_each_parents(first, count, [&](std::uint32_t n, const std::array<std::uint32_t, graph_degree>& p) {
    std::copy(p.begin(), p.end(), out.begin() + std::ptrdiff_t((n - first) * graph_degree));
  });
  return out;
}

std::array<std::uint8_t, 32> stacked_graph::parent_cache_sha256(std::uint64_t block_nodes) const {
  if (block_nodes == 0) throw std::invalid_argument("stacked graph: block_nodes must be > 0");
  gadgets::native::sha256_hasher h;
  std::vector<std::uint8_t> bytes;
  for (std::uint64_t first = 0; first < _nodes; first += block_nodes) {
    const std::uint64_t count = std::min(block_nodes, _nodes - first);
    const std::vector<std::uint32_t> cache = parent_cache(first, count);
    bytes.resize(cache.size() * 4);
    for (std::size_t i = 0; i < cache.size(); ++i)
      for (int b = 0; b < 4; ++b) bytes[4 * i + std::size_t(b)] = std::uint8_t(cache[i] >> (8 * b));
    h.update(bytes);
  }
  return h.finalize();
}

}  // namespace cuzk::circuits
