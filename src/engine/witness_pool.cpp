// SPDX-License-Identifier: Apache-2.0
// witness_pool (see witness_pool.hpp).
#include "witness_pool.hpp"

#include <iterator>

namespace cuzk::engine {

std::optional<witness_pool::buffer> witness_pool::take(std::size_t inputs, std::size_t aux) {
  std::lock_guard lk(_mu);
  const auto it = _idle.find({inputs, aux});
  if (it == _idle.end() || it->second.empty()) return std::nullopt;
  buffer b = std::move(it->second.back());
  it->second.pop_back();
  if (it->second.empty()) _idle.erase(it);
  --_count;
  _bytes -= b.mem.bytes();
  ++_reused;
  return b;
}

void witness_pool::give(groth16::witness w, reservation mem, std::size_t inputs, std::size_t aux) {
  const bool exact = w.inputs.size() == inputs && w.inputs.capacity() == inputs && w.aux.size() == aux &&
                     w.aux.capacity() == aux && inputs + aux > 0 && mem.bytes() == bytes_of(inputs, aux);
  if (!exact) return;  // |w| and |mem| go back here, outside the lock
  std::lock_guard lk(_mu);
  ++_count;
  _bytes += mem.bytes();
  _idle[{inputs, aux}].push_back({std::move(w), std::move(mem)});
}

std::uint64_t witness_pool::evict(std::uint64_t needed) {
  std::vector<buffer> out;
  std::uint64_t freed = 0;
  {
    std::lock_guard lk(_mu);
    while (freed < needed && !_idle.empty()) {
      // the largest shape first: fewest buffers freed for the bytes needed
      auto it = std::prev(_idle.end());
      for (auto j = _idle.begin(); j != _idle.end(); ++j)
        if (bytes_of(j->first.first, j->first.second) > bytes_of(it->first.first, it->first.second)) it = j;
      out.push_back(std::move(it->second.back()));
      it->second.pop_back();
      if (it->second.empty()) _idle.erase(it);
      freed += out.back().mem.bytes();
      --_count;
      ++_released;
    }
    _bytes -= freed;
  }
  out.clear();  // the memory and the charges go back outside the lock
  return freed;
}

witness_pool::stats witness_pool::status() const {
  std::lock_guard lk(_mu);
  return {_count, _bytes, _reused, _released};
}

}  // namespace cuzk::engine
