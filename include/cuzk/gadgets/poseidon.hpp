// SPDX-License-Identifier: Apache-2.0
#pragma once
// Poseidon as Filecoin uses it: the native hash (neptune `Poseidon::hash`,
// OptimizedStatic mode, plus the textbook `hash_correct` as a test oracle) and
// the circuit that rust-fil-proofs synthesizes, neptune's LEGACY
// `circuit::poseidon_hash` (src/circuit.rs). Every Filecoin caller uses that
// one (filecoin-hashers poseidon.rs, storage-proofs-porep stacked/circuit/
// hash.rs, storage-proofs-update circuit.rs/gadgets.rs), not circuit2's
// `poseidon_hash_allocated`, and the published parameter files fix its
// allocation order and constraint layout.
//
// Permutation (width t = arity + 1, state [domain_tag, x_1..x_arity],
// output state[1]), optimized form: add the first round's keys; then per
// round S-box (x^5) on all elements (full) or on element 0 (partial), add
// the round's compressed key after the S-box (not in the terminal round),
// and mix: state * M, except state * pre_sparse after the last initial full
// round and the sparse M''_k after partial round k.
//
// Circuit, in neptune's order (one constraint per aux variable):
//   first round      element 0 (the tag) is a constant and its S-box is folded
//                    into the LCs; element i >= 1 (a preimage variable x):
//                      "quintic s-box i/(l+rk)^2"      s = (x + k0)^2
//                      "quintic s-box i/l^4"           q = s^2
//                      "quintic s-box i/l4 * (l + rk)" y = q (x + k0) + k1
//                    3 aux, 3 constraints each.
//   other S-boxes    the input is a linear combination; it is allocated first
//   (full rounds     ("S-box input": a = lc, constraint lc * 1 = a), then
//   after the first, "l^2", "l^4", "(l4 * l) + rk)": y = a^4 * a + k (no k in
//   every partial    the terminal round). 4 aux, 4 constraints each.
//   round)
//   "hash result"    element 1 of the final state allocated: 1 aux, 1 constraint.
// Constraints per hash = aux per hash = 3 arity + 4 ((R_F - 1) t + R_P) + 1:
//   arity 2: 311, 4: 377, 8: 505, 11: 598 (16: 761, 24: 1009, 36: 1385).
// neptune asserts 311/377/505/761/1009/1385 in circuit.rs test_poseidon_hash
// and derives every arity from the same formula; rust-fil-proofs asserts 311
// and 598 (storage-proofs-porep stacked/circuit/hash.rs tests).
//
// Linear layers allocate nothing: between allocations every state element
// is an LC over one "basis" of variables (the last full S-box layer plus the
// partial S-box outputs since), held densely and merged exactly as
// bellpepper's LC merges repeated variables, so each recorded row has the
// terms bellpepper's has (at most t + R_P of them) instead of an
// ever-growing unmerged sum. Values are computed natively alongside; in
// witness mode (no LCs) the gadget is the native hash plus the allocations.
// tests/unit/poseidon_test.cpp checks the gadget against a statement-by-
// statement transcription of circuit.rs on unmerged LCs: same constraint
// paths, values and normalized A/B/C rows.
//
// Costs (bench/poseidon_bench.cpp, CPU time on the loaded 2-core dev host):
// native arity 2 / 8 / 11: 14 / 52 / 73 us; the arity-8 gadget in
// witness_cs 46 us, in shape_cs 0.63 ms.
//
// Invariants: inputs and outputs in Montgomery form; preimage.size() is the
// arity (1..36); constants come from poseidon_constants_for().

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include <cuzk/gadgets/num.hpp>
#include <cuzk/gadgets/poseidon_constants.hpp>
#include <cuzk/r1cs/constraint_system.hpp>

namespace cuzk::gadgets {

namespace detail {

inline constexpr std::size_t poseidon_max_width = poseidon_max_arity + 1;
using poseidon_state = std::array<fr, poseidon_max_width>;

inline fr poseidon_quintic(const fr& x) {
  const fr x2 = x.sqr();
  return x2.sqr() * x;
}

// Which linear layer follows round |round| (0-based over all rounds), as
// neptune's product_mds: the pre-sparse matrix after the last initial full
// round, sparse matrix k after partial round k, M otherwise.
enum class poseidon_mix_kind { mds, pre_sparse, sparse };
inline poseidon_mix_kind poseidon_mix_for(const poseidon_constants& k, std::size_t round) {
  const std::size_t sparse_offset = k.half_full_rounds - 1;
  if (round == sparse_offset) return poseidon_mix_kind::pre_sparse;
  if (round > sparse_offset && round < k.half_full_rounds + k.partial_rounds) return poseidon_mix_kind::sparse;
  return poseidon_mix_kind::mds;
}

// s <- s * m (s[j] = sum_i m[i][j] s[i]), m row-major t x t.
inline void poseidon_mix_dense(fr* s, const fr* m, std::size_t t) {
  poseidon_state r;
  for (std::size_t j = 0; j < t; ++j) {
    fr acc = m[j] * s[0];
    for (std::size_t i = 1; i < t; ++i) acc += m[i * t + j] * s[i];
    r[j] = acc;
  }
  for (std::size_t j = 0; j < t; ++j) s[j] = r[j];
}

// s <- s * M''_k: s[0] = <w_hat, s>, s[j] += v_rest[j - 1] s[0] for j >= 1.
inline void poseidon_mix_sparse(fr* s, const poseidon_constants& k, std::size_t index) {
  const std::size_t t = k.width;
  const auto w_hat = k.w_hat(index);
  const auto v_rest = k.v_rest(index);
  fr first = w_hat[0] * s[0];
  for (std::size_t i = 1; i < t; ++i) first += w_hat[i] * s[i];
  for (std::size_t j = 1; j < t; ++j) s[j] += v_rest[j - 1] * s[0];
  s[0] = first;
}

inline void poseidon_mix(fr* s, const poseidon_constants& k, std::size_t round) {
  switch (poseidon_mix_for(k, round)) {
    case poseidon_mix_kind::pre_sparse: poseidon_mix_dense(s, k.pre_sparse_matrix.data(), k.width); break;
    case poseidon_mix_kind::sparse: poseidon_mix_sparse(s, k, round - k.half_full_rounds); break;
    case poseidon_mix_kind::mds: poseidon_mix_dense(s, k.mds.data(), k.width); break;
  }
}

// The state as LCs during synthesis (needs_lcs modes only): element j is
// constant[j] * ONE + sum_b coeff(j, b) * basis[b]. After a full S-box layer
// the basis is that layer's outputs; each partial round appends its S-box
// output. Every row has the same support, which is also the support of
// bellpepper's merged LC for that element.
class poseidon_lc_state {
 public:
  poseidon_lc_state(std::size_t t, std::size_t max_basis)
      : _t(t), _stride(max_basis), _coeff(t * max_basis), _constant(t, fr::zero()) {
    _basis.reserve(max_basis);
  }

  // After a full S-box layer: element i's output is outs[i - first] for
  // i >= first; when first == 1, element 0 is the constant |c0|. Then mix
  // with the dense |m|.
  void mix_dense(std::span<const variable> outs, std::size_t first, const fr& c0, const fr* m) {
    _basis.assign(outs.begin(), outs.end());
    for (std::size_t j = 0; j < _t; ++j) {
      _constant[j] = first == 1 ? m[j] * c0 : fr::zero();
      for (std::size_t b = 0; b < outs.size(); ++b) _coeff[j * _stride + b] = m[(b + first) * _t + j];
    }
  }

  // After a partial round whose S-box output is |s|: mix with M''.
  void mix_sparse(variable s, std::span<const fr> w_hat, std::span<const fr> v_rest) {
    const std::size_t nb = _basis.size();
    if (nb == _stride) throw std::logic_error("poseidon: LC basis overflow");
    _basis.push_back(s);
    fr c0 = fr::zero();
    for (std::size_t j = 1; j < _t; ++j) c0 += w_hat[j] * _constant[j];
    for (std::size_t b = 0; b < nb; ++b) {
      fr acc = fr::zero();
      for (std::size_t j = 1; j < _t; ++j) acc += w_hat[j] * _coeff[j * _stride + b];
      _coeff[b] = acc;
    }
    _coeff[nb] = w_hat[0];
    _constant[0] = c0;
    for (std::size_t j = 1; j < _t; ++j) _coeff[j * _stride + nb] = v_rest[j - 1];
  }

  // Element |j| as an LC (the ONE term only when the constant is non-zero).
  linear_combination lc(std::size_t j) const {
    linear_combination r;
    r.reserve(_basis.size() + 1);
    if (!_constant[j].is_zero()) r.add(_constant[j], r1cs::one_variable);
    for (std::size_t b = 0; b < _basis.size(); ++b) r.add(_coeff[j * _stride + b], _basis[b]);
    return r;
  }

 private:
  std::size_t _t, _stride;
  std::vector<variable> _basis;
  std::vector<fr> _coeff;  // t rows of _stride
  std::vector<fr> _constant;
};

}  // namespace detail

// ---- native ------------------------------------------------------------------------

/// The Poseidon permutation on |state| (width = arity + 1, 2..37), neptune's
/// optimized static form. Output of a hash is state[1].
inline void poseidon_permute(std::span<fr> state) {
  const poseidon_constants& k = poseidon_constants_for(state.size() - 1);
  const std::size_t t = k.width;
  const fr* key = k.compressed_round_constants.data();
  fr* s = state.data();
  for (std::size_t i = 0; i < t; ++i) s[i] += key[i];
  key += t;
  std::size_t round = 0;
  for (std::size_t r = 0; r < k.half_full_rounds; ++r, key += t) {
    for (std::size_t i = 0; i < t; ++i) s[i] = detail::poseidon_quintic(s[i]) + key[i];
    detail::poseidon_mix(s, k, round++);
  }
  for (std::size_t r = 0; r < k.partial_rounds; ++r) {
    s[0] = detail::poseidon_quintic(s[0]) + *key++;
    detail::poseidon_mix(s, k, round++);
  }
  for (std::size_t r = 1; r < k.half_full_rounds; ++r, key += t) {
    for (std::size_t i = 0; i < t; ++i) s[i] = detail::poseidon_quintic(s[i]) + key[i];
    detail::poseidon_mix(s, k, round++);
  }
  for (std::size_t i = 0; i < t; ++i) s[i] = detail::poseidon_quintic(s[i]);
  detail::poseidon_mix(s, k, round);
}

/// Poseidon hash of |preimage| (arity = preimage.size(), 1..36) with the
/// domain tag of |type|: neptune `Poseidon::new_with_preimage(..).hash()`.
inline fr poseidon_hash(std::span<const fr> preimage, poseidon_hash_type type = poseidon_hash_type::merkle_tree()) {
  const std::size_t arity = preimage.size();
  if (arity < 1 || arity > poseidon_max_arity) throw std::invalid_argument("poseidon: unsupported arity");
  detail::poseidon_state s;
  s[0] = type.domain_tag(arity);
  for (std::size_t i = 0; i < arity; ++i) s[i + 1] = preimage[i];
  poseidon_permute(std::span<fr>(s.data(), arity + 1));
  return s[1];
}

/// The textbook permutation on the Grain constants and M (neptune
/// `hash_correct`): a slow, independent oracle for poseidon_hash.
inline fr poseidon_hash_reference(std::span<const fr> preimage,
                                  poseidon_hash_type type = poseidon_hash_type::merkle_tree()) {
  const std::size_t arity = preimage.size();
  const poseidon_constants& k = poseidon_constants_for(arity);
  const std::size_t t = k.width;
  std::vector<fr> s(t);
  s[0] = type.domain_tag(arity);
  for (std::size_t i = 0; i < arity; ++i) s[i + 1] = preimage[i];
  const fr* key = k.round_constants.data();
  const std::size_t rounds = k.full_rounds + k.partial_rounds;
  for (std::size_t r = 0; r < rounds; ++r, key += t) {
    const bool full = r < k.half_full_rounds || r >= k.half_full_rounds + k.partial_rounds;
    for (std::size_t i = 0; i < t; ++i) s[i] += key[i];
    for (std::size_t i = 0; i < (full ? t : 1); ++i) s[i] = detail::poseidon_quintic(s[i]);
    std::vector<fr> r_(t, fr::zero());  // M * s
    for (std::size_t i = 0; i < t; ++i)
      for (std::size_t j = 0; j < t; ++j) r_[i] += k.mds_at(i, j) * s[j];
    s = std::move(r_);
  }
  return s[1];
}

/// Constraints (and aux variables) one poseidon_hash gadget adds for |arity|.
inline std::size_t poseidon_hash_constraints(std::size_t arity) {
  const poseidon_constants& k = poseidon_constants_for(arity);
  return 3 * arity + 4 * ((k.full_rounds - 1) * k.width + k.partial_rounds) + 1;
}

// ---- circuit -------------------------------------------------------------------------

/// neptune `circuit::poseidon_hash(cs, preimage, constants)`: the hash of
/// |preimage| (arity = preimage.size()) with the domain tag of |type|, as a
/// new allocated number; allocations and constraints in neptune's order
/// under the caller's current namespace.
template <constraint_system CS>
allocated_num poseidon_hash(CS& cs, std::span<const allocated_num> preimage,
                            poseidon_hash_type type = poseidon_hash_type::merkle_tree()) {
  using r1cs::namespace_guard;
  const std::size_t arity = preimage.size();
  if (arity < 1 || arity > poseidon_max_arity) throw std::invalid_argument("poseidon: unsupported arity");
  const poseidon_constants& k = poseidon_constants_for(arity);
  const std::size_t t = k.width;
  const variable one = CS::one();
  const fr* key = k.compressed_round_constants.data();

  detail::poseidon_state s{};                    // values (has_values modes)
  std::optional<detail::poseidon_lc_state> lcs;  // LCs (needs_lcs modes)
  if constexpr (CS::needs_lcs) lcs.emplace(t, t + k.partial_rounds);
  std::array<variable, detail::poseidon_max_width> outs{};
  std::size_t round = 0;

  const auto mix_after_full = [&](std::size_t first, const fr& c0) {
    if constexpr (CS::has_values) detail::poseidon_mix(s.data(), k, round);
    if constexpr (CS::needs_lcs) {
      const fr* m = detail::poseidon_mix_for(k, round) == detail::poseidon_mix_kind::pre_sparse
                        ? k.pre_sparse_matrix.data()
                        : k.mds.data();
      lcs->mix_dense(std::span<const variable>(outs.data() + first, t - first), first, c0, m);
    }
    ++round;
  };

  // ensure_allocated(cs.namespace("S-box input")): a = lc, lc * 1 = a.
  const auto allocate_input = [&](std::size_t i) {
    namespace_guard ns(cs, "S-box input");
    std::optional<allocated_num> a;
    {
      namespace_guard ns2(cs, "allocate for Elt::Num");
      a = allocated_num::alloc(cs, [&] { return s[i]; });
    }
    const variable av = a->get_variable();
    cs.enforce(
        "enforce num allocation preserves lc", [&](linear_combination) { return lcs->lc(i); },
        [&](linear_combination lc) { return lc + one; }, [&](linear_combination lc) { return lc + av; });
    return *a;
  };

  // quintic_s_box: element i's LC allocated, then l^2, l^4, l^4 * l + post.
  const auto sbox = [&](std::size_t i, const fr* post) {
    const allocated_num l = allocate_input(i);
    std::optional<allocated_num> l2, l4, l5;
    {
      namespace_guard ns(cs, "l^2");
      l2 = l.square(cs);
    }
    {
      namespace_guard ns(cs, "l^4");
      l4 = l2->square(cs);
    }
    {
      namespace_guard ns(cs, "(l4 * l) + rk)");
      {
        namespace_guard ns2(cs, "mul_sum");
        l5 = allocated_num::alloc(cs, [&] {
          fr y = *l4->get_value() * *l.get_value();
          if (post) y += *post;
          return y;
        });
      }
      const variable lv = l.get_variable(), l4v = l4->get_variable(), l5v = l5->get_variable();
      if (post) {
        cs.enforce(
            "mul sum constraint post-add", [&](linear_combination lc) { return lc + lv; },
            [&](linear_combination lc) { return lc + l4v; },
            [&](linear_combination lc) { return lc + l5v + (-*post) * one; });
      } else {
        cs.enforce(
            "mul sum constraint", [&](linear_combination lc) { return lc + lv; },
            [&](linear_combination lc) { return lc + l4v; }, [&](linear_combination lc) { return lc + l5v; });
      }
    }
    if constexpr (CS::has_values) s[i] = *l5->get_value();
    outs[i] = l5->get_variable();
  };

  const auto full_round = [&](const fr* post) {
    for (std::size_t i = 0; i < t; ++i) {
      namespace_guard ns(cs, [i] { return detail::indexed("quintic s-box ", i); });
      sbox(i, post ? post + i : nullptr);
    }
    mix_after_full(0, fr::zero());
  };

  // ---- first round: keys added before (pre) and after (post) the S-boxes
  const fr* pre = key;
  const fr* post = key + t;
  key += 2 * t;
  const fr tag = type.domain_tag(arity);
  const fr c0 = detail::poseidon_quintic(tag + pre[0]) + post[0];  // the tag's S-box, a constant
  {
    namespace_guard ns(cs, "first round");
    s[0] = c0;
    for (std::size_t i = 1; i < t; ++i) {
      namespace_guard ns_i(cs, [i] { return detail::indexed("quintic s-box ", i); });
      const allocated_num& x = preimage[i - 1];
      { namespace_guard ns_in(cs, "S-box input"); }  // neptune opens it; x is already allocated
      const variable xv = x.get_variable();
      const fr& k0 = pre[i];
      const auto x_plus_k0 = [&](linear_combination lc) { return lc + xv + k0 * one; };
      std::optional<allocated_num> sq, l4, l5;
      {
        namespace_guard ns_sq(cs, "(l+rk)^2");
        {
          namespace_guard ns_a(cs, "squared sum");
          sq = allocated_num::alloc(cs, [&] { return (detail::require_value(x.get_value()) + k0).sqr(); });
        }
        const variable sv = sq->get_variable();
        cs.enforce("squared sum constraint", x_plus_k0, x_plus_k0, [&](linear_combination lc) { return lc + sv; });
      }
      {
        namespace_guard ns_q(cs, "l^4");
        l4 = sq->square(cs);
      }
      {
        namespace_guard ns_m(cs, "l4 * (l + rk)");
        {
          namespace_guard ns_a(cs, "mul_sum");
          l5 = allocated_num::alloc(cs, [&] { return (*x.get_value() + k0) * *l4->get_value() + post[i]; });
        }
        const variable l4v = l4->get_variable(), l5v = l5->get_variable();
        cs.enforce(
            "mul sum constraint pre-post-add", x_plus_k0, [&](linear_combination lc) { return lc + l4v; },
            [&](linear_combination lc) { return lc + l5v + (-post[i]) * one; });
      }
      if constexpr (CS::has_values) s[i] = *l5->get_value();
      outs[i] = l5->get_variable();
    }
    mix_after_full(1, c0);
  }

  // ---- the other initial full rounds
  for (std::size_t r = 1; r < k.half_full_rounds; ++r, key += t) {
    namespace_guard ns(cs, [r] { return detail::indexed("initial full round ", r); });
    full_round(key);
  }

  // ---- partial rounds: one S-box, then the sparse matrix of the round
  for (std::size_t r = 0; r < k.partial_rounds; ++r, ++key) {
    namespace_guard ns(cs, [r] { return detail::indexed("partial round ", r); });
    {
      namespace_guard ns_s(cs, "solitary quintic s-box");
      sbox(0, key);
    }
    if constexpr (CS::has_values) detail::poseidon_mix(s.data(), k, round);
    if constexpr (CS::needs_lcs) lcs->mix_sparse(outs[0], k.w_hat(r), k.v_rest(r));
    ++round;
  }

  // ---- final full rounds; the terminal one adds no key
  for (std::size_t r = 0; r + 1 < k.half_full_rounds; ++r, key += t) {
    namespace_guard ns(cs, [r] { return detail::indexed("final full round ", r); });
    full_round(key);
  }
  {
    namespace_guard ns(cs, "terminal full round");
    full_round(nullptr);
  }

  // ---- element 1 of the final state, allocated
  namespace_guard ns(cs, "hash result");
  std::optional<allocated_num> out;
  {
    namespace_guard ns2(cs, "allocate for Elt::Num");
    out = allocated_num::alloc(cs, [&] { return s[1]; });
  }
  const variable ov = out->get_variable();
  cs.enforce(
      "enforce num allocation preserves lc", [&](linear_combination) { return lcs->lc(1); },
      [&](linear_combination lc) { return lc + one; }, [&](linear_combination lc) { return lc + ov; });
  return *out;
}

}  // namespace cuzk::gadgets
