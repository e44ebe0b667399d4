// SPDX-License-Identifier: Apache-2.0
#pragma once
// evaluation_domain: the radix-2 multiplicative subgroup H = <omega> of Fr^*
// of size n = 2^lg_n, with the constants the Groth16 prover needs.
//
// Semantics follow bellperson's `EvaluationDomain::from_coeffs` exactly, so
// transforms over this domain reproduce bellperson's values:
//   - n is the smallest power of two >= the requested size (size 0 or 1 gives
//     n = 1, lg_n = 0);
//   - omega is the 2^32-nd root of unity 7^((r-1)/2^32) squared (32 - lg_n)
//     times, i.e. omega = root^(2^(32-lg_n)); omega_inv = omega^-1;
//   - n_inv = 1/n (bellperson's `minv`);
//   - the coset generator is g = 7 (bellperson's `multiplicative_generator`,
//     used by coset_fft/icoset_fft), g_inv = 1/7 (its `geninv`);
//   - Z(X) = X^n - 1 vanishes on H; divide_by_z_on_coset multiplies by
//     1/Z(g) = 1/(g^n - 1), which is the same at every point g*omega^i of the
//     coset because (g*omega^i)^n = g^n.
//
// bellperson refuses exp >= 32 (Fr's two-adicity); cuzk caps domains at
// 2^28 (lg_max_domain), beyond any Filecoin circuit (PoRep 32 GiB is 2^27).
//
// Cost of construction: four Fr inversions (~1.1 us each) and 32
// squarings (the 224-bit exponentiation is done at compile time), i.e. a
// few microseconds; the object is 8 field elements, copy it freely.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuzk/ff/bls12_381.hpp>

namespace cuzk::ntt {

/// Largest supported domain: 2^28 elements.
inline constexpr unsigned lg_max_domain = 28;

namespace detail {

/// 7^((r-1)/2^32): a primitive 2^32-nd root of unity in Fr (evaluated at
/// compile time; its canonical value is the well-known
/// 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b).
inline constexpr ff::fr root_of_unity_2_32 = [] {
  constexpr auto t = ff::detail::shr(ff::detail::sub_small(ff::fr::modulus, 1), 32);
  return ff::fr::from_uint(ff::fr_params::multiplicative_generator).pow(t);
}();

static_assert(ff::fr::two_adicity == 32);

}  // namespace detail

/// Primitive 2^lg-th root of unity, root_of_unity_2_32 squared (32 - lg) times
/// (bellperson's derivation). Requires lg <= 32.
constexpr ff::fr root_of_unity(unsigned lg) {
  ff::fr w = detail::root_of_unity_2_32;
  for (unsigned i = lg; i < ff::fr::two_adicity; ++i) w = w.sqr();
  return w;
}

class evaluation_domain {
 public:
  /// Smallest domain holding |min_size| values; throws std::invalid_argument
  /// when |min_size| > 2^lg_max_domain.
  explicit evaluation_domain(std::uint64_t min_size) : evaluation_domain(lg_for(min_size), 0) {}

  /// Domain of exactly 2^lg_n elements; throws std::invalid_argument when
  /// lg_n > lg_max_domain.
  static evaluation_domain from_lg(unsigned lg_n) {
    if (lg_n > lg_max_domain)
      throw std::invalid_argument("cuzk::ntt::evaluation_domain: 2^" + std::to_string(lg_n) +
                                  " exceeds the maximum domain size 2^" + std::to_string(lg_max_domain));
    return evaluation_domain(lg_n, 0);
  }

  unsigned lg_size() const { return _lg_n; }
  std::size_t size() const { return std::size_t(1) << _lg_n; }

  /// Primitive n-th root of unity and its inverse.
  const ff::fr& omega() const { return _omega; }
  const ff::fr& omega_inv() const { return _omega_inv; }
  /// 1/n.
  const ff::fr& n_inv() const { return _n_inv; }
  /// Coset shift g = 7 and 1/g.
  const ff::fr& coset_gen() const { return _g; }
  const ff::fr& coset_gen_inv() const { return _g_inv; }
  /// Z(g) = g^n - 1 (the vanishing polynomial on the coset) and its inverse.
  const ff::fr& z_on_coset() const { return _z_g; }
  const ff::fr& z_on_coset_inv() const { return _z_g_inv; }

  /// Z(tau) = tau^n - 1 (bellperson's `z`).
  ff::fr z(const ff::fr& tau) const {
    ff::fr t = tau;
    for (unsigned i = 0; i < _lg_n; ++i) t = t.sqr();
    return t - ff::fr::one();
  }

 private:
  evaluation_domain(unsigned lg_n, int /*tag*/)
      : _lg_n(lg_n),
        _omega(root_of_unity(lg_n)),
        _omega_inv(_omega.inverse()),
        _n_inv(ff::fr::from_uint(std::uint64_t(1) << lg_n).inverse()),
        _g(ff::fr::from_uint(ff::fr_params::multiplicative_generator)),
        _g_inv(_g.inverse()),
        _z_g(z(_g)),
        _z_g_inv(_z_g.inverse()) {}

  static unsigned lg_for(std::uint64_t min_size) {
    if (min_size > (std::uint64_t(1) << lg_max_domain))
      throw std::invalid_argument("cuzk::ntt::evaluation_domain: size " + std::to_string(min_size) +
                                  " exceeds the maximum domain size 2^" + std::to_string(lg_max_domain));
    unsigned lg = 0;
    while ((std::uint64_t(1) << lg) < min_size) ++lg;
    return lg;
  }

  unsigned _lg_n;
  ff::fr _omega, _omega_inv, _n_inv, _g, _g_inv, _z_g, _z_g_inv;
};

}  // namespace cuzk::ntt
