# SPDX-License-Identifier: Apache-2.0
# The layering check (docs/ARCHITECTURE.md, "Layers"): every
# `#include <cuzk/X/...>` in include/cuzk/M/ or src/M/ (.hpp, .cuh, .h,
# .cpp, .cu) names M itself or a layer listed before M below, so layers only
# point down; a quoted include that leaves its folder ("../X/y.hpp") is
# resolved against the including file and held to the same rule. src/cpu/
# implements the NTT, MSM, setup and prover layers and counts as groth16;
# src/cuda/ has a subfolder per layer it implements (src/cuda/msm/ is the
# msm layer, may not include groth16); src/cuda/setup/, and a file directly
# in src/cuda/, count as groth16. A folder missing from the list fails the
# check, so a new layer has to be placed. Cost: reads every header and
# source once (~0.2 s).
# Usage: cmake -DROOT=<source dir> -P cmake/check_layers.cmake
# (tests/layering/ holds trees it must refuse, run by the ctest
# layering_check_refuses_upward_includes).
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  message(FATAL_ERROR "check_layers: pass -DROOT=<source dir>")
endif()
set(order sys gpu ff ec ntt msm r1cs gadgets groth16 io circom circuits engine service)
set(as_groth16 cpu cuda setup)

# The layer folder of |path| (relative to ROOT) in |out|: src/cuda/X/ is X,
# and src/cpu, src/cuda itself and src/cuda/setup map to groth16; empty when
# the path is in no layer folder.
function(layer_of path out)
  set(folder "")
  if(path MATCHES "^include/cuzk/([a-z0-9_]+)/")
    set(folder "${CMAKE_MATCH_1}")
  elseif(path MATCHES "^src/cuda/([a-z0-9_]+)/")
    set(folder "${CMAKE_MATCH_1}")
  elseif(path MATCHES "^src/([a-z0-9_]+)/")
    set(folder "${CMAKE_MATCH_1}")
  endif()
  if(folder IN_LIST as_groth16)
    set(folder groth16)
  endif()
  set(${out} "${folder}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE files RELATIVE "${ROOT}"
     "${ROOT}/include/cuzk/*.hpp" "${ROOT}/include/cuzk/*.cuh" "${ROOT}/include/cuzk/*.h"
     "${ROOT}/src/*.hpp" "${ROOT}/src/*.cpp" "${ROOT}/src/*.cu" "${ROOT}/src/*.cuh" "${ROOT}/src/*.h")
set(violations 0)
set(checked 0)
foreach(f IN LISTS files)
  layer_of("${f}" layer)
  if(layer STREQUAL "")
    message("check_layers: ${f}: not inside a layer folder")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  list(FIND order "${layer}" rank)
  if(rank EQUAL -1)
    message("check_layers: ${f}: folder '${layer}' is not in the layer order of cmake/check_layers.cmake")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  file(STRINGS "${ROOT}/${f}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  get_filename_component(dir "${ROOT}/${f}" DIRECTORY)
  foreach(line IN LISTS includes)
    if(line MATCHES "<(cuzk/[a-z0-9_]+/)")
      layer_of("include/${CMAKE_MATCH_1}" target)
    elseif(line MATCHES "\"([^\"]*/[^\"]*)\"")
      # a quoted path with a folder in it: where does it land?
      get_filename_component(landed "${dir}/${CMAKE_MATCH_1}" ABSOLUTE)
      file(RELATIVE_PATH landed "${ROOT}" "${landed}")
      layer_of("${landed}" target)
      if(target STREQUAL "")
        continue()  # generated (cuzk/v1/*.pb.h in the build tree) or outside the layers
      endif()
    else()
      continue()
    endif()
    list(FIND order "${target}" target_rank)
    if(target_rank EQUAL -1 OR target_rank GREATER rank)
      string(STRIP "${line}" line)
      message("check_layers: ${f}: '${line}': ${layer} may not include ${target} (a layer above it)")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
if(violations GREATER 0)
  message(FATAL_ERROR "check_layers: ${violations} include(s) point up or sit outside the layers")
endif()
message(STATUS "check_layers: ${checked} files, every include points down")
