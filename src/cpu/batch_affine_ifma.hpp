// SPDX-License-Identifier: Apache-2.0
#pragma once
// Batch-affine additions on eight lanes at once with AVX-512 IFMA: the
// vector form of batch_affine_adder::apply (batch_affine_add.hpp) for G1
// (Fp) and G2 (Fp2), used when the CPU has IFMA.
//
// Method: addition i is lane i mod 8 of group i / 8. Forward, per group:
// the eight a and q loaded into the 52-bit layout (ff/detail/x86_ifma.hpp),
// q.y negated in the lanes that add -q, all kept in the scratch, with
// prefix_g = product of dx over the earlier groups, lane by lane. The eight lane products are inverted together on
// the scalar side (one field inversion, 21 multiplications). Backward, per
// group: 1/dx, lambda, x3, y3, written back into the a. Every q and a is
// read before any a is written, so a q may even alias an a of the batch
// (it then adds the value from before the batch). Lanes past m in the last
// group compute on dummies. Cost per addition: 6 lane multiplications
// (Fp2: 6 Karatsuba products) at ~1/4 of a scalar one's time, plus the
// inversion / m; scratch: 4 coordinates and the prefix per group
// (2.5 KB per 8 G1 additions, 5 KB for G2), kept by the caller.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuzk/ec/affine.hpp>
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/fp2.hpp>

namespace cuzk::msm::detail {

/// True when the IFMA additions are used: the CPU executes AVX-512 IFMA
/// and CUZK_NO_IFMA is unset or 0 (decided once).
bool use_ifma_additions();

/// 64-byte blocks of scratch for batch_affine_apply_ifma, grown on demand.
struct ifma_scratch {
  struct alignas(64) block {
    std::uint64_t w[64];
  };
  std::vector<block> blocks;
};

/// *a[i] += (negate[i] ? -*q[i] : *q[i]) for i < m: batch_affine_add.hpp's
/// preconditions (no infinity, a[i]->x != q[i]->x, the a distinct). Needs
/// use_ifma_additions().
void batch_affine_apply_ifma(ec::affine<ff::fp>* const* a, const ec::affine<ff::fp>* const* q,
                             const std::uint8_t* negate, std::size_t m, ifma_scratch& scratch);
void batch_affine_apply_ifma(ec::affine<ff::fp2>* const* a, const ec::affine<ff::fp2>* const* q,
                             const std::uint8_t* negate, std::size_t m, ifma_scratch& scratch);

}  // namespace cuzk::msm::detail
