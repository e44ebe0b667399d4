// SPDX-License-Identifier: Apache-2.0
#pragma once
// Variable-base scalar multiplication by a width-w NAF (w = 5): the scalar is
// recoded into digits in {0, +-1, +-3, ..., +-15}, so a 255-bit scalar costs
// about 255 doublings plus 255/6 additions, using a table of 8 odd multiples.
// Not constant time: for public points and scalars (tests, setup, checks).
// This is mul(P, scalar_limbs) for every group, and mul(P, fr) for G1.
//
// mul(P, fr) on G2 (F = Fp2) is mul_gls instead: the psi endomorphism splits
// the scalar into four 64-bit parts, so ~60 doublings replace ~255, with a
// regular schedule (see mul_gls below). Its precondition is P in G2, the
// prime-order subgroup; every G2 point the code multiplies by an fr (keys,
// proofs, generator multiples) is one. For a point outside G2 (tests of the
// subgroup checks) use mul(P, k.to_canonical()), the generic path, which is
// also the reference the GLS path is tested against.
//
// Scalars come in two types, never mixed up: ff::fr (a Montgomery element,
// converted to its canonical integer here) and scalar_limbs (a canonical
// little-endian integer of any length, e.g. the group order for subgroup
// checks).

#include <array>
#include <cstdint>
#include <type_traits>
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

/// [k]P for P in G2 by the GLS method (src/ec/g2_mul.cpp). k mod r is
/// written in base |x| (x = -0xd201000000010000 the BLS parameter) as
/// k = a0 + a1 |x| + a2 |x|^2 + a3 |x|^3, 0 <= ai < |x| < 2^64, and since
/// psi(P) = [x]P on G2, [k]P = [a0]P + [a1](-psi P) + [a2]psi^2 P + [a3](-psi^3 P).
/// Each part is made odd (+1 when even, taken back at the end) and recoded in
/// 16 signed odd 4-bit digits (never zero); a table of P, 3P, ..., 15P in
/// affine coordinates (one inversion) gives the other three tables by psi.
/// Then 60 doublings and 63 mixed additions, the same sequence for every
/// scalar, plus 4 mixed additions whose results are kept or dropped by a
/// mask. Cost: about 0.5x the generic wNAF (bench/RESULTS.md, 2026-12-03).
///
/// Side channels (s in proof assembly is a secret blinding factor): the
/// operation sequence, the table reads (all entries read, selected by
/// masks) and the parity corrections (masked selection) do not depend on k.
/// Not constant time in the strict sense: (1) the decomposition divides by
/// |x| with 128-by-64-bit hardware division, whose latency can depend on the
/// operands on some CPUs; (2) the point formulas branch on exceptional cases
/// (an operand at infinity, P == +-Q), which a secret random scalar hits
/// with negligible probability but specific scalars can reach; the result is
/// still correct then. Precondition: P in G2 (on a point outside G2 the
/// result is not [k]P).
jacobian<ff::fp2> mul_gls(const jacobian<ff::fp2>& p, const ff::fr& k);

template <class F>
jacobian<F> mul(const jacobian<F>& p, const ff::fr& k) {
  if constexpr (std::is_same_v<F, ff::fp2>) {
    return mul_gls(p, k);
  } else {
    return mul(p, k.to_canonical());
  }
}

template <class F>
jacobian<F> mul(const affine<F>& p, const ff::fr& k) {
  return mul(jacobian<F>::from_affine(p), k);
}

template <class F>
jacobian<F> mul_u64(const jacobian<F>& p, std::uint64_t k) {
  return mul(p, scalar_limbs<1>{k});
}

}  // namespace cuzk::ec
