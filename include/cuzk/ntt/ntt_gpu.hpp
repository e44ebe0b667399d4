// SPDX-License-Identifier: Apache-2.0
#pragma once
// GPU number-theoretic transforms over Fr, host-callable (plain C++: no CUDA
// headers needed to include this file). Same semantics, orderings and results
// bit for bit as the CPU functions of cuzk/ntt/ntt.hpp (bellperson's
// EvaluationDomain): natural order in and out, in place.
//
//   function                    CPU twin
//   ntt_gpu                     ntt            (fft)
//   intt_gpu                    intt           (ifft, x 1/n)
//   coset_ntt_gpu               coset_ntt      (coset_fft, g = 7)
//   coset_intt_gpu              coset_intt     (icoset_fft)
//   divide_by_z_on_coset_gpu    divide_by_z_on_coset
//   mul_sub_gpu                 mul_sub        (a = a*b - c)
//   compute_h_gpu               the textbook quotient step: intt + coset_ntt
//                               of a, b, c; a = (a*b - c) / Z(g); coset_intt
//   compute_h_from_ab_gpu       the same h from a and b alone when a*b = c on
//                               the domain (satisfied R1CS), in six transforms
//                               (docs/H-SIX-TRANSFORMS.md): the GPU prover's
//
// Two flavours of each: on a host span (upload, transform, download, wait:
// synchronous) or on device memory (|device_ptr|, asynchronous on
// gpu_config::stream; the caller synchronises). Device memory holds the same
// bytes as ff::fr (Montgomery form, fully reduced).
//
// Method (src/cuda/ntt/ntt.cu): passes of up to 10 levels (27 = 9 + 9 + 9),
// one kernel each, elements in registers (4 per thread, radix-4 steps)
// exchanged through shared memory, each pass a 2^k-point transform plus one
// boundary twiddle multiplication per element; DIF passes go natural ->
// bit-reversed, DIT passes (the transposed algorithm) bit-reversed ->
// natural, so the quotient pairs them and needs no reversal pass inside.
// The single public transforms are DIF + one in-place bit reversal (which
// also applies 1/n or g^-i / n); the coset shift g^i is fused into the first
// pass. Root tables (per order 2^L, direct up to 2^18 entries, split lo/hi
// above) and the split power tables of g, 1/g, g/n, zeta/n, 1/(2n zeta) are
// built once per (device, size) and cached for the life of the process.
// Memory: gpu_twiddle_bytes (about 13 MiB at 2^27; the former n/2 twiddle
// table took 2 GiB there); the host flavours also
// allocate n (compute_h: 3n) Fr of device scratch per call.
//
// Errors: std::invalid_argument for a size that does not match the domain;
// cuzk::gpu::cuda_error (cuzk/gpu/runtime.hpp) for any CUDA failure,
// including "no device".

#include <cstddef>
#include <span>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ntt/domain.hpp>

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace cuzk::ntt {

/// Where a GPU transform runs.
struct gpu_config {
  /// CUDA device ordinal.
  int device = 0;
  /// Stream for the device-memory flavour (nullptr: the legacy default
  /// stream). The host-span flavour uses it too and synchronises it.
  CUstream_st* stream = nullptr;
};

/// A pointer to |domain.size()| Fr elements in device memory (a distinct type
/// so a host pointer cannot be passed by mistake).
struct device_ptr {
  ff::fr* ptr = nullptr;
};
struct const_device_ptr {
  const ff::fr* ptr = nullptr;
};

// ---- host spans (synchronous) ----------------------------------------------
void ntt_gpu(const evaluation_domain& domain, std::span<ff::fr> a, const gpu_config& cfg = {});
void intt_gpu(const evaluation_domain& domain, std::span<ff::fr> a, const gpu_config& cfg = {});
void coset_ntt_gpu(const evaluation_domain& domain, std::span<ff::fr> a, const gpu_config& cfg = {});
void coset_intt_gpu(const evaluation_domain& domain, std::span<ff::fr> a, const gpu_config& cfg = {});
void divide_by_z_on_coset_gpu(const evaluation_domain& domain, std::span<ff::fr> a, const gpu_config& cfg = {});
/// a_i = a_i * b_i - c_i; all sizes equal.
void mul_sub_gpu(std::span<ff::fr> a, std::span<const ff::fr> b, std::span<const ff::fr> c, const gpu_config& cfg = {});
/// Host flavour of the six-transform quotient (b is not modified).
void compute_h_from_ab_gpu(const evaluation_domain& domain, std::span<ff::fr> a, std::span<const ff::fr> b,
                           const gpu_config& cfg = {});
/// On entry a, b, c hold the evaluations A(w^i), B(w^i), C(w^i) (each of
/// |domain.size()|); on exit a holds the coefficients of
/// h = (A B - C) / Z, exactly what the CPU sequence intt, coset_ntt (each of
/// a, b, c), mul_sub, divide_by_z_on_coset, coset_intt leaves in a. b and c
/// are not modified.
void compute_h_gpu(const evaluation_domain& domain, std::span<ff::fr> a, std::span<const ff::fr> b,
                   std::span<const ff::fr> c, const gpu_config& cfg = {});

// ---- device memory (asynchronous on cfg.stream) ------------------------------
void ntt_gpu(const evaluation_domain& domain, device_ptr d_a, const gpu_config& cfg = {});
void intt_gpu(const evaluation_domain& domain, device_ptr d_a, const gpu_config& cfg = {});
void coset_ntt_gpu(const evaluation_domain& domain, device_ptr d_a, const gpu_config& cfg = {});
void coset_intt_gpu(const evaluation_domain& domain, device_ptr d_a, const gpu_config& cfg = {});
void divide_by_z_on_coset_gpu(const evaluation_domain& domain, device_ptr d_a, const gpu_config& cfg = {});
/// d_a[i] = d_a[i] * d_b[i] - d_c[i] for i < n.
void mul_sub_gpu(std::size_t n, device_ptr d_a, const_device_ptr d_b, const_device_ptr d_c, const gpu_config& cfg = {});
/// As the host flavour, but b and c are overwritten (they are transformed in
/// place; no scratch is allocated).
void compute_h_gpu(const evaluation_domain& domain, device_ptr d_a, device_ptr d_b, device_ptr d_c,
                   const gpu_config& cfg = {});
/// Six-transform quotient: on entry d_a, d_b hold A(w^i), B(w^i) with
/// A(w^i) B(w^i) = C(w^i) for every i (a satisfied system, zero-padded rows
/// included); on exit d_a holds the same n coefficients compute_h_gpu
/// leaves there for c = a o b. d_b and d_scratch (n Fr) are overwritten.
/// For a system that is not satisfied the result is not h (no proof from it
/// verifies either). Derivation: docs/H-SIX-TRANSFORMS.md.
void compute_h_from_ab_gpu(const evaluation_domain& domain, device_ptr d_a, device_ptr d_b, device_ptr d_scratch,
                           const gpu_config& cfg = {});

/// Building blocks for differential tests (same contracts as dif_nr and
/// bit_reverse in ntt.hpp), device memory, asynchronous.
void dif_nr_gpu(const evaluation_domain& domain, device_ptr d_a, bool inverse, const gpu_config& cfg = {});
void bit_reverse_gpu(const evaluation_domain& domain, device_ptr d_a, const gpu_config& cfg = {});
/// Unscaled DIT transform with omega (forward) or omega_inv (inverse):
/// bit-reversed input, natural-order output: ntt(bit_reverse(x)) forward,
/// n * intt(bit_reverse(x)) inverse.
void dit_rn_gpu(const evaluation_domain& domain, device_ptr d_a, bool inverse, const gpu_config& cfg = {});

/// Bytes of device memory the cached tables of a 2^lg_n transform take.
std::size_t gpu_twiddle_bytes(unsigned lg_n);

/// Builds (if needed) the tables for 2^lg_n on cfg.device now, so the first
/// transform of that size does not pay for them; synchronous.
void gpu_prepare(unsigned lg_n, const gpu_config& cfg = {});

/// Frees every cached table on every device (tests, memory pressure).
void gpu_release_tables();

}  // namespace cuzk::ntt
