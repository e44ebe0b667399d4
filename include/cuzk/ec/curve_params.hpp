// SPDX-License-Identifier: Apache-2.0
#pragma once
// BLS12-381 curve constants, selected by the coordinate field:
//   G1: y^2 = x^3 + 4 over Fp;  G2: y^2 = x^3 + 4(u + 1) over Fp2 (M-type twist).
// Generators as published in the BLS12-381 specification (zkcrypto/bls12_381,
// IETF draft-irtf-cfrg-pairing-friendly-curves); the test
// ec_fixture.generators_match_fixture checks them against the encoding of 1*G in
// tests/vectors/shared/filecoin-fixtures/zkcrypto-bls12_381.

#include <cuzk/ff/fp2.hpp>

namespace cuzk::ec {

template <class F>
struct curve_params;

/// |x| of the BLS parameter x = -0xd201000000010000 (the curve seed).
inline constexpr std::uint64_t bls_x_abs = 0xd201000000010000;
inline constexpr bool bls_x_is_negative = true;

namespace detail {
constexpr ff::fp fp_hex(const ff::detail::limbs<6>& v) { return ff::fp::from_canonical_unchecked(v); }
}  // namespace detail

template <>
struct curve_params<ff::fp> {
  static constexpr ff::fp b() { return ff::fp::from_uint(4); }
  static constexpr ff::fp generator_x() {
    return detail::fp_hex(ff::detail::limbs_from_hex<6>(
        "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb"
        "22c6bb"));
  }
  static constexpr ff::fp generator_y() {
    return detail::fp_hex(ff::detail::limbs_from_hex<6>(
        "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946"
        "c5e7e1"));
  }
};

template <>
struct curve_params<ff::fp2> {
  static constexpr ff::fp2 b() { return {ff::fp::from_uint(4), ff::fp::from_uint(4)}; }
  static constexpr ff::fp2 generator_x() {
    return {detail::fp_hex(ff::detail::limbs_from_hex<6>(
                "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd4"
                "8056c8c121bdb8")),
            detail::fp_hex(ff::detail::limbs_from_hex<6>(
                "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5"
                "ac7d055d042b7e"))};
  }
  static constexpr ff::fp2 generator_y() {
    return {detail::fp_hex(ff::detail::limbs_from_hex<6>(
                "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e1"
                "93548608b82801")),
            detail::fp_hex(ff::detail::limbs_from_hex<6>(
                "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aa"
                "a9075ff05f79be"))};
  }
};

}  // namespace cuzk::ec
