// SPDX-License-Identifier: Apache-2.0
#pragma once
// K XYZZ points to affine with one field inversion (Montgomery's trick),
// written once for the host (unit tests) and the device (the GPU setup's
// fixed-base kernel, where one inversion costs ~25 multiplications, a tenth
// of the 32 additions that made the point).
//
// Per point: xyzz_fraction gives x = px / d, y = py / d with px = X ZZZ,
// py = Y ZZ, d = ZZ ZZZ (3 M); infinity (ZZ = 0) gives d = 0. finish_affine
// inverts the K denominators together: prefix products (K M), one inversion
// of the product of the non-zero ones, back-substitution (2 M per point),
// then px, py times 1/d (2 M). A point with d = 0 keeps 1/d = 0, so it comes
// out as (0, 0), the affine encoding of infinity.
// Cost: ~8 M per point + (one inversion) / K.
// F needs one(), is_zero() and *; |inv| returns 1/a for a non-zero a.

#include <cuzk/ff/detail/host_device.hpp>

namespace cuzk::ec::detail {

CUZK_HD_TEMPLATE
template <class F, class P>
CUZK_HD_ATTR void xyzz_fraction(const P& p, F& px, F& py, F& d) {
  px = p.x * p.zzz;
  py = p.y * p.zz;
  d = p.zz * p.zzz;
}

/// In: px, py, d of K points (xyzz_fraction); out: px, py = the affine x, y.
/// |prefix| is scratch of K elements; d is overwritten with 1/d.
CUZK_HD_TEMPLATE
template <int K, class F, class Inv>
CUZK_HD_ATTR void finish_affine(F* px, F* py, F* d, F* prefix, Inv inv) {
  F acc = F::one();
  for (int i = 0; i < K; ++i) {
    prefix[i] = acc;
    if (!d[i].is_zero()) acc = acc * d[i];
  }
  F r = inv(acc);  // 1 / (product of the non-zero d)
  for (int i = K - 1; i >= 0; --i) {
    if (d[i].is_zero()) continue;
    const F di = d[i];
    d[i] = r * prefix[i];  // 1 / d[i]
    r = r * di;
  }
  for (int i = 0; i < K; ++i) {
    px[i] = px[i] * d[i];
    py[i] = py[i] * d[i];
  }
}

}  // namespace cuzk::ec::detail
