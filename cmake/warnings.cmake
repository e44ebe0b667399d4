# SPDX-License-Identifier: Apache-2.0
# Warning flags shared by every cuzk target (linked PRIVATE as cuzk_warnings,
# so they never reach code that is not ours: the protobuf/gRPC sources
# generated into cuzk_proto, and headers from the system, including the
# generated ones, which cuzk_proto exposes as SYSTEM).
#  -Wpedantic: ISO C++20; the one extension the field arithmetic needs,
#    unsigned __int128, is spelled through `__extension__` aliases.
#  -Wshadow=local: a local hiding another local is a bug more often than not;
#    hiding members and globals stays allowed (constructor parameters).
#  -Wnon-virtual-dtor, -Woverloaded-virtual: the engine's backends and kinds
#    are class hierarchies.
# CUZK_WERROR (default ON; CI builds with it): warnings fail the build, for
# the CXX language only. nvcc's host pass over the .cu files is not held to
# it: the CUDA sources keep their own flags (src/cuda/CMakeLists.txt).
option(CUZK_WERROR "Treat warnings in cuzk's own C++ code as errors" ON)
add_library(cuzk_warnings INTERFACE)
target_compile_options(cuzk_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor -Woverloaded-virtual>)
if(CUZK_WERROR)
  target_compile_options(cuzk_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
