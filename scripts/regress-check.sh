#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The regression-analysis check of docs/REGRESSION.md on this machine, with
# 2 KiB WindowPoSt on a local daemon (whatever backend it picks). Recordings,
# each `cuzk-bench batch -c COUNT -j 1 --repeat REPEAT` (first run a warm-up)
# on a fresh daemon, taken in turns so that machine drift hits both sides:
#   on-a, on-b     TIMELINE on (the default)
#   off-a, off-b   CUZK_TIMELINE=off                     -- instrumentation cost
#   slow-a, slow-b CUZK_TEST_DELAY_STAGE=synthesis:50    -- TEST ONLY injected delay
# then `cuzk-bench compare` of on-a/on-b (same build, two files),
# on-a,on-b/off-a,off-b (pooled: TIMELINE cost) and on-a,on-b/slow-a,slow-b,
# written to OUT/compare-*.txt; their summaries are printed.
# Usage: scripts/regress-check.sh [BUILD_DIR] [OUT_DIR]   (env: COUNT=3 REPEAT=4)
# Cost: 6 x COUNT x REPEAT proofs (2 KiB WindowPoSt: ~1-9 s each on 2 busy cores).
set -euo pipefail
BUILD=${1:-build}
OUT=${2:-/tmp/cuzk-regress}
COUNT=${COUNT:-3}
REPEAT=${REPEAT:-4}
BENCH=$BUILD/bin/cuzk-bench
DAEMON=$BUILD/bin/cuzk
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SOCK=$OUT/cuzk.sock
[ -f "$OUT/wpost/vanilla.json" ] || "$BENCH" gen-post -t wpost --out-dir "$OUT/wpost" --param-cache "$OUT/params" --seed 3
cat > "$OUT/cuzk.toml" <<EOF
[daemon]
listen = "unix://$SOCK"
[srs]
param_cache = "$OUT/params"
[memory]
total_budget = "2GiB"
EOF

run_one() {  # name, then env assignments for the daemon
  local name=$1
  shift
  rm -f "$SOCK"
  env "$@" "$DAEMON" --config "$OUT/cuzk.toml" > "$OUT/$name.log" 2>&1 &
  local pid=$!
  for _ in $(seq 400); do [ -S "$SOCK" ] && break; sleep 0.05; done
  "$BENCH" batch -t wpost --addr "unix://$SOCK" --vanilla "$OUT/wpost/vanilla.json" --registered-proof 10 \
    --randomness "$(cat "$OUT/wpost/randomness.hex")" -c "$COUNT" -j 1 --repeat "$REPEAT" \
    --daemon-pid "$pid" --daemon-config "$OUT/cuzk.toml" --label "$name $*" --json "$OUT/$name.json" \
    > "$OUT/$name.batch.txt"
  kill -TERM "$pid"
  wait "$pid" || true
  grep -E "^(throughput|latency)" "$OUT/$name.batch.txt" | sed "s/^/$name: /"
}

for turn in a b; do
  run_one on-$turn X=1
  run_one off-$turn CUZK_TIMELINE=off
  run_one slow-$turn CUZK_TEST_DELAY_STAGE=synthesis:50
done

cmp() {  # name base new
  "$BENCH" compare "$2" "$3" --fail-on s_per_proof > "$OUT/compare-$1.txt" || true
  echo "=== compare $1 ==="
  sed -n '/=== summary ===/,$p' "$OUT/compare-$1.txt"
}
cmp same "$OUT/on-a.json" "$OUT/on-b.json"
cmp timeline-off "$OUT/on-a.json,$OUT/on-b.json" "$OUT/off-a.json,$OUT/off-b.json"
cmp delay "$OUT/on-a.json,$OUT/on-b.json" "$OUT/slow-a.json,$OUT/slow-b.json"
