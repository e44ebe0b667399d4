#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs on a GPU machine what scripts/build-gpu-tests.sh staged in .gpu-carry/:
# the gpu tests, compute-sanitizer memcheck on the small-size tests, and the
# benchmarks, each with its own time limit, logs into $OUT (or ./gpu-logs).
# Usage: scripts/run-gpu-suite.sh [tests] [memcheck] [racecheck] [bench] [-- BENCH ARGS]
#   (no stage named: tests, memcheck, bench). Exit status: 1 when a test or a
#   sanitizer run failed. Under the sanitizers the NTT sweeps stop at 2^14
#   (memcheck) and 2^12 (racecheck) through CUZK_NTT_TEST_LG_MAX: two passes
#   per transform; BuildingBlocksMatchCpu keeps its fixed sizes up to 2^21
#   (three passes).
# SAN_LIMIT_S: seconds for each sanitizer stage (default 300). A TERM or INT
# sent to this script (an outer timeout's) is forwarded to the running stage
# by the trap below; without it the signal stopped only the script and left
# compute-sanitizer running on the GPU beside whatever the caller ran next
# (2026-12-06: an orphaned racecheck doubled every timing taken after it in
# the same device call).
set -uo pipefail
cd "$(dirname "$0")/.."
SAN_LIMIT_S="${SAN_LIMIT_S:-300}"
child=
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; wait; exit 143' TERM INT
limited() {  # SECONDS COMMAND...: timeout in the background, waited for, so the trap can stop it
  timeout "$@" &
  child=$!
  wait "$child"
  local rc=$?
  child=
  return $rc
}
OUT="${OUT:-gpu-logs}"
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.gpu-carry/lib:${LD_LIBRARY_PATH:-}"
stages=() bench_args=()
while (($#)); do
  if [[ "$1" == "--" ]]; then shift; bench_args=("$@"); break; fi
  stages+=("$1"); shift
done
((${#stages[@]})) || stages=(tests memcheck bench)
sanitize() {  # TOOL NTT_LG_MAX FILTER: compute-sanitizer over the gpu tests, log in $OUT/TOOL.log
  local cs
  cs="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  CUZK_NTT_TEST_LG_MAX="$2" limited "$SAN_LIMIT_S" "$cs" --tool "$1" --error-exitcode 3 .gpu-carry/bin/cuzk_gpu_tests \
    --gtest_filter="$3" > "$OUT/$1.log" 2>&1 || status=1
  grep -E "(RACECHECK|ERROR) SUMMARY|^\[  (PASSED|FAILED) " "$OUT/$1.log" | head -20
}
status=0
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
for st in "${stages[@]}"; do
  case "$st" in
    tests)
      limited 420 .gpu-carry/bin/cuzk_gpu_tests ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} \
        > "$OUT/tests.log" 2>&1 || status=1
      grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|tests ran|gpu prove" "$OUT/tests.log" | head -40 ;;
    memcheck)
      sanitize memcheck 14 'gpu_groth16.Batch*:gpu_msm.Streamed*:gpu_groth16.AnotherProver*:gpu_groth16.CpuBG2AndStreamed*:gpu_inverse.*:gpu_msm.BatchAffineLevelZeroSmall*:query_transfer_gpu.*:gpu_groth16.ProofEqualsCpuProofAndVerifies:gpu_setup.MatchesCpuSetupOnSmallShapes:gpu_msm.EveryWindowWidth:gpu_msm.PartitionedAndDirectScatterMatchCpu:gpu_msm.LentPairBuffer*:gpu_msm_g2.Degenerate*:gpu_msm_g2.DeviceScalars*:gpu_groth16.Spmv*:gpu_groth16.Quotient*:gpu_ntt.*:gpu_field*' ;;
    racecheck)
      # shared-memory hazards of the kernels that exchange through it: the
      # NTT passes, the window sums (G1 and the G2 lane pairs), the batch-
      # affine level 0 (its staging rows)
      sanitize racecheck 12 'gpu_ntt.*:gpu_msm.EveryWindowWidth:gpu_msm_g2.Degenerate*:gpu_msm.BatchAffineLevelZeroSmall*' ;;
    bench)
      limited 540 .gpu-carry/bin/cuzk_gpu_bench "${bench_args[@]}" > "$OUT/bench.log" 2>&1
      grep -v '^{' "$OUT/bench.log" ;;
  esac
done
exit $status
