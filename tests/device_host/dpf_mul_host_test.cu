// SPDX-License-Identifier: Apache-2.0
// The FP64-pipe Montgomery multiplication (ff/detail/cuda_dpf.cuh) run on
// the CPU, where std::fma and + round exactly as the device's __fma_rn and
// __dadd_rn (IEEE 754 fixes every result), so this is the device's
// arithmetic step for step:
//  - the product split: hi 2^48 + lo equals a b exactly (128-bit integers)
//    for 48-bit factors at the edges (0, 1, 2^47, 2^48 - 1, ...) and seeded
//    random ones, with k and the low part in their proven ranges;
//  - known answers: every pair of the Fp edge values (0, 1, p - 1, raw R,
//    R^2, limb-edge words) and of values whose 48-bit limbs sit at their
//    edges, against ff::fp's multiplication;
//  - differential: seeded random pairs (the seed is printed), against ff::fp
//    and against the integer-pipe device multiplication (gpu::fp_d's *);
//  - algebraic: (a b) c = a (b c), a (b + c) = a b + a c and a 1 = a through
//    the FP64 path alone.
// The gpu-label prim bench times it on the device (fp_mul_dpf).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_dpf.cuh>

#include "common/field_special_values.hpp"
#include "common/test_seed.hpp"

namespace {

namespace gpu = cuzk::gpu;
namespace ff = cuzk::ff;
namespace dpf = cuzk::ff::detail::cuda::dpf;
using u128 = unsigned __int128;

gpu::fp_d to_d(const ff::fp& x) {
  gpu::fp_d r;
  std::memcpy(static_cast<void*>(&r), &x, sizeof r);
  return r;
}
ff::fp to_h(const gpu::fp_d& x) {
  ff::fp r;
  std::memcpy(static_cast<void*>(&r), &x, sizeof r);
  return r;
}

// One emulated multiplication per call: inlined into a test body, GCC
// optimises the unrolled code for minutes.
__noinline__ gpu::fp_d dpf_mul_of(const gpu::fp_d& a, const gpu::fp_d& b) { return gpu::mul_dpf(a, b); }
__noinline__ gpu::fp_d int_mul_of(const gpu::fp_d& a, const gpu::fp_d& b) { return a * b; }

/// (k, signed low part) of one product through mac_split, from the column
/// deltas it leaves with its biases taken off.
struct split_parts {
  std::uint64_t k;
  std::int64_t low;
};
split_parts split_of(std::uint64_t a, std::uint64_t b) {
  std::uint64_t lo = 0, hi = 0;
  dpf::mac_split(lo, hi, dpf::limb_to_double(a), dpf::limb_to_double(b));
  return {hi - dpf::split_c_bits, std::int64_t(lo - dpf::low_bias_bits)};
}

TEST(dpf_mul_on_host, the_product_split_is_exact) {
  std::mt19937_64 rng(cuzk::test::test_seed("dpf-split"));
  constexpr std::uint64_t top = dpf::limb_mask;
  std::vector<std::uint64_t> edge = {0,
                                     1,
                                     2,
                                     3,
                                     top,
                                     top - 1,
                                     1ull << 47,
                                     (1ull << 47) - 1,
                                     (1ull << 47) + 1,
                                     1ull << 24,
                                     (1ull << 24) - 1,
                                     0xffffffffull,
                                     0x100000000ull,
                                     0xaaaaaaaaaaaaull,
                                     0x555555555555ull};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
  for (auto a : edge)
    for (auto b : edge) pairs.emplace_back(a, b);
  for (int i = 0; i < 200000; ++i) pairs.emplace_back(rng() & top, rng() & top);
  int bad = 0;
  for (const auto& [a, b] : pairs) {
    const split_parts s = split_of(a, b);
    const u128 want = u128(a) * b;
    const u128 got = (u128(s.k) << 48) + u128(__int128(s.low));
    const bool ok = got == want && s.k <= (1ull << 48) && s.low >= -(1ll << 47) && s.low <= (1ll << 47);
    if (!ok && bad++ < 5) ADD_FAILURE() << "split of " << a << " * " << b << ": k " << s.k << " low " << s.low;
  }
  EXPECT_EQ(bad, 0) << "of " << pairs.size() << " products";
}

/// Raw elements (below p) whose 48-bit limbs sit at their edges: all ones,
/// a single top bit, alternating, in every limb position that p allows.
std::vector<ff::fp> limb_edge_values() {
  std::vector<ff::fp> v;
  using L = ff::fp::limbs;
  auto set_limb = [](L& x, int i, std::uint64_t val) {
    for (int b = 0; b < 48; ++b)
      if (val >> b & 1) x[(48 * i + b) / 64] |= std::uint64_t(1) << ((48 * i + b) % 64);
  };
  const std::uint64_t patterns[] = {dpf::limb_mask, std::uint64_t(1) << 47, 0x555555555555ull, 1};
  for (const std::uint64_t val : patterns) {
    L all{};
    for (int i = 0; i < 7; ++i) {  // limb 7 holds p's top bits: only its low bits are free
      L one{};
      set_limb(one, i, val);
      set_limb(all, i, val);
      v.push_back(ff::fp::from_raw(one));
    }
    v.push_back(ff::fp::from_raw(all));
  }
  L under_p = ff::fp::modulus;  // p - 1 - (2^48 - 1): a full low limb under p
  under_p[0] -= 1;
  under_p[0] ^= dpf::limb_mask & under_p[0];
  v.push_back(ff::fp::from_raw(under_p));
  return v;
}

TEST(dpf_mul_on_host, edge_values_match_the_host_field) {
  std::vector<ff::fp> sp = cuzk::test::special_values<ff::fp>();
  for (const ff::fp& x : limb_edge_values()) sp.push_back(x);
  int bad = 0;
  for (std::size_t i = 0; i < sp.size(); ++i)
    for (std::size_t j = 0; j < sp.size(); ++j) {
      if (to_h(dpf_mul_of(to_d(sp[i]), to_d(sp[j]))) == sp[i] * sp[j]) continue;
      if (bad++ < 5) ADD_FAILURE() << "edge values " << i << " * " << j;
    }
  EXPECT_EQ(bad, 0) << "of " << sp.size() * sp.size() << " pairs";
}

TEST(dpf_mul_on_host, random_products_match_both_multiplications) {
  std::mt19937_64 rng(cuzk::test::test_seed("dpf-mul"));
  int bad = 0;
  constexpr int n = 50000;
  for (int i = 0; i < n; ++i) {
    const ff::fp a = ff::fp::random(rng), b = i % 16 == 0 ? a : ff::fp::random(rng);
    const gpu::fp_d got = dpf_mul_of(to_d(a), to_d(b));
    const bool ok = to_h(got) == a * b && got == int_mul_of(to_d(a), to_d(b));
    if (!ok && bad++ < 5) ADD_FAILURE() << "random pair " << i;
  }
  EXPECT_EQ(bad, 0) << "of " << n << " pairs";
}

TEST(dpf_mul_on_host, associative_distributive_and_one_is_neutral) {
  std::mt19937_64 rng(cuzk::test::test_seed("dpf-algebra"));
  int bad = 0;
  constexpr int n = 5000;
  const gpu::fp_d one = gpu::fp_d::one();
  for (int i = 0; i < n; ++i) {
    const gpu::fp_d a = to_d(ff::fp::random(rng)), b = to_d(ff::fp::random(rng)), c = to_d(ff::fp::random(rng));
    const bool ok = dpf_mul_of(dpf_mul_of(a, b), c) == dpf_mul_of(a, dpf_mul_of(b, c)) &&
                    dpf_mul_of(a, b + c) == dpf_mul_of(a, b) + dpf_mul_of(a, c) && dpf_mul_of(a, one) == a;
    if (!ok && bad++ < 5) ADD_FAILURE() << "triple " << i;
  }
  EXPECT_EQ(bad, 0) << "of " << n << " triples";
}

}  // namespace
