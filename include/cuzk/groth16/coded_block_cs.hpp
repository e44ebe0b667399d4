// SPDX-License-Identifier: Apache-2.0
#pragma once
// coded_block_cs: a witness-only constraint system that codes every value
// into coded blocks (coded_witness.hpp) as it is allocated, so a witness
// can be synthesized into the coded form without the 32-byte-per-value
// assignment ever existing; and make_coded_witness, a whole circuit through
// it. Used for the PoRep partition, one pair of blocks per challenge
// (circuits/stacked_porep_coded.hpp), and for the SnapDeals partition in one
// pass (circuits/empty_sector_update_compound.hpp).
//
// Costs: per value one code (four limb compares) and a byte store, a
// 32-byte copy for the other values; the join of make_coded_witness reads
// the blocks once; peak memory the blocks plus the joined form, about twice
// the coded size.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

#include <cuzk/groth16/coded_witness.hpp>
#include <cuzk/r1cs/constraint_system.hpp>
#include <cuzk/r1cs/sink_witness_cs.hpp>
#include <cuzk/r1cs/synthesize.hpp>

namespace cuzk::groth16 {

/// Codes the values of a part into its block, in order (the CS allocates
/// them in index order, so the block's size is always the index). Always
/// inlined, as coded_block::push is: out of line, the value just computed
/// goes through memory (32 GiB PoRep partition, 2 threads on the dev VM:
/// 0.53 s instead of 0.31 s).
struct coded_sink {
  coded_block* block;
  coded_sink(coded_block& b) noexcept : block(&b) {}  // implicit: coded_block_cs takes blocks
  [[gnu::always_inline]] void put(std::size_t, const ff::fr& x) { block->push(x); }
};

/// A witness-only CS that codes its values into caller-owned blocks (one for
/// inputs, one for aux) as they are allocated; at most |max_inputs| inputs
/// and |max_aux| aux, else std::logic_error. The caller finishes the blocks
/// (coded_block::finish) when the part is done.
using coded_block_cs = r1cs::sink_witness_cs<coded_sink>;
static_assert(r1cs::constraint_system<coded_block_cs>);

// clang-format off
/// The coded Groth16 witness of |circuit| (ONE, the circuit, the input
/// constraints: what r1cs::make_witness computes), which must have exactly
/// |num_inputs| inputs and |num_aux| aux (a shape's counts; else
/// std::logic_error); nullopt when more than |max_others| of its values are
/// other than 0 and 1. One thread.
template <class C>
  requires r1cs::circuit_for<C, coded_block_cs>
std::optional<coded_witness> make_coded_witness(C&& circuit, std::size_t num_inputs, std::size_t num_aux,
                                                std::size_t max_others) {
  coded_block inputs, aux;
  inputs.reserve(num_inputs, num_inputs);
  aux.reserve(num_aux, std::min(num_aux, max_others));
  coded_block_cs cs(inputs, num_inputs, aux, num_aux);
  r1cs::synthesize_groth16(circuit, cs);
  if (cs.num_inputs() != num_inputs || cs.num_aux() != num_aux)
    throw std::logic_error("coded witness: " + std::to_string(cs.num_inputs()) + " inputs and " +
                           std::to_string(cs.num_aux()) + " aux, the shape has " + std::to_string(num_inputs) +
                           " and " + std::to_string(num_aux));
  inputs.finish();
  aux.finish();
  const coded_block* blocks[] = {&inputs, &aux};
  return join_coded_blocks(blocks, max_others);
}
// clang-format on

}  // namespace cuzk::groth16
