// SPDX-License-Identifier: Apache-2.0
// Groth16 verifier; the equations are in include/cuzk/groth16/verifier.hpp.
#include <cuzk/groth16/verifier.hpp>

#include <stdexcept>
#include <string>

#include <cuzk/msm/msm.hpp>

namespace cuzk::groth16 {
namespace {

using ff::fr;

ec::g1_jacobian input_accumulator(const prepared_verifying_key& pvk, std::span<const fr> public_inputs) {
  if (public_inputs.size() + 1 != pvk.ic.size())
    throw std::invalid_argument("groth16::verify: " + std::to_string(public_inputs.size()) +
                                " public inputs, verifying key expects " + std::to_string(pvk.ic.size() - 1));
  ec::g1_jacobian acc = ec::g1_jacobian::from_affine(pvk.ic[0]);
  acc += msm::msm<ff::fp>(std::span(pvk.ic).subspan(1), public_inputs);
  return acc;
}

}  // namespace

prepared_verifying_key prepare_verifying_key(const verifying_key& vk) {
  if (vk.ic.empty()) throw std::invalid_argument("groth16: verifying key has no IC points");
  return {ec::pairing(vk.alpha_g1, vk.beta_g2), vk.alpha_g1, ec::g2_prepared(vk.beta_g2), ec::g2_prepared(-vk.gamma_g2),
          ec::g2_prepared(-vk.delta_g2),        vk.ic};
}

bool verify(const prepared_verifying_key& pvk, const proof& pi, std::span<const fr> public_inputs) {
  const ec::g1_affine acc = input_accumulator(pvk, public_inputs).to_affine();
  const ec::g2_prepared b(pi.b);
  const ec::miller_term terms[] = {{pi.a, &b}, {acc, &pvk.neg_gamma}, {pi.c, &pvk.neg_delta}};
  return ec::final_exponentiation(ec::miller_loop(terms)) == pvk.alpha_beta;
}

bool verify_batch(const prepared_verifying_key& pvk, std::span<const proof> proofs,
                  std::span<const std::vector<fr>> public_inputs, std::uint64_t seed) {
  if (proofs.size() != public_inputs.size())
    throw std::invalid_argument("groth16::verify_batch: " + std::to_string(proofs.size()) + " proofs but " +
                                std::to_string(public_inputs.size()) + " input vectors");
  if (proofs.empty()) return true;
  std::mt19937_64 rng(seed);
  std::vector<ec::g2_prepared> bs;
  bs.reserve(proofs.size());
  std::vector<ec::miller_term> terms;
  terms.reserve(proofs.size() + 3);
  fr z_sum = fr::zero();
  ec::g1_jacobian acc_sum = ec::g1_jacobian::identity(), c_sum = ec::g1_jacobian::identity();
  for (std::size_t i = 0; i < proofs.size(); ++i) {
    const fr z = fr::random(rng);
    z_sum += z;
    acc_sum += ec::mul(input_accumulator(pvk, public_inputs[i]), z);
    c_sum += ec::mul(proofs[i].c, z);
    bs.emplace_back(proofs[i].b);
    terms.push_back({ec::mul(proofs[i].a, z).to_affine(), &bs.back()});
  }
  terms.push_back({(-ec::mul(pvk.alpha_g1, z_sum)).to_affine(), &pvk.beta});
  terms.push_back({acc_sum.to_affine(), &pvk.neg_gamma});
  terms.push_back({c_sum.to_affine(), &pvk.neg_delta});
  return ec::final_exponentiation(ec::miller_loop(terms)) == ec::gt::one();
}

}  // namespace cuzk::groth16
