#!/usr/bin/env bash
# after removing the alternatives: the MSM and field GPU tests, and the MSM at 2^24/2^27 once more
cd "$(dirname "$0")/.."
mkdir -p .gpu-carry/s && tar xJf .gpu-carry/pack.tar.xz -C .gpu-carry/s
export LD_LIBRARY_PATH=$PWD/.gpu-carry/s/lib
B=.gpu-carry/s/bin
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }
timeout 170 $B/cuzk_gpu_tests --gtest_filter='gpu_msm.*:gpu_field.*:gpu_msm_g2.*' > $OUT/tests.log 2>&1; echo "tests rc=$? $(el)s"
grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" $OUT/tests.log | head -12
timeout 60 $B/cuzk-gpu-bench msm --lg-min 27 --lg-max 27 --no-g2 --reps 5 > $OUT/msm.log 2>&1; echo "msm rc=$? $(el)s"
grep -E "^msm_g1_dev" $OUT/msm.log
