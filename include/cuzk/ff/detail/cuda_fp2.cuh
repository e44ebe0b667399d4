// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fp2 = Fp[u] / (u^2 + 1) on the device: cuzk::gpu::fp2_d, byte-identical to
// ff::fp2 (c0 then c1, each a 12-word fp_d), so G2 points memcpy between host
// and device unchanged.
//
// Formulas (results are the host's bit for bit: every coordinate is fully
// reduced, so any exact formula gives the same words):
//   mul      c0 = a0 b0 - a1 b1, c1 = a0 b1 + a1 b0, each a sum of two
//            products with one Montgomery reduction (cuda::cios, Extra = 1):
//            2 x 6W^2 = 1728 multiply-adds against Karatsuba's 3 x 612 plus
//            five modular additions
//   sqr      (c0 + c1)(c0 - c1) + 2 c0 c1 u, 2 Fp multiplications
//   mul_sub  a b - c d: each coordinate a sum of four products, one
//            reduction (Extra = 3, Fp's three spare top bits): 2 x 10W^2 =
//            2880 against 3456 for two products and a subtraction; the
//            XYZZ formulas' Y coordinate
// Invariants: both coordinates fully reduced Montgomery Fp.
// Cost: a G2 XYZZ addition is ~3x a G1 one in multiplications, and the
// points are twice the bytes (affine 192 B, XYZZ 384 B), so kernels over
// G2 hold fewer points in registers and run at lower occupancy.

#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/fp2.hpp>

namespace cuzk::gpu {

struct alignas(8) fp2_d {
  using host_type = ff::fp2;
  fp_d c0, c1;

  fp2_d() = default;

  __host__ __device__ __forceinline__ static fp2_d zero() { return {fp_d::zero(), fp_d::zero()}; }
  __host__ __device__ __forceinline__ static fp2_d one() { return {fp_d::one(), fp_d::zero()}; }
  __host__ __device__ __forceinline__ fp2_d(const fp_d& a, const fp_d& b) : c0(a), c1(b) {}

  __host__ __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  __host__ __device__ __forceinline__ friend bool operator==(const fp2_d& a, const fp2_d& b) {
    return a.c0 == b.c0 && a.c1 == b.c1;
  }

  __host__ __device__ __forceinline__ friend fp2_d operator+(const fp2_d& a, const fp2_d& b) {
    return {a.c0 + b.c0, a.c1 + b.c1};
  }
  __host__ __device__ __forceinline__ friend fp2_d operator-(const fp2_d& a, const fp2_d& b) {
    return {a.c0 - b.c0, a.c1 - b.c1};
  }
  __host__ __device__ __forceinline__ fp2_d operator-() const { return {-c0, -c1}; }
  __host__ __device__ __forceinline__ friend fp2_d operator*(const fp2_d& a, const fp2_d& b) {
    namespace fc = ff::detail::cuda;
    constexpr int W = fp_d::n_words;
    const std::uint32_t* p = fc::modulus_words<ff::fp_params>();
    std::uint32_t nb1[W];  // p - b1: the subtracted product a1 b1 as a1 (p - b1)
    fc::sub_plain<W>(nb1, p, b.c1.l);
    const std::uint32_t* c[1] = {a.c1.l};
    const std::uint32_t* e0[1] = {nb1};
    const std::uint32_t* e1[1] = {b.c0.l};
    fp2_d r;
    fc::cios<W, 1>(r.c0.l, a.c0.l, b.c0.l, c, e0, p, fc::n0_32<ff::fp_params>);
    fc::cios<W, 1>(r.c1.l, a.c0.l, b.c1.l, c, e1, p, fc::n0_32<ff::fp_params>);
    return r;
  }
  __host__ __device__ __forceinline__ fp2_d& operator+=(const fp2_d& b) { return *this = *this + b; }
  __host__ __device__ __forceinline__ fp2_d& operator-=(const fp2_d& b) { return *this = *this - b; }
  __host__ __device__ __forceinline__ fp2_d& operator*=(const fp2_d& b) { return *this = *this * b; }

  __host__ __device__ __forceinline__ fp2_d dbl() const { return {c0.dbl(), c1.dbl()}; }
  __host__ __device__ __forceinline__ fp2_d sqr() const {
    const fp_d a = (c0 + c1) * (c0 - c1);
    const fp_d b = (c0 * c1).dbl();
    return {a, b};
  }
};

/// a b - c d with one reduction per coordinate (the XYZZ formulas call
/// mul_sub unqualified; this is more specialised than ec::mul_sub):
///   c0 = a0 b0 - a1 b1 - c0 d0 + c1 d1 = a0 b0 + a1 (p - b1) + c0 (p - d0) + c1 d1
///   c1 = a0 b1 + a1 b0 - c0 d1 - c1 d0 = a0 b1 + a1 b0 + c0 (p - d1) + c1 (p - d0)
__host__ __device__ __forceinline__ fp2_d mul_sub(const fp2_d& a, const fp2_d& b, const fp2_d& c, const fp2_d& d) {
  namespace fc = ff::detail::cuda;
  static_assert(fc::three_spare_top_bits<ff::fp_params>);
  constexpr int W = fp_d::n_words;
  const std::uint32_t* p = fc::modulus_words<ff::fp_params>();
  std::uint32_t nb1[W], nd0[W], nd1[W];
  fc::sub_plain<W>(nb1, p, b.c1.l);
  fc::sub_plain<W>(nd0, p, d.c0.l);
  fc::sub_plain<W>(nd1, p, d.c1.l);
  const std::uint32_t* x[3] = {a.c1.l, c.c0.l, c.c1.l};
  const std::uint32_t* e0[3] = {nb1, nd0, d.c1.l};
  const std::uint32_t* e1[3] = {b.c0.l, nd1, nd0};
  fp2_d r;
  fc::cios<W, 3>(r.c0.l, a.c0.l, b.c0.l, x, e0, p, fc::n0_32<ff::fp_params>);
  fc::cios<W, 3>(r.c1.l, a.c0.l, b.c1.l, x, e1, p, fc::n0_32<ff::fp_params>);
  return r;
}

static_assert(sizeof(fp2_d) == sizeof(ff::fp2) && alignof(fp2_d) == alignof(ff::fp2));
static_assert(std::is_trivially_copyable_v<fp2_d> && std::is_standard_layout_v<fp2_d>);

}  // namespace cuzk::gpu
