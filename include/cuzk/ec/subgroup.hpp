// SPDX-License-Identifier: Apache-2.0
#pragma once
// Prime-order subgroup checks, the G1 GLV and the G2 GLS decompositions for
// BLS12-381.
//
// Method (Scott 2021, "A note on group membership tests for G1, G2 and GT on
// BLS pairing-friendly curves", ePrint 2021/1130, sections 4 and 6; proofs
// completed in ePrint 2022/352): with x = -0xd201000000010000 the BLS
// parameter,
//   G1: phi(x, y) = (beta*x, y), beta a primitive cube root of unity in Fp,
//       acts on G1 as multiplication by lambda = -x^2 (for the right one of
//       the two betas); P is in G1 iff phi(P) == -[x^2]P.
//   G2: psi = twist^-1 o Frobenius o twist, psi(x, y) =
//       (conj(x) * cx, conj(y) * cy) with cx = 1/(1+u)^((p-1)/3),
//       cy = 1/(1+u)^((p-1)/2); P is in G2 iff psi(P) == [x]P.
// Both constants are derived from their definitions on first use
// (src/ec/subgroup.cpp): beta = g^((p-1)/3) for the first non-cube g, with
// the orientation fixed by testing phi(G1) == -[x^2]G1; cx and cy by
// exponentiation in Fp2. Nothing long is typed in.
//
// Costs: [x]P is 63 doublings + 5 additions (|x| has 6 set bits), so the G1
// test is ~126 dbl + 10 add and the G2 test ~63 dbl + 5 add (in Fp2), against
// 255 dbl + ~43 add for the slow oracle [r]P == O, kept here for tests.
//
// GLV (Gallant-Lambert-Vanstone) for G1: r = x^4 - x^2 + 1, so dividing a
// canonical scalar k < r by x^2 gives k = k1 + k2*x^2 with 0 <= k1 < x^2 < 2^128
// and 0 <= k2 <= x^2 - 1 (no lattice rounding needed), and
// [k]P = [k1]P + [k2](-phi(P)) = [k1]P + [k2][x^2]P. The two 128-bit
// scalars are recoded as width-5 NAFs and evaluated by interleaving (Straus):
// ~128 doublings instead of ~255. The table for -phi(P) costs nothing beyond
// the one for P (multiply X by beta, negate Y). Valid only for P in G1, the
// eigenspace of phi.
//
// GLS for G2 (Galbraith-Lin-Scott): psi acts on G2 as [x], and r < |x|^4, so
// a canonical k < r has four base-|x| digits k = a0 + a1|x| + a2|x|^2 +
// a3|x|^3, each below |x| < 2^64, with no lattice reduction; [k]P is then a
// 4-dimensional multi-scalar product over P, -psi(P), psi^2(P), -psi^3(P)
// with ~64-bit scalars (mul_gls, src/ec/g2_mul.cpp; ec::mul on G2 uses it).
//
// Preconditions: inputs are on the curve (decoders check that first); the
// subgroup tests say nothing useful about off-curve points. Not constant time.

#include <array>
#include <cstdint>

#include <cuzk/ec/bls12_381.hpp>

namespace cuzk::ec {

/// [x]P for the signed BLS parameter x = -|x| (63 doublings + 5 additions).
template <class F>
jacobian<F> mul_by_x(const jacobian<F>& p) {
  jacobian<F> acc = p;
  for (int i = 62; i >= 0; --i) {
    acc = acc.dbl();
    if ((bls_x_abs >> i) & 1) acc += p;
  }
  return bls_x_is_negative ? -acc : acc;
}

/// [x]P for an affine P, with mixed additions.
template <class F>
jacobian<F> mul_by_x(const affine<F>& p) {
  if (p.is_infinity()) return jacobian<F>::identity();
  jacobian<F> acc = jacobian<F>::from_affine(p);
  for (int i = 62; i >= 0; --i) {
    acc = acc.dbl();
    if ((bls_x_abs >> i) & 1) acc = acc.add_affine(p);
  }
  return bls_x_is_negative ? -acc : acc;
}

/// x^2 = |x|^2 as a 128-bit little-endian integer.
inline constexpr scalar_limbs<2> bls_x_squared = {std::uint64_t(ff::detail::u128(bls_x_abs) * bls_x_abs),
                                                  std::uint64_t((ff::detail::u128(bls_x_abs) * bls_x_abs) >> 64)};

/// The primitive cube root of unity in Fp for which phi acts on G1 as [-x^2].
const ff::fp& g1_beta();
/// psi's coefficients 1/(1+u)^((p-1)/3) and 1/(1+u)^((p-1)/2).
const ff::fp2& g2_psi_coeff_x();
const ff::fp2& g2_psi_coeff_y();

/// phi(x, y) = (beta*x, y); on Jacobian coordinates (beta*X, Y, Z).
g1_affine phi(const g1_affine& p);
g1_jacobian phi(const g1_jacobian& p);
/// psi(x, y) = (conj(x)*cx, conj(y)*cy); on Jacobian (conj(X)*cx, conj(Y)*cy, conj(Z)).
g2_affine psi(const g2_affine& p);
g2_jacobian psi(const g2_jacobian& p);

/// Fast prime-order subgroup membership (Scott 2021). Infinity is a member.
/// Precondition: p is on the curve.
bool is_in_subgroup(const g1_affine& p);
bool is_in_subgroup(const g1_jacobian& p);
bool is_in_subgroup(const g2_affine& p);
bool is_in_subgroup(const g2_jacobian& p);

/// Test oracle: [r]P == O by plain scalar multiplication (~2x-4x slower).
bool is_in_subgroup_slow(const g1_affine& p);
bool is_in_subgroup_slow(const g1_jacobian& p);
bool is_in_subgroup_slow(const g2_affine& p);
bool is_in_subgroup_slow(const g2_jacobian& p);

/// k = k1 + k2 * x^2 as integers, for a canonical k < r; k1 < x^2, k2 < x^2.
struct glv_scalars {
  scalar_limbs<2> k1, k2;
};
glv_scalars glv_decompose(const scalar_limbs<4>& k);

/// [k]P by the GLV method. Precondition: P in G1 (else the result is wrong).
g1_jacobian mul_glv(const g1_jacobian& p, const ff::fr& k);
g1_jacobian mul_glv(const g1_affine& p, const ff::fr& k);

/// GLS for G2: k = a[0] + a[1] |x| + a[2] |x|^2 + a[3] |x|^3 as integers,
/// 0 <= a[i] < |x| < 2^64, for a canonical k < r (< |x|^4). As x = -|x|, this
/// is k = a0 - a1 x + a2 x^2 - a3 x^3, so [k]P = sum a[i] (-1)^i psi^i(P) on G2.
struct gls_scalars {
  std::array<std::uint64_t, 4> a;
};
gls_scalars gls_decompose(const scalar_limbs<4>& k);

/// [k]P by the GLS method (declared with the generic mul in scalar_mul.hpp,
/// where mul(g2 point, fr) forwards to it). Precondition: P in G2.
g2_jacobian mul_gls(const g2_affine& p, const ff::fr& k);

}  // namespace cuzk::ec
