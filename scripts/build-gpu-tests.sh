#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the CUDA backend, its GPU-vs-CPU tests and the GPU benchmark by hand
# (nvcc + g++, no CMake), for development on a machine without a GPU, and
# stages what a GPU machine needs to run them in .gpu-carry/:
#   .gpu-carry/bin/cuzk_gpu_tests, .gpu-carry/bin/cuzk_gpu_bench
#   .gpu-carry/lib/libtbb.so.12 (the only shared library not on a bare CUDA image;
#   OpenSSL's libcrypto is linked statically)
# Run there:  LD_LIBRARY_PATH=.gpu-carry/lib .gpu-carry/bin/cuzk_gpu_tests
# Usage: scripts/build-gpu-tests.sh [-j JOBS]   (env: CUDA_ARCH=90, BUILD_DIR=build-gpu,
#        CUZK_LIB=build-h/lib/libcuzk.a, SYS_DIR: a folder with include/ and lib/
#        holding the GoogleTest, oneTBB and OpenSSL pieces, for building ON a
#        GPU machine that lacks them: scripts/stage-gpu-sysroot.sh makes it)
# The host library comes from a CMake build (cmake --build build-h --target
# cuzk): the Groth16 tests need setup, verifier and synthesis.
# Objects are rebuilt when their source or any header under include/ or
# tests/ is newer; the CMake build (src/cuda/CMakeLists.txt,
# tests/gpu/CMakeLists.txt) is the supported one.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=2
if [[ "${1:-}" == "-j" ]]; then JOBS="$2"; fi
ARCH="${CUDA_ARCH:-90}"
OUT="${BUILD_DIR:-build-gpu}"
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
mkdir -p "$OUT/obj" .gpu-carry/bin .gpu-carry/lib

SYS_FLAGS=() SYS_LINK=()
if [[ -n "${SYS_DIR:-}" ]]; then
  SYS_FLAGS=(-isystem "$SYS_DIR/include")
  SYS_LINK=(-L"$SYS_DIR/lib")
fi
NVFLAGS=(-std=c++20 -O3 "-gencode=arch=compute_${ARCH},code=sm_${ARCH}" -Iinclude -Itests "${SYS_FLAGS[@]}"
         -diag-suppress 550 -Xcompiler -Wall,-Wno-unused-function
         '-DCUZK_SHARED_DIR="../shared"' '-DCUZK_VECTORS_DIR="tests/vectors"')

newest_header=$(find include tests src/cuda -name '*.hpp' -o -name '*.cuh' | xargs ls -t | head -1)
needs() {  # needs OBJ SRC: true when OBJ is missing or older than SRC or any header
  [[ ! -f "$1" || "$2" -nt "$1" || "$newest_header" -nt "$1" ]]
}

jobs_running() { jobs -rp | wc -l; }
pids=()
run() {  # run in the background, at most JOBS at a time
  while (( $(jobs_running) >= JOBS )); do sleep 0.5; done
  ( echo "  $*" | cut -c1-160; "$@" ) &
  pids+=($!)
}

CUZK_LIB="${CUZK_LIB:-build-h/lib/libcuzk.a}"
[[ -f "$CUZK_LIB" ]] || { echo "missing $CUZK_LIB: cmake --build build-h --target cuzk first" >&2; exit 1; }
objs_cuda=() objs_test=()
for src in $(find src/cuda -name '*.cu' | sort); do
  rel="${src#src/cuda/}"
  obj="$OUT/obj/cuda_${rel//\//_}"; obj="${obj%.cu}.o"; objs_cuda+=("$obj")
  needs "$obj" "$src" && run "$NVCC" "${NVFLAGS[@]}" -c "$src" -o "$obj"
done
for src in tests/gpu/*.cu; do
  obj="$OUT/obj/test_$(basename "$src" .cu).o"; objs_test+=("$obj")
  needs "$obj" "$src" && run "$NVCC" "${NVFLAGS[@]}" -c "$src" -o "$obj"
done
bench_obj="$OUT/obj/gpu_bench.o"
if [[ -f bench/gpu_bench.cu ]]; then
  needs "$bench_obj" bench/gpu_bench.cu && run "$NVCC" "${NVFLAGS[@]}" -c bench/gpu_bench.cu -o "$bench_obj"
fi
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
(( fail == 0 )) || { echo "build failed" >&2; exit 1; }

ar rcs "$OUT/libcuzk_cuda.a" "${objs_cuda[@]}"
"$NVCC" "-gencode=arch=compute_${ARCH},code=sm_${ARCH}" -o .gpu-carry/bin/cuzk_gpu_tests \
  "${objs_test[@]}" "$OUT/libcuzk_cuda.a" "$CUZK_LIB" "${SYS_LINK[@]}" -lgtest_main -lgtest \
  -Xcompiler -static-libstdc++ -l:libtbb.so.12 -l:libcrypto.a -lpthread -ldl
if [[ -f "$bench_obj" ]]; then
  "$NVCC" "-gencode=arch=compute_${ARCH},code=sm_${ARCH}" -o .gpu-carry/bin/cuzk_gpu_bench \
    "$bench_obj" "$OUT/libcuzk_cuda.a" "$CUZK_LIB" "${SYS_LINK[@]}" -Xcompiler -static-libstdc++ \
    -l:libtbb.so.12 -l:libcrypto.a -lpthread -ldl
fi
for d in "${SYS_DIR:-/nonexistent}/lib" /usr/lib/x86_64-linux-gnu; do
  if [[ -f "$d/libtbb.so.12" ]]; then
    [[ "$d/libtbb.so.12" -ef .gpu-carry/lib/libtbb.so.12 ]] || cp -L "$d/libtbb.so.12" .gpu-carry/lib/
    break
  fi
done
echo "built: $(ls .gpu-carry/bin) ; ldd:"
ldd .gpu-carry/bin/cuzk_gpu_tests | awk '{print "  " $1 " " $3}'
