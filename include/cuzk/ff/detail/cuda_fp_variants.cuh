// SPDX-License-Identifier: Apache-2.0
#pragma once
// Device types of Fp that multiply another way than gpu::fp_d (the CIOS
// loop on the multiply-add pipe), for measuring the alternatives inside
// the formulas the MSM runs: the same bytes and the same values as fp_d,
// so xyzz / affine arrays over them are xyzz<fp_d> / affine<fp_d> ones and
// a kernel may read one buffer as either.
//   fp_mix_d   the multiplications a formula marks mul_alt / sqr_alt
//              (ec/xyzz.hpp's mixed addition: four of its ten, each beside
//              an independent one left on the integer pipe) on the FP64
//              pipe (cuda_dpf.cuh), the others fp_d's;
//   fp_dpf_d   every multiplication on the FP64 pipe, a b - c d as two;
//   fp_kara_d  every multiplication and a b - c d by Karatsuba products
//              (cuda_karatsuba.cuh); squarings stay fp_d's (sqr_mont, 446
//              slots against a Karatsuba multiplication's 505).
// Everything else (add, sub, neg, comparisons) is fp_d's.

#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_dpf.cuh>
#include <cuzk/ff/detail/cuda_karatsuba.cuh>

namespace cuzk::gpu {

enum class fp_mul_path { fp64_marked, fp64_all, karatsuba };

template <fp_mul_path Path>
struct fp_path_d {
  using host_type = ff::fp;
  fp_d v;

  __host__ __device__ __forceinline__ static fp_path_d zero() { return {fp_d::zero()}; }
  __host__ __device__ __forceinline__ static fp_path_d one() { return {fp_d::one()}; }
  __host__ __device__ __forceinline__ bool is_zero() const { return v.is_zero(); }
  __host__ __device__ __forceinline__ friend bool operator==(const fp_path_d& a, const fp_path_d& b) {
    return a.v == b.v;
  }
  __host__ __device__ __forceinline__ friend bool operator!=(const fp_path_d& a, const fp_path_d& b) {
    return a.v != b.v;
  }
  __host__ __device__ __forceinline__ friend fp_path_d operator+(const fp_path_d& a, const fp_path_d& b) {
    return {a.v + b.v};
  }
  __host__ __device__ __forceinline__ friend fp_path_d operator-(const fp_path_d& a, const fp_path_d& b) {
    return {a.v - b.v};
  }
  __host__ __device__ __forceinline__ friend fp_path_d operator*(const fp_path_d& a, const fp_path_d& b) {
    if constexpr (Path == fp_mul_path::fp64_all) return {mul_dpf(a.v, b.v)};
    else if constexpr (Path == fp_mul_path::karatsuba) return {mul_karatsuba(a.v, b.v)};
    else return {a.v * b.v};
  }
  __host__ __device__ __forceinline__ fp_path_d operator-() const { return {-v}; }
  __host__ __device__ __forceinline__ fp_path_d& operator+=(const fp_path_d& b) { return *this = *this + b; }
  __host__ __device__ __forceinline__ fp_path_d& operator-=(const fp_path_d& b) { return *this = *this - b; }
  __host__ __device__ __forceinline__ fp_path_d& operator*=(const fp_path_d& b) { return *this = *this * b; }
  __host__ __device__ __forceinline__ fp_path_d sqr() const {
    if constexpr (Path == fp_mul_path::fp64_all) return {mul_dpf(v, v)};
    else return {v.sqr()};
  }
  __host__ __device__ __forceinline__ fp_path_d dbl() const { return {v.dbl()}; }
  __host__ __device__ __forceinline__ fp_path_d cneg(bool flag) const { return {v.cneg(flag)}; }

  /// The formulas' hooks (found by argument-dependent lookup, as mul_sub
  /// is): mul_alt / sqr_alt on the FP64 pipe where the path puts any
  /// multiplication there, else the path's own.
  __host__ __device__ __forceinline__ friend fp_path_d mul_alt(const fp_path_d& a, const fp_path_d& b) {
    if constexpr (Path == fp_mul_path::karatsuba) return a * b;
    else return {mul_dpf(a.v, b.v)};
  }
  __host__ __device__ __forceinline__ friend fp_path_d sqr_alt(const fp_path_d& a) {
    if constexpr (Path == fp_mul_path::karatsuba) return a.sqr();
    else return {mul_dpf(a.v, a.v)};
  }
  __host__ __device__ __forceinline__ friend fp_path_d mul_sub(const fp_path_d& a, const fp_path_d& b,
                                                               const fp_path_d& c, const fp_path_d& d) {
    if constexpr (Path == fp_mul_path::fp64_all) return {mul_dpf(a.v, b.v) - mul_dpf(c.v, d.v)};
    else if constexpr (Path == fp_mul_path::karatsuba) return {mul_sub_karatsuba(a.v, b.v, c.v, d.v)};
    else return {mul_sub(a.v, b.v, c.v, d.v)};
  }
};
using fp_mix_d = fp_path_d<fp_mul_path::fp64_marked>;
using fp_dpf_d = fp_path_d<fp_mul_path::fp64_all>;
using fp_kara_d = fp_path_d<fp_mul_path::karatsuba>;
static_assert(sizeof(fp_mix_d) == sizeof(fp_d) && alignof(fp_mix_d) == alignof(fp_d));
static_assert(sizeof(fp_dpf_d) == sizeof(fp_d) && alignof(fp_kara_d) == alignof(fp_d));

}  // namespace cuzk::gpu
