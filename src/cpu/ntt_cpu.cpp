// SPDX-License-Identifier: Apache-2.0
// CPU NTT over Fr: radix-4 DIF with cache blocking, oneTBB threads.
// Orderings, method, twiddle layout and costs: include/cuzk/ntt/ntt.hpp.
//
// Radix-4 DIF butterfly for level pair (L, L-1), w = root_of_unity(L),
// q = 2^(L-2), i = w^q = root_of_unity(2), column j < q of a 4q sub-block
// (x_k at offset j + k q):
//   a0 = x0 + x2   b0 = x0 - x2   a1 = x1 + x3   c = (x1 - x3) i
//   y0 = a0 + a1   y1 = (a0 - a1) w^2j   y2 = (b0 + c) w^j   y3 = (b0 - c) w^3j
// which is the two radix-2 DIF levels L and L-1 fused (w^(j+q) = i w^j).
// Inverse (w -> w^-1, i -> -i) with the forward triple t = (t1, t2, t3) read at
// q - j, where t1 = i w^-j, t2 = -w^-2j, t3 = -i w^-3j:
//   A = (x0 - x2) i   nc = x3 - x1
//   y0 = a0 + a1   y1 = (a1 - a0) t2   y2 = (nc - A) t1   y3 = (nc + A) t3
// Column j = 0 has unit twiddles and costs one multiplication (by i).

#include <cuzk/ntt/ntt.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace cuzk::ntt {
namespace {

using ff::fr;

// ---- tuning ----------------------------------------------------------------
// Chosen from cache sizes, not yet tuned by measurement (the 2-core dev box
// was shared and overloaded when this was written; re-tune with
// bench/ntt_bench.cpp on the target host). lg_block: in-cache block of 2^14
// Fr = 512 KiB, half a 1 MiB L2 (Zen 4/5); lg_group x lg_chunk: the outer
// passes' gathered sub-matrix, 64 rows x 16 columns = 32 KiB, the L1 size.
// Measured on the dev box (1 thread, under load): ntt costs ~2.2 (n/2) lg_n
// multiplication times; the 8 add/sub per radix-4 butterfly are ~0.75 of it.
constexpr unsigned lg_block = 14;
constexpr unsigned lg_serial = 10;  // at or below: one serial in-cache transform
constexpr unsigned lg_group = 6;    // levels per outer pass (even: radix-4 pairs)
constexpr unsigned lg_chunk = 4;    // columns per outer sub-matrix
constexpr unsigned lg_tile = 4;     // bit_reverse tiles: 16 x 16 elements
constexpr std::size_t pointwise_grain = std::size_t(1) << 13;
static_assert(lg_group % 2 == 0 && lg_group >= 2);
static_assert(lg_block >= lg_chunk);

constexpr fr imag = root_of_unity(2);  // primitive 4th root of unity, w_L^(2^(L-2))

// ---- twiddle tables ----------------------------------------------------------
// Level L (2 <= L <= lg_max_domain): 3q elements, triples (w^j, w^2j, w^3j),
// j < q = 2^(L-2), w = root_of_unity(L). Built once, never freed.
const fr* twiddle_triples(unsigned lg_level) {
  static std::array<std::once_flag, lg_max_domain + 1> flags;
  static std::array<std::unique_ptr<fr[]>, lg_max_domain + 1> tables;
  std::call_once(flags[lg_level], [lg_level] {
    const std::size_t q = std::size_t(1) << (lg_level - 2);
    std::unique_ptr<fr[]> t(new fr[3 * q]);
    const fr w = root_of_unity(lg_level);
    auto fill = [&](std::size_t j0, std::size_t j1) {
      fr wj = w.pow(std::uint64_t(j0));
      for (std::size_t j = j0; j < j1; ++j) {
        const fr w2 = wj.sqr();
        t[3 * j] = wj;
        t[3 * j + 1] = w2;
        t[3 * j + 2] = w2 * wj;
        wj = wj * w;
      }
    };
    constexpr std::size_t grain = std::size_t(1) << 12;
    if (q <= grain) {
      fill(0, q);
    } else {
      // Isolated so that a thread waiting here never picks up an unrelated
      // task that could re-enter call_once on this flag.
      tbb::this_task_arena::isolate([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, q, grain),
                          [&](const tbb::blocked_range<std::size_t>& r) { fill(r.begin(), r.end()); });
      });
    }
    tables[lg_level] = std::move(t);
  });
  return tables[lg_level].get();
}

/// Twiddle tables for every level pair a 2^lg_n transform uses, fetched (and
/// built if needed) before any parallel loop starts.
struct twiddle_set {
  std::array<const fr*, lg_max_domain + 1> level{};
  explicit twiddle_set(unsigned lg_n) {
    for (int l = int(lg_n); l >= 2; l -= 2) level[l] = twiddle_triples(unsigned(l));
  }
};

// ---- butterflies -------------------------------------------------------------
template <bool Inv>
inline void bfly4_unit(fr& x0, fr& x1, fr& x2, fr& x3) {
  const fr a0 = x0 + x2, b0 = x0 - x2, a1 = x1 + x3, c = (x1 - x3) * imag;
  x0 = a0 + a1;
  x1 = a0 - a1;
  if constexpr (Inv) {
    x2 = b0 - c;
    x3 = b0 + c;
  } else {
    x2 = b0 + c;
    x3 = b0 - c;
  }
}

/// |t| points at the forward triple of column j (forward) or q - j (inverse).
template <bool Inv>
inline void bfly4(fr& x0, fr& x1, fr& x2, fr& x3, const fr* t) {
  if constexpr (Inv) {
    const fr a0 = x0 + x2, big_a = (x0 - x2) * imag, a1 = x1 + x3, nc = x3 - x1;
    x0 = a0 + a1;
    x1 = (a1 - a0) * t[1];
    x2 = (nc - big_a) * t[0];
    x3 = (nc + big_a) * t[2];
  } else {
    const fr a0 = x0 + x2, b0 = x0 - x2, a1 = x1 + x3, c = (x1 - x3) * imag;
    x0 = a0 + a1;
    x1 = (a0 - a1) * t[1];
    x2 = (b0 + c) * t[0];
    x3 = (b0 - c) * t[2];
  }
}

template <bool Inv>
inline const fr* triple(const fr* tw, std::size_t q, std::size_t j) {
  return Inv ? tw + 3 * (q - j) : tw + 3 * j;
}

// ---- in-cache block: all levels lg .. 1 of a contiguous 2^lg block ----------
template <bool Inv>
void dif_block(fr* x, unsigned lg, const twiddle_set& tws) {
  const std::size_t len = std::size_t(1) << lg;
  int level = int(lg);
  for (; level >= 2; level -= 2) {
    const std::size_t q = std::size_t(1) << (level - 2);
    const fr* tw = tws.level[level];
    for (std::size_t s = 0; s < len; s += 4 * q) {
      fr* p = x + s;
      bfly4_unit<Inv>(p[0], p[q], p[2 * q], p[3 * q]);
      for (std::size_t j = 1; j < q; ++j) bfly4<Inv>(p[j], p[j + q], p[j + 2 * q], p[j + 3 * q], triple<Inv>(tw, q, j));
    }
  }
  if (level == 1) {  // odd lg: last level, span 1, twiddle 1 in both directions
    for (std::size_t i = 0; i < len; i += 2) {
      const fr u = x[i], v = x[i + 1];
      x[i] = u + v;
      x[i + 1] = u - v;
    }
  }
}

// ---- outer pass: levels lg_top .. lg_top - t + 1 (t even) --------------------
// A block of 2^lg_top elements is a (2^t rows) x (S = 2^(lg_top - t) columns)
// matrix, element (row, col) at col + S row; these t levels mix rows only, so
// each run of C columns is an independent sub-matrix, gathered into a
// contiguous buffer, transformed, scattered back. The twiddle of column j of
// level pair L is the position inside its 4q sub-block: jr S + col.
//
// With |coset| (first pass only, lg_top = lg_n) each element is multiplied
// by coset^position while it is gathered: g^(r S) g^(col) from a per-pass row
// table and a per-item column table, 2 M per element, which saves the
// separate g^i pass over memory.
template <bool Inv>
void outer_pass(fr* a, unsigned lg_n, unsigned lg_top, unsigned t, const twiddle_set& tws, const fr* coset) {
  const std::size_t cols = std::size_t(1) << (lg_top - t);
  const std::size_t rows = std::size_t(1) << t;
  const std::size_t chunk = std::min(cols, std::size_t(1) << lg_chunk);
  const std::size_t chunks_per_block = cols / chunk;
  const std::size_t items = (std::size_t(1) << (lg_n - lg_top)) * chunks_per_block;

  std::array<fr, std::size_t(1) << lg_group> row_pow;  // coset^(r S)
  if (coset) {
    const fr step = coset->pow(std::uint64_t(cols));
    row_pow[0] = fr::one();
    for (std::size_t r = 1; r < rows; ++r) row_pow[r] = row_pow[r - 1] * step;
  }

  auto run = [&](std::size_t item) {
    alignas(64) fr buf[(std::size_t(1) << lg_group) << lg_chunk];
    const std::size_t blk = item / chunks_per_block;
    const std::size_t col0 = (item % chunks_per_block) * chunk;
    fr* base = a + (blk << lg_top) + col0;
    if (coset) {
      std::array<fr, std::size_t(1) << lg_chunk> col_pow;  // coset^(col0 + c)
      col_pow[0] = coset->pow(std::uint64_t(col0));
      for (std::size_t c = 1; c < chunk; ++c) col_pow[c] = col_pow[c - 1] * *coset;
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < chunk; ++c) buf[r * chunk + c] = base[r * cols + c] * (row_pow[r] * col_pow[c]);
    } else {
      for (std::size_t r = 0; r < rows; ++r)
        std::memcpy(static_cast<void*>(buf + r * chunk), base + r * cols, chunk * sizeof(fr));
    }

    for (unsigned k = 0; k < t; k += 2) {
      const unsigned level = lg_top - k;
      const std::size_t q = std::size_t(1) << (level - 2);
      const std::size_t q_rows = q / cols;  // row distance between the 4 legs
      const std::size_t leg = q_rows * chunk;
      const fr* tw = tws.level[level];
      for (std::size_t sb = 0; sb < rows; sb += 4 * q_rows) {
        for (std::size_t jr = 0; jr < q_rows; ++jr) {
          fr* p = buf + (sb + jr) * chunk;
          const std::size_t j0 = jr * cols + col0;
          std::size_t c = 0;
          if (j0 == 0) {
            bfly4_unit<Inv>(p[0], p[leg], p[2 * leg], p[3 * leg]);
            c = 1;
          }
          for (; c < chunk; ++c)
            bfly4<Inv>(p[c], p[c + leg], p[c + 2 * leg], p[c + 3 * leg], triple<Inv>(tw, q, j0 + c));
        }
      }
    }

    for (std::size_t r = 0; r < rows; ++r)
      std::memcpy(static_cast<void*>(base + r * cols), buf + r * chunk, chunk * sizeof(fr));
  };

  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, items), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i < r.end(); ++i) run(i);
  });
}

void scale_by_powers(std::span<fr> a, const fr& first, const fr& g);

/// DIF of a[0..2^lg_n); with |coset|, of a_i coset^i (fused into the first pass).
template <bool Inv>
void dif_nr_impl(fr* a, unsigned lg_n, const fr* coset = nullptr) {
  if (lg_n <= lg_serial) {
    if (coset) scale_by_powers(std::span<fr>(a, std::size_t(1) << lg_n), fr::one(), *coset);
    if (lg_n == 0) return;
    dif_block<Inv>(a, lg_n, twiddle_set(lg_n));
    return;
  }
  const twiddle_set tws(lg_n);
  // Outer levels lg_n .. lg_b + 1 (an even number of them), then blocks of 2^lg_b.
  unsigned lg_b = std::min(lg_block, lg_n - 4);
  if ((lg_n - lg_b) & 1) --lg_b;
  // Split them into the fewest passes of at most lg_group levels, balanced
  // (8 levels: 4 + 4, not 6 + 2), each an even number of levels.
  unsigned pairs_left = (lg_n - lg_b) / 2;
  unsigned passes_left = (pairs_left + lg_group / 2 - 1) / (lg_group / 2);
  for (unsigned lg_top = lg_n; passes_left > 0; --passes_left) {
    const unsigned pairs = (pairs_left + passes_left - 1) / passes_left;
    outer_pass<Inv>(a, lg_n, lg_top, 2 * pairs, tws, lg_top == lg_n ? coset : nullptr);
    lg_top -= 2 * pairs;
    pairs_left -= pairs;
  }
  const std::size_t blocks = std::size_t(1) << (lg_n - lg_b);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t b = r.begin(); b < r.end(); ++b) dif_block<Inv>(a + (b << lg_b), lg_b, tws);
  });
}

// ---- bit reversal ------------------------------------------------------------
inline std::size_t reverse_bits(std::size_t x, unsigned bits) {
  if (bits == 0) return 0;
  std::uint64_t v = x;
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
  v = __builtin_bswap64(v);
  return std::size_t(v >> (64 - bits));
}

constexpr std::size_t tile = std::size_t(1) << lg_tile;
constexpr std::array<std::uint8_t, tile> rev_tile = [] {
  std::array<std::uint8_t, tile> r{};
  for (std::size_t i = 0; i < tile; ++i) {
    std::size_t v = 0;
    for (unsigned b = 0; b < lg_tile; ++b) v |= ((i >> b) & 1) << (lg_tile - 1 - b);
    r[i] = std::uint8_t(v);
  }
  return r;
}();

// Index i = (h, m, l) with h, l of lg_tile bits maps to (rev l, rev m, rev h):
// tile m (rows h, 16 contiguous columns l) is exchanged with tile rev(m),
// transposed and bit-reversed inside, through two 8 KiB buffers. On its way
// each element is multiplied, by destination index i', by nothing, by a
// constant |s|, or by s gen^i' (= s gen^(h' << row_shift) gen^(m' << lg_tile)
// gen^l' from a per-call row table and a per-tile column table: 2 M).
enum class post { none, constant, powers };

void scale_all(std::span<fr> a, const fr& s);

template <post Post>
void bit_reverse_impl(fr* a, unsigned lg_n, const fr& s = fr::one(), const fr& gen = fr::one()) {
  const std::size_t n = std::size_t(1) << lg_n;
  if (lg_n < 2 * lg_tile) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t r = reverse_bits(i, lg_n);
      if (i < r) std::swap(a[i], a[r]);
    }
    if constexpr (Post == post::constant) scale_all(std::span<fr>(a, n), s);
    if constexpr (Post == post::powers) scale_by_powers(std::span<fr>(a, n), s, gen);
    return;
  }
  const unsigned lg_mid = lg_n - 2 * lg_tile;
  const unsigned row_shift = lg_mid + lg_tile;  // h is bits [row_shift, lg_n)

  std::array<fr, tile> row_pow;  // gen^(h' << row_shift)
  if constexpr (Post == post::powers) {
    const fr step = gen.pow(std::uint64_t(1) << row_shift);
    row_pow[0] = fr::one();
    for (std::size_t r = 1; r < tile; ++r) row_pow[r] = row_pow[r - 1] * step;
  }

  // dst_m: the mid index of the destination tile; src: buffer of the other tile.
  auto put = [&](std::size_t dst_m, const fr* src) {
    fr* dst_tile = a + (dst_m << lg_tile);
    std::array<fr, tile> col_mul;  // s gen^((m' << lg_tile) + l')
    if constexpr (Post == post::powers) {
      col_mul[0] = s * gen.pow(std::uint64_t(dst_m) << lg_tile);
      for (std::size_t c = 1; c < tile; ++c) col_mul[c] = col_mul[c - 1] * gen;
    }
    for (std::size_t row = 0; row < tile; ++row) {
      fr* out = dst_tile + (row << row_shift);
      const std::size_t l = rev_tile[row];
      for (std::size_t col = 0; col < tile; ++col) {
        const fr& v = src[rev_tile[col] * tile + l];
        if constexpr (Post == post::none) out[col] = v;
        if constexpr (Post == post::constant) out[col] = v * s;
        if constexpr (Post == post::powers) out[col] = v * (row_pow[row] * col_mul[col]);
      }
    }
  };
  auto load = [&](fr* buf, std::size_t src_m) {
    const fr* src_tile = a + (src_m << lg_tile);
    for (std::size_t row = 0; row < tile; ++row)
      std::memcpy(static_cast<void*>(buf + row * tile), src_tile + (row << row_shift), tile * sizeof(fr));
  };
  auto run = [&](std::size_t m) {
    const std::size_t mr = reverse_bits(m, lg_mid);
    if (m > mr) return;
    alignas(64) fr buf_m[tile * tile];
    alignas(64) fr buf_r[tile * tile];
    load(buf_m, m);
    if (m == mr) {
      put(m, buf_m);
    } else {
      load(buf_r, mr);
      put(mr, buf_m);
      put(m, buf_r);
    }
  };
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, std::size_t(1) << lg_mid, 16),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t m = r.begin(); m < r.end(); ++m) run(m);
                    });
}

// ---- pointwise passes ----------------------------------------------------------
/// a_i *= first * g^i.
void scale_by_powers(std::span<fr> a, const fr& first, const fr& g) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, a.size(), pointwise_grain),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      fr cur = first * g.pow(std::uint64_t(r.begin()));
                      for (std::size_t i = r.begin(); i < r.end(); ++i) {
                        a[i] = a[i] * cur;
                        cur = cur * g;
                      }
                    });
}

void scale_all(std::span<fr> a, const fr& s) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, a.size(), pointwise_grain),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t i = r.begin(); i < r.end(); ++i) a[i] = a[i] * s;
                    });
}

void check_size(const evaluation_domain& domain, std::size_t size, const char* what) {
  if (size != domain.size())
    throw std::invalid_argument(std::string("cuzk::ntt::") + what + ": span of " + std::to_string(size) +
                                " elements, domain of " + std::to_string(domain.size()));
}

}  // namespace

std::size_t twiddle_bytes(unsigned lg_n) {
  std::size_t bytes = 0;
  for (int l = int(lg_n); l >= 2; l -= 2) bytes += 3 * (std::size_t(1) << (l - 2)) * sizeof(fr);
  return bytes;
}

void dif_nr(const evaluation_domain& domain, std::span<fr> a, direction dir) {
  check_size(domain, a.size(), "dif_nr");
  if (dir == direction::forward) dif_nr_impl<false>(a.data(), domain.lg_size());
  else dif_nr_impl<true>(a.data(), domain.lg_size());
}

void bit_reverse(std::span<fr> a) {
  if (!std::has_single_bit(a.size()))
    throw std::invalid_argument("cuzk::ntt::bit_reverse: size " + std::to_string(a.size()) + " is not a power of two");
  bit_reverse_impl<post::none>(a.data(), unsigned(std::countr_zero(a.size())));
}

void ntt(const evaluation_domain& domain, std::span<fr> a) {
  check_size(domain, a.size(), "ntt");
  dif_nr_impl<false>(a.data(), domain.lg_size());
  bit_reverse_impl<post::none>(a.data(), domain.lg_size());
}

void intt(const evaluation_domain& domain, std::span<fr> a) {
  check_size(domain, a.size(), "intt");
  dif_nr_impl<true>(a.data(), domain.lg_size());
  bit_reverse_impl<post::constant>(a.data(), domain.lg_size(), domain.n_inv());
}

void coset_ntt(const evaluation_domain& domain, std::span<fr> a) {
  check_size(domain, a.size(), "coset_ntt");
  dif_nr_impl<false>(a.data(), domain.lg_size(), &domain.coset_gen());
  bit_reverse_impl<post::none>(a.data(), domain.lg_size());
}

void coset_intt(const evaluation_domain& domain, std::span<fr> a) {
  check_size(domain, a.size(), "coset_intt");
  dif_nr_impl<true>(a.data(), domain.lg_size());
  bit_reverse_impl<post::powers>(a.data(), domain.lg_size(), domain.n_inv(), domain.coset_gen_inv());
}

void divide_by_z_on_coset(const evaluation_domain& domain, std::span<fr> a) {
  check_size(domain, a.size(), "divide_by_z_on_coset");
  scale_all(a, domain.z_on_coset_inv());
}

void mul_sub(std::span<fr> a, std::span<const fr> b, std::span<const fr> c) {
  if (b.size() != a.size() || c.size() != a.size())
    throw std::invalid_argument("cuzk::ntt::mul_sub: sizes " + std::to_string(a.size()) + ", " +
                                std::to_string(b.size()) + ", " + std::to_string(c.size()) + " differ");
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, a.size(), pointwise_grain),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t i = r.begin(); i < r.end(); ++i) a[i] = a[i] * b[i] - c[i];
                    });
}

}  // namespace cuzk::ntt
