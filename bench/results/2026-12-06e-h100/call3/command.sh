#!/bin/bash
# L beside H in large chunks: prover tests, the 32 GiB PoRep at 24 GiB (one proof, batch 1), memcheck
set -u
cd "$(dirname "$0")/.." && tar xJf .gpu-carry/carry.tar.xz -C .gpu-carry
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,memory.total --format=csv | tee $OUT/device.txt
t0=$(date +%s)
timeout 120 $B/cuzk_gpu_tests --gtest_filter='gpu_groth16.*:gpu_msm.Streamed*' > $OUT/tests1.log 2>&1; echo "tests1 rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^\[  (PASSED|FAILED) |tests ran|Failure|differs" -A3 $OUT/tests1.log | head -30
OUT=$OUT timeout 230 scripts/run-porep-scale.sh v24 225 --sector-size 32GiB --proofs 1 --concurrency 1 --vram-limit 24GiB --max-batch-size 1 > $OUT/scale.txt 2>&1; echo "scale rc=$? $(( $(date +%s)-t0 ))s"
grep -E "memory plan|warm-up|ms per partition|s/proof|verified|rejected|peak RSS|p50|vram-limit" $OUT/scale.txt | cut -c1-500 | head -30
tar czf $OUT/scale.tgz -C $OUT scale-v24 && rm -rf $OUT/scale-v24
left=$(( 420 - ($(date +%s)-t0) ))
if [ $left -gt 30 ]; then
  timeout $left compute-sanitizer --tool memcheck --error-exitcode 3 $B/cuzk_gpu_tests --gtest_filter='gpu_groth16.LBeside*' > $OUT/memcheck.log 2>&1; echo "memcheck rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED) " $OUT/memcheck.log
fi
