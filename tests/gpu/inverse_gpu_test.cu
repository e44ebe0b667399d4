// SPDX-License-Identifier: Apache-2.0
// Device inversion (cuda_inverse.cuh) against the host mont_field::inverse,
// bit for bit, for Fp and Fr: 10^5 random values (seed printed) plus special
// values (0, 1, 2, small integers, p-1, p-2, (p-1)/2, powers of two, words
// of all ones, R and R^2 as raw limbs). Checks inverse == host inverse,
// inverse_fermat == inverse, a * inverse(a) == 1 and inverse(0) == 0.
// The limb code of the inversion has no PTX, so HostCore runs the same code
// on the host (also where no device exists) against mont_field::inverse.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/ff/detail/cuda_inverse.cuh>
#include <cuzk/gpu/device.cuh>

#include "common/test_seed.hpp"
#include "gpu/gpu_test_util.hpp"

namespace {

using cuzk::ff::fp;
using cuzk::ff::fr;
namespace gpu = cuzk::gpu;
namespace cu = cuzk::ff::detail::cuda;
namespace fd = cuzk::ff::detail;

template <class D>
__global__ void inverse_kernel(const D* a, D* inv, D* fermat, D* prod, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const D x = a[i];
  const D y = gpu::inverse(x);
  inv[i] = y;
  fermat[i] = gpu::inverse_fermat(x);
  prod[i] = x * y;
}

/// The special values, as field elements and as raw Montgomery limbs.
template <class F>
std::vector<F> special_values() {
  using L = typename F::limbs;
  const L p = F::modulus;
  const L half = fd::shr(fd::sub_small(p, 1), 1);  // (p-1)/2
  std::vector<L> raws = {F::r_mod_p,          F::r2_mod_p, fd::sub_small(p, 1),
                         fd::sub_small(p, 2), half,        fd::add_small(half, 1)};
  for (std::uint64_t k = 1; k <= 16; ++k) raws.push_back(L{k});
  // powers of two (all below p up to bits - 2)
  for (unsigned b = 0; b + 1 < F::bits; ++b) {
    L x{};
    x[b / 64] = std::uint64_t(1) << (b % 64);
    raws.push_back(x);
  }
  // 32-bit words of all ones: one such word alone, the low k words, and p
  // with its low k words cleared then one subtracted (a run of ones under p)
  for (std::size_t k = 0; k + 1 < 2 * F::n_limbs; ++k) {
    L one_word{}, low{};
    one_word[k / 2] = std::uint64_t(0xffffffffu) << (32 * (k % 2));
    for (std::size_t j = 0; j <= k; ++j) low[j / 2] |= std::uint64_t(0xffffffffu) << (32 * (j % 2));
    raws.push_back(one_word);
    raws.push_back(low);
    L top = p;
    for (std::size_t j = 0; j <= k; ++j) top[j / 2] &= ~(std::uint64_t(0xffffffffu) << (32 * (j % 2)));
    raws.push_back(fd::sub_small(top, 1));
  }
  std::vector<F> v = {F::zero()};
  for (const L& x : raws) {
    if (fd::geq(x, p)) continue;
    v.push_back(F::from_raw(x));                  // raw Montgomery limbs
    v.push_back(F::from_canonical_unchecked(x));  // the element x
  }
  return v;
}

template <class F>
std::vector<F> test_inputs(const char* name) {
  std::mt19937_64 rng(cuzk::test::test_seed(name));
  std::vector<F> a = special_values<F>();
  const std::size_t n_random = 100000;
  for (std::size_t i = 0; i < n_random; ++i) a.push_back(F::random(rng));
  return a;
}

/// The limb code on the host: the device algorithm's logic, checked
/// without a device.
template <class F, class P>
void run_host_core(const char* name) {
  constexpr int W = int(2 * F::n_limbs), L = cu::s30_len<P>;
  const std::vector<F> a = test_inputs<F>(name);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::uint32_t aw[W], rw[W];
    std::memcpy(aw, a[i].l, sizeof aw);
    cu::inverse_words<W, L>(rw, aw, cu::inv30_consts<P>);
    const F want = a[i].inverse();
    if (std::memcmp(rw, want.l, sizeof rw) != 0 && bad++ < 3) ADD_FAILURE() << name << " host core mismatch at " << i;
  }
  EXPECT_EQ(bad, 0u) << "mismatches of " << a.size();
}

template <class F, class D>
void run_device(const char* name) {
  CUZK_REQUIRE_GPU();
  const std::vector<F> a = test_inputs<F>(name);
  const std::size_t n = a.size();
  gpu::device_buffer<F> d_a(n), d_inv(n), d_fermat(n), d_prod(n);
  d_a.upload(a.data(), n, nullptr);
  for (auto* d : {&d_inv, &d_fermat, &d_prod})  // poison: every element must be written
    CUZK_CUDA_CHECK(cudaMemset(d->data(), 0xa5, d->bytes()));
  const unsigned threads = 256, blocks = unsigned((n + threads - 1) / threads);
  auto dp = [](gpu::device_buffer<F>& x) { return reinterpret_cast<D*>(x.data()); };
  inverse_kernel<D><<<blocks, threads>>>(dp(d_a), dp(d_inv), dp(d_fermat), dp(d_prod), n);
  CUZK_CUDA_CHECK_LAUNCH();
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  auto fetch = [&](const gpu::device_buffer<F>& d) {
    std::vector<F> h(n);
    d.download(h.data(), n, nullptr);
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
    return h;
  };
  const auto inv = fetch(d_inv), fermat = fetch(d_fermat), prod = fetch(d_prod);

  std::size_t bad_inv = 0, bad_fermat = 0, bad_prod = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool zero = a[i].is_zero();
    if (!(inv[i] == a[i].inverse()) && bad_inv++ < 3) ADD_FAILURE() << name << " inverse mismatch at " << i;
    if (!(fermat[i] == inv[i]) && bad_fermat++ < 3) ADD_FAILURE() << name << " inverse_fermat != inverse at " << i;
    if (!(prod[i] == (zero ? F::zero() : F::one())) && bad_prod++ < 3)
      ADD_FAILURE() << name << " a * inverse(a) != 1 at " << i;
  }
  EXPECT_TRUE(inv[0] == F::zero() && fermat[0] == F::zero()) << "inverse(0) must be 0";
  EXPECT_EQ(bad_inv + bad_fermat + bad_prod, 0u)
      << "mismatches: inverse " << bad_inv << " fermat " << bad_fermat << " a*inv " << bad_prod << " of " << n;
}

TEST(gpu_inverse, FpHostCore) { run_host_core<fp, cuzk::ff::fp_params>("gpu_inverse.FpHostCore"); }
TEST(gpu_inverse, FrHostCore) { run_host_core<fr, cuzk::ff::fr_params>("gpu_inverse.FrHostCore"); }
TEST(gpu_inverse, FpMatchesHost) { run_device<fp, gpu::fp_d>("gpu_inverse.FpMatchesHost"); }
TEST(gpu_inverse, FrMatchesHost) { run_device<fr, gpu::fr_d>("gpu_inverse.FrMatchesHost"); }

}  // namespace
