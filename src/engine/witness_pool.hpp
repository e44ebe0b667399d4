// SPDX-License-Identifier: Apache-2.0
#pragma once
// witness_pool: the witness buffers of finished partitions, kept for the
// next partition of the same shape. A fresh witness is two std::vector<fr>
// whose allocation zero-fills every element and makes the kernel fault in
// and zero every page first (a 32 GiB PoRep partition: 4.2 GB, ~1M pages;
// the fast PoRep witness measured 0.7-1.6 core-s into a touched buffer
// against up to 10 core-s into a cold one, stacked_porep_witness.hpp). A
// reused buffer costs neither; the proof kinds write every slot of what they
// return (circuit_job::synthesize), so no value of the previous partition
// survives.
//
// Memory: every idle buffer stays charged to the memory budget through the
// reservation it came back with (the partition's witness share, split off
// at synthesis), so the pool never holds memory outside the budget. It lets
// go of buffers when the budget needs room (evict(), called by the budget's
// evictor before SRS entries are evicted: a buffer is cheaper to rebuild
// than parameters) and of all of them when the engine goes idle (clear(),
// from the idle trimmer, before malloc_trim), so an idle daemon holds none.
// Only buffers whose vectors hold exactly the shape's element counts, with
// no spare capacity, are kept, so the charge is exact.
//
// Cost: a mutex per take/give; freeing happens outside it.
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include <cuzk/engine/memory_budget.hpp>
#include <cuzk/groth16/prover.hpp>

namespace cuzk::engine {

class witness_pool {
 public:
  /// A witness buffer and the reservation that charges it.
  struct buffer {
    groth16::witness w;
    reservation mem;
  };
  struct stats {
    std::size_t idle = 0;  ///< buffers kept now
    std::uint64_t idle_bytes = 0;
    std::uint64_t reused = 0;    ///< takes served from the pool since start
    std::uint64_t released = 0;  ///< buffers let go (evict, clear)
  };

  /// Bytes of a witness of |inputs| + |aux| elements.
  static std::uint64_t bytes_of(std::size_t inputs, std::size_t aux) noexcept {
    return std::uint64_t(inputs + aux) * sizeof(ff::fr);
  }

  /// An idle buffer of exactly |inputs| and |aux| elements (old values
  /// inside), or nullopt.
  std::optional<buffer> take(std::size_t inputs, std::size_t aux);
  /// Keeps |w| with its charge |mem| when both vectors hold exactly |inputs|
  /// and |aux| elements without spare capacity and |mem| charges exactly
  /// that; otherwise frees both (a backend that consumed the witness hands
  /// back empty vectors).
  void give(groth16::witness w, reservation mem, std::size_t inputs, std::size_t aux);
  /// Frees idle buffers, largest first, until at least |needed| bytes went
  /// back to the budget or none is left; returns the bytes freed.
  std::uint64_t evict(std::uint64_t needed);
  /// Frees every idle buffer; returns the bytes freed.
  std::uint64_t clear() { return evict(~std::uint64_t(0)); }
  stats status() const;

 private:
  using key = std::pair<std::size_t, std::size_t>;  // (inputs, aux)
  mutable std::mutex _mu;
  std::map<key, std::vector<buffer>> _idle;
  std::size_t _count = 0;
  std::uint64_t _bytes = 0, _reused = 0, _released = 0;
};

}  // namespace cuzk::engine
