#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make demo`: the main job as far as it exists today — the arithmetic
# self-check with a benchmark summary, then a Groth16 prove/verify round trip
# on the CPU backend when the Groth16 layer is built.
set -euo pipefail
build=${1:-build}
"$build/bin/cuzk-bench" selfcheck
