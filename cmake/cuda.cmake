# SPDX-License-Identifier: Apache-2.0
# CUDA is enabled when nvcc is found (and CUZK_ENABLE_CUDA is on). The default
# architecture is sm_90 (H100/H200); override with -DCMAKE_CUDA_ARCHITECTURES=...
set(CUZK_HAVE_CUDA OFF)
if(CUZK_ENABLE_CUDA)
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER)
    find_program(_cuzk_nvcc nvcc HINTS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin)
    if(_cuzk_nvcc)
      set(CMAKE_CUDA_COMPILER ${_cuzk_nvcc})
    endif()
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    # CMake < 3.26 has no C++20 flag for nvcc, so CMAKE_CUDA_STANDARD 20
    # fails at generate time ("requires the language dialect CUDA20"): supply
    # it, as a cache entry so that every directory (src/cuda, tests/gpu,
    # bench) sees it.
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20" CACHE INTERNAL "nvcc C++20 flag")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20" CACHE INTERNAL "nvcc C++20 flag")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(CUZK_HAVE_CUDA ON)
    message(STATUS "cuzk: CUDA backend ON (architectures ${CMAKE_CUDA_ARCHITECTURES})")
  else()
    message(STATUS "cuzk: nvcc not found, CUDA backend OFF")
  endif()
endif()
