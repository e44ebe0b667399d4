// SPDX-License-Identifier: Apache-2.0
// Poseidon constant generation (see poseidon_constants.hpp for what each
// step mirrors in neptune). Everything here runs once per arity; clarity
// wins over speed, but the matrix work is kept O(t^3) per step (a linear
// solve instead of neptune's two full inversions per sparse factor).

#include <cuzk/gadgets/poseidon_constants.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace cuzk::gadgets {

using ff::fr;

namespace {

// ---- round numbers (round_numbers.rs) ---------------------------------------------

// Poseidon paper inequalities for a 256-bit field and 128-bit security, in
// f32 as neptune computes them. Every product below has a power-of-two
// factor or no addend, so FMA contraction cannot change a result.
bool round_numbers_are_secure(std::size_t t, std::size_t rf, std::size_t rp) {
  const float rpf = static_cast<float>(rp);
  const float tf = static_cast<float>(t);
  const float n = 256.0f;
  const float m = 128.0f;
  const float rf_stat = m <= (n - 3.0f) * (tf + 1.0f) ? 6.0f : 10.0f;
  const float rf_interp = 0.43f * m + std::log2(tf) - rpf;
  const float rf_grob_1 = 0.21f * n - rpf;
  const float rf_grob_2 = (0.14f * n - 1.0f - rpf) / (tf - 1.0f);
  std::size_t rf_max = 0;
  for (const float bound : {rf_stat, rf_interp, rf_grob_1, rf_grob_2}) {
    const float c = std::ceil(bound);
    // Rust's `as usize` saturates: negative bounds become 0
    const std::size_t v = c <= 0.0f ? 0 : static_cast<std::size_t>(c);
    rf_max = std::max(rf_max, v);
  }
  return rf >= rf_max;
}

// ---- Grain LFSR (round_constants.rs) ------------------------------------------------

class grain_lfsr {
 public:
  grain_lfsr(std::size_t t, std::size_t r_f, std::size_t r_p) {
    std::size_t pos = 0;
    const auto append = [&](std::size_t bits, std::uint64_t value) {
      for (std::size_t i = bits; i-- > 0; ++pos) _state |= u128((value >> i) & 1) << pos;
    };
    append(2, 1);     // field: GF(p)
    append(4, 1);     // S-box: x^alpha
    append(12, 255);  // field size n
    append(12, t);    // width
    append(10, r_f);  // full rounds
    append(10, r_p);  // partial rounds
    append(30, 0x3fffffff);
    for (int i = 0; i < 160; ++i) step();
  }

  // One bit of the self-shrinking output: pairs (a, b), emit b when a = 1.
  bool next() {
    while (!step()) step();
    return step();
  }

 private:
  __extension__ using u128 = unsigned __int128;  // a GCC/Clang extension (-Wpedantic)

  // b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i, with
  // the window b_i..b_{i+79} held in bits 0..79 (oldest in bit 0).
  bool step() {
    const u128 s = _state;
    const bool b = ((s >> 62) ^ (s >> 51) ^ (s >> 38) ^ (s >> 23) ^ (s >> 13) ^ s) & 1;
    _state = (s >> 1) | (u128(b) << 79);
    return b;
  }

  u128 _state = 0;
};

// ---- dense matrices (matrix.rs), row-major n x n ------------------------------------------

using matrix = std::vector<fr>;

matrix mat_mul(const matrix& a, const matrix& b, std::size_t n) {
  matrix r(n * n, fr::zero());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const fr& aik = a[i * n + k];
      for (std::size_t j = 0; j < n; ++j) r[i * n + j] += aik * b[k * n + j];
    }
  return r;
}

matrix transpose(const matrix& a, std::size_t n) {
  matrix r(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) r[j * n + i] = a[i * n + j];
  return r;
}

// m * v (neptune left_apply_matrix: result[i] = sum_j m[i][j] v[j]).
std::vector<fr> left_apply(const matrix& m, std::span<const fr> v, std::size_t n) {
  std::vector<fr> r(n, fr::zero());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) r[i] += m[i * n + j] * v[j];
  return r;
}

// Solves a x = b for every column of |b| (n x k, row-major) by Gauss-Jordan
// elimination; the solution is unique, so any pivot order gives neptune's
// result. Throws when |a| is singular (an MDS matrix never is).
std::vector<fr> solve(matrix a, std::vector<fr> b, std::size_t n, std::size_t k) {
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t p = col;
    while (p < n && a[p * n + col].is_zero()) ++p;
    if (p == n) throw std::logic_error("poseidon: singular matrix");
    if (p != col) {
      for (std::size_t j = 0; j < n; ++j) std::swap(a[p * n + j], a[col * n + j]);
      for (std::size_t j = 0; j < k; ++j) std::swap(b[p * k + j], b[col * k + j]);
    }
    const fr inv = a[col * n + col].inverse();
    for (std::size_t j = 0; j < n; ++j) a[col * n + j] *= inv;
    for (std::size_t j = 0; j < k; ++j) b[col * k + j] *= inv;
    for (std::size_t r = 0; r < n; ++r) {
      if (r == col) continue;
      const fr f = a[r * n + col];
      if (f.is_zero()) continue;
      for (std::size_t j = 0; j < n; ++j) a[r * n + j] -= f * a[col * n + j];
      for (std::size_t j = 0; j < k; ++j) b[r * k + j] -= f * b[col * k + j];
    }
  }
  return b;
}

matrix invert(const matrix& a, std::size_t n) {
  matrix id(n * n, fr::zero());
  for (std::size_t i = 0; i < n; ++i) id[i * n + i] = fr::one();
  return solve(a, std::move(id), n, n);
}

// ---- sparse factorization (mds.rs factor_to_sparse_matrices) ---------------------------
//
// For the current matrix C (t x t): M_hat = C minus row 0 and column 0,
// v = C[0][1..], w = C[1..][0], w_hat = M_hat^-1 w.
//   M'  = [[1, 0], [0, M_hat]]                      (make_prime)
//   M'' = [[C00, v], [w_hat, I]]                    (make_double_prime)
// with C = M' M''. Starting from C = B (= M^T), each step keeps M'' and
// continues with C = B M'; after |n| steps C is the pre-sparse matrix and
// the M'' list, reversed, is in application order.
void factor_to_sparse(const matrix& base, std::size_t t, std::size_t n, matrix& pre_sparse, std::vector<fr>& sparse) {
  const std::size_t h = t - 1;
  std::vector<std::vector<fr>> steps;  // each: w_hat (t) then v_rest (t - 1)
  steps.reserve(n);
  matrix cur = base;
  for (std::size_t step = 0; step < n; ++step) {
    matrix m_hat(h * h);
    std::vector<fr> w(h);
    for (std::size_t i = 0; i < h; ++i) {
      for (std::size_t j = 0; j < h; ++j) m_hat[i * h + j] = cur[(i + 1) * t + (j + 1)];
      w[i] = cur[(i + 1) * t];
    }
    const std::vector<fr> w_hat = solve(m_hat, std::move(w), h, 1);

    std::vector<fr> block;
    block.reserve(2 * t - 1);
    block.push_back(cur[0]);  // M''[0][0] = C[0][0]
    block.insert(block.end(), w_hat.begin(), w_hat.end());
    block.insert(block.end(), cur.begin() + 1, cur.begin() + static_cast<std::ptrdiff_t>(t));  // v
    steps.push_back(std::move(block));

    matrix m_prime(t * t, fr::zero());
    m_prime[0] = fr::one();
    for (std::size_t i = 1; i < t; ++i)
      for (std::size_t j = 1; j < t; ++j) m_prime[i * t + j] = cur[i * t + j];
    cur = mat_mul(base, m_prime, t);
  }
  pre_sparse = std::move(cur);
  sparse.clear();
  sparse.reserve(n * (2 * t - 1));
  for (std::size_t k = steps.size(); k-- > 0;) sparse.insert(sparse.end(), steps[k].begin(), steps[k].end());
}

// ---- compressed round constants (preprocessing.rs, partial_preprocessed = R_P) ---------
std::vector<fr> compress_round_constants(const poseidon_constants& c) {
  const std::size_t t = c.width;
  const std::size_t half = c.half_full_rounds;
  const std::size_t rp = c.partial_rounds;
  const auto round_keys = [&](std::size_t r) { return std::span<const fr>(c.round_constants.data() + r * t, t); };
  std::vector<fr> res;
  res.reserve(c.full_rounds * t + rp);

  // first round: unchanged, added before the first S-boxes
  const auto first = round_keys(0);
  res.insert(res.end(), first.begin(), first.end());
  // post-S-box keys of the initial full rounds but the last: M^-1 (next round's keys)
  for (std::size_t i = 0; i + 1 < half; ++i) {
    const auto inv = left_apply(c.mds_inverse, round_keys(i + 1), t);
    res.insert(res.end(), inv.begin(), inv.end());
  }
  // partial rounds, from the last back to the first: push M^-1 through, keep
  // one constant per partial round and carry the rest backwards
  const std::size_t final_round = half + rp;
  std::vector<fr> acc(round_keys(final_round).begin(), round_keys(final_round).end());
  std::vector<fr> partial_keys;
  partial_keys.reserve(rp);
  for (std::size_t i = 0; i < rp; ++i) {
    std::vector<fr> inv = left_apply(c.mds_inverse, acc, t);
    partial_keys.push_back(inv[0]);
    inv[0] = fr::zero();
    const auto prev = round_keys(final_round - i - 1);
    for (std::size_t j = 0; j < t; ++j) acc[j] = prev[j] + inv[j];
  }
  const auto inv_acc = left_apply(c.mds_inverse, acc, t);
  res.insert(res.end(), inv_acc.begin(), inv_acc.end());
  res.insert(res.end(), partial_keys.rbegin(), partial_keys.rend());
  // post-S-box keys of the final full rounds but the last
  for (std::size_t i = 1; i < half; ++i) {
    const auto inv = left_apply(c.mds_inverse, round_keys(i + final_round), t);
    res.insert(res.end(), inv.begin(), inv.end());
  }
  return res;
}

}  // namespace

poseidon_round_numbers poseidon_standard_round_numbers(std::size_t t) {
  if (t < 2) throw std::invalid_argument("poseidon: width must be at least 2");
  std::size_t best_rf = 0, best_rp = 0;
  std::size_t min_sboxes = std::numeric_limits<std::size_t>::max();
  for (std::size_t rf_test = 2; rf_test <= 1000; rf_test += 2) {
    for (std::size_t rp_test = 4; rp_test < 200; ++rp_test) {
      if (!round_numbers_are_secure(t, rf_test, rp_test)) continue;
      // the security margin: two more full rounds, 7.5% more partial rounds
      const std::size_t rf = rf_test + 2;
      const std::size_t rp = static_cast<std::size_t>(std::ceil(1.075f * static_cast<float>(rp_test)));
      const std::size_t sboxes = t * rf + rp;
      if (sboxes < min_sboxes || (sboxes == min_sboxes && rf < best_rf)) {
        best_rf = rf;
        best_rp = rp;
        min_sboxes = sboxes;
      }
    }
  }
  return {best_rf, best_rp};
}

std::vector<fr> poseidon_grain_round_constants(std::size_t t, std::size_t r_f, std::size_t r_p) {
  grain_lfsr grain(t, r_f, r_p);
  const std::size_t count = (r_f + r_p) * t;
  std::vector<fr> out;
  out.reserve(count);
  while (out.size() < count) {
    fr::limbs v{};
    for (int bit = 254; bit >= 0; --bit)
      if (grain.next()) v[static_cast<std::size_t>(bit) / 64] |= std::uint64_t(1) << (bit % 64);
    if (auto f = fr::from_canonical(v)) out.push_back(*f);  // else: >= r, draw again
  }
  return out;
}

std::vector<fr> poseidon_cauchy_mds(std::size_t t) {
  std::vector<fr> m(t * t);
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t j = 0; j < t; ++j) m[i * t + j] = fr::from_uint(i + t + j).inverse();
  return m;
}

poseidon_constants make_poseidon_constants(std::size_t arity) {
  if (arity < 1 || arity > poseidon_max_arity)
    throw std::invalid_argument("poseidon: unsupported arity " + std::to_string(arity));
  poseidon_constants c;
  c.arity = arity;
  c.width = arity + 1;
  const std::size_t t = c.width;
  const poseidon_round_numbers rn = poseidon_standard_round_numbers(t);
  c.full_rounds = rn.full_rounds;
  c.half_full_rounds = rn.full_rounds / 2;
  c.partial_rounds = rn.partial_rounds;
  c.round_constants = poseidon_grain_round_constants(t, c.full_rounds, c.partial_rounds);
  c.mds = poseidon_cauchy_mds(t);
  c.mds_inverse = invert(c.mds, t);
  c.compressed_round_constants = compress_round_constants(c);
  factor_to_sparse(transpose(c.mds, t), t, c.partial_rounds, c.pre_sparse_matrix, c.sparse_matrices);
  if (c.compressed_round_constants.size() != c.full_rounds * t + c.partial_rounds)
    throw std::logic_error("poseidon: compressed round constant count");
  return c;
}

const poseidon_constants& poseidon_constants_for(std::size_t arity) {
  if (arity < 1 || arity > poseidon_max_arity)
    throw std::invalid_argument("poseidon: unsupported arity " + std::to_string(arity));
  static std::array<std::once_flag, poseidon_max_arity + 1> once;
  static std::array<std::unique_ptr<const poseidon_constants>, poseidon_max_arity + 1> cache;
  std::call_once(once[arity], [arity] {
    cache[arity] = std::make_unique<const poseidon_constants>(make_poseidon_constants(arity));
  });
  return *cache[arity];
}

poseidon_hash_type poseidon_hash_type::custom(std::uint64_t id) {
  if (id < 1 || id > 256) throw std::invalid_argument("poseidon: custom domain tag id must be in [1, 256]");
  return poseidon_hash_type(id);
}

fr poseidon_hash_type::domain_tag(std::size_t arity) const {
  if (_custom_id != 0) return fr::from_uint(_custom_id << 40);
  if (arity < 1 || arity > 63) throw std::invalid_argument("poseidon: arity out of range");
  return fr::from_uint((std::uint64_t(1) << arity) - 1);
}

}  // namespace cuzk::gadgets
