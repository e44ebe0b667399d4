#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A fuzzing campaign (docs/RELIABILITY.md): builds the libFuzzer targets
# with clang (cmake --preset fuzz: ASan + UBSan, build-fuzz/) unless
# present, then runs each named target (default: all) for SECONDS (default
# 600) on a scratch copy of its seed corpus, JOBS at a time (default 1).
# A crash leaves crash-* / leak-* / timeout-* files in fuzz-out/<target>/;
# minimize them, fix the parser, and copy the input into
# fuzz/corpus/<target>/ so the replay test keeps it. One result line per
# target (executions, coverage, outcome) goes to fuzz-out/summary.txt.
# Usage: scripts/fuzz.sh [SECONDS] [JOBS] [TARGET...]
set -euo pipefail
SECS=${1:-600}
JOBS=${2:-1}
shift $(( $# > 2 ? 2 : $# ))
TARGETS=("$@")
[[ ${#TARGETS[@]} -eq 0 ]] && TARGETS=(c1_json post_vanilla params proof points grpc_request)
if [[ ! -d build-fuzz ]]; then cmake --preset fuzz; fi
cmake --build build-fuzz -j2 --target "${TARGETS[@]/#/fuzz_}"
mkdir -p fuzz-out
run_one() {
  local t=$1 out=fuzz-out/$1
  rm -rf "$out" && mkdir -p "$out/corpus"
  cp fuzz/corpus/"$t"/* "$out/corpus/"
  set +e
  (cd "$out" && ASAN_OPTIONS=detect_leaks=1 ../../build-fuzz/bin/fuzz_"$t" -max_total_time="$SECS" \
     -rss_limit_mb=2048 -timeout=30 -print_final_stats=1 corpus >log.txt 2>&1)
  local rc=$?
  set -e
  local execs cov
  execs=$(grep -E '^stat::number_of_executed_units' "$out/log.txt" | awk '{print $2}')
  cov=$(grep -E '#[0-9]+.*cov:' "$out/log.txt" | tail -n1 | sed -E 's/.*cov: ([0-9]+).*ft: ([0-9]+).*/cov \1 ft \2/')
  local crashes
  crashes=$(ls "$out" | grep -cE '^(crash|leak|timeout|oom)-' || true)
  echo "$t: ${SECS}s, ${execs:-?} executions, ${cov:-?}, exit $rc, $crashes crash file(s)" | tee -a fuzz-out/summary.txt
}
export -f run_one
export SECS
printf '%s\n' "${TARGETS[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
