// SPDX-License-Identifier: Apache-2.0
//
// Correctness tests for the BMI2/ADX Montgomery multiplication and squaring
// in cuzk/ff/detail/x86_adx.hpp, for the BLS12-381 base field Fp (6 limbs)
// and scalar field Fr (4 limbs), and for the Fp addition and subtraction
// blocks add_mod_6_adx / sub_mod_6_adx in cuzk/ff/detail/host_arith.hpp
// (against 7-limb integer arithmetic).
//
// Two references, both independent of the assembly:
//   * ref_mont_mul: schoolbook 2N-limb product with unsigned __int128, then a
//     separate (SOS) word-by-word Montgomery reduction and a final
//     subtraction.  Fast; used for every random and special case.
//   * slow_mod: reduction of an arbitrary-length integer modulo p one bit at
//     a time (Horner).  Used to derive R mod p and R^2 mod p and to check
//     a*b == r*R (mod p) directly on a subset of the cases, so the first
//     reference is itself cross-checked.
//
// The random stream is a std::mt19937_64 whose seed is printed at the start
// of each test; set CUZK_TEST_SEED=<decimal or 0x-hex> to reproduce a run.

#include <gtest/gtest.h>

#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuzk/ff/detail/host_arith.hpp"
#include "cuzk/ff/detail/x86_adx.hpp"

#if defined(CUZK_HAVE_X86_ADX_ASM)

#include <cpuid.h>

namespace {

using u64 = std::uint64_t;
__extension__ using u128 = unsigned __int128;  // a GCC/Clang extension (-Wpedantic)

template <std::size_t N>
using limbs = std::array<u64, N>;

// ----------------------------------------------------------------------------
// moduli

constexpr limbs<6> k_fp = {
    0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
    0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
};
constexpr u64 k_fp_n0 = 0x89f3fffcfffcfffdULL;

constexpr limbs<4> k_fr = {
    0xffffffff00000001ULL,
    0x53bda402fffe5bfeULL,
    0x3339d80809a1d805ULL,
    0x73eda753299d7d48ULL,
};
constexpr u64 k_fr_n0 = 0xfffffffeffffffffULL;

// ----------------------------------------------------------------------------
// small bigint helpers (little-endian limb vectors)

template <std::size_t N>
bool geq(const limbs<N>& x, const limbs<N>& y) {
  for (std::size_t i = N; i-- > 0;) {
    if (x[i] != y[i]) return x[i] > y[i];
  }
  return true;
}

template <std::size_t N>
limbs<N> sub(const limbs<N>& x, const limbs<N>& y) {
  limbs<N> z{};
  u64 borrow = 0;
  for (std::size_t i = 0; i < N; ++i) {
    u128 d = (u128)x[i] - y[i] - borrow;
    z[i] = (u64)d;
    borrow = (u64)(d >> 64) & 1;
  }
  return z;
}

template <std::size_t N>
limbs<N> small(u64 v) {
  limbs<N> z{};
  z[0] = v;
  return z;
}

// Fast reference: a*b*R^-1 mod p, R = 2^(64N).  Product-then-reduce (SOS),
// deliberately a different organisation from the interleaved CIOS under test.
template <std::size_t N>
limbs<N> ref_mont_mul(const limbs<N>& a, const limbs<N>& b, const limbs<N>& p, u64 n0) {
  u64 t[2 * N + 1] = {};
  for (std::size_t i = 0; i < N; ++i) {
    u64 carry = 0;
    for (std::size_t j = 0; j < N; ++j) {
      u128 s = (u128)a[i] * b[j] + t[i + j] + carry;
      t[i + j] = (u64)s;
      carry = (u64)(s >> 64);
    }
    t[i + N] = carry;
  }
  for (std::size_t i = 0; i < N; ++i) {
    u64 m = t[i] * n0;
    u64 carry = 0;
    for (std::size_t j = 0; j < N; ++j) {
      u128 s = (u128)m * p[j] + t[i + j] + carry;
      t[i + j] = (u64)s;
      carry = (u64)(s >> 64);
    }
    for (std::size_t k = i + N; k <= 2 * N && carry != 0; ++k) {
      u128 s = (u128)t[k] + carry;
      t[k] = (u64)s;
      carry = (u64)(s >> 64);
    }
  }
  // value is t[N..2N] < 2p
  limbs<N> r{};
  for (std::size_t i = 0; i < N; ++i) r[i] = t[N + i];
  if (t[2 * N] != 0 || geq(r, p)) r = sub(r, p);
  return r;
}

// Slow reference: x mod p for x given as an arbitrary number of limbs,
// scanning bits from the top (acc = 2*acc + bit, conditional subtract).
template <std::size_t N>
limbs<N> slow_mod(const std::vector<u64>& x, const limbs<N>& p) {
  limbs<N> acc{};
  for (std::size_t w = x.size(); w-- > 0;) {
    for (int bit = 63; bit >= 0; --bit) {
      u64 top = acc[N - 1] >> 63;
      for (std::size_t i = N - 1; i > 0; --i) acc[i] = (acc[i] << 1) | (acc[i - 1] >> 63);
      acc[0] = (acc[0] << 1) | ((x[w] >> bit) & 1);
      if (top != 0 || geq(acc, p)) acc = sub(acc, p);
    }
  }
  return acc;
}

template <std::size_t N>
std::vector<u64> wide_mul(const limbs<N>& a, const limbs<N>& b) {
  std::vector<u64> t(2 * N, 0);
  for (std::size_t i = 0; i < N; ++i) {
    u64 carry = 0;
    for (std::size_t j = 0; j < N; ++j) {
      u128 s = (u128)a[i] * b[j] + t[i + j] + carry;
      t[i + j] = (u64)s;
      carry = (u64)(s >> 64);
    }
    t[i + N] = carry;
  }
  return t;
}

// Checks r == a*b*R^-1 (mod p) as r*R == a*b (mod p), without Montgomery code.
template <std::size_t N>
bool slow_check(const limbs<N>& r, const limbs<N>& a, const limbs<N>& b, const limbs<N>& p) {
  std::vector<u64> rr(2 * N, 0);
  for (std::size_t i = 0; i < N; ++i) rr[N + i] = r[i];  // r * 2^(64N)
  return slow_mod<N>(rr, p) == slow_mod<N>(wide_mul(a, b), p);
}

template <std::size_t N>
limbs<N> r_mod_p(const limbs<N>& p, std::size_t power) {  // 2^(64*N*power) mod p
  std::vector<u64> x(N * power + 1, 0);
  x.back() = 1;
  return slow_mod<N>(x, p);
}

template <std::size_t N>
std::string hex(const limbs<N>& x) {
  std::string s = "0x";
  char buf[17];
  for (std::size_t i = N; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%016" PRIx64, x[i]);
    s += buf;
  }
  return s;
}

u64 test_seed() {
  u64 seed = 0x63757a6b61647831ULL;  // "cuzkadx1"
  if (const char* env = std::getenv("CUZK_TEST_SEED"); env != nullptr && *env != '\0') {
    seed = std::strtoull(env, nullptr, 0);
  }
  return seed;
}

// Prints the seed (so a failure can be replayed) and returns it.
u64 announce_seed(const char* field, const char* what) {
  const u64 seed = test_seed();
  std::printf("[ %s ] %s: CUZK_TEST_SEED=0x%016" PRIx64 "\n", field, what, seed);
  return seed;
}

template <std::size_t N>
limbs<N> random_below(std::mt19937_64& rng, const limbs<N>& p) {
  // Mask the top limb to the bit length of p, then reject values >= p.
  u64 mask = p[N - 1];
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  mask |= mask >> 32;
  for (;;) {
    limbs<N> x{};
    for (auto& w : x) w = rng();
    x[N - 1] &= mask;
    if (!geq(x, p)) return x;
  }
}

// Independent of the header's cpu_has_bmi2_adx(), which is checked against it.
bool cpu_ok() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return ((ebx >> 8) & 1) != 0 && ((ebx >> 19) & 1) != 0;  // BMI2, ADX
}

#define CUZK_REQUIRE_ADX()                                               \
  do {                                                                   \
    if (!cpu_ok()) GTEST_SKIP() << "CPU or compiler lacks BMI2/ADX asm"; \
  } while (0)

// Uniform wrappers around the functions under test.
struct fp_field {
  static constexpr std::size_t n = 6;
  static constexpr const limbs<6>& p = k_fp;
  static constexpr u64 n0 = k_fp_n0;
  static constexpr const char* name = "Fp";
  static void mul(u64* r, const u64* a, const u64* b) { cuzk::ff::detail::mul_mont_6_adx(r, a, b, p.data(), n0); }
  static void sqr(u64* r, const u64* a) { cuzk::ff::detail::sqr_mont_6_adx(r, a, p.data(), n0); }
};

struct fr_field {
  static constexpr std::size_t n = 4;
  static constexpr const limbs<4>& p = k_fr;
  static constexpr u64 n0 = k_fr_n0;
  static constexpr const char* name = "Fr";
  static void mul(u64* r, const u64* a, const u64* b) { cuzk::ff::detail::mul_mont_4_adx(r, a, b, p.data(), n0); }
  static void sqr(u64* r, const u64* a) { cuzk::ff::detail::sqr_mont_4_adx(r, a, p.data(), n0); }
};

template <class F>
using elem = limbs<F::n>;

template <class F>
std::vector<elem<F>> special_values() {
  constexpr std::size_t N = F::n;
  const elem<F>& p = F::p;
  std::vector<elem<F>> v;
  v.push_back(small<N>(0));
  v.push_back(small<N>(1));
  v.push_back(small<N>(2));
  v.push_back(sub(p, small<N>(1)));
  v.push_back(sub(p, small<N>(2)));
  v.push_back(r_mod_p<N>(p, 1));          // R mod p (Montgomery one)
  v.push_back(r_mod_p<N>(p, 2));          // R^2 mod p
  v.push_back(sub(p, r_mod_p<N>(p, 1)));  // -R mod p
  elem<F> ones{};
  for (auto& w : ones) w = ~0ULL;
  elem<F> x = ones;
  x[N - 1] = p[N - 1] - 1;  // all-ones below a top limb just under p's
  v.push_back(x);
  x[N - 1] = 0;  // all-ones below a zero top limb
  v.push_back(x);
  x = small<N>(0);
  x[N - 1] = p[N - 1];  // p's top limb, zeros below (< p)
  v.push_back(x);
  for (std::size_t k = 0; k + 1 < N; ++k) {  // a single all-ones limb
    elem<F> y{};
    y[k] = ~0ULL;
    v.push_back(y);
  }
  for (const auto& s : v) EXPECT_FALSE(geq(s, p)) << "special value not reduced: " << hex(s);
  return v;
}

template <class F>
void check_mul(const elem<F>& a, const elem<F>& b, const elem<F>& want, const char* what) {
  elem<F> got{};
  F::mul(got.data(), a.data(), b.data());
  ASSERT_EQ(got, want) << F::name << " mul " << what << "\n  a = " << hex(a) << "\n  b = " << hex(b) << "\n  got  "
                       << hex(got) << "\n  want " << hex(want);
}

template <class F>
void check_sqr(const elem<F>& a, const elem<F>& want, const char* what) {
  elem<F> got{};
  F::sqr(got.data(), a.data());
  ASSERT_EQ(got, want) << F::name << " sqr " << what << "\n  a = " << hex(a) << "\n  got  " << hex(got) << "\n  want "
                       << hex(want);
}

template <class F>
void run_reference_sanity() {
  // The fast reference must agree with the bit-serial one, and n0 must be
  // -p^-1 mod 2^64, before it is trusted for the bulk comparisons.
  EXPECT_EQ((u64)(F::p[0] * F::n0), ~0ULL) << F::name << " n0";
  std::mt19937_64 rng(announce_seed(F::name, "reference sanity") ^ 0x51);
  for (int i = 0; i < 2000; ++i) {
    elem<F> a = random_below<F::n>(rng, F::p), b = random_below<F::n>(rng, F::p);
    elem<F> r = ref_mont_mul<F::n>(a, b, F::p, F::n0);
    ASSERT_TRUE(slow_check<F::n>(r, a, b, F::p)) << F::name << " reference mismatch at " << i;
  }
}

template <class F>
void run_special() {
  const auto v = special_values<F>();
  std::size_t cases = 0;
  for (const auto& a : v) {
    for (const auto& b : v) {
      elem<F> want = ref_mont_mul<F::n>(a, b, F::p, F::n0);
      ASSERT_TRUE(slow_check<F::n>(want, a, b, F::p));
      check_mul<F>(a, b, want, "special");
      if (::testing::Test::HasFatalFailure()) return;
      ++cases;
    }
    check_sqr<F>(a, ref_mont_mul<F::n>(a, a, F::p, F::n0), "special");
    if (::testing::Test::HasFatalFailure()) return;
    ++cases;
  }
  // Montgomery identities.
  const elem<F> one_m = r_mod_p<F::n>(F::p, 1), r2 = r_mod_p<F::n>(F::p, 2);
  check_mul<F>(small<F::n>(1), r2, one_m, "1*R^2 == R");
  check_mul<F>(one_m, one_m, one_m, "R*R == R");
  check_mul<F>(one_m, small<F::n>(1), small<F::n>(1), "R*1 == 1");
  check_sqr<F>(one_m, one_m, "R^2 == R");
  std::printf("[ %s ] %zu special cases\n", F::name, cases + 4);
}

template <class F>
void run_random(std::size_t count) {
  const u64 seed = announce_seed(F::name, "random");
  std::mt19937_64 rng(seed ^ F::n);
  for (std::size_t i = 0; i < count; ++i) {
    elem<F> a = random_below<F::n>(rng, F::p), b = random_below<F::n>(rng, F::p);
    check_mul<F>(a, b, ref_mont_mul<F::n>(a, b, F::p, F::n0), "random");
    check_sqr<F>(a, ref_mont_mul<F::n>(a, a, F::p, F::n0), "random");
    if (::testing::Test::HasFatalFailure()) return;
    if (i < 5000) {  // also against the bit-serial reference, directly
      elem<F> got{};
      F::mul(got.data(), a.data(), b.data());
      ASSERT_TRUE(slow_check<F::n>(got, a, b, F::p)) << F::name << " slow check, case " << i;
    }
  }
  std::printf("[ %s ] %zu random mul and %zu random sqr cases passed\n", F::name, count, count);
}

template <class F>
void run_aliasing(std::size_t count) {
  std::mt19937_64 rng(announce_seed(F::name, "aliasing") ^ 0xa11a5ULL ^ F::n);
  auto v = special_values<F>();
  for (std::size_t i = 0; i < count; ++i) v.push_back(random_below<F::n>(rng, F::p));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const elem<F> a = v[i], b = v[(i * 7 + 3) % v.size()];
    const elem<F> ab = ref_mont_mul<F::n>(a, b, F::p, F::n0);
    const elem<F> aa = ref_mont_mul<F::n>(a, a, F::p, F::n0);
    elem<F> x = a;  // r == a
    F::mul(x.data(), x.data(), b.data());
    ASSERT_EQ(x, ab) << F::name << " r==a, a=" << hex(a) << " b=" << hex(b);
    x = b;  // r == b
    F::mul(x.data(), a.data(), x.data());
    ASSERT_EQ(x, ab) << F::name << " r==b, a=" << hex(a) << " b=" << hex(b);
    x = a;  // r == a == b
    F::mul(x.data(), x.data(), x.data());
    ASSERT_EQ(x, aa) << F::name << " r==a==b, a=" << hex(a);
    x = a;  // sqr in place
    F::sqr(x.data(), x.data());
    ASSERT_EQ(x, aa) << F::name << " sqr r==a, a=" << hex(a);
    elem<F> y = a;  // a == b, distinct r
    F::mul(x.data(), y.data(), y.data());
    ASSERT_EQ(x, aa) << F::name << " a==b, a=" << hex(a);
  }
}

template <class F>
void run_chain(std::size_t count) {
  // Long dependent chains keep feeding outputs back as inputs, so any
  // output that is not fully reduced would surface (and break the result).
  std::mt19937_64 rng(announce_seed(F::name, "chain") ^ 0xc4a1ULL ^ F::n);
  elem<F> x = random_below<F::n>(rng, F::p), y = random_below<F::n>(rng, F::p);
  elem<F> rx = x, ry = y;
  for (std::size_t i = 0; i < count; ++i) {
    F::mul(x.data(), x.data(), y.data());
    F::sqr(y.data(), y.data());
    rx = ref_mont_mul<F::n>(rx, ry, F::p, F::n0);
    ry = ref_mont_mul<F::n>(ry, ry, F::p, F::n0);
    ASSERT_EQ(x, rx) << F::name << " chain step " << i;
    ASSERT_EQ(y, ry) << F::name << " chain step " << i;
    ASSERT_FALSE(geq(x, F::p));
  }
}

constexpr std::size_t k_random_cases = 1000000;

}  // namespace

TEST(x86_adx, CpuDetection) {
  EXPECT_EQ(cuzk::ff::detail::cpu_has_bmi2_adx(), cpu_ok());
  std::printf("[ cpu ] bmi2+adx: %s\n", cpu_ok() ? "yes" : "no");
}

TEST(x86_adx, ReferenceSanity) {
  run_reference_sanity<fp_field>();
  run_reference_sanity<fr_field>();
}

TEST(x86_adx, FpSpecialValues) {
  CUZK_REQUIRE_ADX();
  run_special<fp_field>();
}

TEST(x86_adx, FrSpecialValues) {
  CUZK_REQUIRE_ADX();
  run_special<fr_field>();
}

TEST(x86_adx, FpRandom) {
  CUZK_REQUIRE_ADX();
  run_random<fp_field>(k_random_cases);
}

TEST(x86_adx, FrRandom) {
  CUZK_REQUIRE_ADX();
  run_random<fr_field>(k_random_cases);
}

TEST(x86_adx, FpAliasing) {
  CUZK_REQUIRE_ADX();
  run_aliasing<fp_field>(20000);
}

TEST(x86_adx, FrAliasing) {
  CUZK_REQUIRE_ADX();
  run_aliasing<fr_field>(20000);
}

TEST(x86_adx, FpChain) {
  CUZK_REQUIRE_ADX();
  run_chain<fp_field>(100000);
}

TEST(x86_adx, FrChain) {
  CUZK_REQUIRE_ADX();
  run_chain<fr_field>(100000);
}

namespace {

// (a + b) mod p and (a - b) mod p with a plain 7-limb add/subtract.
limbs<6> ref_add(const limbs<6>& a, const limbs<6>& b) {
  limbs<6> s{};
  u128 c = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    c += u128(a[i]) + b[i];
    s[i] = u64(c);
    c >>= 64;
  }
  if (c != 0 || geq(s, k_fp)) {
    u128 w = 0;
    for (std::size_t i = 0; i < 6; ++i) {
      const u128 t = u128(s[i]) - k_fp[i] - w;
      s[i] = u64(t);
      w = (t >> 64) & 1;
    }
  }
  return s;
}
limbs<6> ref_sub(const limbs<6>& a, const limbs<6>& b) {
  limbs<6> neg_b{};  // p - b, or 0 for b = 0
  bool b_zero = true;
  for (u64 w : b) b_zero = b_zero && w == 0;
  if (!b_zero) {
    u128 w = 0;
    for (std::size_t i = 0; i < 6; ++i) {
      const u128 t = u128(k_fp[i]) - b[i] - w;
      neg_b[i] = u64(t);
      w = (t >> 64) & 1;
    }
  }
  return ref_add(a, neg_b);
}

}  // namespace

TEST(x86_adx, FpAddSub) {
  CUZK_REQUIRE_ADX();
  std::mt19937_64 rng(announce_seed("Fp", "add/sub"));
  std::vector<limbs<6>> v;
  limbs<6> p1 = k_fp, p2 = k_fp, half = {}, half1 = {};
  p1[0] -= 1;                                                                                          // p - 1
  p2[0] -= 2;                                                                                          // p - 2
  for (std::size_t i = 0; i < 6; ++i) half[i] = (k_fp[i] >> 1) | (i + 1 < 6 ? k_fp[i + 1] << 63 : 0);  // (p - 1) / 2
  half1 = half;
  half1[0] += 1;  // (p + 1) / 2
  v.push_back({});
  v.push_back({1, 0, 0, 0, 0, 0});
  v.push_back(p1);
  v.push_back(p2);
  v.push_back(half);
  v.push_back(half1);
  v.push_back({~u64(0), ~u64(0), ~u64(0), ~u64(0), ~u64(0), 0});
  const std::size_t n_special = v.size();
  for (int i = 0; i < 2000; ++i) v.push_back(random_below(rng, k_fp));
  auto check = [&](const limbs<6>& a, const limbs<6>& b) {
    limbs<6> r{};
    cuzk::ff::detail::add_mod_6_adx(r.data(), a.data(), b.data(), k_fp.data());
    ASSERT_EQ(r, ref_add(a, b));
    cuzk::ff::detail::sub_mod_6_adx(r.data(), a.data(), b.data(), k_fp.data());
    ASSERT_EQ(r, ref_sub(a, b));
    limbs<6> x = a;  // r aliasing a, then b, then both
    cuzk::ff::detail::add_mod_6_adx(x.data(), x.data(), b.data(), k_fp.data());
    ASSERT_EQ(x, ref_add(a, b));
    x = b;
    cuzk::ff::detail::sub_mod_6_adx(x.data(), a.data(), x.data(), k_fp.data());
    ASSERT_EQ(x, ref_sub(a, b));
    x = a;
    cuzk::ff::detail::add_mod_6_adx(x.data(), x.data(), x.data(), k_fp.data());
    ASSERT_EQ(x, ref_add(a, a));
    x = a;
    cuzk::ff::detail::sub_mod_6_adx(x.data(), x.data(), x.data(), k_fp.data());
    ASSERT_EQ(x, limbs<6>{});
  };
  for (std::size_t i = 0; i < n_special; ++i)
    for (const auto& b : v) {
      check(v[i], b);
      check(b, v[i]);
    }
  for (int i = 0; i < 200000; ++i) check(v[rng() % v.size()], random_below(rng, k_fp));
}

#else

TEST(x86_adx, NotAvailable) { GTEST_SKIP() << "x86-64 BMI2/ADX inline asm not available on this target"; }

#endif
