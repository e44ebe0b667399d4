#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs on a GPU machine what scripts/build-gpu-tests.sh staged in .gpu-carry/:
# the gpu tests, compute-sanitizer memcheck on the small-size tests, and the
# benchmarks, each with its own time limit, logs into $OUT (or ./gpu-logs).
# Usage: scripts/run-gpu-suite.sh [tests] [memcheck] [bench] [-- BENCH ARGS]
#   (no stage named: all three). Exit status: 1 when a test or memcheck failed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-gpu-logs}"
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.gpu-carry/lib:${LD_LIBRARY_PATH:-}"
stages=() bench_args=()
while (($#)); do
  if [[ "$1" == "--" ]]; then shift; bench_args=("$@"); break; fi
  stages+=("$1"); shift
done
((${#stages[@]})) || stages=(tests memcheck bench)
status=0
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
for st in "${stages[@]}"; do
  case "$st" in
    tests)
      timeout 420 .gpu-carry/bin/cuzk_gpu_tests ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} \
        > "$OUT/tests.log" 2>&1 || status=1
      grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|tests ran|gpu prove" "$OUT/tests.log" | head -40 ;;
    memcheck)
      CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
      timeout 300 "$CS" --tool memcheck --error-exitcode 3 .gpu-carry/bin/cuzk_gpu_tests \
        --gtest_filter='gpu_groth16.Batch*:gpu_msm.StreamedBatch*:gpu_groth16.AnotherProver*:gpu_groth16.CpuBG2AndStreamed*:gpu_inverse.*:gpu_msm.BatchAffineLevelZeroSmall*:query_transfer_gpu.*:gpu_groth16.ProofEqualsCpuProofAndVerifies:gpu_setup.MatchesCpuSetupOnSmallShapes:gpu_msm.EveryWindowWidth:gpu_msm.PartitionedAndDirectScatterMatchCpu:gpu_msm.LentPairBuffer*:gpu_msm_g2.Degenerate*:gpu_msm_g2.DeviceScalars*:gpu_groth16.Spmv*:gpu_groth16.Quotient*:gpu_ntt*Small*:gpu_field*' \
        > "$OUT/memcheck.log" 2>&1 || status=1
      grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED) " "$OUT/memcheck.log" | head -20 ;;
    bench)
      timeout 540 .gpu-carry/bin/cuzk_gpu_bench "${bench_args[@]}" > "$OUT/bench.log" 2>&1
      grep -v '^{' "$OUT/bench.log" ;;
  esac
done
exit $status
