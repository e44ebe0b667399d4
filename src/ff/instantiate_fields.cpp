// SPDX-License-Identifier: Apache-2.0
// The one explicit-instantiation unit for the BLS12-381 fields.
#include <cuzk/ff/bls12_381.hpp>
#include <cuzk/ff/fp2.hpp>

namespace cuzk::ff {
template class mont_field<fp_params>;
template class mont_field<fr_params>;
}  // namespace cuzk::ff
