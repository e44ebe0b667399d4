#!/usr/bin/env bash
# level 0's stall reasons and pipe use: the default loop against Karatsuba (3) and FP64-for-four (1)
cd "$(dirname "$0")/.."
[ -d .gpu-carry/bin ] || tar xJf .gpu-carry/pack.tar.xz
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
t0=$(date +%s); el() { echo $(( $(date +%s)-t0 )); }
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
M=smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__inst_executed.sum
for v in 0 3 1; do
  CUZK_MSM_FP_MUL=$v timeout 100 $NCU --clock-control none -k regex:accumulate_points -s 1 -c 1 --metrics $M .gpu-carry/bin/cuzk-gpu-bench msm --lg-min 22 --lg-max 22 --no-g2 --reps 1 > $OUT/ncu-l0-$v.txt 2>&1; echo "ncu level0 FP_MUL=$v rc=$? $(el)s"
  grep -E "accumulate_points|stalled|pct|duration|inst_executed.sum" $OUT/ncu-l0-$v.txt | sed 's/  */ /g' | head -24
done
