// SPDX-License-Identifier: Apache-2.0
#pragma once
// Transparent huge pages for a large buffer that is about to be filled, and
// such a buffer allocated without touching it.
//
// Why: a vector of tens of MB faults in 4 KiB at a time on first touch;
// in a VM each fault is an exit to the hypervisor. Read from a 49 MB zkey,
// the point vectors took ~12,000 faults (with the file mapping's, ~8% of
// the CPU time of a 2^16-constraint circom proof); the CPU MSM's digit and
// term arrays, allocated anew by every MSM, are the same story. With
// MADV_HUGEPAGE the same memory faults in 2 MiB at a time. Advice only:
// where THP is off ("never") nothing changes; with THP "always" it is
// already the default. Call it on memory not yet touched (after reserve(),
// before the fill); only the whole 2 MiB pages inside the range are
// advised (reserve_on_huge_pages does both steps for a vector). In the
// lowest layer: the MSM, circom and io code use it.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace cuzk::sys {

inline void advise_huge_pages(const void* p, std::size_t bytes) noexcept {
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

/// Room for |n| elements in |v| (reserve), advised for huge pages before the
/// caller's resize or fill touches it.
template <class T>
void reserve_on_huge_pages(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
}

/// |n| default-initialised T (no write, so no page is touched yet) with
/// huge-page advice: for a large array the caller fills completely.
template <class T>
std::unique_ptr<T[]> make_huge_array_for_overwrite(std::size_t n) {
  auto a = std::make_unique_for_overwrite<T[]>(n);
  advise_huge_pages(a.get(), n * sizeof(T));
  return a;
}

}  // namespace cuzk::sys
