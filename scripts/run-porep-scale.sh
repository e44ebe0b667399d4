#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the staged cuzk-porep-scale (bench/scale/porep_scale.cpp) on a GPU
# machine with its log, summary and timeline under $OUT/scale-<label>, and a
# 1 s sample of GPU utilisation and memory (nvidia-smi) beside them.
# Usage: scripts/run-porep-scale.sh LABEL TIMEOUT_S [cuzk-porep-scale args...]
set -uo pipefail
cd "$(dirname "$0")/.."
label="$1" limit="$2"
shift 2
OUT="${OUT:-gpu-logs}"
dir="$OUT/scale-$label"
mkdir -p "$dir"
export LD_LIBRARY_PATH="$PWD/.gpu-carry/lib:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=index,name,memory.total --format=csv > "$dir/device.txt"
nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used --format=csv,noheader -l 1 \
  > "$dir/nvidia-smi.csv" 2>&1 &
smi=$!
echo "command: cuzk-porep-scale $* --out $dir" > "$dir/command.txt"
/usr/bin/time -v timeout "$limit" .gpu-carry/bin/cuzk-porep-scale "$@" --out "$dir" \
  > "$dir/run.log" 2> "$dir/stderr.log"
status=$?
kill "$smi" 2>/dev/null
echo "exit status $status" >> "$dir/run.log"
cat "$dir/run.log"
grep -E "Maximum resident|Elapsed" "$dir/stderr.log"
tail -5 "$dir/stderr.log"
exit $status
