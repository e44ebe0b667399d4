#!/bin/bash
# L beside H + the H chunk cap: prover tests, the 32 GiB PoRep at 16 and 24 GiB (one proof, batch 1),
# the zero-copy gather probe, memcheck of the streamed prover tests as time allows
set -u
cd "$(dirname "$0")/.." && tar xJf .gpu-carry/carry.tar.xz -C .gpu-carry
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,memory.total --format=csv | tee $OUT/device.txt
t0=$(date +%s)
timeout 120 $B/cuzk_gpu_tests --gtest_filter='gpu_groth16.*:gpu_msm.Streamed*' > $OUT/tests1.log 2>&1; echo "tests1 rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^\[  (PASSED|FAILED) |tests ran|Failure|differs" -A3 $OUT/tests1.log | head -30
OUT=$OUT timeout 300 scripts/run-porep-scale.sh v1624 295 --sector-size 32GiB --proofs 1 --concurrency 1 --vram-limit 16GiB,24GiB --max-batch-size 1 > $OUT/scale.txt 2>&1; echo "scale rc=$? $(( $(date +%s)-t0 ))s"
grep -E "memory plan|warm-up|ms per partition|s/proof|verified|rejected|peak RSS|p50|vram-limit" $OUT/scale.txt | cut -c1-500 | head -30
tar czf $OUT/scale.tgz -C $OUT scale-v1624 && rm -rf $OUT/scale-v1624
timeout 45 .gpu-carry/zc > $OUT/zc.txt 2>&1; echo "zc rc=$? $(( $(date +%s)-t0 ))s"; cat $OUT/zc.txt
left=$(( 540 - ($(date +%s)-t0) ))
if [ $left -gt 40 ]; then
  timeout $left compute-sanitizer --tool memcheck --error-exitcode 3 $B/cuzk_gpu_tests --gtest_filter='gpu_groth16.CpuBG2AndStreamed*' > $OUT/memcheck.log 2>&1; echo "memcheck rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED) " $OUT/memcheck.log
fi
