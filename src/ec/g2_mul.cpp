// SPDX-License-Identifier: Apache-2.0
// G2 scalar multiplication with the psi endomorphism (GLS): the method, its
// cost and what it leaks are described at mul_gls in
// include/cuzk/ec/scalar_mul.hpp; the decomposition at gls_decompose in
// include/cuzk/ec/subgroup.hpp.
#include <array>
#include <cstdint>

#include <cuzk/ec/subgroup.hpp>

namespace cuzk::ec {

namespace {

using ff::fp;
using ff::fp2;
using ff::fr;

constexpr unsigned gls_w = 4;                      // window bits
constexpr unsigned gls_table = 1u << (gls_w - 1);  // odd multiples 1, 3, ..., 15
constexpr unsigned gls_digits = 16;                // 15 * 4 + top digit covers 64 bits

using digits = std::array<std::int8_t, gls_digits>;
using table = std::array<g2_affine, gls_table>;

// ---- masked (branch-free) selection ---------------------------------------

inline void cmov(fp& r, const fp& a, std::uint64_t mask) {
  for (std::size_t i = 0; i < fp::n_limbs; ++i) r.l[i] ^= (r.l[i] ^ a.l[i]) & mask;
}
inline void cmov(fp2& r, const fp2& a, std::uint64_t mask) {
  cmov(r.c0, a.c0, mask);
  cmov(r.c1, a.c1, mask);
}
inline void cmov(g2_jacobian& r, const g2_jacobian& a, std::uint64_t mask) {
  cmov(r.x, a.x, mask);
  cmov(r.y, a.y, mask);
  cmov(r.z, a.z, mask);
}

/// all ones when a == b, else 0 (a, b < 2^63)
inline std::uint64_t eq_mask(std::uint64_t a, std::uint64_t b) { return 0 - (((a ^ b) - 1) >> 63); }

/// [d]T for an odd digit d in [-15, 15], reading all eight entries of the
/// table and negating y by a mask: the memory access pattern and the
/// instruction sequence do not depend on d.
g2_affine lookup(const table& t, std::int8_t d) {
  const std::uint64_t neg = std::uint64_t(std::int64_t(d) >> 63);  // all ones when d < 0
  const std::uint64_t abs = (std::uint64_t(std::int64_t(d)) ^ neg) - neg;
  const std::uint64_t idx = (abs - 1) >> 1;
  g2_affine r = g2_affine::identity();
  for (std::size_t j = 0; j < t.size(); ++j) {
    const std::uint64_t m = eq_mask(j, idx);
    cmov(r.x, t[j].x, m);
    cmov(r.y, t[j].y, m);
  }
  const fp2 minus_y = -r.y;
  cmov(r.y, minus_y, neg);
  return r;
}

/// Regular signed-window recoding of an odd k < 2^64 - 16: k = sum_j d_j 16^j
/// with every d_j odd and in [-15, 15] (Okeya-Takagi / Joye-Tunstall style:
/// d_j = (k mod 32) - 16, k <- (k - d_j) / 16, which stays odd). No digit is
/// zero, so every window costs the same addition. For k <= |x| the top digit
/// is positive and at most 14 (|x| / 16^15 = 13.1...).
digits recode_odd(std::uint64_t k) {
  digits d{};
  for (unsigned j = 0; j + 1 < gls_digits; ++j) {
    const std::int64_t dj = std::int64_t(k & 31) - 16;
    d[j] = std::int8_t(dj);
    k = (k - std::uint64_t(dj)) >> gls_w;  // k - dj <= k + 15, no wrap for k <= |x|
  }
  d[gls_digits - 1] = std::int8_t(k);
  return d;
}

/// psi^2(x, y) = (x * N(cx), y * N(cy)) with N the norm to Fp (psi twice:
/// conj(conj(x) cx) cx = x conj(cx) cx): two Fp-scalar products, no conjugation.
struct psi2_coeffs {
  fp nx, ny;
};
const psi2_coeffs& psi2_constants() {
  static const psi2_coeffs c{g2_psi_coeff_x().norm(), g2_psi_coeff_y().norm()};
  return c;
}
g2_affine psi2(const g2_affine& p) {
  const auto& c = psi2_constants();
  return {p.x * c.nx, p.y * c.ny};
}

/// The eight odd multiples P, 3P, ..., 15P in affine coordinates (one
/// inversion for all of them). Entries that are infinity (only for P
/// outside G2 of small order) come out as the affine identity.
table odd_multiples(const g2_jacobian& p) {
  std::array<g2_jacobian, gls_table> j;
  j[0] = p;
  const g2_jacobian p2 = p.dbl();
  for (std::size_t i = 1; i < j.size(); ++i) j[i] = j[i - 1] + p2;
  std::array<fp2, gls_table> prefix;
  fp2 acc = fp2::one();
  for (std::size_t i = 0; i < j.size(); ++i) {
    prefix[i] = acc;
    if (!j[i].is_infinity()) acc *= j[i].z;
  }
  fp2 inv = acc.inverse();
  table t;
  for (std::size_t i = j.size(); i-- > 0;) {
    if (j[i].is_infinity()) {
      t[i] = g2_affine::identity();
      continue;
    }
    const fp2 zi = inv * prefix[i];
    inv *= j[i].z;
    const fp2 zi2 = zi.sqr();
    t[i] = {j[i].x * zi2, j[i].y * zi2 * zi};
  }
  return t;
}

}  // namespace

gls_scalars gls_decompose(const scalar_limbs<4>& k) {
  // Base-|x| digits: k = a0 + a1 |x| + a2 |x|^2 + a3 |x|^3 with 0 <= ai < |x|;
  // since r = x^4 - x^2 + 1 < |x|^4, every k < r has a3 < |x|.
  const auto [q1, a0] = ff::detail::div_small(k, bls_x_abs);
  const auto [q2, a1] = ff::detail::div_small(q1, bls_x_abs);
  const auto [q3, a2] = ff::detail::div_small(q2, bls_x_abs);
  return {{a0, a1, a2, q3[0]}};
}

g2_jacobian mul_gls(const g2_jacobian& p, const ff::fr& k) {
  if (p.is_infinity()) return p;
  const gls_scalars s = gls_decompose(k.to_canonical());
  // [k]P = sum ai [|x|^i]P = sum ai Pi with Pi = [(-x)^i]P = (-1)^i psi^i(P).
  // Each ai is made odd by adding ei = 1 - (ai mod 2); the surplus ei Pi is
  // taken off at the end by a masked selection.
  std::array<std::uint64_t, 4> even{};
  std::array<digits, 4> d;
  for (std::size_t i = 0; i < 4; ++i) {
    even[i] = (s.a[i] & 1) ^ 1;
    d[i] = recode_odd(s.a[i] + even[i]);
  }
  std::array<table, 4> t;
  t[0] = odd_multiples(p);
  for (std::size_t j = 0; j < gls_table; ++j) {
    t[1][j] = -psi(t[0][j]);  // [-x][jP] = [|x|][jP]
    t[2][j] = psi2(t[0][j]);  // [x^2][jP]
    t[3][j] = -psi(t[2][j]);  // [-x^3][jP] = [|x|^3][jP]
  }

  g2_jacobian acc = g2_jacobian::from_affine(lookup(t[0], d[0][gls_digits - 1]));
  for (std::size_t i = 1; i < 4; ++i) acc = acc.add_affine(lookup(t[i], d[i][gls_digits - 1]));
  for (unsigned j = gls_digits - 1; j-- > 0;) {
    for (unsigned b = 0; b < gls_w; ++b) acc = acc.dbl();
    for (std::size_t i = 0; i < 4; ++i) acc = acc.add_affine(lookup(t[i], d[i][j]));
  }
  for (std::size_t i = 0; i < 4; ++i) {
    const g2_jacobian corrected = acc.add_affine(-t[i][0]);
    cmov(acc, corrected, 0 - even[i]);
  }
  return acc;
}

g2_jacobian mul_gls(const g2_affine& p, const ff::fr& k) { return mul_gls(g2_jacobian::from_affine(p), k); }

}  // namespace cuzk::ec
