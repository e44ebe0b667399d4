// SPDX-License-Identifier: Apache-2.0
#pragma once
// The BLS12-381 traits bundle: every algebraic type of the curve under one
// name, so Groth16, MSM and NTT templates take a single parameter.

#include <cuzk/ec/affine.hpp>
#include <cuzk/ec/jacobian.hpp>
#include <cuzk/ec/scalar_mul.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/fp2.hpp>

namespace cuzk::ec {

using g1_affine = affine<ff::fp>;
using g2_affine = affine<ff::fp2>;
using g1_jacobian = jacobian<ff::fp>;
using g2_jacobian = jacobian<ff::fp2>;

inline g1_affine g1_generator() { return g1_affine::generator(); }
inline g2_affine g2_generator() { return g2_affine::generator(); }

static_assert(sizeof(g1_affine) == 96 && sizeof(g2_affine) == 192);

struct bls12_381 {
  using fr = ff::fr;
  using fp = ff::fp;
  using fp2 = ff::fp2;
  using g1_affine = ec::g1_affine;
  using g2_affine = ec::g2_affine;
  using g1_jacobian = ec::g1_jacobian;
  using g2_jacobian = ec::g2_jacobian;
};

}  // namespace cuzk::ec
