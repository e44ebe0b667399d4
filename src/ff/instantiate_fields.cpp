// SPDX-License-Identifier: Apache-2.0
// Every member of the two BLS12-381 fields instantiated once. A class
// template compiles only the members something calls, so without this unit
// a member no caller uses yet could hide a compile error until its first
// use. No extern template declarations go with it: every member is defined
// in the class (inline), so other units would instantiate what they inline
// anyway and gain no build time.
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/fp2.hpp>

namespace cuzk::ff {
template class mont_field<fp_params>;
template class mont_field<fr_params>;
}  // namespace cuzk::ff
