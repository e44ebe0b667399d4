// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fast witness generation for the StackedDRG PoRep partition circuit: the
// same input and aux values, in the same order, as synthesizing
// stacked_porep_circuit into r1cs::witness_cs (what bellperson's prover
// computes), but with every challenge filled in parallel.
//
// Why it is possible: the circuit is the globals block followed by one block
// per challenge, and every challenge block has the same number of inputs
// (18) and aux variables (the blank shape fixes them: 7.2 M aux for 32 GiB).
// So challenge i owns the slices starting at 4 + 18 i (inputs, after ONE
// and the 3 global inputs) and G + A i (aux). A span_witness_cs writes one
// challenge's values straight into its slice of the caller's buffers; the
// global numbers the challenge refers to (comm_d, comm_c, comm_r_last, the
// replica_id bits) carry their values, and in witness mode no variable
// index is ever read, so the child needs no knowledge of the parent.
//
// Costs: the globals (~1.2 K aux) on the calling thread, then challenges
// on |threads| threads (32 GiB: 18 blocks of 7.23 M aux, ~85% of them
// SHA-256 bits written by the native path, gadgets/sha256_witness.hpp).
// bench/porep_synth_bench.cpp, one 32 GiB partition (130.2 M aux), 2
// threads, loaded 2-core dev host (load ~9): 0.65 core-s and 1.7 s wall
// into an already touched assignment; 0.7-1.6 core-s with a fresh
// (uninitialized, huge-page) assignment, up to 10 core-s when the kernel
// must first fault in and zero the 3.9 GiB cold; peak RSS 3.9 GiB, i.e.
// the assignment itself. The gadget path alone (before the native SHA-256)
// was 3.7 core-s; bellperson's is ~250 core-s.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cuzk/circuits/stacked_porep.hpp>
#include <cuzk/r1cs/constraint_system.hpp>
#include <cuzk/r1cs/counting_cs.hpp>
#include <cuzk/r1cs/sink_witness_cs.hpp>
#include <cuzk/r1cs/synthesize.hpp>

namespace cuzk::circuits {

/// Writes value i of a part into its slice of the caller's assignment.
struct span_sink {
  std::span<fr> slice;
  void put(std::size_t i, const fr& x) noexcept { slice[i] = x; }
};

/// A witness-only CS writing into caller-owned slices (no growth, no
/// copies). Throws std::logic_error when a slice would overflow.
class span_witness_cs : public r1cs::sink_witness_cs<span_sink> {
 public:
  span_witness_cs(std::span<fr> inputs, std::span<fr> aux) noexcept
      : sink_witness_cs({inputs}, inputs.size(), {aux}, aux.size()) {}
};
static_assert(r1cs::constraint_system<span_witness_cs>);

/// Sizes of the blocks of one partition's assignment.
struct stacked_witness_layout {
  std::size_t global_inputs = 0;  ///< ONE + replica_id, comm_d, comm_r
  std::size_t global_aux = 0;
  std::size_t challenge_inputs = 0;  ///< 18
  std::size_t challenge_aux = 0;
  std::size_t challenges = 0;
  std::size_t num_inputs() const noexcept { return global_inputs + challenges * challenge_inputs; }
  std::size_t num_aux() const noexcept { return global_aux + challenges * challenge_aux; }
};

/// The layout of |params|, counted on the blank circuit (globals and one challenge).
inline stacked_witness_layout stacked_witness_layout_for(const stacked_porep_params& params) {
  const stacked_porep_circuit blank = blank_stacked_porep_circuit(params);
  r1cs::counting_cs cs;
  r1cs::alloc_one(cs);
  const stacked_porep_globals g = blank.synthesize_globals(cs);
  stacked_witness_layout l;
  l.global_inputs = cs.num_inputs();
  l.global_aux = cs.num_aux();
  blank.synthesize_challenge(cs, g, 0);
  l.challenge_inputs = cs.num_inputs() - l.global_inputs;
  l.challenge_aux = cs.num_aux() - l.global_aux;
  l.challenges = params.challenges;
  return l;
}

/// Runs |body(i)| for the challenges i < |n| on |threads| threads (0:
/// hardware concurrency; at most n), each taking the next challenge from a
/// shared counter. A body that returns false, or the first that throws,
/// stops the takes of every thread; the exception is rethrown here once all
/// threads are done. Returns whether every body returned true.
template <class Body>
bool for_each_challenge(std::size_t n, unsigned threads, Body&& body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stopped{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  const auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        if (!body(i)) {
          stopped = true;
          next = n;
        }
      } catch (...) {
        const std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next = n;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  return !stopped;
}

/// Fills |inputs| (ONE first) and |aux| with the witness of |circuit|,
/// spreading the challenges over |threads| threads (0: hardware
/// concurrency). The spans must have exactly the layout's sizes.
inline void stacked_porep_witness_into(const stacked_porep_circuit& circuit, const stacked_witness_layout& layout,
                                       std::span<fr> inputs, std::span<fr> aux, unsigned threads = 0) {
  circuit.check();
  if (circuit.is_blank()) throw std::invalid_argument("porep witness: the circuit is blank");
  if (inputs.size() != layout.num_inputs() || aux.size() != layout.num_aux())
    throw std::invalid_argument("porep witness: buffers do not match the layout (" + std::to_string(inputs.size()) +
                                " inputs, " + std::to_string(aux.size()) + " aux for " +
                                std::to_string(layout.num_inputs()) + ", " + std::to_string(layout.num_aux()) + ")");
  span_witness_cs gcs(inputs.first(layout.global_inputs), aux.first(layout.global_aux));
  r1cs::alloc_one(gcs);
  const stacked_porep_globals g = circuit.synthesize_globals(gcs);
  if (gcs.num_inputs() != layout.global_inputs || gcs.num_aux() != layout.global_aux)
    throw std::logic_error("porep witness: the globals do not match the layout");

  for_each_challenge(layout.challenges, threads, [&](std::size_t i) {
    span_witness_cs cs(inputs.subspan(layout.global_inputs + i * layout.challenge_inputs, layout.challenge_inputs),
                       aux.subspan(layout.global_aux + i * layout.challenge_aux, layout.challenge_aux));
    circuit.synthesize_challenge(cs, g, i);
    if (cs.num_inputs() != layout.challenge_inputs || cs.num_aux() != layout.challenge_aux)
      throw std::logic_error("porep witness: challenge " + std::to_string(i) + " does not match the layout");
    return true;
  });
}

/// The assignment of one partition (inputs with ONE first, aux).
struct stacked_witness {
  std::vector<fr> inputs;
  std::vector<fr> aux;
};

/// stacked_porep_witness_into with freshly allocated vectors.
inline stacked_witness stacked_porep_witness(const stacked_porep_circuit& circuit, unsigned threads = 0) {
  const stacked_witness_layout layout = stacked_witness_layout_for(circuit.params);
  stacked_witness w{std::vector<fr>(layout.num_inputs()), std::vector<fr>(layout.num_aux())};
  stacked_porep_witness_into(circuit, layout, w.inputs, w.aux, threads);
  return w;
}

}  // namespace cuzk::circuits
