// SPDX-License-Identifier: Apache-2.0
#pragma once
// Field elements at the edges of the Montgomery arithmetic, shared by the
// device field tests (tests/gpu/field_gpu_test.cu on the GPU,
// tests/device_host/ under the host emulation): 0, 1, p - 1, R and R^2 as
// elements and as raw limbs, limb-edge words, and for Fp2 each of them as
// c0, as c1, as both and beside -1.

#include <cstdint>
#include <type_traits>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/fp2.hpp>

namespace cuzk::test {

/// Field elements at the edges: as values and as raw Montgomery limbs.
template <class F>
std::vector<F> special_values() {
  using L = typename F::limbs;
  std::vector<F> v;
  v.push_back(F::zero());
  v.push_back(F::one());
  v.push_back(-F::one());                       // p - 1
  v.push_back(F::from_raw(F::r_mod_p));         // raw R mod p (the element 1)
  v.push_back(F::from_raw(F::r2_mod_p));        // raw R^2 mod p
  v.push_back(*F::from_canonical(F::r_mod_p));  // the element R mod p
  v.push_back(*F::from_canonical(F::r2_mod_p));
  L one{};
  one[0] = 1;
  v.push_back(F::from_raw(one));                                   // raw 1
  v.push_back(F::from_raw(ff::detail::sub_small(F::modulus, 1)));  // raw p - 1
  v.push_back(F::from_raw(ff::detail::sub_small(F::modulus, 2)));
  v.push_back(F::from_uint(2));
  v.push_back(F::from_uint(0xffffffffu));
  v.push_back(F::from_uint(~std::uint64_t(0)));
  // raw words 2^(32k) - 1 and 2^(32k) (all below p for k < 2N - 1)
  for (std::size_t k = 1; k < 2 * F::n_limbs - 1; ++k) {
    L lo{}, pw{};
    for (std::size_t b = 0; b < 32 * k; ++b) lo[b / 64] |= std::uint64_t(1) << (b % 64);
    pw[(32 * k) / 64] = std::uint64_t(1) << ((32 * k) % 64);
    v.push_back(F::from_raw(lo));
    v.push_back(F::from_raw(pw));
  }
  // p - 2^32 and p - 2^64 (raw)
  L m = F::modulus;
  m[0] -= std::uint64_t(1) << 32;
  v.push_back(F::from_raw(m));
  L m2 = F::modulus;
  m2[1] -= 1;
  v.push_back(F::from_raw(m2));
  return v;
}

/// Fp2 edge values: each Fp edge value as c0, as c1, as both, and next to -1.
inline std::vector<ff::fp2> special_fp2_values() {
  std::vector<ff::fp2> v;
  for (const ff::fp& x : special_values<ff::fp>()) {
    v.push_back({x, ff::fp::zero()});
    v.push_back({ff::fp::zero(), x});
    v.push_back({x, x});
    v.push_back({x, -ff::fp::one()});
  }
  return v;
}

/// The edge values of F (fr, fp or fp2).
template <class F>
std::vector<F> field_specials() {
  if constexpr (std::is_same_v<F, ff::fp2>) return special_fp2_values();
  else return special_values<F>();
}

}  // namespace cuzk::test
