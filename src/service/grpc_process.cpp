// SPDX-License-Identifier: Apache-2.0
// See grpc_process.hpp.
#include "grpc_process.hpp"

#include <cerrno>

#if __has_include(<absl/base/internal/sysinfo.h>)
#include <absl/base/internal/sysinfo.h>
#define CUZK_HAVE_ABSL_SYSINFO 1
#endif

namespace cuzk::service {

void prepare_grpc_process() {
  const int saved = errno;
#ifdef CUZK_HAVE_ABSL_SYSINFO
  // both computed once per process (absl::base_internal::LowLevelCallOnce);
  // the values are not needed here, only the side effect
  (void)absl::base_internal::NumCPUs();
  (void)absl::base_internal::NominalCPUFrequency();
#endif
  errno = saved;
}

}  // namespace cuzk::service
