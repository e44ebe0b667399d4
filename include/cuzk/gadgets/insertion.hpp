// SPDX-License-Identifier: Apache-2.0
#pragma once
// Insertion of a number into a Merkle-path sibling list at the position
// given by index bits, after rust-fil-proofs
// `storage-proofs-core/src/gadgets/insertion.rs` (insert, insert_2/4/8,
// select, pick). The Merkle-path gadgets (por.rs) call insert with the
// node's index bits (least significant first) and hash the result.
//
// Costs (constraints = aux; from insertion.rs's own test_insert/test_select):
//   pick                       1 aux "pick result/num" + 1 constraint "pick":
//                              (b - a) * cond = b - c
//   insert, size 2 (binary)    2 picks ("binary insert 0/1")
//   insert, size 4 (quad)      8 picks (hand-optimized; general would be 12)
//   insert, size 8 (oct)       22 (1 nor + 1 and + 20 picks; general would be 56)
//   insert, other sizes        size * (size - 1) (a select per output position)
//   select(2^k elements)       2^k - 1 picks ("pick i, j")
// insert_8 requires the first two index bits to be plain allocated bits
// (Boolean::Is); bellperson panics otherwise, this throws invalid_argument.

#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/gadgets/boolean.hpp>
#include <cuzk/gadgets/num.hpp>

namespace cuzk::gadgets {

/// |a| when |condition|, else |b| (one aux, one constraint).
template <constraint_system CS>
allocated_num pick(CS& cs, const boolean& condition, const allocated_num& a, const allocated_num& b) {
  std::optional<allocated_num> c;
  {
    namespace_guard ns(cs, "pick result");
    c = allocated_num::alloc(cs, [&] {
      return detail::require_value(detail::require_value(condition.get_value()) ? a.get_value() : b.get_value());
    });
  }
  const variable va = a.get_variable(), vb = b.get_variable(), vc = c->get_variable();
  cs.enforce(
      "pick", [&](linear_combination lc) { return lc + vb - va; },
      [&](linear_combination) { return condition.lc(CS::one(), fr::one()); },
      [&](linear_combination lc) { return lc + vb - vc; });
  return *c;
}

/// from[n] where |path_bits| (least significant first) encode n;
/// from.size() == 2^path_bits.size().
template <constraint_system CS>
allocated_num select(CS& cs, std::span<const allocated_num> from, std::span<const boolean> path_bits) {
  if (from.size() != (std::size_t(1) << path_bits.size()))
    throw std::invalid_argument("gadgets: select needs 2^bits elements");
  std::vector<allocated_num> state(from.begin(), from.end());
  std::size_t half_size = from.size() / 2;
  // most significant bit first
  for (std::size_t i = 0; i < path_bits.size(); ++i) {
    const boolean& bit = path_bits[path_bits.size() - 1 - i];
    std::vector<allocated_num> new_state;
    new_state.reserve(half_size);
    for (std::size_t j = 0; j < half_size; ++j) {
      namespace_guard ns(cs, [i, j] { return "pick " + std::to_string(i) + ", " + std::to_string(j); });
      new_state.push_back(pick(cs, bit, state[half_size + j], state[j]));
    }
    state = std::move(new_state);
    half_size /= 2;
  }
  return state.at(0);
}

namespace detail {
template <constraint_system CS>
allocated_num named_pick(CS& cs, const char* name, const boolean& cond, const allocated_num& a,
                         const allocated_num& b) {
  namespace_guard ns(cs, name);
  return pick(cs, cond, a, b);
}
}  // namespace detail

/// insert for 2 positions: [x, e0] or [e0, x].
template <constraint_system CS>
std::vector<allocated_num> insert_2(CS& cs, const allocated_num& element, std::span<const boolean> bits,
                                    std::span<const allocated_num> elements) {
  if (elements.size() != 1 || bits.size() != 1)
    throw std::invalid_argument("gadgets: insert_2 needs 1 element and 1 bit");
  std::vector<allocated_num> r;
  r.push_back(detail::named_pick(cs, "binary insert 0", bits[0], elements[0], element));
  r.push_back(detail::named_pick(cs, "binary insert 1", bits[0], element, elements[0]));
  return r;
}

/// insert for 4 positions, 8 constraints (hand-optimized).
template <constraint_system CS>
std::vector<allocated_num> insert_4(CS& cs, const allocated_num& element, std::span<const boolean> bits,
                                    std::span<const allocated_num> elements) {
  if (elements.size() != 3 || bits.size() != 2)
    throw std::invalid_argument("gadgets: insert_4 needs 3 elements and 2 bits");
  const boolean &b0 = bits[0], &b1 = bits[1];
  const allocated_num &a = element, &b = elements[0], &c = elements[1], &d = elements[2];
  using detail::named_pick;
  // pN_xK: output position N when b0 is unknown and b1 is K
  const allocated_num p0_x0 = named_pick(cs, "p0_x0", b0, b, a);
  const allocated_num p0 = named_pick(cs, "p0", b1, b, p0_x0);
  const allocated_num p1_x0 = named_pick(cs, "p1_x0", b0, a, b);
  const allocated_num p1 = named_pick(cs, "p1", b1, c, p1_x0);
  const allocated_num p2_x1 = named_pick(cs, "p2_x1", b0, d, a);
  const allocated_num p2 = named_pick(cs, "p2", b1, p2_x1, c);
  const allocated_num p3_x1 = named_pick(cs, "p3_x1", b0, a, d);
  const allocated_num p3 = named_pick(cs, "p3", b1, p3_x1, d);
  return {p0, p1, p2, p3};
}

/// insert for 8 positions, 22 constraints (hand-optimized).
template <constraint_system CS>
std::vector<allocated_num> insert_8(CS& cs, const allocated_num& element, std::span<const boolean> bits,
                                    std::span<const allocated_num> elements) {
  if (elements.size() != 7 || bits.size() != 3)
    throw std::invalid_argument("gadgets: insert_8 needs 7 elements and 3 bits");
  const boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
  if (!b0.is_allocated() || !b1.is_allocated())
    throw std::invalid_argument("gadgets: insert_8 bits must be allocated and unnegated");
  const allocated_num &a = element, &b = elements[0], &c = elements[1], &d = elements[2], &e = elements[3],
                      &f = elements[4], &g = elements[5], &h = elements[6];
  using detail::named_pick;

  boolean b0_nor_b1, b0_and_b1;
  {
    namespace_guard ns(cs, "b0 nor b1");
    b0_nor_b1 = allocated_bit::nor(cs, b0.bit(), b1.bit());
  }
  {
    namespace_guard ns(cs, "b0 and b1");
    b0_and_b1 = allocated_bit::and_(cs, b0.bit(), b1.bit());
  }

  const allocated_num p0_xx0 = named_pick(cs, "p0_xx0", b0_nor_b1, a, b);
  const allocated_num p0 = named_pick(cs, "p0", b2, b, p0_xx0);

  const allocated_num p1_x00 = named_pick(cs, "p1_x00", b0, a, b);
  const allocated_num p1_xx0 = named_pick(cs, "p1_xx0", b1, c, p1_x00);
  const allocated_num p1 = named_pick(cs, "p1", b2, c, p1_xx0);

  const allocated_num p2_x10 = named_pick(cs, "p2_x10", b0, d, a);
  const allocated_num p2_xx0 = named_pick(cs, "p2_xx0", b1, p2_x10, c);
  const allocated_num p2 = named_pick(cs, "p2", b2, d, p2_xx0);

  const allocated_num p3_xx0 = named_pick(cs, "p3_xx0", b0_and_b1, a, d);
  const allocated_num p3 = named_pick(cs, "p3", b2, e, p3_xx0);

  const allocated_num p4_xx1 = named_pick(cs, "p4_xx1", b0_nor_b1, a, f);
  const allocated_num p4 = named_pick(cs, "p4", b2, p4_xx1, e);

  const allocated_num p5_x01 = named_pick(cs, "p5_x01", b0, a, f);
  const allocated_num p5_xx1 = named_pick(cs, "p5_xx1", b1, g, p5_x01);
  const allocated_num p5 = named_pick(cs, "p5", b2, p5_xx1, f);

  const allocated_num p6_x11 = named_pick(cs, "p6_x11", b0, h, a);
  const allocated_num p6_xx1 = named_pick(cs, "p6_xx1", b1, p6_x11, g);
  const allocated_num p6 = named_pick(cs, "p6", b2, p6_xx1, g);

  const allocated_num p7_xx1 = named_pick(cs, "p7_xx1", b0_and_b1, a, h);
  const allocated_num p7 = named_pick(cs, "p7", b2, p7_xx1, h);

  return {p0, p1, p2, p3, p4, p5, p6, p7};
}

/// |elements| with |element| inserted at the position |bits| encode (least
/// significant first); elements.size() + 1 == 2^bits.size(). Runs in the
/// caller's namespace, as insertion.rs's insert(&mut cs, ...).
template <constraint_system CS>
std::vector<allocated_num> insert(CS& cs, const allocated_num& element, std::span<const boolean> bits,
                                  std::span<const allocated_num> elements) {
  const std::size_t size = elements.size() + 1;
  if (bits.size() >= 64 || (std::size_t(1) << bits.size()) != size)
    throw std::invalid_argument("gadgets: insert needs elements.size() + 1 == 2^bits");
  if (size == 2) return insert_2(cs, element, bits, elements);
  if (size == 4) return insert_4(cs, element, bits, elements);
  if (size == 8) return insert_8(cs, element, bits, elements);

  // general case: for each output position, select among the candidates
  std::vector<allocated_num> result;
  result.reserve(size);
  for (std::size_t pos = 0; pos < size; ++pos) {
    // choices[index] = output |pos| when the insertion index is |index|
    std::vector<allocated_num> choices;
    choices.reserve(size);
    for (std::size_t index = 0; index < size; ++index) {
      if (pos < index) choices.push_back(elements[pos]);
      else if (pos == index) choices.push_back(element);
      else choices.push_back(elements[pos - 1]);
    }
    namespace_guard ns(cs, [pos] { return "choice at " + std::to_string(pos); });
    result.push_back(select(cs, std::span<const allocated_num>(choices), bits));
  }
  return result;
}

}  // namespace cuzk::gadgets
