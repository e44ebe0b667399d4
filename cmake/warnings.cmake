# SPDX-License-Identifier: Apache-2.0
# Warning flags shared by every cuzk target.
add_library(cuzk_warnings INTERFACE)
target_compile_options(cuzk_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-pedantic -Wshadow=local -Wnon-virtual-dtor>)
