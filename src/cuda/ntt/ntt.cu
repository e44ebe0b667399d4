// SPDX-License-Identifier: Apache-2.0
// GPU NTT over Fr: large-radix passes with the elements in registers, small
// root tables, DIF (natural -> bit-reversed) and DIT (bit-reversed ->
// natural) variants, pointwise steps fused into the passes; the quotient h
// in seven transforms (the textbook sequence, with c) and in six (no c).
// API, orderings and the CPU twins: cuzk/ntt/ntt_gpu.hpp. The six-transform
// quotient, its derivation and proof: docs/H-SIX-TRANSFORMS.md.
//
// Method. A 2^lg_n transform is split into passes of k <= k_max levels
// (balanced: 27 = 9 + 9 + 9). A DIF pass with top level L (block of 2^L
// elements seen as 2^k rows x S = 2^(L-k) columns, element (r, col) at
// r S + col) is the four-step decomposition of the radix-2 DIF levels
// L .. L-k+1: a 2^k-point DIF along every column (internal twiddles from the
// order-2^k root table only), then the element at row position p times
// w_L^(col * rev_k(p)) (the "boundary" twiddle, one multiplication per
// element, skipped in the last pass where S = 1). Field arithmetic is exact,
// so this equals the radix-2 DIF (and the CPU) bit for bit.
// The DIT transform (bit-reversed in, natural out) is the transpose of the
// DIF: DIF = P F (P the bit reversal, F the DFT matrix, both symmetric), so
// F P = (P F)^T = Pi_1^T ... Pi_last^T: the same passes in reverse order,
// each one the boundary twiddle first and then a 2^k-point DIT.
// The inverse transforms are the same passes with every root w^e read as
// w^-e = w^(2^L - e) from the same tables.
//
// One pass is one kernel: a tile of 2^k rows x 2^c columns (2^(k+c) <=
// 2^lg_tile elements); each thread holds R = 2^lg_r = 4 elements in
// registers and does up to lg_r levels on them (a radix-4 step) between
// exchanges through shared memory (k = 9: radix-4 steps of 2 1 2 2 2 levels,
// four exchanges; radix-8 steps are available but their code, ~26 k
// instructions per kernel, ran 1.45x slower); the first step loads straight
// from global memory and the last stores straight to it. The tile's columns are the lowest c bits of
// (block, col) read as one number, so a tile may span several blocks when
// S < 2^c (the last pass); the lowest free column bits are the lowest bits
// of the thread index, so neighbouring lanes touch neighbouring elements.
//
// Fused pointwise steps (first pass only, element i at its global index):
// x_i * t(i) or x_i * t(rev(i)) (coset shifts and twists from split power
// tables lo[i mod 2^s] * hi[i >> s], a scale folded into lo), x_i * y_i, and
// (x_i y_i - z_i) * s. The six-transform h ends with one gather pass that
// combines two bit-reversed vectors into natural order.
//
// Twiddles: root table of order 2^L (w_L = root_of_unity(L)): direct, 2^L
// entries, for L <= lg_direct (8 MiB at 2^18, L2-resident); split lo/hi
// above (one extra multiplication per boundary twiddle). Tables depend on L
// only and are shared by all sizes on a device.
//
// Invariants: device arrays are 16-byte aligned (cudaMalloc'd Fr arrays
// are); all values fully reduced Montgomery Fr (identical to the host's).
// Costs, n = 2^lg_n, M = one Fr multiplication:
//   transform   ~ (n/2)(k - 2) M inside each pass + n M per pass boundary
//               (+ n M where the boundary root table is split), one
//               read+write pass over the data per kernel (3 at 2^25..2^28)
//   public ntt/intt/coset_*: DIF + one in-place bit-reversal pass
//   h (seven)   7 transforms, no reversal pass inside, one at the end
//   h (six)     6 transforms + one combining gather pass, no c input

#include <cuzk/ntt/ntt_gpu.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuzk/ff/detail/cuda_arith.cuh>
#include <cuzk/gpu/cuda_check.cuh>
#include <cuzk/gpu/device.cuh>
#include <cuzk/gpu/tuning.hpp>
#include <cuzk/gpu/vector_io.cuh>

namespace cuzk::ntt {
namespace {

using ff::fr;
using gpu::fr_d;
using tune = gpu::tuning::ntt;

// Pass geometry. lg_r: elements per thread (2^lg_r-point register steps);
// lg_tile: elements per tile (2^10 * 34 B = 34 KiB of shared memory with the
// padding); k_max: levels per pass; lg_direct: largest direct root table.
// Measured on the H200 at 2^27 (bench/RESULTS.md, 2026-12-01, dif_nr median
// of 3): lg_r 3 / lg_tile 11 (radix-8 steps, 122 registers, 16 warps per SM,
// ~26 k SASS instructions per pass kernel) 90.7 ms; lg_r 2 / lg_tile 10
// (radix-4, 80 registers, 24 warps, ~10 k instructions) 62.8 ms; lg_r 1 /
// lg_tile 11 81.2 ms, lg_r 1 / lg_tile 10 74.7 ms. Default: lg_r 2.
// lg_tile, k_max and lg_r can be changed for tuning runs through the
// environment (CUZK_NTT_LG_TILE, CUZK_NTT_K_MAX, CUZK_NTT_LG_R; read once per
// process); the defaults are the tested configuration.
constexpr unsigned lg_r = 2;
constexpr unsigned lg_r_max = 3;
constexpr unsigned lg_tile_max = 11;
constexpr unsigned k_max_max = 10;
constexpr unsigned lg_direct = 18;
constexpr unsigned max_groups = k_max_max;  // register steps of >= 1 level
static_assert(k_max_max < lg_tile_max && (1u << (lg_tile_max - 1)) <= 1024);

unsigned env_or(const char* name, unsigned dflt, unsigned lo, unsigned hi) {
  const char* e = std::getenv(name);
  if (!e || !*e) return dflt;
  const long v = std::strtol(e, nullptr, 10);
  return v < long(lo) || v > long(hi) ? dflt : unsigned(v);
}
// CUZK_NTT_LG_R (1..3) lowers the elements per thread (fewer registers,
// more warps, more exchanges).
struct geometry {
  unsigned lg_tile, k_max, lg_r;
};
const geometry& geom() {
  static const geometry g = [] {
    geometry r{env_or("CUZK_NTT_LG_TILE", lg_tile_max, 8, lg_tile_max), 0, env_or("CUZK_NTT_LG_R", lg_r, 1, lg_r_max)};
    if (r.lg_r == 2) r.lg_tile = std::min(r.lg_tile, 10u);  // <= 256 threads (launch bounds)
    r.k_max = env_or("CUZK_NTT_K_MAX", k_max_max, 4, std::min(k_max_max, r.lg_tile - 1));
    return r;
  }();
  return g;
}

// 16-byte loads and stores: gpu/vector_io.cuh
using gpu::load16;
using gpu::load16_ro;
using gpu::store16;

// Shared-memory tile slot f: 32 bytes plus 16 bytes of padding after every
// 8 elements, so that lanes 8 elements apart fall into different banks.
__device__ __forceinline__ uint4* slot(uint4* smem, std::uint32_t f) { return smem + 2 * f + (f >> 3); }
__device__ __forceinline__ std::uint32_t rev_bits(std::uint32_t v, unsigned bits) {
  return bits ? __brev(v) >> (32 - bits) : 0;
}
/// The low bits of |v| placed, in order, at the set bits of |mask| (pdep).
__device__ __forceinline__ std::uint32_t deposit(std::uint32_t v, std::uint32_t mask) {
  std::uint32_t r = 0;
  for (std::uint32_t bit = 1; mask; bit <<= 1) {
    const std::uint32_t low = mask & (0u - mask);
    if (v & bit) r |= low;
    mask ^= low;
  }
  return r;
}

/// s * x^i from split power tables: lo[i mod 2^split] * hi[i >> split], the
/// constant s folded into lo.
struct pow_table {
  const fr_d* lo;
  const fr_d* hi;
  unsigned split;
  __device__ __forceinline__ fr_d at(std::uint32_t i) const {
    return load16_ro(lo + (i & ((1u << split) - 1))) * load16_ro(hi + (i >> split));
  }
};

/// w_L^e for the order-2^L root w_L: a direct table (hi == nullptr) or
/// split lo/hi tables; |inverse| reads w_L^-e.
struct root_view {
  const fr_d* lo;
  const fr_d* hi;
  unsigned split;
  unsigned lg;
  __device__ __forceinline__ fr_d at(std::uint32_t e, bool inverse) const {
    const std::uint32_t mask = (1u << lg) - 1;
    e = (inverse ? 0u - e : e) & mask;
    if (!hi) return load16_ro(lo + e);
    return load16_ro(lo + (e & ((1u << split) - 1))) * load16_ro(hi + (e >> split));
  }
};

// ---- the pass kernel ---------------------------------------------------------------

/// One register step: |g| levels on the row bits b0 .. b0+g-1. Flat tile
/// index f: lowest |cfree| bits the free column bits, then k row bits, then
/// the free block bits. The thread's element m has row bits (m mod 2^g) at
/// |shift| = cfree + b0, its bits above g at the set bits of |xmask|, and the
/// thread index at the set bits of |tmask|.
struct group_plan {
  std::uint32_t b0, g, shift, xmask, tmask;
};

struct pass_plan {
  std::uint32_t lg_n, lg_top, k, c, cfree, bfree, lg_s;
  std::uint32_t ngroups, inverse;
  group_plan grp[max_groups];  // in processing order
  root_view inner;             // order 2^k: the in-tile butterflies
  root_view outer;             // order 2^lg_top: boundary twiddles (lg_s > 0)
};

enum pre_mode : std::uint32_t { pre_none, pre_pow_nat, pre_pow_rev, pre_mul, pre_mul_sub };

/// Pointwise step fused into the first pass, on element i (global index):
/// pow_nat x * t(i); pow_rev x * t(rev(i)); mul x * y_i; mul_sub
/// (x * y_i - z_i) * s.
struct pre_op {
  std::uint32_t mode = pre_none;
  const fr_d* y = nullptr;
  const fr_d* z = nullptr;
  pow_table t{nullptr, nullptr, 0};
  fr_d s{};
};

__device__ __forceinline__ fr_d apply_pre(const pre_op& p, const fr_d& v, std::uint32_t i, unsigned lg_n) {
  switch (p.mode) {
    case pre_pow_nat: return v * p.t.at(i);
    case pre_pow_rev: return v * p.t.at(rev_bits(i, lg_n));
    case pre_mul: return v * load16_ro(p.y + i);
    case pre_mul_sub: return (v * load16_ro(p.y + i) - load16_ro(p.z + i)) * p.s;
    default: return v;
  }
}

/// One DIF (Dit = false) or DIT pass over tiles of 2^(k+c) elements (see
/// the file comment). Launch: 2^(lg_n-k-c) blocks of 2^(k+c-LgR) threads,
/// slot bytes of dynamic shared memory when there are several groups.
/// Reads |src| in the first group and writes |dst| in the last (the same
/// positions, so src == dst is fine); with Pre, |pre| is applied on load.
// Launch bounds: LgR = 3: 256 threads, 2 blocks per SM (<= 128 registers);
// LgR = 2 (the default): 256 threads, 4 blocks (<= 64 registers, 32 warps
// per SM); LgR = 1: 1024 threads (<= 64).
// LgR = 2 at 3 blocks (<= 85 registers, no spills) ran at 24 warps per SM,
// latency-bound (Nsight Compute on an H100, 2026-12-06: issue slots busy
// 42%, 14 cycles between a warp's instructions, occupancy limited by
// registers and shared memory alike). At 4 blocks ptxas spills 100-150
// bytes per thread; 4 tiles also need a larger shared-memory carveout than
// 3 (the runtime chooses it; the blocks resident per SM were not read
// back). Measured on the same H100 in one call, 2^27 forward
// transform 44.73 -> 43.58 ms, 2^26 21.48 -> 21.09, the six-transform H at
// 2^26 132.2 -> 129.2 (bench/RESULTS.md, 2026-12-06, second session).
template <unsigned LgR>
constexpr unsigned bound_threads = LgR == 1 ? 1024u : 256u;
template <unsigned LgR>
constexpr unsigned bound_blocks = LgR == 3 ? 2u : (LgR == 2 ? 4u : 1u);

template <unsigned LgR, bool Dit, bool Pre>
__global__ void __launch_bounds__(bound_threads<LgR>, bound_blocks<LgR>)
    pass_kernel(const fr_d* src, fr_d* dst, const pass_plan pp, const pre_op pre) {
  constexpr unsigned R = 1u << LgR;
  extern __shared__ uint4 smem[];
  const std::uint32_t tid = threadIdx.x;
  const std::uint32_t cmask = (1u << pp.cfree) - 1;
  const std::uint32_t rmask = (1u << pp.k) - 1;
  const std::uint32_t lg_colhi = pp.lg_s - pp.cfree;
  const std::uint32_t colhi = blockIdx.x & ((1u << lg_colhi) - 1);
  const std::uint32_t blkhi = blockIdx.x >> lg_colhi;

  auto column = [&](std::uint32_t f) { return (colhi << pp.cfree) | (f & cmask); };
  auto global_index = [&](std::uint32_t f) -> std::uint32_t {
    const std::uint32_t r = (f >> pp.cfree) & rmask;
    const std::uint32_t xb = f >> (pp.cfree + pp.k);
    const std::uint32_t blk = (blkhi << pp.bfree) | xb;
    return (blk << pp.lg_top) | (r << pp.lg_s) | column(f);
  };
  auto boundary = [&](std::uint32_t f) -> fr_d {
    const std::uint32_t p = (f >> pp.cfree) & rmask;
    return pp.outer.at(column(f) * rev_bits(p, pp.k), pp.inverse != 0);
  };

  fr_d x[R];
  for (std::uint32_t gi = 0; gi < pp.ngroups; ++gi) {
    const group_plan gp = pp.grp[gi];
    const std::uint32_t f0 = deposit(tid, gp.tmask);
    const std::uint32_t gmask = (1u << gp.g) - 1;
    std::uint32_t f[R];
#pragma unroll
    for (unsigned m = 0; m < R; ++m) f[m] = f0 | ((m & gmask) << gp.shift) | deposit(m >> gp.g, gp.xmask);

    if (gi == 0) {
#pragma unroll
      for (unsigned m = 0; m < R; ++m) {
        const std::uint32_t i = global_index(f[m]);
        fr_d v = load16(src + i);
        if constexpr (Pre) v = apply_pre(pre, v, i, pp.lg_n);
        if constexpr (Dit)
          if (pp.lg_s) v = v * boundary(f[m]);
        x[m] = v;
      }
    } else {
#pragma unroll
      for (unsigned m = 0; m < R; ++m) {
        const uint4* q = slot(smem, f[m]);
        const uint4 a = q[0], b = q[1];
        x[m].l[0] = a.x, x[m].l[1] = a.y, x[m].l[2] = a.z, x[m].l[3] = a.w;
        x[m].l[4] = b.x, x[m].l[5] = b.y, x[m].l[6] = b.z, x[m].l[7] = b.w;
      }
    }

    // Butterflies on row bit b = b0 + i between elements m and m | 2^i:
    // twiddle w_(2^(b+1))^j = w_(2^k)^(j 2^(k-1-b)), j = row mod 2^b. In the
    // step on the lowest row bits (b0 = 0) j = m mod 2^i is known at compile
    // time, and the j = 0 twiddles (1) are skipped: a 2^k-point DFT then
    // costs ~(k/2 - 1) multiplications per element instead of k/2.
    const bool low = gp.b0 == 0;
    auto twiddle = [&](unsigned m, unsigned b) {
      const std::uint32_t row = (f[m] >> pp.cfree) & rmask;
      const std::uint32_t j = row & ((1u << b) - 1);
      return pp.inner.at(j << (pp.k - 1 - b), pp.inverse != 0);
    };
    if constexpr (Dit) {
#pragma unroll
      for (unsigned i = 0; i < LgR; ++i) {
        if (i >= gp.g) break;
        const unsigned b = gp.b0 + i;
#pragma unroll
        for (unsigned m = 0; m < R; ++m) {
          if (m & (1u << i)) continue;
          const unsigned m1 = m | (1u << i);
          const fr_d t = low && (m & ((1u << i) - 1)) == 0 ? x[m1] : x[m1] * twiddle(m, b);
          x[m1] = x[m] - t;
          x[m] = x[m] + t;
        }
      }
    } else {
#pragma unroll
      for (int i = int(LgR) - 1; i >= 0; --i) {
        if (unsigned(i) >= gp.g) continue;
        const unsigned b = gp.b0 + unsigned(i);
#pragma unroll
        for (unsigned m = 0; m < R; ++m) {
          if (m & (1u << i)) continue;
          const unsigned m1 = m | (1u << i);
          const fr_d u = x[m], v = x[m1];
          x[m] = u + v;
          x[m1] = low && (m & ((1u << i) - 1)) == 0 ? u - v : (u - v) * twiddle(m, b);
        }
      }
    }

    if (gi + 1 == pp.ngroups) {
#pragma unroll
      for (unsigned m = 0; m < R; ++m) {
        fr_d v = x[m];
        if constexpr (!Dit)
          if (pp.lg_s) v = v * boundary(f[m]);
        store16(dst + global_index(f[m]), v);
      }
    } else {
      if (gi > 0) __syncthreads();  // every thread has read the previous exchange
#pragma unroll
      for (unsigned m = 0; m < R; ++m) {
        uint4* q = slot(smem, f[m]);
        q[0] = make_uint4(x[m].l[0], x[m].l[1], x[m].l[2], x[m].l[3]);
        q[1] = make_uint4(x[m].l[4], x[m].l[5], x[m].l[6], x[m].l[7]);
      }
      __syncthreads();
    }
  }
}

// ---- pointwise kernels -----------------------------------------------------------

enum class post { none, constant, powers };

/// a_i <-> a_rev(i), each multiplied by its destination's factor: none, s,
/// or s * pows.at(i).
template <post Post>
__global__ void bit_reverse_kernel(fr_d* d_a, unsigned lg_n, fr_d s, pow_table pows) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << lg_n)) return;
  const std::uint32_t r = rev_bits(i, lg_n);
  if (i > r) return;
  auto factor = [&](std::uint32_t idx, const fr_d& v) -> fr_d {
    if constexpr (Post == post::none) return v;
    if constexpr (Post == post::constant) return v * s;
    if constexpr (Post == post::powers) return v * (s * pows.at(idx));
  };
  const fr_d x = load16(d_a + i);
  if (i == r) {
    if constexpr (Post != post::none) store16(d_a + i, factor(i, x));
    return;
  }
  const fr_d y = load16(d_a + r);
  store16(d_a + i, factor(i, y));
  store16(d_a + r, factor(r, x));
}

/// The same permutation through shared memory, for lg_n >= 2 lg_bt: index
/// (h, m, l) (h, l of lg_bt bits) goes to (rev l, rev m, rev h), so block m
/// swaps tile m (rows h, 2^lg_bt contiguous columns l) with tile rev(m),
/// each transposed and reversed inside: every global access is a run of
/// 2^lg_bt elements (512 bytes). Launch: 2^(lg_n - 2 lg_bt) blocks of
/// 2^(2 lg_bt) threads.
constexpr unsigned lg_bt = 4;
constexpr unsigned bt = 1u << lg_bt;
constexpr unsigned bt_row = 2 * bt + 1;  // uint4 per padded tile row
template <post Post>
__global__ void __launch_bounds__(bt* bt) bit_reverse_tiled_kernel(fr_d* d_a, unsigned lg_n, fr_d s, pow_table pows) {
  __shared__ uint4 buf[2][bt * bt_row];
  const unsigned lg_mid = lg_n - 2 * lg_bt, row_shift = lg_mid + lg_bt;
  const std::uint32_t m = blockIdx.x, mr = rev_bits(m, lg_mid);
  if (m > mr) return;
  const std::uint32_t h = threadIdx.x >> lg_bt, l = threadIdx.x & (bt - 1);
  auto put = [&](uint4* b, std::uint32_t r, std::uint32_t c, const fr_d& v) {
    b[r * bt_row + 2 * c] = make_uint4(v.l[0], v.l[1], v.l[2], v.l[3]);
    b[r * bt_row + 2 * c + 1] = make_uint4(v.l[4], v.l[5], v.l[6], v.l[7]);
  };
  auto get = [&](const uint4* b, std::uint32_t r, std::uint32_t c) {
    const uint4 x = b[r * bt_row + 2 * c], y = b[r * bt_row + 2 * c + 1];
    fr_d v;
    v.l[0] = x.x, v.l[1] = x.y, v.l[2] = x.z, v.l[3] = x.w;
    v.l[4] = y.x, v.l[5] = y.y, v.l[6] = y.z, v.l[7] = y.w;
    return v;
  };
  put(buf[0], h, l, load16(d_a + ((h << row_shift) | (m << lg_bt) | l)));
  if (m != mr) put(buf[1], h, l, load16(d_a + ((h << row_shift) | (mr << lg_bt) | l)));
  __syncthreads();
  // destination (h, l) of tile t holds the source tile's (rev l, rev h)
  const std::uint32_t sh = rev_bits(l, lg_bt), sl = rev_bits(h, lg_bt);
  auto finish = [&](std::uint32_t dst_m, const uint4* src) {
    const std::uint32_t i = (h << row_shift) | (dst_m << lg_bt) | l;
    fr_d v = get(src, sh, sl);
    if constexpr (Post == post::constant) v = v * s;
    if constexpr (Post == post::powers) v = v * (s * pows.at(i));
    store16(d_a + i, v);
  };
  finish(mr, buf[0]);
  if (m != mr) finish(m, buf[1]);
}

/// The six-transform h (docs/H-SIX-TRANSFORMS.md): d_h[j] = D[rev j] * s -
/// E[rev j] * t(j), D and E bit-reversed, t(j) = zeta^-j / (2n), s = 1/(2n).
__global__ void h_combine_kernel(const fr_d* __restrict__ d_d, const fr_d* __restrict__ d_e, fr_d* __restrict__ d_h,
                                 unsigned lg_n, fr_d s, pow_table t) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= (1u << lg_n)) return;
  const std::uint32_t i = rev_bits(j, lg_n);
  store16(d_h + j, load16_ro(d_d + i) * s - load16_ro(d_e + i) * t.at(j));
}

__global__ void scale_kernel(fr_d* d_a, std::uint32_t n, fr_d s) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) store16(d_a + i, load16(d_a + i) * s);
}

/// a_i = a_i b_i - c_i, then (WithScale) times s.
template <bool WithScale>
__global__ void mul_sub_kernel(fr_d* d_a, const fr_d* __restrict__ d_b, const fr_d* __restrict__ d_c, std::uint32_t n,
                               fr_d s) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_d v = load16(d_a + i) * load16_ro(d_b + i) - load16_ro(d_c + i);
  if constexpr (WithScale) v = v * s;
  store16(d_a + i, v);
}

/// W[e] = lo[e mod 2^split] * hi[e >> split] for e < count.
__global__ void expand_powers_kernel(fr_d* d_out, std::uint32_t count, pow_table pows) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) store16(d_out + i, pows.at(i));
}

// ---- host-side tables -------------------------------------------------------------

fr_d to_device(const fr& x) {
  fr_d r;
  std::memcpy(&r, &x, sizeof r);
  return r;
}

/// s x^0 .. s x^(count-1).
std::vector<fr> powers(const fr& x, std::size_t count, const fr& s = fr::one()) {
  std::vector<fr> p(count);
  fr cur = s;
  for (auto& v : p) {
    v = cur;
    cur = cur * x;
  }
  return p;
}

unsigned blocks_for(std::size_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

/// Split power table of s x^i for exponents i < 2^lg_count, on the device.
struct device_pow_table {
  gpu::device_buffer<fr> lo, hi;
  unsigned split = 0;

  device_pow_table(const fr& x, unsigned lg_count, cudaStream_t s, const fr& scale = fr::one()) {
    split = (lg_count + 1) / 2;
    const std::vector<fr> h_lo = powers(x, std::size_t(1) << split, scale);
    const std::vector<fr> h_hi = powers(x.pow(std::uint64_t(1) << split), std::size_t(1) << (lg_count - split));
    lo = gpu::device_buffer<fr>(h_lo.size());
    hi = gpu::device_buffer<fr>(h_hi.size());
    lo.upload(h_lo.data(), h_lo.size(), s);
    hi.upload(h_hi.data(), h_hi.size(), s);
    // the host vectors die at return: wait for the (possibly staged) copies
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  pow_table view() const {
    return {reinterpret_cast<const fr_d*>(lo.data()), reinterpret_cast<const fr_d*>(hi.data()), split};
  }
  static std::size_t bytes(unsigned lg_count) {
    const unsigned split = (lg_count + 1) / 2;
    return ((std::size_t(1) << split) + (std::size_t(1) << (lg_count - split))) * sizeof(fr);
  }
};

/// Root table of order 2^lg (w = root_of_unity(lg)): direct up to
/// lg_direct, split above.
struct device_root_table {
  unsigned lg;
  std::unique_ptr<device_pow_table> split_table;  // lg > lg_direct
  gpu::device_buffer<fr> direct;                  // lg <= lg_direct

  device_root_table(unsigned lg_order, cudaStream_t s) : lg(lg_order) {
    const fr w = root_of_unity(lg);
    if (lg > lg_direct) {
      split_table = std::make_unique<device_pow_table>(w, lg, s);
      return;
    }
    const std::size_t count = std::size_t(1) << lg;
    direct = gpu::device_buffer<fr>(count);
    const device_pow_table p(w, lg, s);
    expand_powers_kernel<<<blocks_for(count, tune::pointwise_threads), tune::pointwise_threads, 0, s>>>(
        reinterpret_cast<fr_d*>(direct.data()), std::uint32_t(count), p.view());
    CUZK_CUDA_CHECK_LAUNCH();
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));  // before |p| is freed
  }
  root_view view() const {
    if (split_table) {
      const pow_table p = split_table->view();
      return {p.lo, p.hi, p.split, lg};
    }
    return {reinterpret_cast<const fr_d*>(direct.data()), nullptr, lg, lg};
  }
  static std::size_t bytes(unsigned lg) {
    return lg > lg_direct ? device_pow_table::bytes(lg) : (std::size_t(1) << lg) * sizeof(fr);
  }
};

/// Balanced split of |levels| into passes of at most k_max levels.
std::vector<unsigned> plan_passes(unsigned levels) {
  std::vector<unsigned> ks;
  const unsigned k_max = geom().k_max;
  const unsigned passes = (levels + k_max - 1) / k_max;
  unsigned left = levels;
  for (unsigned p = passes; p > 0; --p) {
    const unsigned k = (left + p - 1) / p;
    ks.push_back(k);
    left -= k;
  }
  return ks;
}

/// Root orders a 2^lg_n transform uses: every pass's k and top level.
std::vector<unsigned> root_orders(unsigned lg_n) {
  std::vector<unsigned> lgs;
  unsigned top = lg_n;
  for (const unsigned k : plan_passes(lg_n)) {
    lgs.push_back(k);
    if (top > k) lgs.push_back(top);
    top -= k;
  }
  std::sort(lgs.begin(), lgs.end());
  lgs.erase(std::unique(lgs.begin(), lgs.end()), lgs.end());
  return lgs;
}

std::mutex cache_mutex;
std::map<std::pair<int, unsigned>, std::shared_ptr<const device_root_table>> root_cache;

/// Everything a 2^lg_n transform needs on one device besides the root
/// tables (which it holds references to).
struct tables {
  unsigned lg_n;
  std::map<unsigned, std::shared_ptr<const device_root_table>> roots;
  std::unique_ptr<device_pow_table> g_pows;       // g^i
  std::unique_ptr<device_pow_table> g_inv_pows;   // g^-i
  std::unique_ptr<device_pow_table> g_over_n;     // g^i / n
  std::unique_ptr<device_pow_table> zeta_over_n;  // zeta^i / n
  std::unique_ptr<device_pow_table> zeta_inv_2n;  // zeta^-i / (2n)

  root_view root(unsigned lg) const { return roots.at(lg)->view(); }
};

std::map<std::pair<int, unsigned>, std::shared_ptr<const tables>> cache;

/// Tables for the domain's size on the current device (built under the lock
/// on |s| and complete when returned).
std::shared_ptr<const tables> tables_for(const evaluation_domain& dom, int device, cudaStream_t s) {
  std::lock_guard lock(cache_mutex);
  auto& slot = cache[{device, dom.lg_size()}];
  if (slot) return slot;
  auto t = std::make_shared<tables>();
  const unsigned lg_n = dom.lg_size();
  t->lg_n = lg_n;
  for (const unsigned lg : root_orders(lg_n)) {
    auto& r = root_cache[{device, lg}];
    if (!r) r = std::make_shared<const device_root_table>(lg, s);
    t->roots[lg] = r;
  }
  const fr zeta = root_of_unity(lg_n + 1);  // zeta^2 = omega
  const fr two_n_inv = dom.n_inv() * fr::from_uint(2).inverse();
  t->g_pows = std::make_unique<device_pow_table>(dom.coset_gen(), lg_n, s);
  t->g_inv_pows = std::make_unique<device_pow_table>(dom.coset_gen_inv(), lg_n, s);
  t->g_over_n = std::make_unique<device_pow_table>(dom.coset_gen(), lg_n, s, dom.n_inv());
  t->zeta_over_n = std::make_unique<device_pow_table>(zeta, lg_n, s, dom.n_inv());
  t->zeta_inv_2n = std::make_unique<device_pow_table>(zeta.inverse(), lg_n, s, two_n_inv);
  slot = std::move(t);
  return slot;
}

// ---- orchestration ---------------------------------------------------------------

void check_domain(const evaluation_domain& dom) {
  if (dom.lg_size() > tune::lg_max)
    throw std::invalid_argument("cuzk::ntt gpu: 2^" + std::to_string(dom.lg_size()) + " exceeds the GPU limit 2^" +
                                std::to_string(tune::lg_max));
}

void check_size(const evaluation_domain& dom, std::size_t size, const char* what) {
  check_domain(dom);
  if (size != dom.size())
    throw std::invalid_argument(std::string("cuzk::ntt::") + what + ": span of " + std::to_string(size) +
                                " elements, domain of " + std::to_string(dom.size()));
}

void check_ptr(const void* p, const char* what) {
  if (!p || (reinterpret_cast<std::uintptr_t>(p) & 15))
    throw std::invalid_argument(std::string("cuzk::ntt::") + what + ": device pointer is null or not 16-byte aligned");
}

unsigned lg_r_for(unsigned lg_n) { return std::min(geom().lg_r, lg_n); }

/// Group sizes of a k-level pass in processing order: full register steps
/// at both ends (the global load and store) where possible, the smaller
/// ones in the middle (k = 8: 3 2 3; k = 10: 3 2 2 3; k = 4: 3 1).
std::vector<unsigned> group_sizes(unsigned k, unsigned lgr) {
  const unsigned ng = (k + lgr - 1) / lgr;
  std::vector<unsigned> g(ng, lgr);
  unsigned excess = ng * lgr - k;  // < lgr
  if (ng <= 2) {
    g[ng - 1] -= excess;
    return g;
  }
  for (unsigned i = 1; excess > 0; i = i + 1 < ng - 1 ? i + 1 : 1) {
    if (g[i] > 1) {
      --g[i];
      --excess;
    }
  }
  return g;
}

pass_plan make_plan(const tables& t, unsigned lg_top, unsigned k, bool dit, bool inverse) {
  const unsigned lg_n = t.lg_n, lgr = lg_r_for(lg_n);
  pass_plan pp{};
  pp.lg_n = lg_n;
  pp.lg_top = lg_top;
  pp.k = k;
  pp.c = std::min(geom().lg_tile - k, lg_n - k);
  pp.lg_s = lg_top - k;
  pp.cfree = std::min(pp.c, pp.lg_s);
  pp.bfree = pp.c - pp.cfree;
  pp.inverse = inverse ? 1 : 0;
  pp.inner = t.root(k);
  pp.outer = pp.lg_s ? t.root(lg_top) : root_view{nullptr, nullptr, 0, 0};
  const std::vector<unsigned> sizes = group_sizes(k, lgr);
  pp.ngroups = unsigned(sizes.size());
  const unsigned bits = k + pp.c;
  const std::uint32_t all = bits >= 32 ? ~0u : ((1u << bits) - 1);
  // DIF: top row bits first; DIT: bottom row bits first.
  unsigned hi = k, lo = 0;
  for (unsigned gi = 0; gi < pp.ngroups; ++gi) {
    group_plan& gp = pp.grp[gi];
    gp.g = sizes[gi];
    if (dit) {
      gp.b0 = lo;
      lo += gp.g;
    } else {
      hi -= gp.g;
      gp.b0 = hi;
    }
    gp.shift = pp.cfree + gp.b0;
    const std::uint32_t bmask = ((1u << gp.g) - 1) << gp.shift;
    std::uint32_t xmask = 0;
    unsigned need = lgr - gp.g;
    for (unsigned b = 0; b < bits && need; ++b)
      if (!(bmask & (1u << b))) {
        xmask |= 1u << b;
        --need;
      }
    if (need) throw std::logic_error("cuzk::ntt gpu: tile too small for a register step");
    gp.xmask = xmask;
    gp.tmask = all & ~bmask & ~xmask;
  }
  return pp;
}

template <unsigned LgR, bool Dit, bool Pre>
void launch_pass(unsigned blocks, unsigned threads, std::size_t smem, cudaStream_t s, const fr_d* src, fr_d* dst,
                 const pass_plan& pp, const pre_op& pre) {
  auto* kernel = pass_kernel<LgR, Dit, Pre>;
  if (smem > 48 * 1024)
    CUZK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  kernel<<<blocks, threads, smem, s>>>(src, dst, pp, pre);
  CUZK_CUDA_CHECK_LAUNCH();
}

template <bool Dit>
void launch_pass_any(unsigned lgr, bool with_pre, unsigned blocks, unsigned threads, std::size_t smem, cudaStream_t s,
                     const fr_d* src, fr_d* dst, const pass_plan& pp, const pre_op& pre) {
  switch (lgr * 2 + (with_pre ? 1 : 0)) {
    case 2: launch_pass<1, Dit, false>(blocks, threads, smem, s, src, dst, pp, pre); break;
    case 3: launch_pass<1, Dit, true>(blocks, threads, smem, s, src, dst, pp, pre); break;
    case 4: launch_pass<2, Dit, false>(blocks, threads, smem, s, src, dst, pp, pre); break;
    case 5: launch_pass<2, Dit, true>(blocks, threads, smem, s, src, dst, pp, pre); break;
    case 6: launch_pass<3, Dit, false>(blocks, threads, smem, s, src, dst, pp, pre); break;
    default: launch_pass<3, Dit, true>(blocks, threads, smem, s, src, dst, pp, pre); break;
  }
}

/// The whole DIF (natural -> bit-reversed) or DIT (bit-reversed -> natural)
/// transform of |src| into |dst| (may be equal), unscaled, |pre| fused into
/// the first pass. lg_n >= 1.
void run_transform(const tables& t, const fr_d* src, fr_d* dst, bool dit, bool inverse, const pre_op& pre,
                   cudaStream_t s) {
  const unsigned lg_n = t.lg_n, lgr = lg_r_for(lg_n);
  struct shape {
    unsigned lg_top, k;
  };
  std::vector<shape> passes;
  unsigned top = lg_n;
  for (const unsigned k : plan_passes(lg_n)) {
    passes.push_back({top, k});
    top -= k;
  }
  if (dit) std::reverse(passes.begin(), passes.end());
  bool first = true;
  for (const shape& p : passes) {
    const pass_plan pp = make_plan(t, p.lg_top, p.k, dit, inverse);
    const unsigned lg_e = pp.k + pp.c;
    const unsigned threads = 1u << (lg_e - lgr);
    const unsigned blocks = 1u << (lg_n - lg_e);
    const std::size_t elems = std::size_t(1) << lg_e;
    const std::size_t smem = pp.ngroups > 1 ? (2 * elems + elems / 8 + 1) * sizeof(uint4) : 0;
    const bool with_pre = first && pre.mode != pre_none;
    if (dit) launch_pass_any<true>(lgr, with_pre, blocks, threads, smem, s, first ? src : dst, dst, pp, pre);
    else launch_pass_any<false>(lgr, with_pre, blocks, threads, smem, s, first ? src : dst, dst, pp, pre);
    first = false;
  }
}

void run_bit_reverse(unsigned lg_n, fr_d* d_a, post mode, const fr& scale, const pow_table& pows, cudaStream_t s) {
  const std::size_t n = std::size_t(1) << lg_n;
  const fr_d sd = to_device(scale);
  if (lg_n >= 2 * lg_bt) {
    const unsigned blocks = 1u << (lg_n - 2 * lg_bt);
    switch (mode) {
      case post::none: bit_reverse_tiled_kernel<post::none><<<blocks, bt * bt, 0, s>>>(d_a, lg_n, sd, pows); break;
      case post::constant:
        bit_reverse_tiled_kernel<post::constant><<<blocks, bt * bt, 0, s>>>(d_a, lg_n, sd, pows);
        break;
      case post::powers: bit_reverse_tiled_kernel<post::powers><<<blocks, bt * bt, 0, s>>>(d_a, lg_n, sd, pows); break;
    }
    CUZK_CUDA_CHECK_LAUNCH();
    return;
  }
  const unsigned threads = tune::pointwise_threads;
  const unsigned blocks = blocks_for(n, threads);
  switch (mode) {
    case post::none: bit_reverse_kernel<post::none><<<blocks, threads, 0, s>>>(d_a, lg_n, sd, pows); break;
    case post::constant: bit_reverse_kernel<post::constant><<<blocks, threads, 0, s>>>(d_a, lg_n, sd, pows); break;
    case post::powers: bit_reverse_kernel<post::powers><<<blocks, threads, 0, s>>>(d_a, lg_n, sd, pows); break;
  }
  CUZK_CUDA_CHECK_LAUNCH();
}

void run_scale(std::size_t n, fr_d* d_a, const fr& scale, cudaStream_t s) {
  if (n == 0) return;
  scale_kernel<<<blocks_for(n, tune::pointwise_threads), tune::pointwise_threads, 0, s>>>(d_a, std::uint32_t(n),
                                                                                          to_device(scale));
  CUZK_CUDA_CHECK_LAUNCH();
}

void run_mul_sub(std::size_t n, fr_d* d_a, const fr_d* d_b, const fr_d* d_c, const fr* scale, cudaStream_t s) {
  if (n == 0) return;
  const unsigned blocks = blocks_for(n, tune::pointwise_threads);
  if (scale)
    mul_sub_kernel<true><<<blocks, tune::pointwise_threads, 0, s>>>(d_a, d_b, d_c, std::uint32_t(n), to_device(*scale));
  else
    mul_sub_kernel<false>
        <<<blocks, tune::pointwise_threads, 0, s>>>(d_a, d_b, d_c, std::uint32_t(n), to_device(fr::one()));
  CUZK_CUDA_CHECK_LAUNCH();
}

enum class op { ntt, intt, coset_ntt, coset_intt };

/// One public transform (natural in and out) on device memory,
/// asynchronous on |s|: DIF, then the bit reversal with the scalings. The
/// current device must be |device|.
void transform(const evaluation_domain& dom, fr_d* d_a, op which, int device, cudaStream_t s) {
  const unsigned lg_n = dom.lg_size();
  if (lg_n == 0) return;  // n = 1: every transform is the identity
  const auto t = tables_for(dom, device, s);
  const pow_table none{nullptr, nullptr, 0};
  pre_op pre;
  switch (which) {
    case op::ntt:
      run_transform(*t, d_a, d_a, false, false, pre, s);
      run_bit_reverse(lg_n, d_a, post::none, fr::one(), none, s);
      break;
    case op::intt:
      run_transform(*t, d_a, d_a, false, true, pre, s);
      run_bit_reverse(lg_n, d_a, post::constant, dom.n_inv(), none, s);
      break;
    case op::coset_ntt:
      pre.mode = pre_pow_nat;
      pre.t = t->g_pows->view();
      run_transform(*t, d_a, d_a, false, false, pre, s);
      run_bit_reverse(lg_n, d_a, post::none, fr::one(), none, s);
      break;
    case op::coset_intt:
      run_transform(*t, d_a, d_a, false, true, pre, s);
      run_bit_reverse(lg_n, d_a, post::powers, dom.n_inv(), t->g_inv_pows->view(), s);
      break;
  }
}

cudaStream_t stream_of(const gpu_config& cfg) { return reinterpret_cast<cudaStream_t>(cfg.stream); }

fr_d* dev(device_ptr p) { return reinterpret_cast<fr_d*>(p.ptr); }
const fr_d* dev(const_device_ptr p) { return reinterpret_cast<const fr_d*>(p.ptr); }

/// Host-span flavour of one transform: upload, run, download, wait.
void host_transform(const evaluation_domain& dom, std::span<fr> a, op which, const gpu_config& cfg, const char* what) {
  check_size(dom, a.size(), what);
  gpu::device_guard guard(cfg.device);
  const cudaStream_t s = stream_of(cfg);
  gpu::device_buffer<fr> d_a(a.size());
  d_a.upload(a.data(), a.size(), s);
  transform(dom, reinterpret_cast<fr_d*>(d_a.data()), which, cfg.device, s);
  d_a.download(a.data(), a.size(), s);
  CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
}

void device_transform(const evaluation_domain& dom, device_ptr d_a, op which, const gpu_config& cfg, const char* what) {
  check_domain(dom);
  check_ptr(d_a.ptr, what);
  gpu::device_guard guard(cfg.device);
  transform(dom, dev(d_a), which, cfg.device, stream_of(cfg));
}

/// The textbook h (seven transforms), device memory: a, b, c overwritten,
/// h in a. No reversal pass until the end: inverse DIF (natural ->
/// reversed) is paired with the coset DIT (reversed -> natural), the coset
/// shift g^j / n applied at the reversed index; (A B - C)/Z(g) fused into
/// the last inverse DIF's first pass; the final reversal applies g^-j / n.
void h_seven(const evaluation_domain& dom, fr_d* a, fr_d* b, fr_d* c, int device, cudaStream_t s) {
  const unsigned lg_n = dom.lg_size();
  const fr z_inv = dom.z_on_coset_inv();
  if (lg_n == 0) {  // every transform is the identity
    run_mul_sub(1, a, b, c, &z_inv, s);
    return;
  }
  const auto t = tables_for(dom, device, s);
  pre_op twist;
  twist.mode = pre_pow_rev;
  twist.t = t->g_over_n->view();
  for (fr_d* v : {a, b, c}) {
    run_transform(*t, v, v, false, true, pre_op{}, s);
    run_transform(*t, v, v, true, false, twist, s);
  }
  pre_op ms;
  ms.mode = pre_mul_sub;
  ms.y = b;
  ms.z = c;
  ms.s = to_device(z_inv);
  run_transform(*t, a, a, false, true, ms, s);
  run_bit_reverse(lg_n, a, post::powers, dom.n_inv(), t->g_inv_pows->view(), s);
}

/// The six-transform h (docs/H-SIX-TRANSFORMS.md), device memory: h in a;
/// b and scratch overwritten. Requires a_i b_i = c_i on the domain.
void h_six(const evaluation_domain& dom, fr_d* a, fr_d* b, fr_d* scratch, int device, cudaStream_t s) {
  const unsigned lg_n = dom.lg_size();
  if (lg_n == 0) {  // n = 1: A B - C = 0, so h = 0
    CUZK_CUDA_CHECK(cudaMemsetAsync(a, 0, sizeof(fr_d), s));
    return;
  }
  const auto t = tables_for(dom, device, s);
  // D = n C, reversed: the inverse DIF of a o b (product fused on load)
  pre_op prod;
  prod.mode = pre_mul;
  prod.y = b;
  run_transform(*t, a, scratch, false, true, prod, s);
  // A, B: n times the coefficients, reversed; then A(zeta w^k), B(zeta w^k)
  // natural, the twist zeta^j / n applied at the reversed index
  pre_op twist;
  twist.mode = pre_pow_rev;
  twist.t = t->zeta_over_n->view();
  for (fr_d* v : {a, b}) {
    run_transform(*t, v, v, false, true, pre_op{}, s);
    run_transform(*t, v, v, true, false, twist, s);
  }
  // E = inverse DIF of y = A(zeta w^k) B(zeta w^k), reversed, into b
  prod.y = a;
  run_transform(*t, b, b, false, true, prod, s);
  // h_j = (D_j - zeta^-j E_j) / (2n), natural order, into a
  const std::size_t n = dom.size();
  const fr two_n_inv = dom.n_inv() * fr::from_uint(2).inverse();
  h_combine_kernel<<<blocks_for(n, tune::pointwise_threads), tune::pointwise_threads, 0, s>>>(
      scratch, b, a, lg_n, to_device(two_n_inv), t->zeta_inv_2n->view());
  CUZK_CUDA_CHECK_LAUNCH();
}

}  // namespace

// ---- public API ---------------------------------------------------------------------

void ntt_gpu(const evaluation_domain& dom, std::span<fr> a, const gpu_config& cfg) {
  host_transform(dom, a, op::ntt, cfg, "ntt_gpu");
}
void intt_gpu(const evaluation_domain& dom, std::span<fr> a, const gpu_config& cfg) {
  host_transform(dom, a, op::intt, cfg, "intt_gpu");
}
void coset_ntt_gpu(const evaluation_domain& dom, std::span<fr> a, const gpu_config& cfg) {
  host_transform(dom, a, op::coset_ntt, cfg, "coset_ntt_gpu");
}
void coset_intt_gpu(const evaluation_domain& dom, std::span<fr> a, const gpu_config& cfg) {
  host_transform(dom, a, op::coset_intt, cfg, "coset_intt_gpu");
}

void divide_by_z_on_coset_gpu(const evaluation_domain& dom, std::span<fr> a, const gpu_config& cfg) {
  check_size(dom, a.size(), "divide_by_z_on_coset_gpu");
  gpu::device_guard guard(cfg.device);
  const cudaStream_t s = stream_of(cfg);
  gpu::device_buffer<fr> d_a(a.size());
  d_a.upload(a.data(), a.size(), s);
  run_scale(a.size(), reinterpret_cast<fr_d*>(d_a.data()), dom.z_on_coset_inv(), s);
  d_a.download(a.data(), a.size(), s);
  CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
}

void mul_sub_gpu(std::span<fr> a, std::span<const fr> b, std::span<const fr> c, const gpu_config& cfg) {
  if (b.size() != a.size() || c.size() != a.size())
    throw std::invalid_argument("cuzk::ntt::mul_sub_gpu: sizes " + std::to_string(a.size()) + ", " +
                                std::to_string(b.size()) + ", " + std::to_string(c.size()) + " differ");
  if (a.size() > (std::size_t(1) << tune::lg_max))
    throw std::invalid_argument("cuzk::ntt::mul_sub_gpu: too many elements");
  gpu::device_guard guard(cfg.device);
  const cudaStream_t s = stream_of(cfg);
  const std::size_t n = a.size();
  gpu::device_buffer<fr> d_a(n), d_b(n), d_c(n);
  d_a.upload(a.data(), n, s);
  d_b.upload(b.data(), n, s);
  d_c.upload(c.data(), n, s);
  run_mul_sub(n, reinterpret_cast<fr_d*>(d_a.data()), reinterpret_cast<const fr_d*>(d_b.data()),
              reinterpret_cast<const fr_d*>(d_c.data()), nullptr, s);
  d_a.download(a.data(), n, s);
  CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
}

void compute_h_gpu(const evaluation_domain& dom, std::span<fr> a, std::span<const fr> b, std::span<const fr> c,
                   const gpu_config& cfg) {
  check_size(dom, a.size(), "compute_h_gpu");
  check_size(dom, b.size(), "compute_h_gpu");
  check_size(dom, c.size(), "compute_h_gpu");
  gpu::device_guard guard(cfg.device);
  const cudaStream_t s = stream_of(cfg);
  const std::size_t n = a.size();
  gpu::device_buffer<fr> d_a(n), d_b(n), d_c(n);
  d_a.upload(a.data(), n, s);
  d_b.upload(b.data(), n, s);
  d_c.upload(c.data(), n, s);
  compute_h_gpu(dom, device_ptr{d_a.data()}, device_ptr{d_b.data()}, device_ptr{d_c.data()}, cfg);
  d_a.download(a.data(), n, s);
  CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
}

void compute_h_from_ab_gpu(const evaluation_domain& dom, std::span<fr> a, std::span<const fr> b,
                           const gpu_config& cfg) {
  check_size(dom, a.size(), "compute_h_from_ab_gpu");
  check_size(dom, b.size(), "compute_h_from_ab_gpu");
  gpu::device_guard guard(cfg.device);
  const cudaStream_t s = stream_of(cfg);
  const std::size_t n = a.size();
  gpu::device_buffer<fr> d_a(n), d_b(n), d_t(n);
  d_a.upload(a.data(), n, s);
  d_b.upload(b.data(), n, s);
  compute_h_from_ab_gpu(dom, device_ptr{d_a.data()}, device_ptr{d_b.data()}, device_ptr{d_t.data()}, cfg);
  d_a.download(a.data(), n, s);
  CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
}

void ntt_gpu(const evaluation_domain& dom, device_ptr d_a, const gpu_config& cfg) {
  device_transform(dom, d_a, op::ntt, cfg, "ntt_gpu");
}
void intt_gpu(const evaluation_domain& dom, device_ptr d_a, const gpu_config& cfg) {
  device_transform(dom, d_a, op::intt, cfg, "intt_gpu");
}
void coset_ntt_gpu(const evaluation_domain& dom, device_ptr d_a, const gpu_config& cfg) {
  device_transform(dom, d_a, op::coset_ntt, cfg, "coset_ntt_gpu");
}
void coset_intt_gpu(const evaluation_domain& dom, device_ptr d_a, const gpu_config& cfg) {
  device_transform(dom, d_a, op::coset_intt, cfg, "coset_intt_gpu");
}

void divide_by_z_on_coset_gpu(const evaluation_domain& dom, device_ptr d_a, const gpu_config& cfg) {
  check_domain(dom);
  check_ptr(d_a.ptr, "divide_by_z_on_coset_gpu");
  gpu::device_guard guard(cfg.device);
  run_scale(dom.size(), dev(d_a), dom.z_on_coset_inv(), stream_of(cfg));
}

void mul_sub_gpu(std::size_t n, device_ptr d_a, const_device_ptr d_b, const_device_ptr d_c, const gpu_config& cfg) {
  if (n == 0) return;
  if (n > (std::size_t(1) << tune::lg_max)) throw std::invalid_argument("cuzk::ntt::mul_sub_gpu: too many elements");
  check_ptr(d_a.ptr, "mul_sub_gpu");
  check_ptr(d_b.ptr, "mul_sub_gpu");
  check_ptr(d_c.ptr, "mul_sub_gpu");
  gpu::device_guard guard(cfg.device);
  run_mul_sub(n, dev(d_a), dev(d_b), dev(d_c), nullptr, stream_of(cfg));
}

void compute_h_gpu(const evaluation_domain& dom, device_ptr d_a, device_ptr d_b, device_ptr d_c,
                   const gpu_config& cfg) {
  check_domain(dom);
  check_ptr(d_a.ptr, "compute_h_gpu");
  check_ptr(d_b.ptr, "compute_h_gpu");
  check_ptr(d_c.ptr, "compute_h_gpu");
  gpu::device_guard guard(cfg.device);
  h_seven(dom, dev(d_a), dev(d_b), dev(d_c), cfg.device, stream_of(cfg));
}

void compute_h_from_ab_gpu(const evaluation_domain& dom, device_ptr d_a, device_ptr d_b, device_ptr d_scratch,
                           const gpu_config& cfg) {
  check_domain(dom);
  check_ptr(d_a.ptr, "compute_h_from_ab_gpu");
  check_ptr(d_b.ptr, "compute_h_from_ab_gpu");
  check_ptr(d_scratch.ptr, "compute_h_from_ab_gpu");
  gpu::device_guard guard(cfg.device);
  h_six(dom, dev(d_a), dev(d_b), dev(d_scratch), cfg.device, stream_of(cfg));
}

void dif_nr_gpu(const evaluation_domain& dom, device_ptr d_a, bool inverse, const gpu_config& cfg) {
  check_domain(dom);
  check_ptr(d_a.ptr, "dif_nr_gpu");
  if (dom.lg_size() == 0) return;
  gpu::device_guard guard(cfg.device);
  const cudaStream_t s = stream_of(cfg);
  const auto t = tables_for(dom, cfg.device, s);
  run_transform(*t, dev(d_a), dev(d_a), false, inverse, pre_op{}, s);
}

void dit_rn_gpu(const evaluation_domain& dom, device_ptr d_a, bool inverse, const gpu_config& cfg) {
  check_domain(dom);
  check_ptr(d_a.ptr, "dit_rn_gpu");
  if (dom.lg_size() == 0) return;
  gpu::device_guard guard(cfg.device);
  const cudaStream_t s = stream_of(cfg);
  const auto t = tables_for(dom, cfg.device, s);
  run_transform(*t, dev(d_a), dev(d_a), true, inverse, pre_op{}, s);
}

void bit_reverse_gpu(const evaluation_domain& dom, device_ptr d_a, const gpu_config& cfg) {
  check_domain(dom);
  check_ptr(d_a.ptr, "bit_reverse_gpu");
  if (dom.lg_size() == 0) return;
  gpu::device_guard guard(cfg.device);
  run_bit_reverse(dom.lg_size(), dev(d_a), post::none, fr::one(), pow_table{nullptr, nullptr, 0}, stream_of(cfg));
}

std::size_t gpu_twiddle_bytes(unsigned lg_n) {
  if (lg_n == 0) return 0;
  std::size_t b = 5 * device_pow_table::bytes(lg_n);
  for (const unsigned lg : root_orders(lg_n)) b += device_root_table::bytes(lg);
  return b;
}

void gpu_prepare(unsigned lg_n, const gpu_config& cfg) {
  const auto dom = evaluation_domain::from_lg(lg_n);
  check_domain(dom);
  if (lg_n == 0) return;
  gpu::device_guard guard(cfg.device);
  (void)tables_for(dom, cfg.device, stream_of(cfg));
}

void gpu_release_tables() {
  std::lock_guard lock(cache_mutex);
  cache.clear();
  root_cache.clear();
}

}  // namespace cuzk::ntt
