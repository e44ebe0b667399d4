// SPDX-License-Identifier: Apache-2.0
#pragma once
// Transparent huge pages for a large buffer that is about to be filled.
//
// Why: a vector of tens of MB faults in 4 KiB at a time on first touch;
// in a VM each fault is an exit to the hypervisor. Read from a 49 MB zkey,
// the point vectors took ~12,000 faults (with the file mapping's, ~8% of
// the CPU time of a 2^16-constraint circom proof). With MADV_HUGEPAGE the
// same memory faults in 2 MiB at a time. Advice only: where THP is off
// ("never") nothing changes; with THP "always" it is already the default.
// Call it on memory not yet touched (after reserve(), before the fill);
// only the whole 2 MiB pages inside the range are advised.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace cuzk::io {

inline void advise_huge_pages(const void* p, std::size_t bytes) noexcept {
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace cuzk::io
