#!/bin/bash
# session start at 3df470e: on an H200 the h200-latest figures (c3.sh); on an H100 the 24 GiB limit
# (batches 1, 2), the 16 GiB limit at batch 2, the gpu tests not run last session, racecheck
set -u
cd "$(dirname "$0")/.." && tar xJf .gpu-carry/carry.tar.xz -C .gpu-carry
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,memory.total --format=csv | tee $OUT/device.txt
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then exec .gpu-carry/c3.sh; fi
t0=$(date +%s)
OUT=$OUT timeout 250 scripts/run-porep-scale.sh v24 245 --sector-size 32GiB --proofs 2 --concurrency 2 --vram-limit 24GiB --max-batch-size 1,2 > $OUT/scale24.txt 2>&1; echo "scale24 rc=$? $(( $(date +%s)-t0 ))s"
grep -E "memory plan|warm-up|ms per partition|s/proof|verified|rejected|peak RSS|p50|batch" $OUT/scale24.txt | cut -c1-400 | head -30
OUT=$OUT timeout 150 scripts/run-porep-scale.sh v16b2 145 --sector-size 32GiB --proofs 2 --concurrency 2 --vram-limit 16GiB --max-batch-size 2 > $OUT/scale16.txt 2>&1; echo "scale16 rc=$? $(( $(date +%s)-t0 ))s"
grep -E "memory plan|warm-up|ms per partition|s/proof|verified|rejected|peak RSS|p50|batch" $OUT/scale16.txt | cut -c1-400 | head -30
tar czf $OUT/scale.tgz -C $OUT scale-v24 scale-v16b2 && rm -rf $OUT/scale-v24 $OUT/scale-v16b2
timeout 100 $B/cuzk_gpu_tests --gtest_filter='gpu_ntt.*:gpu_field*:gpu_inverse.*:gpu_spmv.*:gpu_coded_witness.*:gpu_msm.LinearityAt2p27' > $OUT/tests.log 2>&1; echo "tests rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^\[  (PASSED|FAILED) |tests ran|Failure|differs" -A2 $OUT/tests.log | head -20
left=$(( 560 - ($(date +%s)-t0) ))
if [ $left -gt 30 ]; then
  mkdir -p $OUT/rc && OUT=$OUT/rc SAN_LIMIT_S=$((left-10)) timeout $left scripts/run-gpu-suite.sh racecheck; echo "racecheck rc=$? $(( $(date +%s)-t0 ))s"
fi
