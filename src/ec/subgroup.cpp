// SPDX-License-Identifier: Apache-2.0
// Subgroup checks, the endomorphisms phi (G1) and psi (G2), and GLV scalar
// multiplication for BLS12-381. Method, sources and costs: see
// include/cuzk/ec/subgroup.hpp.
#include <cuzk/ec/subgroup.hpp>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace cuzk::ec {

namespace {

using ff::fp;
using ff::fp2;
using ff::fr;
using ff::detail::limbs;
using ff::detail::u128;

using ff::detail::div_small;

constexpr auto p_minus_1 = ff::detail::sub_small(fp::modulus, 1);

fp compute_beta() {
  // p = 1 mod 3, so Fp* has cube roots of unity: g^((p-1)/3) for a non-cube g.
  const auto [e, rem] = div_small(p_minus_1, 3);
  if (rem != 0) throw std::logic_error("subgroup: p != 1 mod 3");
  fp beta = fp::one();
  for (std::uint64_t g = 2; beta.is_one(); ++g) beta = fp::from_uint(g).pow(e);
  // Pick the root whose phi is [-x^2] on G1 (the other one, beta^2, gives x^2 - 1).
  const g1_jacobian gen = g1_jacobian::generator();
  const g1_jacobian minus_x2_g = -mul_by_x(mul_by_x(gen));
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (g1_jacobian{gen.x * beta, gen.y, gen.z} == minus_x2_g) return beta;
    beta = beta.sqr();
  }
  throw std::logic_error("subgroup: no cube root of unity gives phi = [-x^2] on G1");
}

struct psi_coeffs {
  fp2 cx, cy;
};

psi_coeffs compute_psi_coeffs() {
  const auto [e3, rem3] = div_small(p_minus_1, 3);
  const auto [e2, rem2] = div_small(p_minus_1, 2);
  if (rem3 != 0 || rem2 != 0) throw std::logic_error("subgroup: bad exponent for psi");
  const fp2 xi{fp::one(), fp::one()};  // 1 + u, the twist's non-residue
  return {xi.pow(e3).inverse(), xi.pow(e2).inverse()};
}

const psi_coeffs& psi_constants() {
  static const psi_coeffs c = compute_psi_coeffs();
  return c;
}

template <class J>
bool slow_check(const J& p) {
  return mul(p, fr::modulus).is_infinity();
}

// -phi(P) on Jacobian coordinates: (beta X, -Y, Z) = [x^2]P on G1.
g1_jacobian neg_phi(const g1_jacobian& p, const fp& beta) { return {p.x * beta, -p.y, p.z}; }

}  // namespace

const fp& g1_beta() {
  static const fp beta = compute_beta();
  return beta;
}
const fp2& g2_psi_coeff_x() { return psi_constants().cx; }
const fp2& g2_psi_coeff_y() { return psi_constants().cy; }

g1_affine phi(const g1_affine& p) { return {p.x * g1_beta(), p.y}; }
g1_jacobian phi(const g1_jacobian& p) { return {p.x * g1_beta(), p.y, p.z}; }

g2_affine psi(const g2_affine& p) {
  const auto& c = psi_constants();
  return {p.x.conjugate() * c.cx, p.y.conjugate() * c.cy};
}
g2_jacobian psi(const g2_jacobian& p) {
  const auto& c = psi_constants();
  return {p.x.conjugate() * c.cx, p.y.conjugate() * c.cy, p.z.conjugate()};
}

bool is_in_subgroup(const g1_affine& p) {
  if (p.is_infinity()) return true;
  return g1_jacobian::from_affine(phi(p)) == -mul_by_x(mul_by_x(p));
}
bool is_in_subgroup(const g1_jacobian& p) {
  if (p.is_infinity()) return true;
  return phi(p) == -mul_by_x(mul_by_x(p));
}
bool is_in_subgroup(const g2_affine& p) {
  if (p.is_infinity()) return true;
  return g2_jacobian::from_affine(psi(p)) == mul_by_x(p);
}
bool is_in_subgroup(const g2_jacobian& p) {
  if (p.is_infinity()) return true;
  return psi(p) == mul_by_x(p);
}

bool is_in_subgroup_slow(const g1_affine& p) { return slow_check(g1_jacobian::from_affine(p)); }
bool is_in_subgroup_slow(const g1_jacobian& p) { return slow_check(p); }
bool is_in_subgroup_slow(const g2_affine& p) { return slow_check(g2_jacobian::from_affine(p)); }
bool is_in_subgroup_slow(const g2_jacobian& p) { return slow_check(p); }

glv_scalars glv_decompose(const scalar_limbs<4>& k) {
  // k = (q * |x| + r2) * |x| + r1 = q * x^2 + (r2 * |x| + r1), with r2*|x| + r1 < x^2.
  const auto [q1, r1] = div_small(k, bls_x_abs);
  const auto [q, r2] = div_small(q1, bls_x_abs);
  const u128 k1 = u128(r2) * bls_x_abs + r1;
  // k < 2^256 gives q < 2^256 / x^2 < 2^129; for k < r, q <= x^2 - 1 < 2^128.
  return {{std::uint64_t(k1), std::uint64_t(k1 >> 64)}, {q[0], q[1]}};
}

g1_jacobian mul_glv(const g1_jacobian& p, const ff::fr& k) {
  constexpr unsigned w = 5;
  const glv_scalars s = glv_decompose(k.to_canonical());
  const auto d1 = detail::wnaf_digits(s.k1, w);
  const auto d2 = detail::wnaf_digits(s.k2, w);
  std::array<g1_jacobian, 1u << (w - 2)> t1, t2;  // odd multiples of P and of [x^2]P
  const fp& beta = g1_beta();
  t1[0] = p;
  const g1_jacobian p2 = p.dbl();
  for (std::size_t i = 1; i < t1.size(); ++i) t1[i] = t1[i - 1] + p2;
  for (std::size_t i = 0; i < t1.size(); ++i) t2[i] = neg_phi(t1[i], beta);
  g1_jacobian acc = g1_jacobian::identity();
  for (std::size_t i = std::max(d1.size(), d2.size()); i-- > 0;) {
    acc = acc.dbl();
    if (i < d1.size() && d1[i] != 0) {
      const int d = d1[i];
      acc += d > 0 ? t1[std::size_t(d / 2)] : -t1[std::size_t(-d / 2)];
    }
    if (i < d2.size() && d2[i] != 0) {
      const int d = d2[i];
      acc += d > 0 ? t2[std::size_t(d / 2)] : -t2[std::size_t(-d / 2)];
    }
  }
  return acc;
}

g1_jacobian mul_glv(const g1_affine& p, const ff::fr& k) { return mul_glv(g1_jacobian::from_affine(p), k); }

}  // namespace cuzk::ec
