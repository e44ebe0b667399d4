// SPDX-License-Identifier: Apache-2.0
// Optimal ate pairing on BLS12-381: G2 line precomputation, multi-Miller loop,
// final exponentiation. Method, invariants and costs: include/cuzk/ec/pairing.hpp.
//
// Line derivation (M-type twist). psi(x', y') = (x' w^-2, y' w^-3) maps
// E'(Fp2): y^2 = x^3 + b', b' = 4 xi, into E(Fp12). For the tangent at
// T = (x', y') the slope on E is lambda' w^-1, lambda' = 3 x'^2 / (2 y'), and
// the line at P = (xP, yP), times w^3, is
//   (lambda' x' - y') - lambda' xP w^2 + yP w^3.
// With T = (X : Y : Z), x' = X/Z, y' = Y/Z, and multiplied by 2YZ (using
// X^3 = Y^2 Z - b' Z^3):
//   (Y^2 - 3 b' Z^2) - 3 X^2 xP w^2 + 2 Y Z yP w^3.
// For the chord through T and the affine Q = (x2, y2), with
// theta = Y - y2 Z and lambda = X - x2 Z (slope theta/lambda), times lambda:
//   (theta x2 - lambda y2) - theta xP w^2 + lambda yP w^3.
// Both are 014-sparse; w^3 and the Fp2 factors lie in proper subfields and
// vanish in the final exponentiation.

#include <cuzk/ec/pairing.hpp>

#include <stdexcept>
#include <vector>

namespace cuzk::ec {

namespace {

using ff::fp;
using ff::fp12;
using ff::fp2;

static_assert(ff::fp12::x_abs == bls_x_abs && bls_x_is_negative);
static_assert((bls_x_abs >> 63) == 1, "the loops below start below bit 63");
static_assert(g2_prepared::n_lines == 63 + std::size_t(__builtin_popcountll(bls_x_abs)) - 1);

struct g2_projective {
  fp2 x, y, z;
};

fp2 half(const fp2& a) { return {a.c0.half(), a.c1.half()}; }

/// 3 b' a = 12 (u + 1) a.
fp2 mul_by_3b(const fp2& a) {
  const fp2 t = a.mul_by_nonresidue().dbl().dbl();  // 4 xi a
  return t.dbl() + t;
}

/// T <- 2T, returning the tangent line at T (CLN 2010, a = 0):
///   A = XY/2, B = Y^2, C = Z^2, E = 3b'C, F = 3E, G = (B+F)/2, H = 2YZ,
///   X3 = A (B - F), Y3 = G^2 - 3 E^2, Z3 = B H;
///   line (B - E, -3X^2, H).  3 M2 + 6 S2.
line_coeffs doubling_step(g2_projective& t) {
  const fp2 a = half(t.x * t.y);
  const fp2 b = t.y.sqr();
  const fp2 c = t.z.sqr();
  const fp2 e = mul_by_3b(c);
  const fp2 f = e.dbl() + e;
  const fp2 g = half(b + f);
  const fp2 h = (t.y + t.z).sqr() - (b + c);
  const fp2 x2 = t.x.sqr();
  const fp2 e2 = e.sqr();
  line_coeffs l{b - e, -(x2.dbl() + x2), h};
  t.x = a * (b - f);
  t.y = g.sqr() - (e2.dbl() + e2);
  t.z = b * h;
  return l;
}

/// T <- T + Q for affine Q, returning the chord through T and Q:
///   theta = Y - y2 Z, lambda = X - x2 Z, C = theta^2, D = lambda^2,
///   E = lambda D, F = Z C, G = X D, H = E + F - 2G,
///   X3 = lambda H, Y3 = theta (G - H) - Y E, Z3 = Z E;
///   line (theta x2 - lambda y2, -theta, lambda).  11 M2 + 2 S2.
line_coeffs addition_step(g2_projective& t, const g2_affine& q) {
  const fp2 theta = t.y - q.y * t.z;
  const fp2 lambda = t.x - q.x * t.z;
  const fp2 c = theta.sqr();
  const fp2 d = lambda.sqr();
  const fp2 e = lambda * d;
  const fp2 f = t.z * c;
  const fp2 g = t.x * d;
  const fp2 h = e + f - g.dbl();
  line_coeffs l{theta * q.x - lambda * q.y, -theta, lambda};
  t.x = lambda * h;
  t.y = theta * (g - h) - t.y * e;
  t.z = t.z * e;
  return l;
}

/// f <- f * line(P); |yp| and |xp| are P's coordinates.
inline void ell(fp12& f, const line_coeffs& l, const fp& xp, const fp& yp) {
  f = f.mul_by_014(l.c0, l.c1 * xp, l.c4 * yp);
}

}  // namespace

g2_prepared::g2_prepared(const g2_affine& q) {
  if (q.is_infinity()) return;  // _infinity stays true
  _infinity = false;
  g2_projective t{q.x, q.y, fp2::one()};
  std::size_t n = 0;
  for (int i = 62; i >= 0; --i) {
    _lines[n++] = doubling_step(t);
    if ((bls_x_abs >> i) & 1) _lines[n++] = addition_step(t, q);
  }
}

gt miller_loop(std::span<const miller_term> terms) {
  // keep only the terms that are not trivially 1
  std::vector<miller_term> live;
  live.reserve(terms.size());
  for (const auto& t : terms) {
    if (!t.p.is_infinity() && t.q != nullptr && !t.q->is_infinity()) live.push_back(t);
  }
  fp12 f = fp12::one();
  if (live.empty()) return f;

  std::size_t n = 0;
  bool f_is_one = true;
  auto mul_lines = [&](std::size_t idx) {
    for (const auto& t : live) {
      const line_coeffs& l = t.q->lines()[idx];
      if (f_is_one) {  // 1 * line: write the sparse element directly
        f = fp12::zero();
        f.c0.c0 = l.c0;
        f.c0.c1 = l.c1 * t.p.x;
        f.c1.c1 = l.c4 * t.p.y;
        f_is_one = false;
      } else {
        ell(f, l, t.p.x, t.p.y);
      }
    }
  };
  for (int i = 62; i >= 0; --i) {
    if (!f_is_one) f = f.sqr();
    mul_lines(n++);
    if ((bls_x_abs >> i) & 1) mul_lines(n++);
  }
  // x < 0: f_{x,Q} = 1 / f_{|x|,Q} up to factors killed by the final exponentiation
  return f.conjugate();
}

gt miller_loop(const g1_affine& p, const g2_prepared& q) {
  const miller_term t{p, &q};
  return miller_loop(std::span<const miller_term>(&t, 1));
}

gt final_exponentiation(const gt& f) {
  // easy part: f^((p^6 - 1)(p^2 + 1)), lands in the cyclotomic subgroup
  fp12 t = f.conjugate() * f.inverse();
  t = t.frobenius_map(2) * t;
  // hard part: t^(3 (p^4 - p^2 + 1)/r) = t^((x-1)^2 (x+p)(x^2+p^2-1) + 3)
  const fp12 a1 = t.cyclotomic_pow_x() * t.conjugate();                                         // t^(x-1)
  const fp12 a = a1.cyclotomic_pow_x() * a1.conjugate();                                        // t^((x-1)^2)
  const fp12 b = a.cyclotomic_pow_x() * a.frobenius_map(1);                                     // a^(x+p)
  const fp12 c = b.cyclotomic_pow_x().cyclotomic_pow_x() * b.frobenius_map(2) * b.conjugate();  // b^(x^2 + p^2 - 1)
  return c * t.cyclotomic_sqr() * t;
}

gt pairing(const g1_affine& p, const g2_affine& q) {
  if (p.is_infinity() || q.is_infinity()) return gt::one();
  const g2_prepared qp(q);
  return final_exponentiation(miller_loop(p, qp));
}

gt multi_pairing(std::span<const miller_term> terms) { return final_exponentiation(miller_loop(terms)); }

gt multi_pairing(std::span<const g1_affine> ps, std::span<const g2_affine> qs) {
  if (ps.size() != qs.size()) throw std::invalid_argument("multi_pairing: length mismatch");
  std::vector<g2_prepared> prepared;
  prepared.reserve(qs.size());
  std::vector<miller_term> terms;
  terms.reserve(qs.size());
  for (std::size_t i = 0; i < qs.size(); ++i) {
    if (ps[i].is_infinity() || qs[i].is_infinity()) continue;
    prepared.emplace_back(qs[i]);
  }
  for (std::size_t i = 0, j = 0; i < qs.size(); ++i) {
    if (ps[i].is_infinity() || qs[i].is_infinity()) continue;
    terms.push_back({ps[i], &prepared[j++]});
  }
  return multi_pairing(terms);
}

}  // namespace cuzk::ec
