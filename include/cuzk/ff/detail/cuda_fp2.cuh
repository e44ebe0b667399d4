// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fp2 = Fp[u] / (u^2 + 1) on the device: cuzk::gpu::fp2_d, byte-identical to
// ff::fp2 (c0 then c1, each a 12-word fp_d), so G2 points memcpy between host
// and device unchanged.
//
// Formulas (the same as ff::fp2, so results are bit-identical to the host):
//   mul  Karatsuba, 3 Fp multiplications + 5 additions/subtractions
//   sqr  (c0 + c1)(c0 - c1) + 2 c0 c1 u, 2 Fp multiplications
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

  __device__ __forceinline__ static fp2_d zero() { return {fp_d::zero(), fp_d::zero()}; }
  __device__ __forceinline__ static fp2_d one() { return {fp_d::one(), fp_d::zero()}; }
  __device__ __forceinline__ fp2_d(const fp_d& a, const fp_d& b) : c0(a), c1(b) {}

  __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  __device__ __forceinline__ friend bool operator==(const fp2_d& a, const fp2_d& b) {
    return a.c0 == b.c0 && a.c1 == b.c1;
  }

  __device__ __forceinline__ friend fp2_d operator+(const fp2_d& a, const fp2_d& b) {
    return {a.c0 + b.c0, a.c1 + b.c1};
  }
  __device__ __forceinline__ friend fp2_d operator-(const fp2_d& a, const fp2_d& b) {
    return {a.c0 - b.c0, a.c1 - b.c1};
  }
  __device__ __forceinline__ fp2_d operator-() const { return {-c0, -c1}; }
  __device__ __forceinline__ friend fp2_d operator*(const fp2_d& a, const fp2_d& b) {
    const fp_d t0 = a.c0 * b.c0;
    const fp_d t1 = a.c1 * b.c1;
    const fp_d t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {t0 - t1, t2 - t0 - t1};
  }
  __device__ __forceinline__ fp2_d& operator+=(const fp2_d& b) { return *this = *this + b; }
  __device__ __forceinline__ fp2_d& operator-=(const fp2_d& b) { return *this = *this - b; }
  __device__ __forceinline__ fp2_d& operator*=(const fp2_d& b) { return *this = *this * b; }

  __device__ __forceinline__ fp2_d dbl() const { return {c0.dbl(), c1.dbl()}; }
  __device__ __forceinline__ fp2_d sqr() const {
    const fp_d a = (c0 + c1) * (c0 - c1);
    const fp_d b = (c0 * c1).dbl();
    return {a, b};
  }
};

static_assert(sizeof(fp2_d) == sizeof(ff::fp2) && alignof(fp2_d) == alignof(ff::fp2));
static_assert(std::is_trivially_copyable_v<fp2_d> && std::is_standard_layout_v<fp2_d>);

}  // namespace cuzk::gpu
