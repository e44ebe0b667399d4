#!/bin/bash
# branch next/coded-batch: the SpMV, prover and streamed MSM tests, then memcheck of the two new
# GPU tests with what time is left (T seconds in all)
set -u
T=${T:-300}
cd "$(dirname "$0")/.." && tar xJf .gpu-carry/carry.tar.xz -C .gpu-carry
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,memory.total --format=csv | tee $OUT/device.txt
t0=$(date +%s)
timeout 190 $B/cuzk_gpu_tests --gtest_filter='gpu_spmv.*:gpu_groth16.*:gpu_msm.Streamed*' > $OUT/tests1.log 2>&1; echo "tests1 rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^\[  (PASSED|FAILED) |tests ran|Failure|differs|batch capacity" -A3 $OUT/tests1.log | head -40
left=$(( T - 5 - ($(date +%s)-t0) ))
[ $left -gt 20 ] && timeout $left compute-sanitizer --tool memcheck --error-exitcode 3 $B/cuzk_gpu_tests --gtest_filter='gpu_spmv.Packed*:gpu_groth16.CodedBatch*' > $OUT/memcheck.log 2>&1; echo "memcheck rc=$? $(( $(date +%s)-t0 ))s"
grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED) " $OUT/memcheck.log 2>/dev/null | head
