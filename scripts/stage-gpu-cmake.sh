#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Stages CMake-built GPU binaries for a bare GPU machine: copies (stripped)
# build-h's cuzk_gpu_tests (every GPU test, the engine's CUDA backend tests
# engine_gpu.* included) and any further named targets' binaries into
# DEST/bin, and the shared libraries they need beyond glibc (oneTBB,
# libcrypto, libstdc++, libgcc_s) into DEST/lib. About 25 MiB.
# Usage: scripts/stage-gpu-cmake.sh [DEST (default .gpu-carry)] [BINARY...]
#   e.g. scripts/stage-gpu-cmake.sh .gpu-carry build-h/bin/porep-synth-bench
# There: LD_LIBRARY_PATH=DEST/lib DEST/bin/cuzk_gpu_tests --gtest_filter='engine_gpu*'
set -euo pipefail
cd "$(dirname "$0")/.."
DEST="${1:-.gpu-carry}"
shift || true
BUILD="${BUILD_DIR:-build-h}"
tests="$(find "$BUILD" -name cuzk_gpu_tests -type f -perm -u+x | head -1)"
[[ -n "$tests" ]] || { echo "no cuzk_gpu_tests in $BUILD: cmake --build $BUILD --target cuzk_gpu_tests" >&2; exit 1; }
mkdir -p "$DEST/bin" "$DEST/lib"
for b in "$tests" "$@"; do
  cp "$b" "$DEST/bin/"
  strip "$DEST/bin/$(basename "$b")"
  ldd "$b" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;
      *) cp -L "$lib" "$DEST/lib/" ;;
    esac
  done
done
du -sh "$DEST"
