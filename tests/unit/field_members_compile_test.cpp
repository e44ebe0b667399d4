// SPDX-License-Identifier: Apache-2.0
// Every member of the two BLS12-381 fields compiled once. A class template
// compiles only the members something calls, so without this unit a member
// no caller uses yet could hide a compile error until its first use. It is
// a check, not an instantiation the library relies on: every member is
// defined in the class (inline), so each unit that uses one instantiates it
// and extern template declarations would gain no build time. No tests: the
// check is that this file compiles.
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/fp2.hpp>

namespace cuzk::ff {
template class mont_field<fp_params>;
template class mont_field<fr_params>;
}  // namespace cuzk::ff
