// SPDX-License-Identifier: Apache-2.0
#pragma once
// density_mask: one bit per variable of a kind (aux or input), set when the
// variable is "present" in a query, as bellperson's DensityTracker
// (ec-gpu-gen multiexp_cpu.rs: a bit vector with add_element/inc and a
// running total_density).
//
// The A, B_G1 and B_G2 vectors of a .params file hold only the points of
// present variables, and the MSM pairs the k-th set bit with the k-th stored
// point; see shape_cs.hpp for the exact rules.
//
// Layout: little-endian 64-bit words, bit i of word i/64 for variable i; the
// unused high bits of the last word are zero. count() is a popcount pass.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace cuzk::r1cs {

class density_mask {
 public:
  density_mask() = default;
  /// |n| variables, none present.
  explicit density_mask(std::size_t n) : _words((n + 63) / 64, 0), _size(n) {}

  std::size_t size() const noexcept { return _size; }
  bool test(std::size_t i) const noexcept { return (_words[i >> 6] >> (i & 63)) & 1; }
  void set(std::size_t i) noexcept { _words[i >> 6] |= std::uint64_t(1) << (i & 63); }
  /// Appends one absent variable (DensityTracker::add_element).
  void push_back(bool present = false) {
    if ((_size & 63) == 0) _words.push_back(0);
    ++_size;
    if (present) set(_size - 1);
  }
  /// Number of present variables (DensityTracker::get_total_density).
  std::size_t count() const noexcept {
    std::size_t c = 0;
    for (std::uint64_t w : _words) c += std::size_t(std::popcount(w));
    return c;
  }
  std::span<const std::uint64_t> words() const noexcept { return _words; }

  friend bool operator==(const density_mask&, const density_mask&) = default;

 private:
  std::vector<std::uint64_t> _words;
  std::size_t _size = 0;
};

}  // namespace cuzk::r1cs
