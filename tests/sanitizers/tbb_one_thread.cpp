// SPDX-License-Identifier: Apache-2.0
// Compiled into every executable of the tsan preset (CMake option
// CUZK_TBB_ONE_THREAD): oneTBB held to one thread for the whole process, so
// every tbb::parallel_for body runs on the thread that called it.
//
// Why: Debian's libtbb is not built with ThreadSanitizer, so TSan cannot see
// the happens-before edges of its task hand-over (a worker's writes inside a
// parallel_for body, then the caller's reads after the join). Without this,
// 153 of the 167 reports of a full `make test-tsan` run (2026-12-04) were
// such false races. With one TBB thread those edges do not exist, while
// every thread cuzk creates itself (the engine's workers and waiters, the
// service's accept, relay and HTTP threads) is still checked, which is what
// the TSan run is for. What it costs: the data-parallel loops are not
// race-checked against each other here; they share no mutable state but
// their disjoint output ranges (reviewed, and ASan/UBSan run them threaded).
#include <tbb/global_control.h>

namespace {

const tbb::global_control one_tbb_thread(tbb::global_control::max_allowed_parallelism, 1);

}  // namespace
