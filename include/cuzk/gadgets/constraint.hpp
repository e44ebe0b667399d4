// SPDX-License-Identifier: Apache-2.0
#pragma once
// Small equality/arithmetic constraints between allocated numbers, after
// rust-fil-proofs `storage-proofs-core/src/gadgets/constraint.rs`.
//
//   equal(cs, name, a, b)          1 constraint  a * ONE = b
//   sum(cs, name, a, b, s)         1 constraint  (a + b) * ONE = s
//   difference(cs, name, a, b, d)  1 constraint  (d + b) * ONE = a
//   add(cs, a, b)                  1 aux "add_num/num" + sum "sum constraint"
//   sub(cs, a, b)                  1 aux "sub_num/num" + difference "subtraction constraint"

#include <optional>
#include <utility>

#include <cuzk/gadgets/num.hpp>

namespace cuzk::gadgets::constraint {

/// a == b: a * ONE = b.
template <constraint_system CS, r1cs::annotation A>
void equal(CS& cs, A&& annotation, const allocated_num& a, const allocated_num& b) {
  const variable va = a.get_variable(), vb = b.get_variable();
  cs.enforce(
      std::forward<A>(annotation), [&](linear_combination lc) { return lc + va; },
      [](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + vb; });
}

/// a + b == sum: (a + b) * ONE = sum.
template <constraint_system CS, r1cs::annotation A>
void sum(CS& cs, A&& annotation, const allocated_num& a, const allocated_num& b, const allocated_num& sum) {
  const variable va = a.get_variable(), vb = b.get_variable(), vs = sum.get_variable();
  cs.enforce(
      std::forward<A>(annotation), [&](linear_combination lc) { return lc + va + vb; },
      [](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + vs; });
}

/// a - b == difference: (difference + b) * ONE = a.
template <constraint_system CS, r1cs::annotation A>
void difference(CS& cs, A&& annotation, const allocated_num& a, const allocated_num& b,
                const allocated_num& difference) {
  const variable va = a.get_variable(), vb = b.get_variable(), vd = difference.get_variable();
  cs.enforce(
      std::forward<A>(annotation), [&](linear_combination lc) { return lc + vd + vb; },
      [](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + va; });
}

/// New number a + b.
template <constraint_system CS>
allocated_num add(CS& cs, const allocated_num& a, const allocated_num& b) {
  std::optional<allocated_num> res;
  {
    namespace_guard ns(cs, "add_num");
    res = allocated_num::alloc(
        cs, [&] { return detail::require_value(a.get_value()) + detail::require_value(b.get_value()); });
  }
  sum(cs, "sum constraint", a, b, *res);
  return *res;
}

/// New number a - b.
template <constraint_system CS>
allocated_num sub(CS& cs, const allocated_num& a, const allocated_num& b) {
  std::optional<allocated_num> res;
  {
    namespace_guard ns(cs, "sub_num");
    res = allocated_num::alloc(
        cs, [&] { return detail::require_value(a.get_value()) - detail::require_value(b.get_value()); });
  }
  difference(cs, "subtraction constraint", a, b, *res);
  return *res;
}

}  // namespace cuzk::gadgets::constraint
