// SPDX-License-Identifier: Apache-2.0
#pragma once
// The coded witness (groth16/coded_witness.hpp) of a StackedDRG PoRep
// partition, synthesized without the plain assignment: the GPU prover needs
// only the coded form, so the 32-byte-per-value witness (4.2 GB for a 32 GiB
// partition) need never exist.
//
// How: the same split as the fast witness (stacked_porep_witness.hpp): the
// globals on the calling thread, then each challenge on a worker, but each
// part allocates into a groth16::coded_block_cs, which codes every value as it is
// allocated into a block of its own (one for the part's inputs, one for its
// aux). The blocks are then joined in the order of inputs || aux (global
// inputs, challenge 0 inputs, ..., global aux, challenge 0 aux, ...) by
// groth16::join_coded_blocks, which gives exactly encode_witness of the
// plain witness.
//
// Costs: synthesis as the fast witness plus one code per value (four limb
// compares) and a copy of the ~1% other values; the join reads the blocks
// once (a quarter byte per value plus the others). Peak memory: the blocks
// plus the joined form, about twice the coded size (32 GiB: ~90 MB each)
// instead of the 4.2 GB assignment. An others bound is checked after each
// challenge (a shared count), so a witness that would exceed it stops early.
// bench/porep_synth_bench.cpp --mode coded, one 32 GiB partition (130.2 M
// values, 1.70 M other: 89 MB coded), 2 threads, 2-core dev VM, median of 3:
// 0.31 s wall, 0.57 core-s, peak RSS of the process 0.18 GiB; the fast
// witness in the same run conditions 0.24 s / 0.47 core-s into an
// assignment already touched, 0.44 s / 0.86 core-s into a fresh one (5.3 s
// the first time its pages are faulted in), 3.9 GiB either way.

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>

#include <cuzk/circuits/stacked_porep.hpp>
#include <cuzk/circuits/stacked_porep_witness.hpp>
#include <cuzk/groth16/coded_block_cs.hpp>
#include <cuzk/groth16/coded_witness.hpp>

namespace cuzk::circuits {

/// The coded witness of |circuit| (inputs with ONE first, then aux) without
/// the plain assignment; nullopt when more than |max_others| values are
/// other than 0 and 1. Challenges on |threads| threads (0: hardware
/// concurrency); the first exception of any is rethrown. Throws
/// std::invalid_argument for a blank circuit or one that does not fit
/// |layout|.
std::optional<groth16::coded_witness> stacked_porep_coded_witness(const stacked_porep_circuit& circuit,
                                                                  const stacked_witness_layout& layout,
                                                                  std::size_t max_others, unsigned threads = 0);

}  // namespace cuzk::circuits
