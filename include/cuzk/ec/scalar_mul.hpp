// SPDX-License-Identifier: Apache-2.0
#pragma once
// Variable-base scalar multiplication by a width-w NAF (w = 5): the scalar is
// recoded into digits in {0, +-1, +-3, ..., +-15}, so a 255-bit scalar costs
// about 255 doublings plus 255/6 additions, using a table of 8 odd multiples.
// Not constant time: for public points and scalars (tests, setup, checks).
//
// Scalars come in two types, never mixed up: ff::fr (a Montgomery element,
// converted to its canonical integer here) and scalar_limbs (a canonical
// little-endian integer of any length, e.g. the group order for subgroup
// checks).

#include <array>
#include <cstdint>
#include <vector>

#include <cuzk/ec/jacobian.hpp>

namespace cuzk::ec {

template <std::size_t M>
using scalar_limbs = ff::detail::limbs<M>;

namespace detail {

/// wNAF digits of k, least significant first.
template <std::size_t M>
std::vector<int> wnaf_digits(scalar_limbs<M> k, unsigned w) {
  std::vector<int> digits;
  digits.reserve(64 * M + 1);
  const std::uint64_t mask = (std::uint64_t(1) << w) - 1;
  const std::int64_t half = std::int64_t(1) << (w - 1);
  // one extra limb absorbs the carry when a negative digit rounds k up
  ff::detail::limbs<M + 1> v{};
  for (std::size_t i = 0; i < M; ++i) v[i] = k[i];
  while (!ff::detail::is_zero(v)) {
    int d = 0;
    if (v[0] & 1) {
      std::int64_t r = std::int64_t(v[0] & mask);
      if (r >= half) r -= std::int64_t(1) << w;
      d = int(r);
      if (r > 0) {
        v = ff::detail::sub_small(v, std::uint64_t(r));
      } else {
        v = ff::detail::add_small(v, std::uint64_t(-r));
      }
    }
    digits.push_back(d);
    v = ff::detail::shr(v, 1);
  }
  return digits;
}

}  // namespace detail

/// k * P for a canonical little-endian scalar k.
template <class F, std::size_t M>
jacobian<F> mul(const jacobian<F>& p, const scalar_limbs<M>& k) {
  constexpr unsigned w = 5;
  const auto digits = detail::wnaf_digits(k, w);
  std::array<jacobian<F>, 1u << (w - 2)> odd;  // P, 3P, 5P, ..., 15P
  odd[0] = p;
  const jacobian<F> p2 = p.dbl();
  for (std::size_t i = 1; i < odd.size(); ++i) odd[i] = odd[i - 1] + p2;
  jacobian<F> acc = jacobian<F>::identity();
  for (std::size_t i = digits.size(); i-- > 0;) {
    acc = acc.dbl();
    const int d = digits[i];
    if (d > 0) acc += odd[std::size_t(d / 2)];
    if (d < 0) acc += -odd[std::size_t(-d / 2)];
  }
  return acc;
}

template <class F>
jacobian<F> mul(const jacobian<F>& p, const ff::fr& k) {
  return mul(p, k.to_canonical());
}

template <class F>
jacobian<F> mul(const affine<F>& p, const ff::fr& k) {
  return mul(jacobian<F>::from_affine(p), k.to_canonical());
}

template <class F>
jacobian<F> mul_u64(const jacobian<F>& p, std::uint64_t k) {
  return mul(p, scalar_limbs<1>{k});
}

}  // namespace cuzk::ec
