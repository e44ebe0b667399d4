#!/usr/bin/env bash
cd "$(dirname "$0")/.."
[ -d .gpu-carry/bin ] || tar xJf .gpu-carry/pack.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }
tar xJf .gpu-carry/nttx.tar.xz -C .gpu-carry/bin
for b in cuzk-gpu-bench bench-ntt-pf4 bench-ntt-pf3 cuzk-gpu-bench; do
  timeout 60 .gpu-carry/bin/$b ntt --lg-min 26 --lg-max 27 --reps 7 > $OUT/ntt-$b.log 2>&1; echo "ntt $b rc=$? $(el)s"
  grep -E "^(ntt|dif_nr|h_six)" $OUT/ntt-$b.log | head -8
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
timeout 150 $NCU --clock-control none -k regex:pass_kernel -s 2 -c 3 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats .gpu-carry/bin/cuzk-gpu-bench ntt --lg-min 27 --lg-max 27 --reps 1 > $OUT/ncu-ntt.txt 2>&1; echo "ncu rc=$? $(el)s"
grep -E "pass_kernel|Compute \(SM\) Th|Memory Th|Issue Slots Busy|Registers Per|Achieved Occ|Stall|Warp Cycles Per Issued|Duration|No Eligible" $OUT/ncu-ntt.txt | head -50
