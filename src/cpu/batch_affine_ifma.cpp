// SPDX-License-Identifier: Apache-2.0
// Eight-lane batch-affine additions (method and costs: batch_affine_ifma.hpp).
#include "batch_affine_ifma.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include <cuzk/ff/detail/x86_ifma.hpp>

namespace cuzk::msm::detail {

#if defined(CUZK_HAVE_X86_IFMA)

namespace {

namespace v = ff::detail::ifma;

bool detect_ifma() {
  const char* off = std::getenv("CUZK_NO_IFMA");
  if (off && *off && *off != '0') return false;
  return v::cpu_has_avx512ifma();
}

/// The vector type, its loads and stores for each field.
template <class F>
struct lanes;

template <>
struct lanes<ff::fp> {
  using vec = v::fp8;
  static constexpr std::size_t blocks = 1;  // 64-byte blocks per vector
  CUZK_IFMA_INLINE static vec load(const ff::fp* const* src) {
    const std::uint64_t* p[8];
    for (int k = 0; k < 8; ++k) p[k] = src[k]->l;
    return v::load8(p);
  }
  CUZK_IFMA_INLINE static void store(ff::fp* const* dst, const vec& x) {
    std::uint64_t* p[8];
    for (int k = 0; k < 8; ++k) p[k] = dst[k]->l;
    v::store8(p, x);
  }
  CUZK_IFMA_INLINE static void save(ifma_scratch::block* b, const vec& x) {
    for (int j = 0; j < 8; ++j) _mm512_store_si512(b->w + 8 * j, x.l[j]);
  }
  CUZK_IFMA_INLINE static vec restore(const ifma_scratch::block* b) {
    vec x;
    for (int j = 0; j < 8; ++j) x.l[j] = _mm512_load_si512(b->w + 8 * j);
    return x;
  }
  CUZK_IFMA_INLINE static vec sqr(const vec& x) { return v::mul(x, x); }
  CUZK_IFMA_INLINE static vec negate(const vec& x, __mmask8 lanes) { return v::conditional_negate(x, lanes); }
};

template <>
struct lanes<ff::fp2> {
  using vec = v::fp2x8;
  static constexpr std::size_t blocks = 2;
  CUZK_IFMA_INLINE static vec load(const ff::fp2* const* src) {
    const ff::fp* c0[8];
    const ff::fp* c1[8];
    for (int k = 0; k < 8; ++k) {
      c0[k] = &src[k]->c0;
      c1[k] = &src[k]->c1;
    }
    return {lanes<ff::fp>::load(c0), lanes<ff::fp>::load(c1)};
  }
  CUZK_IFMA_INLINE static void store(ff::fp2* const* dst, const vec& x) {
    ff::fp* c0[8];
    ff::fp* c1[8];
    for (int k = 0; k < 8; ++k) {
      c0[k] = &dst[k]->c0;
      c1[k] = &dst[k]->c1;
    }
    lanes<ff::fp>::store(c0, x.c0);
    lanes<ff::fp>::store(c1, x.c1);
  }
  CUZK_IFMA_INLINE static void save(ifma_scratch::block* b, const vec& x) {
    lanes<ff::fp>::save(b, x.c0);
    lanes<ff::fp>::save(b + 1, x.c1);
  }
  CUZK_IFMA_INLINE static vec restore(const ifma_scratch::block* b) {
    return {lanes<ff::fp>::restore(b), lanes<ff::fp>::restore(b + 1)};
  }
  CUZK_IFMA_INLINE static vec sqr(const vec& x) { return v::sqr(x); }
  CUZK_IFMA_INLINE static vec negate(const vec& x, __mmask8 lanes) {
    return {v::conditional_negate(x.c0, lanes), v::conditional_negate(x.c1, lanes)};
  }
};

/// x[k] = 1 / x[k] for eight nonzero elements, one inversion (Montgomery's trick).
template <class F>
void invert_eight(F* x) {
  F prefix[8];
  F acc = F::one();
  for (int k = 0; k < 8; ++k) {
    prefix[k] = acc;
    acc = acc * x[k];
  }
  F inv = acc.inverse();
  for (int k = 8; k-- > 0;) {
    const F xk = x[k];
    x[k] = inv * prefix[k];
    inv = inv * xk;
  }
}

/// Coordinate |c| of eight points, as lanes.
template <class F>
[[CUZK_IFMA_TARGET, gnu::always_inline]] inline typename lanes<F>::vec load_coord(const ec::affine<F>* const* pts,
                                                                                  F ec::affine<F>::*c) {
  const F* p[8];
  for (int k = 0; k < 8; ++k) p[k] = &(pts[k]->*c);
  return lanes<F>::load(p);
}

template <class F>
[[CUZK_IFMA_TARGET, gnu::always_inline]] inline void store_coord(ec::affine<F>* const* pts, F ec::affine<F>::*c,
                                                                 const typename lanes<F>::vec& x) {
  F* p[8];
  for (int k = 0; k < 8; ++k) p[k] = &(pts[k]->*c);
  lanes<F>::store(p, x);
}

// Scratch layout per group: a.x, a.y, q.x, q.y, prefix; each a vector.
template <class F>
[[CUZK_IFMA_TARGET]] void apply(ec::affine<F>* const* a, const ec::affine<F>* const* q, const std::uint8_t* negate,
                                std::size_t m, ifma_scratch& scratch) {
  using L = lanes<F>;
  using vec = typename L::vec;
  using point = ec::affine<F>;
  constexpr std::size_t per_vec = L::blocks, per_group = 5 * per_vec;
  const std::size_t groups = (m + 7) / 8;
  if (scratch.blocks.size() < groups * per_group) scratch.blocks.resize(groups * per_group);
  // A lane past m adds dummy_q (x = 1) to its own sink (x = 0): dx = 1 keeps
  // the lane products invertible, and the result is dropped.
  point sink[8];
  std::fill_n(sink, 8, point::identity());
  const point dummy_q{F::one(), F::zero()};
  point* pa[8];
  const point* pq[8];
  const auto select_group = [&](std::size_t g) {
    for (std::size_t k = 0; k < 8; ++k) {
      const std::size_t i = 8 * g + k;
      pa[k] = i < m ? a[i] : &sink[k];
      pq[k] = i < m ? q[i] : &dummy_q;
    }
  };

  const F one = F::one();
  const F* ones[8];
  std::fill_n(ones, 8, &one);
  vec prod = L::load(ones);
  for (std::size_t g = 0; g < groups; ++g) {
    select_group(g);
    ifma_scratch::block* s = scratch.blocks.data() + g * per_group;
    __mmask8 neg = 0;
    for (std::size_t k = 0; k < 8 && 8 * g + k < m; ++k) neg |= __mmask8((negate[8 * g + k] != 0) << k);
    const vec ax = load_coord<F>(pa, &point::x), qx = load_coord<F>(pq, &point::x), qy = load_coord<F>(pq, &point::y);
    L::save(s, ax);
    L::save(s + per_vec, load_coord<F>(pa, &point::y));
    L::save(s + 2 * per_vec, qx);
    L::save(s + 3 * per_vec, neg ? L::negate(qy, neg) : qy);
    L::save(s + 4 * per_vec, prod);
    prod = v::mul(prod, v::sub(qx, ax));
  }
  // the eight lane products inverted on the scalar side
  F lane_inv[8];
  F* inv_out[8];
  const F* inv_in[8];
  for (int k = 0; k < 8; ++k) inv_out[k] = &lane_inv[k], inv_in[k] = &lane_inv[k];
  L::store(inv_out, prod);
  invert_eight(lane_inv);
  vec inv = L::load(inv_in);
  for (std::size_t g = groups; g-- > 0;) {
    const ifma_scratch::block* s = scratch.blocks.data() + g * per_group;
    const vec ax = L::restore(s), ay = L::restore(s + per_vec), qx = L::restore(s + 2 * per_vec),
              qy = L::restore(s + 3 * per_vec);
    const vec dx = v::sub(qx, ax);
    const vec inv_dx = v::mul(inv, L::restore(s + 4 * per_vec));
    inv = v::mul(inv, dx);
    const vec lambda = v::mul(v::sub(qy, ay), inv_dx);
    const vec x3 = v::sub(v::sub(L::sqr(lambda), ax), qx);
    const vec y3 = v::sub(v::mul(lambda, v::sub(ax, x3)), ay);
    select_group(g);
    store_coord<F>(pa, &point::x, x3);
    store_coord<F>(pa, &point::y, y3);
  }
}

}  // namespace

bool use_ifma_additions() {
  static const bool on = detect_ifma();
  return on;
}

void batch_affine_apply_ifma(ec::affine<ff::fp>* const* a, const ec::affine<ff::fp>* const* q,
                             const std::uint8_t* negate, std::size_t m, ifma_scratch& scratch) {
  apply<ff::fp>(a, q, negate, m, scratch);
}

void batch_affine_apply_ifma(ec::affine<ff::fp2>* const* a, const ec::affine<ff::fp2>* const* q,
                             const std::uint8_t* negate, std::size_t m, ifma_scratch& scratch) {
  apply<ff::fp2>(a, q, negate, m, scratch);
}

#else

bool use_ifma_additions() { return false; }

void batch_affine_apply_ifma(ec::affine<ff::fp>* const*, const ec::affine<ff::fp>* const*, const std::uint8_t*,
                             std::size_t, ifma_scratch&) {
  throw std::logic_error("batch_affine_apply_ifma: built without the x86-64 IFMA kernel");
}
void batch_affine_apply_ifma(ec::affine<ff::fp2>* const*, const ec::affine<ff::fp2>* const*, const std::uint8_t*,
                             std::size_t, ifma_scratch&) {
  throw std::logic_error("batch_affine_apply_ifma: built without the x86-64 IFMA kernel");
}

#endif

}  // namespace cuzk::msm::detail
