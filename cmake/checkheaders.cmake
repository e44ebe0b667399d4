# SPDX-License-Identifier: Apache-2.0
# `checkheaders`: compiles every public header on its own, so each one
# includes what it uses: each .hpp alone in a .cpp (with the project's
# warnings, so -Werror holds for the headers too), and, when the CUDA
# backend is built, each .cuh alone in a .cu through nvcc. Part of the
# default build (so `make test` and CI run it); CUZK_CHECK_HEADERS=OFF leaves
# it out (the sanitizer presets do: it checks nothing a sanitizer adds).
# Cost: one translation unit per header, at -O0 (~2 min on 2 cores for the
# host headers, the first time; later only the headers whose includes changed).
option(CUZK_CHECK_HEADERS "Compile every public header alone as part of the build" ON)
if(NOT CUZK_CHECK_HEADERS)
  return()
endif()

file(GLOB_RECURSE _cuzk_public_headers CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/include/cuzk/*.hpp)
if(CUZK_HAVE_CUDA)
  file(GLOB_RECURSE _cuzk_public_cuda_headers CONFIGURE_DEPENDS
    ${PROJECT_SOURCE_DIR}/include/cuzk/*.cuh)
  list(APPEND _cuzk_public_headers ${_cuzk_public_cuda_headers})
endif()
set(_cuzk_check_sources)
foreach(h IN LISTS _cuzk_public_headers)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/include ${h})
  string(MAKE_C_IDENTIFIER ${rel} id)
  if(h MATCHES "\\.cuh$")
    set(src ${CMAKE_BINARY_DIR}/checkheaders/${id}.cu)
  else()
    set(src ${CMAKE_BINARY_DIR}/checkheaders/${id}.cpp)
  endif()
  file(CONFIGURE OUTPUT ${src} CONTENT "#include <${rel}>\n")
  list(APPEND _cuzk_check_sources ${src})
endforeach()
add_library(checkheaders OBJECT ${_cuzk_check_sources})
target_link_libraries(checkheaders PRIVATE cuzk cuzk_warnings)
# Only the compile matters: -O0 after the build type's -O3 keeps it cheap.
target_compile_options(checkheaders PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O0>)
if(CUZK_HAVE_CUDA)
  # 550 ("set but never used" in x86_adx.hpp) as for the CUDA sources
  # (src/cuda/CMakeLists.txt).
  target_compile_options(checkheaders PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--diag-suppress=550>)
endif()
