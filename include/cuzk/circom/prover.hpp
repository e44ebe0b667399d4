// SPDX-License-Identifier: Apache-2.0
#pragma once
// A Groth16 prover and verifier for circom circuits with snarkjs keys
// (.zkey on BLS12-381), following snarkjs's conventions so that its proofs
// verify with `snarkjs groth16 verify` and, for fixed r and s, are the same
// group elements snarkjs (or the reference noble_prove.mjs) computes.
//
// Method (docs/FORMATS.md §5.7), n = domain_size:
//   1. a[row] += coef * w[signal] over the zkey's section 4 (matrix 0 -> a,
//      1 -> b); c = a o b. The C matrix is never needed.
//   2. For each of a, b, c: interpolate on <omega_n> (iNTT), multiply
//      coefficient k by zeta^k with zeta = omega_2n, evaluate on <omega_n>
//      (NTT): the values on the odd coset zeta<omega_n>, i.e. at the odd
//      powers zeta^(2i+1) of the 2n-th roots. p_i = a'_i b'_i - c'_i. The
//      zkey's H points are [L^{2n}_{2i+1}(tau)/delta]_1 with Z(x) = -2 on that
//      coset folded in, so p is used as is: no division by Z.
//   3. pi_A = alpha1 + sum w_i A_i + r delta1
//      pi_B = beta2 + sum w_i B2_i + s delta2
//      pi_C = sum_{i > nPublic} w_i C_i + sum_i p_i H_i + s pi_A + r B1 - rs delta1,
//      B1 = beta1 + sum w_i B1_i + s delta1 (only computed when r != 0).
//
// Roots of unity. snarkjs (ffjavascript) takes omega_{2^32} = 5^((r-1)/2^32),
// bellperson/cuzk::ntt take 7^((r-1)/2^32); both generate the same cyclic
// group, so omega_s = omega_b^j for a fixed odd j (found once by a 32-step
// Pohlig-Hellman). The snarkjs row k is the point omega_s^k = omega_b^(jk),
// so the prover places row k at index jk mod n, runs cuzk::ntt's transforms
// unchanged, and reads the coset values back through the same permutation.
// Only the coset shift zeta (snarkjs's omega_2n) is applied by hand.
//
// Invariants: inputs are validated io::zkey_file objects; |w| holds nVars
// Montgomery elements (w[0] = 1 for a meaningful proof). Outputs are affine.
//
// Costs: 6 NTTs of size n and 3n extra multiplications; MSMs of nVars (A,
// B1, B2 in G2), nVars - nPublic - 1 (C) and n (H) terms; the G2 MSM
// dominates as in snarkjs. Memory: 3n Fr (a, b, c) beyond the key, plus
// cuzk::ntt's twiddle cache (~n Fr, kept for the process).
// Measured on 2 cores shared with other jobs (load ~7): pc4 (2^10) 0.25 s;
// the 2^16 Poseidon chain 9.6-11.5 s wall, 5.3 s CPU, 100 MB RSS, where
// snarkjs 0.7.6 took 42 s wall, 21 s CPU, 440 MB under the same load.

#include <cstdint>
#include <span>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/groth16/proof.hpp>
#include <cuzk/io/circom.hpp>
#include <cuzk/io/snarkjs_json.hpp>

namespace cuzk::circom {

using groth16::proof;

/// Wall-clock seconds per stage of prove.
struct prove_stats {
  double evaluations = 0;  ///< step 1: a, b, c from section 4
  double ntt = 0;          ///< step 2: coset values and p
  double msm_a = 0, msm_b1 = 0, msm_b2 = 0, msm_c = 0, msm_h = 0;
  double total = 0;
};

/// snarkjs's primitive 2^lg-th root of unity (lg <= 32): 5^((r-1)/2^32)
/// squared 32 - lg times.
ff::fr snarkjs_root_of_unity(unsigned lg);

/// The odd j with snarkjs_root_of_unity(32) = cuzk::ntt::root_of_unity(32)^j.
std::uint64_t snarkjs_root_exponent();

/// Step 1 and 2: the H-MSM scalars p_i, i < domain_size, in snarkjs's order.
/// Throws std::invalid_argument when w.size() != zk.n_vars.
std::vector<ff::fr> h_scalars(const io::zkey_file& zk, std::span<const ff::fr> w, prove_stats* stats = nullptr);

/// A proof with explicit randomizers (r = s = 0 gives snarkjs's
/// deterministic reference proof). Throws std::invalid_argument when
/// w.size() != zk.n_vars.
proof prove(const io::zkey_file& zk, std::span<const ff::fr> w, const ff::fr& r, const ff::fr& s,
            prove_stats* stats = nullptr);

/// A zero-knowledge proof: r and s drawn from std::random_device.
proof prove(const io::zkey_file& zk, std::span<const ff::fr> w, prove_stats* stats = nullptr);

/// public.json's values: w[1 .. nPublic] (outputs, then public inputs).
std::vector<ff::fr> public_inputs(const io::zkey_file& zk, std::span<const ff::fr> w);

/// snarkjs's `groth16 verify`: false when the number of inputs differs from
/// vk.n_public, a proof point is outside its prime-order subgroup, or the
/// pairing equation e(A,B) = e(alpha,beta) e(vk_x,gamma) e(C,delta) fails.
bool verify(const io::snarkjs_vk& vk, const proof& pi, std::span<const ff::fr> public_inputs);

}  // namespace cuzk::circom
