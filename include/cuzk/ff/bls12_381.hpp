// SPDX-License-Identifier: Apache-2.0
#pragma once
// BLS12-381 base field Fp and scalar field Fr.
//
// The two moduli below are the only place they are written; Montgomery
// constants are derived by mont_field and cross-checked against the published
// values (zkcrypto/bls12_381, blst) by static_asserts.

#include <cuzk/ff/mont_field.hpp>

namespace cuzk::ff {

struct fp_params {
  static constexpr std::size_t n_limbs = 6;
  // p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
  static constexpr detail::limbs<6> modulus{0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
                                            0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};
  static constexpr std::uint64_t quadratic_nonresidue = 2;  // p = 3 mod 8
};

struct fr_params {
  static constexpr std::size_t n_limbs = 4;
  // r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
  static constexpr detail::limbs<4> modulus{0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
                                            0x73eda753299d7d48};
  /// 7 generates Fr^* (bellperson's MULTIPLICATIVE_GENERATOR, also the coset shift).
  static constexpr std::uint64_t multiplicative_generator = 7;
  static constexpr std::uint64_t quadratic_nonresidue = 7;
};

using fp = mont_field<fp_params>;
using fr = mont_field<fr_params>;

static_assert(sizeof(fp) == 48 && alignof(fp) == 8);
static_assert(sizeof(fr) == 32 && alignof(fr) == 8);
static_assert(std::is_trivially_copyable_v<fp> && std::is_trivially_copyable_v<fr>);
static_assert(fp::bits == 381 && fr::bits == 255);
static_assert(fp::n0 == 0x89f3fffcfffcfffd && fr::n0 == 0xfffffffeffffffff);
static_assert(fp::r_mod_p[0] == 0x760900000002fffd && fp::r_mod_p[5] == 0x15f65ec3fa80e493);
static_assert(fp::r2_mod_p[0] == 0xf4df1f341c341746 && fp::r2_mod_p[5] == 0x11988fe592cae3aa);
static_assert(fr::r_mod_p[0] == 0x00000001fffffffe && fr::r_mod_p[3] == 0x1824b159acc5056f);
static_assert(fr::r2_mod_p[0] == 0xc999e990f3f29c6d && fr::r2_mod_p[3] == 0x0748d9d99f59ff11);
static_assert(fp::two_adicity == 1 && fr::two_adicity == 32);

}  // namespace cuzk::ff
