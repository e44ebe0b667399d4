#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copies into .gpu-carry/sys/ what scripts/build-gpu-tests.sh needs besides
# nvcc when it runs ON a GPU machine whose image lacks it (GoogleTest and
# oneTBB headers and libraries, static OpenSSL libcrypto) and the host
# library built here (build-h/lib/libcuzk.a, by g++ of this machine: link it
# there with an equal or newer libstdc++). About 15 MiB; carry .gpu-carry.
# There: SYS_DIR=.gpu-carry/sys CUZK_LIB=.gpu-carry/sys/lib/libcuzk.a \
#        scripts/build-gpu-tests.sh -j 16
set -euo pipefail
cd "$(dirname "$0")/.."
S=.gpu-carry/sys
rm -rf "$S" && mkdir -p "$S/include" "$S/lib" .gpu-carry/lib
cp -r /usr/include/gtest /usr/include/tbb /usr/include/oneapi "$S/include/"
L=/usr/lib/x86_64-linux-gnu
cp -L "$L/libgtest.a" "$L/libgtest_main.a" "$L/libcrypto.a" "$L/libtbb.so.12" "$S/lib/"
cp -L "$L/libtbb.so.12" .gpu-carry/lib/
cp -L "${CUZK_LIB:-build-h/lib/libcuzk.a}" "$S/lib/libcuzk.a"
du -sh .gpu-carry
