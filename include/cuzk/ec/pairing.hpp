// SPDX-License-Identifier: Apache-2.0
#pragma once
// The optimal ate pairing on BLS12-381: e: G1 x G2 -> GT, GT the order-r
// subgroup of Fp12^*.
//
// Method
//   Miller loop over |x| = 0xd201000000010000 (64 bits, Hamming weight 6) with
//   the G2 point T kept in homogeneous projective coordinates on the M-type
//   twist E': y^2 = x^3 + 4(u + 1) (Costello, Lange, Naehrig, PKC 2010;
//   a = 0 doubling/addition with line evaluation). Each line, multiplied by
//   w^3 and by an Fp2 factor (both die in the final exponentiation), is the
//   014-sparse element  c0 + (c1 * xP) w^2 + (c4 * yP) w^3,  so the line
//   coefficients depend on Q alone and are precomputed once per G2 point in
//   g2_prepared (the same idea as bellperson's prepared verifying key).
//   x < 0, so the loop value is conjugated at the end (f^(p^6) = 1/f up to
//   factors the final exponentiation removes).
//   A multi-Miller loop shares one Fp12 accumulator: one squaring per bit for
//   the whole product, one sparse multiplication per term and step.
//   The final exponentiation raises to (p^12 - 1)/r * 3: easy part
//   (p^6 - 1)(p^2 + 1) by a conjugate, one inversion and a Frobenius; hard
//   part with the Hayashida-Hayasaka-Teruya decomposition (ePrint 2020/875)
//   3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3,
//   five exponentiations by x using cyclotomic squarings. The factor 3 is
//   coprime to r, so the result is still a non-degenerate bilinear pairing;
//   it is the convention of zkcrypto/bls12_381, blst and bellperson, and the
//   values agree byte for byte (pairing_test.known_answer_generators).
//
// Costs (Fp2 M2/S2; see bench/pairing_bench.cpp for measured times)
//   prepare Q       63 doublings (3 M2 + 6 S2) + 5 additions (11 M2 + 2 S2)
//   Miller loop     per bit: 1 Fp12 sqr (12 M2) shared, per term 13 M2 + 4 Fp mul
//   final exp       ~ 5 * (63 cyclotomic squarings of 9 S2 + 5 Fp12 mul)
//                   + one Fp inversion
//
// Invariants: points are affine with infinity as x = y = 0 (is_infinity());
// a term with infinity on either side contributes 1. Points must lie in G1
// and G2 (callers subgroup-check untrusted input); other points give
// meaningless values but no undefined behaviour. Not constant time: for
// public data (proof verification).

#include <array>
#include <cstddef>
#include <span>

#include <cuzk/ec/bls12_381.hpp>
#include <cuzk/ff/fp12.hpp>

namespace cuzk::ec {

/// GT elements are Fp12 elements of order r; the identity is ff::fp12::one().
using gt = ff::fp12;

/// Coefficients of one Miller-loop line; at P = (xP, yP) the line is the
/// fp12 ((c0, c1 xP, 0), (0, c4 yP, 0)), multiplied in with mul_by_014.
struct line_coeffs {
  ff::fp2 c0, c1, c4;
};

/// A G2 point with its Miller-loop lines precomputed (63 doubling and 5
/// addition steps, in loop order). 19.6 KB; prepare once per fixed point
/// (verifying keys), on the fly otherwise.
class g2_prepared {
 public:
  static constexpr std::size_t n_lines = 68;

  /// The point at infinity (contributes 1 to every pairing).
  g2_prepared() = default;
  explicit g2_prepared(const g2_affine& q);

  bool is_infinity() const { return _infinity; }
  std::span<const line_coeffs, n_lines> lines() const { return _lines; }

 private:
  std::array<line_coeffs, n_lines> _lines{};
  bool _infinity = true;
};

/// One factor of a product of Miller loops; |q| must outlive the call.
struct miller_term {
  g1_affine p;
  const g2_prepared* q;
};

/// prod_i f_{x, Q_i}(P_i): the Miller loop of every term with one shared
/// accumulator (not yet exponentiated). Empty input or all-infinity gives 1.
gt miller_loop(std::span<const miller_term> terms);
gt miller_loop(const g1_affine& p, const g2_prepared& q);

/// f^(3 (p^12 - 1)/r); see the file comment for the factor 3.
gt final_exponentiation(const gt& f);

/// e(P, Q).
gt pairing(const g1_affine& p, const g2_affine& q);

/// prod_i e(P_i, Q_i) with one Miller loop and one final exponentiation.
/// Throws std::invalid_argument when the spans differ in length.
gt multi_pairing(std::span<const g1_affine> ps, std::span<const g2_affine> qs);
gt multi_pairing(std::span<const miller_term> terms);

}  // namespace cuzk::ec
