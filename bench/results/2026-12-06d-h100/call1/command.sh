#!/bin/bash
# call 4 (short budget): streamed-MSM and prover tests, the 32 GiB PoRep at a 16 GiB limit, batch 1
set -u
cd "$(dirname "$0")/.." && tar xJf .gpu-carry/carry.tar.xz -C .gpu-carry
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,memory.total --format=csv | tee $OUT/device.txt
t0=$(date +%s)
timeout 60 $B/cuzk_gpu_tests --gtest_filter='gpu_msm.Streamed*:gpu_msm.RandomScalarsMatchCpu:gpu_msm.WitnessLike*:gpu_msm_g2.DeviceScalars*:gpu_groth16.*' > $OUT/tests1.log 2>&1; echo "tests1 rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^\[  (PASSED|FAILED) |tests ran|Failure|differs" -A2 $OUT/tests1.log | head -30
OUT=$OUT timeout 150 scripts/run-porep-scale.sh v16 145 --sector-size 32GiB --proofs 1 --concurrency 1 --vram-limit 16GiB --max-batch-size 1 > $OUT/scale.txt 2>&1; echo "scale rc=$? $(( $(date +%s)-t0 ))s"
grep -E "memory plan|warm-up|ms per partition|s/proof|verified|rejected|peak RSS|p50" $OUT/scale.txt | cut -c1-400 | head -30
tar czf $OUT/v16.tgz -C $OUT scale-v16 && rm -rf $OUT/scale-v16
