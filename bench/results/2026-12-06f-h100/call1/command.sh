#!/bin/bash
# branch next/beside-at-16gib: the L-beside-H test and memcheck, the prover tests, then the
# 32 GiB PoRep at 16 and 24 GiB, batches 1 and 2, two proofs
set -u
cd "$(dirname "$0")/.." && tar xJf .gpu-carry/carry.tar.xz -C .gpu-carry
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,memory.total --format=csv | tee $OUT/device.txt
t0=$(date +%s)
timeout 100 $B/cuzk_gpu_tests --gtest_filter='gpu_groth16.*:gpu_msm.Streamed*' > $OUT/tests1.log 2>&1; echo "tests1 rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^\[  (PASSED|FAILED) |tests ran|Failure|differs" -A3 $OUT/tests1.log | head -30
OUT=$OUT timeout 385 scripts/run-porep-scale.sh v1624 380 --sector-size 32GiB --proofs 2 --concurrency 2 --vram-limit 16GiB,24GiB --max-batch-size 1,2 > $OUT/scale.txt 2>&1; echo "scale rc=$? $(( $(date +%s)-t0 ))s"
grep -E "memory plan|warm-up|ms per partition|s/proof|verified|rejected|peak RSS|p50|vram-limit|batch of 2:" $OUT/scale.txt | cut -c1-500 | head -40
tar czf $OUT/scale.tgz -C $OUT scale-v1624 && rm -rf $OUT/scale-v1624
timeout $(( 570 - ($(date +%s)-t0) )) compute-sanitizer --tool memcheck --error-exitcode 3 $B/cuzk_gpu_tests --gtest_filter='gpu_groth16.LBeside*' > $OUT/memcheck.log 2>&1; echo "memcheck rc=$? $(( $(date +%s)-t0 ))s"
grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED) " $OUT/memcheck.log
