// SPDX-License-Identifier: Apache-2.0
// The coded PoRep witness (cuzk/circuits/stacked_porep_coded.hpp): blocks
// per part, synthesized as stacked_porep_witness_into does, then joined.
// A challenge's aux block reserves its codes exactly and, for its others,
// the most any finished challenge had (the circuit fixes which values are
// bits, so the challenges of a partition have about as many others), so
// after the first ones a block seldom grows by copying.

#include <cuzk/circuits/stacked_porep_coded.hpp>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include <cuzk/r1cs/synthesize.hpp>

namespace cuzk::circuits {

std::optional<groth16::coded_witness> stacked_porep_coded_witness(const stacked_porep_circuit& circuit,
                                                                  const stacked_witness_layout& layout,
                                                                  std::size_t max_others, unsigned threads) {
  circuit.check();
  if (circuit.is_blank()) throw std::invalid_argument("porep coded witness: the circuit is blank");
  if (layout.challenges != circuit.params.challenges)
    throw std::invalid_argument("porep coded witness: the layout has " + std::to_string(layout.challenges) +
                                " challenges, the circuit " + std::to_string(circuit.params.challenges));
  const std::size_t n = layout.challenges;
  // block 0: the globals; block 1 + i: challenge i
  std::vector<groth16::coded_block> inputs(n + 1), aux(n + 1);
  inputs[0].reserve(layout.global_inputs, layout.global_inputs);
  aux[0].reserve(layout.global_aux, 0);
  groth16::coded_block_cs gcs(inputs[0], layout.global_inputs, aux[0], layout.global_aux);
  r1cs::alloc_one(gcs);
  const stacked_porep_globals g = circuit.synthesize_globals(gcs);
  inputs[0].finish();
  aux[0].finish();
  if (gcs.num_inputs() != layout.global_inputs || gcs.num_aux() != layout.global_aux)
    throw std::logic_error("porep coded witness: the globals do not match the layout");
  std::atomic<std::size_t> others{inputs[0].others.size() + aux[0].others.size()};
  if (others.load() > max_others) return std::nullopt;

  std::atomic<std::size_t> others_hint{0};
  const auto raise_hint = [&](std::size_t v) {
    std::size_t h = others_hint.load();
    while (h < v && !others_hint.compare_exchange_weak(h, v)) {
    }
  };
  const bool within = for_each_challenge(n, threads, [&](std::size_t i) {
    groth16::coded_block& in = inputs[1 + i];
    groth16::coded_block& ax = aux[1 + i];
    in.reserve(layout.challenge_inputs, layout.challenge_inputs);
    ax.reserve(layout.challenge_aux, others_hint.load(std::memory_order_relaxed));
    groth16::coded_block_cs cs(in, layout.challenge_inputs, ax, layout.challenge_aux);
    circuit.synthesize_challenge(cs, g, i);
    in.finish();
    ax.finish();
    if (cs.num_inputs() != layout.challenge_inputs || cs.num_aux() != layout.challenge_aux)
      throw std::logic_error("porep coded witness: challenge " + std::to_string(i) + " does not match the layout");
    raise_hint(ax.others.size());
    const std::size_t k = in.others.size() + ax.others.size();
    return others.fetch_add(k) + k <= max_others;  // too many already: the others stop early
  });
  if (!within) return std::nullopt;

  std::vector<const groth16::coded_block*> blocks;
  blocks.reserve(2 * (n + 1));
  for (const groth16::coded_block& b : inputs) blocks.push_back(&b);
  for (const groth16::coded_block& b : aux) blocks.push_back(&b);
  return groth16::join_coded_blocks(blocks, max_others);
}

}  // namespace cuzk::circuits
