// SPDX-License-Identifier: Apache-2.0
#pragma once
// affine<F>: a point (x, y) on y^2 = x^3 + b over F (Fp for G1, Fp2 for G2).
//
// Layout: x then y, no flag word: the point at infinity is stored as x = y = 0
// (never on the curve since b != 0). A G1 point is 96 bytes and a G2 point
// 192 bytes, the same bytes the GPU reads, so SRS arrays copy with memcpy.

#include <cuzk/ec/curve_params.hpp>
#include <cuzk/ff/detail/host_device.hpp>

namespace cuzk::ec {

template <class F>
struct affine {
  using field = F;
  F x, y;

  CUZK_HD static constexpr affine identity() { return {F::zero(), F::zero()}; }
  CUZK_HD static constexpr affine generator() {
    return {curve_params<F>::generator_x(), curve_params<F>::generator_y()};
  }

  CUZK_HD constexpr bool is_infinity() const { return x.is_zero() && y.is_zero(); }
  /// y^2 == x^3 + b (infinity counts as on the curve).
  CUZK_HD constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    return y.sqr() == x.sqr() * x + curve_params<F>::b();
  }
  CUZK_HD constexpr affine operator-() const { return is_infinity() ? *this : affine{x, -y}; }
  CUZK_HD friend constexpr bool operator==(const affine& a, const affine& b) { return a.x == b.x && a.y == b.y; }
};

}  // namespace cuzk::ec
