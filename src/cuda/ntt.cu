// SPDX-License-Identifier: Apache-2.0
// GPU NTT over Fr: radix-2 DIF in shared-memory passes, bit reversal with
// fused scalings. API, orderings and the CPU twins: cuzk/ntt/ntt_gpu.hpp.
//
// Method. A level L (lg_n >= L >= 1) is the radix-2 DIF stage whose
// butterflies pair x[s + j] and x[s + j + 2^(L-1)] inside blocks of 2^L:
//   x[s+j] = u + v,  x[s+j+2^(L-1)] = (u - v) w_L^j,  w_L^j = w^(j 2^(lg_n - L)).
// A pass does k consecutive levels L_top .. L_top-k+1. Inside a block of
// 2^L_top elements seen as 2^k rows x S = 2^(L_top-k) columns (element
// (r, col) at r S + col) those levels mix rows only, so a tile of 2^k rows x
// 2^c "columns" is independent of the rest: it is loaded into shared memory,
// transformed by k levels (one butterfly per thread per level) and stored back.
// The tile's 2^c columns are the lowest c bits of (block, col) read as one
// number, so a tile may span several blocks once S < 2^c (the last pass).
// Shared-memory order keeps the global order of the tile (free column bits
// lowest, then rows, then free block bits), so loads and stores coalesce.
// Passes are balanced: lg_n levels in ceil(lg_n / lg_tile) passes.
//
// Twiddles: W[e] = w^e for e < n/2, one table per size; the inverse transform
// uses w^-e = -w^(n/2 - e) (w^(n/2) = -1), computing (v - u) W[n/2 - e]
// instead of (u - v) w^-e, so one table serves both directions. Coset powers
// x^i (x = g or 1/g) come from split tables lo[i mod 2^s] * hi[i >> s]
// (2 x 2^(lg_n/2) elements): one extra multiplication per element.
//
// Bit reversal: in place, one thread per index i, swapping with rev(i) when
// i < rev(i) and multiplying each element by its destination's factor
// (none, 1/n, or g^-i / n).
//
// Invariants: device arrays are 16-byte aligned (cudaMalloc'd Fr arrays
// are); all values fully reduced Montgomery Fr (identical to the host's).
// Costs, n = 2^lg_n, M = one Fr multiplication (~280 IMADs):
//   dif passes     (n/2) lg_n M, ceil(lg_n/10) read+write passes over the data
//   bit reversal   one read+write pass (+n M for 1/n, +3n M for g^-i/n)
//   coset shift    +2n M fused into the first pass
//   h step         6 transforms + 2 pointwise passes
// Tables: 16 n bytes per cached size, built on the device from O(sqrt n)
// host-computed powers (one pass, n/2 M).

#include <cuzk/ntt/ntt_gpu.hpp>

#include <algorithm>
#include <cstdint>
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

namespace cuzk::ntt {
namespace {

using ff::fr;
using gpu::fr_d;
using tune = gpu::tuning::ntt;

// ---- 16-byte loads and stores --------------------------------------------------
__device__ __forceinline__ fr_d load(const fr_d* p) {
  const uint4* q = reinterpret_cast<const uint4*>(p);
  const uint4 x = q[0], y = q[1];
  fr_d r;
  r.l[0] = x.x, r.l[1] = x.y, r.l[2] = x.z, r.l[3] = x.w;
  r.l[4] = y.x, r.l[5] = y.y, r.l[6] = y.z, r.l[7] = y.w;
  return r;
}
__device__ __forceinline__ fr_d load_ro(const fr_d* p) {
  const uint4* q = reinterpret_cast<const uint4*>(p);
  const uint4 x = __ldg(q), y = __ldg(q + 1);
  fr_d r;
  r.l[0] = x.x, r.l[1] = x.y, r.l[2] = x.z, r.l[3] = x.w;
  r.l[4] = y.x, r.l[5] = y.y, r.l[6] = y.z, r.l[7] = y.w;
  return r;
}
__device__ __forceinline__ void store(fr_d* p, const fr_d& v) {
  uint4* q = reinterpret_cast<uint4*>(p);
  q[0] = make_uint4(v.l[0], v.l[1], v.l[2], v.l[3]);
  q[1] = make_uint4(v.l[4], v.l[5], v.l[6], v.l[7]);
}

/// x^i from split power tables: lo[i mod 2^split] * hi[i >> split].
struct pow_table {
  const fr_d* lo;
  const fr_d* hi;
  unsigned split;
  __device__ __forceinline__ fr_d at(std::uint32_t i) const {
    return load_ro(lo + (i & ((1u << split) - 1))) * load_ro(hi + (i >> split));
  }
};

// ---- kernels -------------------------------------------------------------------

struct pass_shape {
  unsigned lg_n;    // transform size
  unsigned lg_top;  // first (largest) level of this pass
  unsigned k;       // levels in this pass
  unsigned c;       // log2 of the tile's column count
};

/// One DIF pass (see the file comment). Launch: n >> (k + c) blocks of
/// min(2^(k+c-1), threads_per_tile) threads, 2^(k+c) * 32 bytes of dynamic
/// shared memory. With Coset, element i is first multiplied by coset.at(i).
template <bool Inv, bool Coset>
__global__ void __launch_bounds__(tune::threads_per_tile)
    dif_pass_kernel(fr_d* d_a, const fr_d* __restrict__ d_w, pass_shape ps, pow_table coset) {
  extern __shared__ uint4 smem_raw[];
  fr_d* tile = reinterpret_cast<fr_d*>(smem_raw);

  const unsigned lg_s = ps.lg_top - ps.k;
  const unsigned cfree = min(ps.c, lg_s);  // free column bits
  const unsigned bfree = ps.c - cfree;     // free block bits
  const std::uint32_t e = 1u << (ps.k + ps.c);
  const std::uint32_t t = blockIdx.x;
  const std::uint32_t colhi = t & ((1u << (lg_s - cfree)) - 1);
  const std::uint32_t blkhi = t >> (lg_s - cfree);
  const std::uint32_t cmask = (1u << cfree) - 1;
  const std::uint32_t rmask = (1u << ps.k) - 1;

  auto global_index = [&](std::uint32_t li) -> std::uint32_t {
    const std::uint32_t xc = li & cmask;
    const std::uint32_t r = (li >> cfree) & rmask;
    const std::uint32_t xb = li >> (cfree + ps.k);
    const std::uint32_t col = (colhi << cfree) | xc;
    const std::uint32_t blk = (blkhi << bfree) | xb;
    return (blk << ps.lg_top) | (r << lg_s) | col;
  };

  for (std::uint32_t li = threadIdx.x; li < e; li += blockDim.x) {
    const std::uint32_t gi = global_index(li);
    fr_d v = load(d_a + gi);
    if constexpr (Coset) v = v * coset.at(gi);
    store(tile + li, v);
  }
  __syncthreads();

  const std::uint32_t half_n = 1u << (ps.lg_n - 1);
  const std::uint32_t half_e = e >> 1;
  const std::uint32_t rpmask = (1u << (ps.k - 1)) - 1;
  for (unsigned s = 0; s < ps.k; ++s) {
    const unsigned lg_h = ps.k - 1 - s;
    const unsigned shift = ps.lg_n - (ps.lg_top - s);  // lg_n - L
    for (std::uint32_t b = threadIdx.x; b < half_e; b += blockDim.x) {
      const std::uint32_t xc = b & cmask;
      const std::uint32_t rp = (b >> cfree) & rpmask;
      const std::uint32_t xb = b >> (cfree + ps.k - 1);
      const std::uint32_t r_lo = rp & ((1u << lg_h) - 1);
      const std::uint32_t r0 = ((rp >> lg_h) << (lg_h + 1)) | r_lo;
      const std::uint32_t i0 = xc | (r0 << cfree) | (xb << (cfree + ps.k));
      const std::uint32_t i1 = i0 + (1u << (lg_h + cfree));
      const std::uint32_t col = (colhi << cfree) | xc;
      const std::uint32_t ex = ((r_lo << lg_s) | col) << shift;  // < n/2
      const fr_d u = load(tile + i0), v = load(tile + i1);
      store(tile + i0, u + v);
      fr_d d;
      if (ex == 0)
        d = u - v;
      else if constexpr (Inv)
        d = (v - u) * load_ro(d_w + (half_n - ex));
      else
        d = (u - v) * load_ro(d_w + ex);
      store(tile + i1, d);
    }
    __syncthreads();
  }

  for (std::uint32_t li = threadIdx.x; li < e; li += blockDim.x)
    store(d_a + global_index(li), load(tile + li));
}

enum class post { none, constant, powers };

/// a_i <-> a_rev(i), each multiplied by its destination's factor: none, s,
/// or s * pows.at(i).
template <post Post>
__global__ void bit_reverse_kernel(fr_d* d_a, unsigned lg_n, fr_d s, pow_table pows) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << lg_n)) return;
  const std::uint32_t r = __brev(i) >> (32 - lg_n);
  if (i > r) return;
  auto factor = [&](std::uint32_t idx, const fr_d& v) -> fr_d {
    if constexpr (Post == post::none) return v;
    if constexpr (Post == post::constant) return v * s;
    if constexpr (Post == post::powers) return v * (s * pows.at(idx));
  };
  const fr_d x = load(d_a + i);
  if (i == r) {
    if constexpr (Post != post::none) store(d_a + i, factor(i, x));
    return;
  }
  const fr_d y = load(d_a + r);
  store(d_a + i, factor(i, y));
  store(d_a + r, factor(r, x));
}

__global__ void scale_kernel(fr_d* d_a, std::uint32_t n, fr_d s) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) store(d_a + i, load(d_a + i) * s);
}

/// a_i = a_i b_i - c_i, then (WithScale) times s.
template <bool WithScale>
__global__ void mul_sub_kernel(fr_d* d_a, const fr_d* __restrict__ d_b,
                               const fr_d* __restrict__ d_c, std::uint32_t n, fr_d s) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_d v = load(d_a + i) * load_ro(d_b + i) - load_ro(d_c + i);
  if constexpr (WithScale) v = v * s;
  store(d_a + i, v);
}

/// W[e] = lo[e mod 2^split] * hi[e >> split] for e < count.
__global__ void expand_powers_kernel(fr_d* d_out, std::uint32_t count, pow_table pows) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) store(d_out + i, pows.at(i));
}

// ---- host-side tables -------------------------------------------------------------

fr_d to_device(const fr& x) {
  fr_d r;
  std::memcpy(&r, &x, sizeof r);
  return r;
}

/// x^0 .. x^(count-1).
std::vector<fr> powers(const fr& x, std::size_t count) {
  std::vector<fr> p(count);
  fr cur = fr::one();
  for (auto& v : p) {
    v = cur;
    cur = cur * x;
  }
  return p;
}

/// Split power table of x for exponents < 2^lg_count, on the device.
struct device_pow_table {
  gpu::device_buffer<fr> lo, hi;
  unsigned split = 0;

  device_pow_table(const fr& x, unsigned lg_count, cudaStream_t s) {
    split = (lg_count + 1) / 2;
    const std::vector<fr> h_lo = powers(x, std::size_t(1) << split);
    const std::vector<fr> h_hi =
        powers(x.pow(std::uint64_t(1) << split), std::size_t(1) << (lg_count - split));
    lo = gpu::device_buffer<fr>(h_lo.size());
    hi = gpu::device_buffer<fr>(h_hi.size());
    lo.upload(h_lo.data(), h_lo.size(), s);
    hi.upload(h_hi.data(), h_hi.size(), s);
    // the host vectors die at return: wait for the (possibly staged) copies
    CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  pow_table view() const {
    return {reinterpret_cast<const fr_d*>(lo.data()), reinterpret_cast<const fr_d*>(hi.data()),
            split};
  }
};

unsigned blocks_for(std::size_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

/// Everything a 2^lg_n transform needs on one device.
struct tables {
  unsigned lg_n;
  gpu::device_buffer<fr> twiddles;  // w^e, e < n/2
  std::unique_ptr<device_pow_table> g_pows, g_inv_pows;

  tables(const evaluation_domain& dom, cudaStream_t s) : lg_n(dom.lg_size()) {
    const unsigned lg_half = lg_n - 1;
    const std::size_t half = std::size_t(1) << lg_half;
    twiddles = gpu::device_buffer<fr>(half);
    {
      const device_pow_table w_pows(dom.omega(), lg_half, s);
      expand_powers_kernel<<<blocks_for(half, tune::pointwise_threads), tune::pointwise_threads,
                             0, s>>>(reinterpret_cast<fr_d*>(twiddles.data()),
                                     std::uint32_t(half), w_pows.view());
      CUZK_CUDA_CHECK_LAUNCH();
      CUZK_CUDA_CHECK(cudaStreamSynchronize(s));  // before w_pows is freed
    }
    g_pows = std::make_unique<device_pow_table>(dom.coset_gen(), lg_n, s);
    g_inv_pows = std::make_unique<device_pow_table>(dom.coset_gen_inv(), lg_n, s);
  }
};

std::mutex cache_mutex;
std::map<std::pair<int, unsigned>, std::shared_ptr<const tables>> cache;

/// Tables for the domain's size on the current device (built under the lock
/// on |s| and complete when returned).
std::shared_ptr<const tables> tables_for(const evaluation_domain& dom, int device,
                                         cudaStream_t s) {
  std::lock_guard lock(cache_mutex);
  auto& slot = cache[{device, dom.lg_size()}];
  if (!slot) slot = std::make_shared<const tables>(dom, s);
  return slot;
}

// ---- orchestration ---------------------------------------------------------------

void check_domain(const evaluation_domain& dom) {
  if (dom.lg_size() > tune::lg_max)
    throw std::invalid_argument("cuzk::ntt gpu: 2^" + std::to_string(dom.lg_size()) +
                                " exceeds the GPU limit 2^" + std::to_string(tune::lg_max));
}

void check_size(const evaluation_domain& dom, std::size_t size, const char* what) {
  check_domain(dom);
  if (size != dom.size())
    throw std::invalid_argument(std::string("cuzk::ntt::") + what + ": span of " +
                                std::to_string(size) + " elements, domain of " +
                                std::to_string(dom.size()));
}

void check_ptr(const void* p, const char* what) {
  if (!p || (reinterpret_cast<std::uintptr_t>(p) & 15))
    throw std::invalid_argument(std::string("cuzk::ntt::") + what +
                                ": device pointer is null or not 16-byte aligned");
}

/// Balanced split of |levels| into passes of at most lg_tile levels.
std::vector<unsigned> plan_passes(unsigned levels) {
  std::vector<unsigned> ks;
  const unsigned passes = (levels + tune::lg_tile - 1) / tune::lg_tile;
  unsigned left = levels;
  for (unsigned p = passes; p > 0; --p) {
    const unsigned k = (left + p - 1) / p;
    ks.push_back(k);
    left -= k;
  }
  return ks;
}

void run_dif(const tables& t, fr_d* d_a, bool inverse, const pow_table* coset, cudaStream_t s) {
  const unsigned lg_n = t.lg_n;
  const fr_d* d_w = reinterpret_cast<const fr_d*>(t.twiddles.data());
  unsigned lg_top = lg_n;
  bool first = true;
  for (const unsigned k : plan_passes(lg_n)) {
    const unsigned c = std::min(tune::lg_tile - k, lg_n - k);
    const pass_shape ps{lg_n, lg_top, k, c};
    const unsigned lg_e = k + c;
    const unsigned threads = std::min(1u << (lg_e - 1), tune::threads_per_tile);
    const unsigned blocks = 1u << (lg_n - lg_e);
    const std::size_t smem = (std::size_t(1) << lg_e) * sizeof(fr_d);
    const pow_table cz = (first && coset) ? *coset : pow_table{nullptr, nullptr, 0};
    if (first && coset) {
      if (inverse)
        dif_pass_kernel<true, true><<<blocks, threads, smem, s>>>(d_a, d_w, ps, cz);
      else
        dif_pass_kernel<false, true><<<blocks, threads, smem, s>>>(d_a, d_w, ps, cz);
    } else {
      if (inverse)
        dif_pass_kernel<true, false><<<blocks, threads, smem, s>>>(d_a, d_w, ps, cz);
      else
        dif_pass_kernel<false, false><<<blocks, threads, smem, s>>>(d_a, d_w, ps, cz);
    }
    CUZK_CUDA_CHECK_LAUNCH();
    lg_top -= k;
    first = false;
  }
}

void run_bit_reverse(unsigned lg_n, fr_d* d_a, post mode, const fr& scale, const pow_table& pows,
                     cudaStream_t s) {
  const std::size_t n = std::size_t(1) << lg_n;
  const unsigned threads = tune::pointwise_threads;
  const unsigned blocks = blocks_for(n, threads);
  const fr_d sd = to_device(scale);
  switch (mode) {
    case post::none:
      bit_reverse_kernel<post::none><<<blocks, threads, 0, s>>>(d_a, lg_n, sd, pows);
      break;
    case post::constant:
      bit_reverse_kernel<post::constant><<<blocks, threads, 0, s>>>(d_a, lg_n, sd, pows);
      break;
    case post::powers:
      bit_reverse_kernel<post::powers><<<blocks, threads, 0, s>>>(d_a, lg_n, sd, pows);
      break;
  }
  CUZK_CUDA_CHECK_LAUNCH();
}

void run_scale(std::size_t n, fr_d* d_a, const fr& scale, cudaStream_t s) {
  if (n == 0) return;
  scale_kernel<<<blocks_for(n, tune::pointwise_threads), tune::pointwise_threads, 0, s>>>(
      d_a, std::uint32_t(n), to_device(scale));
  CUZK_CUDA_CHECK_LAUNCH();
}

void run_mul_sub(std::size_t n, fr_d* d_a, const fr_d* d_b, const fr_d* d_c, const fr* scale,
                 cudaStream_t s) {
  if (n == 0) return;
  const unsigned blocks = blocks_for(n, tune::pointwise_threads);
  if (scale)
    mul_sub_kernel<true><<<blocks, tune::pointwise_threads, 0, s>>>(d_a, d_b, d_c,
                                                                    std::uint32_t(n),
                                                                    to_device(*scale));
  else
    mul_sub_kernel<false><<<blocks, tune::pointwise_threads, 0, s>>>(
        d_a, d_b, d_c, std::uint32_t(n), to_device(fr::one()));
  CUZK_CUDA_CHECK_LAUNCH();
}

enum class op { ntt, intt, coset_ntt, coset_intt };

/// One transform on device memory, asynchronous on |s|. The current device
/// must be |device|.
void transform(const evaluation_domain& dom, fr_d* d_a, op which, int device, cudaStream_t s) {
  const unsigned lg_n = dom.lg_size();
  if (lg_n == 0) return;  // n = 1: every transform is the identity
  const auto t = tables_for(dom, device, s);
  const pow_table none{nullptr, nullptr, 0};
  switch (which) {
    case op::ntt:
      run_dif(*t, d_a, false, nullptr, s);
      run_bit_reverse(lg_n, d_a, post::none, fr::one(), none, s);
      break;
    case op::intt:
      run_dif(*t, d_a, true, nullptr, s);
      run_bit_reverse(lg_n, d_a, post::constant, dom.n_inv(), none, s);
      break;
    case op::coset_ntt: {
      const pow_table g = t->g_pows->view();
      run_dif(*t, d_a, false, &g, s);
      run_bit_reverse(lg_n, d_a, post::none, fr::one(), none, s);
      break;
    }
    case op::coset_intt:
      run_dif(*t, d_a, true, nullptr, s);
      run_bit_reverse(lg_n, d_a, post::powers, dom.n_inv(), t->g_inv_pows->view(), s);
      break;
  }
}

cudaStream_t stream_of(const gpu_config& cfg) { return reinterpret_cast<cudaStream_t>(cfg.stream); }

fr_d* dev(device_ptr p) { return reinterpret_cast<fr_d*>(p.ptr); }
const fr_d* dev(const_device_ptr p) { return reinterpret_cast<const fr_d*>(p.ptr); }

/// Host-span flavour of one transform: upload, run, download, wait.
void host_transform(const evaluation_domain& dom, std::span<fr> a, op which,
                    const gpu_config& cfg, const char* what) {
  check_size(dom, a.size(), what);
  gpu::device_guard guard(cfg.device);
  const cudaStream_t s = stream_of(cfg);
  gpu::device_buffer<fr> d_a(a.size());
  d_a.upload(a.data(), a.size(), s);
  transform(dom, reinterpret_cast<fr_d*>(d_a.data()), which, cfg.device, s);
  d_a.download(a.data(), a.size(), s);
  CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
}

void device_transform(const evaluation_domain& dom, device_ptr d_a, op which,
                      const gpu_config& cfg, const char* what) {
  check_domain(dom);
  check_ptr(d_a.ptr, what);
  gpu::device_guard guard(cfg.device);
  transform(dom, dev(d_a), which, cfg.device, stream_of(cfg));
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

void divide_by_z_on_coset_gpu(const evaluation_domain& dom, std::span<fr> a,
                              const gpu_config& cfg) {
  check_size(dom, a.size(), "divide_by_z_on_coset_gpu");
  gpu::device_guard guard(cfg.device);
  const cudaStream_t s = stream_of(cfg);
  gpu::device_buffer<fr> d_a(a.size());
  d_a.upload(a.data(), a.size(), s);
  run_scale(a.size(), reinterpret_cast<fr_d*>(d_a.data()), dom.z_on_coset_inv(), s);
  d_a.download(a.data(), a.size(), s);
  CUZK_CUDA_CHECK(cudaStreamSynchronize(s));
}

void mul_sub_gpu(std::span<fr> a, std::span<const fr> b, std::span<const fr> c,
                 const gpu_config& cfg) {
  if (b.size() != a.size() || c.size() != a.size())
    throw std::invalid_argument("cuzk::ntt::mul_sub_gpu: sizes " + std::to_string(a.size()) +
                                ", " + std::to_string(b.size()) + ", " + std::to_string(c.size()) +
                                " differ");
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

void compute_h_gpu(const evaluation_domain& dom, std::span<fr> a, std::span<const fr> b,
                   std::span<const fr> c, const gpu_config& cfg) {
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

void divide_by_z_on_coset_gpu(const evaluation_domain& dom, device_ptr d_a,
                              const gpu_config& cfg) {
  check_domain(dom);
  check_ptr(d_a.ptr, "divide_by_z_on_coset_gpu");
  gpu::device_guard guard(cfg.device);
  run_scale(dom.size(), dev(d_a), dom.z_on_coset_inv(), stream_of(cfg));
}

void mul_sub_gpu(std::size_t n, device_ptr d_a, const_device_ptr d_b, const_device_ptr d_c,
                 const gpu_config& cfg) {
  if (n == 0) return;
  if (n > (std::size_t(1) << tune::lg_max))
    throw std::invalid_argument("cuzk::ntt::mul_sub_gpu: too many elements");
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
  const cudaStream_t s = stream_of(cfg);
  for (fr_d* d : {dev(d_a), dev(d_b), dev(d_c)}) {
    transform(dom, d, op::intt, cfg.device, s);
    transform(dom, d, op::coset_ntt, cfg.device, s);
  }
  const fr z_inv = dom.z_on_coset_inv();
  run_mul_sub(dom.size(), dev(d_a), dev(d_b), dev(d_c), &z_inv, s);
  transform(dom, dev(d_a), op::coset_intt, cfg.device, s);
}

void dif_nr_gpu(const evaluation_domain& dom, device_ptr d_a, bool inverse,
                const gpu_config& cfg) {
  check_domain(dom);
  check_ptr(d_a.ptr, "dif_nr_gpu");
  if (dom.lg_size() == 0) return;
  gpu::device_guard guard(cfg.device);
  const cudaStream_t s = stream_of(cfg);
  const auto t = tables_for(dom, cfg.device, s);
  run_dif(*t, dev(d_a), inverse, nullptr, s);
}

void bit_reverse_gpu(const evaluation_domain& dom, device_ptr d_a, const gpu_config& cfg) {
  check_domain(dom);
  check_ptr(d_a.ptr, "bit_reverse_gpu");
  if (dom.lg_size() == 0) return;
  gpu::device_guard guard(cfg.device);
  run_bit_reverse(dom.lg_size(), dev(d_a), post::none, fr::one(), pow_table{nullptr, nullptr, 0},
                  stream_of(cfg));
}

std::size_t gpu_twiddle_bytes(unsigned lg_n) {
  if (lg_n == 0) return 0;
  const unsigned split = (lg_n + 1) / 2;
  const std::size_t pow_bytes =
      2 * ((std::size_t(1) << split) + (std::size_t(1) << (lg_n - split))) * sizeof(fr);
  return (std::size_t(1) << (lg_n - 1)) * sizeof(fr) + pow_bytes;
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
}

}  // namespace cuzk::ntt
