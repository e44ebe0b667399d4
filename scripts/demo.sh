#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make demo`: the main job end to end — a 2 KiB PoRep C2 proved through the
# daemon and verified. Steps: (1) 2 KiB PoRep parameters from our seeded
# setup (TEST parameters: anyone with the seed can forge proofs; the first
# run takes one to two minutes on 2 cores, later runs reuse them) and two
# synthetic C1 outputs, cached under $CUZK_DEMO_DATA (default data/demo);
# (2) build/bin/cuzk on a unix socket with the HTTP status listener (GPU
# backend when a GPU is present, else CPU); (3) cuzk-bench single proves the
# C1 through gRPC and prints the timings; (4) cuzk-bench verify accepts the
# proof for its C1 and rejects it for the other C1; (5) status, the TIMELINE
# lines, and SIGTERM (by pid) with a clean exit.
# Usage: scripts/demo.sh [BUILD_DIR]
set -euo pipefail
BUILD=${1:-build}
B="$BUILD/bin"
DATA=${CUZK_DEMO_DATA:-data/demo}
PORT=${CUZK_DEMO_STATUS_PORT:-9821}
mkdir -p "$DATA"
WORK=$(mktemp -d /tmp/cuzk-demo.XXXXXX)
SOCK="$WORK/cuzk.sock"
cleanup() {
  if [ -n "${PID:-}" ] && kill -0 "$PID" 2>/dev/null; then kill -TERM "$PID" || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "== cuzk demo: 2 KiB PoRep C2 through the daemon (data in $DATA)"
if ! ls "$DATA"/params/*.vk > /dev/null 2>&1; then
  echo "-- generating 2 KiB PoRep test parameters (seeded setup, once; one to two minutes on 2 cores)"
  "$B/cuzk-bench" gen-params --type porep --sector-size 2KiB --seed 1 --out "$DATA/params.tmp"
  rm -rf "$DATA/params" && mv "$DATA/params.tmp" "$DATA/params"
fi
# the daemon checks the C1's replica_id against the request's miner and
# sector: gen-vanilla says which they are ("prove with: ..."), kept beside it
if [ ! -f "$DATA/c1.json" ] || [ ! -f "$DATA/c1.sector" ]; then
  "$B/cuzk-bench" gen-vanilla --type porep --sector-size 2KiB --seed 1 --out "$DATA/c1.json" |
    tee "$WORK/gen.txt"
  sed -n 's/^prove with: //p' "$WORK/gen.txt" > "$DATA/c1.sector"
fi
[ -f "$DATA/c1-other.json" ] ||
  "$B/cuzk-bench" gen-vanilla --type porep --sector-size 2KiB --seed 2 --out "$DATA/c1-other.json"

cat > "$WORK/cuzk.toml" <<TOML
[daemon]
listen = "unix://$SOCK"
status_listen = "127.0.0.1:$PORT"
[srs]
param_cache = "$(cd "$DATA/params" && pwd)"
[memory]
total_budget = "8GiB"
TOML
echo "-- starting the daemon"
"$B/cuzk" --config "$WORK/cuzk.toml" 2> "$WORK/daemon.log" &
PID=$!
for _ in $(seq 200); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || { cat "$WORK/daemon.log"; echo "demo: the daemon did not start" >&2; exit 1; }

echo "-- proving through gRPC"
# shellcheck disable=SC2046  # two options, word-split on purpose
"$B/cuzk-bench" single -t porep --addr "unix://$SOCK" --c1 "$DATA/c1.json" $(cat "$DATA/c1.sector") \
  --out "$WORK/porep.proof"
echo "-- verifying (the proof's own C1, then another C1)"
"$B/cuzk-bench" verify -t porep --c1 "$DATA/c1.json" --params "$DATA/params" --proof "$WORK/porep.proof"
if "$B/cuzk-bench" verify -t porep --c1 "$DATA/c1-other.json" --params "$DATA/params" \
     --proof "$WORK/porep.proof"; then
  echo "demo: a proof verified against another C1" >&2
  exit 1
fi
echo "(rejected for the other C1, as it must be)"

"$B/cuzk-bench" status --addr "unix://$SOCK"
grep '^TIMELINE' "$WORK/daemon.log" || true

kill -TERM "$PID"
rc=0
wait "$PID" || rc=$?
PID=
echo "daemon exited with status $rc after SIGTERM"
exit "$rc"
