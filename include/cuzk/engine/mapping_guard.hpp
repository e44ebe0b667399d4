// SPDX-License-Identifier: Apache-2.0
#pragma once
// mapping_guard: reading a memory-mapped file that may shrink under us
// without dying of SIGBUS (issue 25: truncating and restoring a .params file
// while PreloadSRS / EvictSRS cycled killed the daemon within about 30 s).
//
// While a guard is alive, its byte range is registered in a fixed table
// (64 slots, lock-free). A SIGBUS whose fault address lies in a registered
// range is absorbed: the handler maps an anonymous zero page over the lost
// page (mmap MAP_FIXED, a plain syscall on Linux), marks the guard faulted and
// returns, so the read goes on and sees zeros. The reader then checks
// faulted() and throws an error naming the file (the zeros never leave the
// decoder: a faulted decode is discarded, and the mapping with it). A SIGBUS
// anywhere else goes to the handler installed before (the daemon's fatal
// signal note) or to the default action, as without the guard.
// Cost: installing the handler once; two atomic stores per guard; nothing
// per byte read. A range costs one slot; with all 64 taken a guard is inert
// (the read is as unprotected as before) and says so through active().
#include <cstddef>

namespace cuzk::engine {

class mapping_guard {
 public:
  mapping_guard(const void* data, std::size_t size);
  ~mapping_guard();
  mapping_guard(const mapping_guard&) = delete;
  mapping_guard& operator=(const mapping_guard&) = delete;

  /// A page of the range was lost (the file shrank) while guarded.
  bool faulted() const;
  /// False when no slot was free (the range is not protected).
  bool active() const { return _slot >= 0; }

 private:
  int _slot = -1;
};

/// The same for code that maps a file itself (io::mapped_parameter_file maps
/// and parses the layout in its constructor, so the range is not known
/// beforehand): while alive, a SIGBUS raised *in this thread* is absorbed the
/// same way. Keep its scope to the mapping code; a SIGBUS has no other cause
/// in a process that touches no hardware registers.
class thread_mapping_guard {
 public:
  thread_mapping_guard();
  ~thread_mapping_guard();
  thread_mapping_guard(const thread_mapping_guard&) = delete;
  thread_mapping_guard& operator=(const thread_mapping_guard&) = delete;
  bool faulted() const;
};

}  // namespace cuzk::engine
