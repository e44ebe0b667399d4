// SPDX-License-Identifier: Apache-2.0
#pragma once
// CUZK_HD marks code written once for the host and the device: the point
// formulas of ec/ (affine.hpp, xyzz.hpp, detail/batch_affine.hpp) are
// templates over the field, instantiated with the host fields (ff::fp,
// ff::fp2) in host code and with the device fields (gpu::fp_d, gpu::fp2_d)
// in kernels, so there is one copy of every formula.
//
// Under nvcc it expands to __host__ __device__ __forceinline__ preceded by
// nv_exec_check_disable: a template instantiated with a device-only field
// calls __device__ operators from a __host__ __device__ member, which nvcc
// would otherwise reject although the host side of that instantiation is
// never emitted. Elsewhere it is `inline` (a no-op on the constexpr members).
// Cost: none at run time; forceinline keeps G1 formulas in registers, and the
// kernels that must not inline a large G2 formula wrap it in a __noinline__
// function of their own (src/cuda/msm/msm.cu).

// A free function template puts CUZK_HD_TEMPLATE before its `template <...>`
// line and CUZK_HD_ATTR before the declaration (the pragma must precede the
// whole template declaration).
#if defined(__CUDACC__)
#define CUZK_HD_ATTR __host__ __device__ __forceinline__
#define CUZK_HD_TEMPLATE _Pragma("nv_exec_check_disable")
#else
#define CUZK_HD_ATTR inline
#define CUZK_HD_TEMPLATE
#endif
#define CUZK_HD CUZK_HD_TEMPLATE CUZK_HD_ATTR

// Loop pragmas for code both passes compile: full unrolling
// (CUZK_HD_UNROLL) or none (CUZK_HD_NO_UNROLL, a loop too large to unroll)
// in the device pass; nothing on the host, whose compiler does not know
// the pragmas and warns under -Wall.
#if defined(__CUDA_ARCH__)
#define CUZK_HD_UNROLL _Pragma("unroll")
#define CUZK_HD_NO_UNROLL _Pragma("unroll 1")
#else
#define CUZK_HD_UNROLL
#define CUZK_HD_NO_UNROLL
#endif
