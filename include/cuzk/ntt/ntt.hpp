// SPDX-License-Identifier: Apache-2.0
#pragma once
// CPU number-theoretic transforms over Fr with bellperson's EvaluationDomain
// semantics (fft, ifft, coset_fft, icoset_fft, divide_by_z_on_coset), as the
// Groth16 prover uses them to compute h = (a*b - c)/Z on a coset.
//
// Orderings. Every public transform takes its input in natural order and
// leaves its output in natural order, in place; |a.size()| must equal
// |domain.size()| (std::invalid_argument otherwise):
//
//   function       input                  output                    bellperson
//   ntt            coefficients a_i       A(omega^k), k = 0..n-1    fft
//   intt           values A(omega^k)      coefficients (x 1/n)      ifft
//   coset_ntt      coefficients a_i       A(g omega^k)              coset_fft
//   coset_intt     values A(g omega^k)    coefficients a_i          icoset_fft
//
// Internally each transform is dif_nr (natural in, bit-reversed out,
// decimation in frequency, unscaled) followed by bit_reverse (the index
// permutation i -> rev_lg_n(i), an involution). No other permutation is
// applied anywhere. Scalings are fused into passes that touch the data
// anyway: coset_ntt multiplies a_i by g^i as the first DIF pass gathers it;
// intt multiplies by 1/n, coset_intt by g^-i/n, during the bit reversal (at
// the destination index). dif_nr and bit_reverse are public so that other
// backends (the GPU) can be checked ordering by ordering.
//
// Method. Radix-4 DIF butterflies on pairs of levels (a level L is the
// radix-2 stage whose butterflies span 2^(L-1)); for odd lg_n the last level
// (span 1, twiddle 1) is a radix-2 add/sub. Cache blocking: the levels above
// lg_block (~2^14 elements, 512 KiB, an L2-sized block) are done in passes of
// up to 6 levels (balanced: 8 levels are 4 + 4), each pass gathering a
// 64 x 16 sub-matrix (rows 2^(L-6) apart, L the pass's top level)
// into a 32 KiB stack buffer, transforming it and scattering it back; the
// remaining lg_block levels are done block by block in cache. Work is split
// over oneTBB (parallel_for over sub-matrices, blocks, tiles, chunks).
//
// Twiddles. Level pair (L, L-1) uses the table {w^j, w^2j, w^3j : j < q},
// w = root_of_unity(L), q = 2^(L-2), stored as interleaved triples (3q
// elements). The inverse transform reads the same table at q - j and folds the
// resulting factors (i, -1, -i; i = root_of_unity(2)) into its butterfly, so
// one table serves both directions. Tables depend only on L, are built on
// first use (std::call_once per level, parallel) and kept for the life of the
// process; a 2^lg_n transform touches levels lg_n, lg_n - 2, ..., so the
// cache holds 3/4 (2^lg_n + 2^(lg_n-2) + ...) ~ n elements: as much memory as
// the vector itself (512 MiB at 2^24, 4 GiB at 2^27).
//
// Costs, n = 2^lg_n, M = one Montgomery multiplication:
//   dif_nr        (n/4) ceil(lg_n/2) radix-4 butterflies, 4 M and 8 add/sub
//                 each (j = 0 columns: 1 M): ~ (n/2) lg_n M; the radix-2
//                 equivalent is (n/2) lg_n butterflies.
//                 Memory: ceil((lg_n - lg_block)/6) read+write passes over the
//                 vector plus one in-cache pass (3 passes at 2^24).
//   bit_reverse   one read+write pass, 16x16 tiles.
//   ntt           dif_nr + bit_reverse.
//   intt          dif_nr + bit_reverse, + n M for 1/n.
//   coset_ntt     dif_nr + bit_reverse, + 2n M for g^i (factor and product).
//   coset_intt    dif_nr + bit_reverse, + 2n M for g^-i/n.
//   divide_by_z_on_coset, mul_sub: n M, one pass.
// (Below 2^11 a transform is one serial in-cache pass and the scalings are
// separate passes.)
// Invariants: inputs and outputs are fully reduced Montgomery Fr elements;
// every function is thread-safe for distinct spans.

#include <cstddef>
#include <span>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ntt/domain.hpp>

namespace cuzk::ntt {

enum class direction { forward, inverse };

/// Forward NTT (bellperson fft): a_i -> A(omega^k), natural order in and out.
void ntt(const evaluation_domain& domain, std::span<ff::fr> a);

/// Inverse NTT with 1/n scaling (bellperson ifft): natural order in and out.
void intt(const evaluation_domain& domain, std::span<ff::fr> a);

/// Coset NTT (bellperson coset_fft): a_i -> A(g omega^k), g = 7.
void coset_ntt(const evaluation_domain& domain, std::span<ff::fr> a);

/// Inverse coset NTT (bellperson icoset_fft): intt, then a_i *= g^-i.
void coset_intt(const evaluation_domain& domain, std::span<ff::fr> a);

/// a_i *= 1/(g^n - 1) (bellperson divide_by_z_on_coset).
void divide_by_z_on_coset(const evaluation_domain& domain, std::span<ff::fr> a);

/// a_i = a_i * b_i - c_i (bellperson a.mul_assign(b); a.sub_assign(c)).
/// All three spans must have the same size; |a| may not alias |b| or |c|
/// partially (full aliasing a == b or a == c is fine).
void mul_sub(std::span<ff::fr> a, std::span<const ff::fr> b, std::span<const ff::fr> c);

/// Bytes of the cached twiddle tables a 2^lg_n transform uses (built on
/// first use, kept for the life of the process, shared with every other size
/// of the same parity): 24 (2^lg_n + 2^(lg_n-2) + ... ), ~ 32 n. For memory
/// budgets.
std::size_t twiddle_bytes(unsigned lg_n);

/// Building blocks, exposed for differential tests of other backends.
/// Unscaled DIF transform with omega (forward) or omega_inv (inverse):
/// natural-order input, bit-reversed output.
void dif_nr(const evaluation_domain& domain, std::span<ff::fr> a, direction dir);

/// In-place permutation a_i <-> a_rev(i), rev reversing lg_n = log2(|a|)
/// bits; |a.size()| must be a power of two.
void bit_reverse(std::span<ff::fr> a);

}  // namespace cuzk::ntt
