#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole operator path on a GPU machine, in one command, as a storage
# provider runs it: parameter files on disk, the `cuzk` daemon reading them
# from its param_cache, C1 JSON over gRPC, the daemon's own budget and
# scheduling.
#   1. gen-params: test parameters in the published format and names (the
#      GPU setup when a GPU is present, streamed from VRAM to the file), unless
#      WORK/params already holds them;
#   2. start `cuzk`, PreloadSRS the PoRep circuit, time start -> ready;
#   3. `cuzk-bench batch -t porep --synthetic SIZE -c N -j J --json` over gRPC
#      (each proof its own generated C1, written beside its proof), with
#      /status and /metrics scraped every 5 s during the run;
#   4. `cuzk-bench timeline` of the daemon log to an SVG; `cuzk-bench verify`
#      of every proof against its own C1, and rejection against another;
#   5. SIGTERM (time to exit), start again and prove once more: time from
#      start to the first partition's GPU work.
# Usage: scripts/operator-path.sh BIN WORK OUT [SIZE (32GiB)] [N (4)] [J (2)] [STEP (all|params|daemon)]
#   BIN: folder with cuzk and cuzk-bench; WORK: parameters, socket, config;
#   OUT: logs and results (operator.log, batch.json, timeline.svg, ...).
# Cost at 32 GiB on one H200: parameters ~47 GB on disk (2-3 min), then
# roughly 1 min to ready, N x ~17 s of proofs, one more start and proof.
set -euo pipefail
BIN=$(cd "$1" && pwd)
WORK=$2
OUT=$3
SIZE=${4:-32GiB}
N=${5:-4}
J=${6:-2}
STEP=${7:-all}
mkdir -p "$WORK/params" "$OUT"
WORK=$(cd "$WORK" && pwd)
OUT=$(cd "$OUT" && pwd)
PARAMS="$WORK/params"
SOCK="$WORK/cuzk.sock"
PORT=${CUZK_OPERATOR_STATUS_PORT:-9830}
ADDR="unix://$SOCK"
case "$SIZE" in
  2KiB) TAG=2k ;; 8MiB) TAG=8m ;; 512MiB) TAG=512m ;; 32GiB) TAG=32g ;; 64GiB) TAG=64g ;;
  *) echo "operator-path: unsupported size $SIZE" >&2; exit 2 ;;
esac
CIRCUIT="porep-$TAG"
log() { echo "[$(date -u +%T)] $*" | tee -a "$OUT/operator.log"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
peak_rss_gib() { awk '/VmHWM/ { printf "%.2f", $2 / 1048576 }' "/proc/$1/status" 2>/dev/null || echo "n/a"; }

# ---- 1. parameters -------------------------------------------------------------
if [[ "$STEP" == all || "$STEP" == params ]]; then
  if ls "$PARAMS"/*.params > /dev/null 2>&1; then
    log "parameters already in $PARAMS"
  else
    log "gen-params -t porep --sector-size $SIZE (disk before: $(df -h "$WORK" | awk 'NR == 2 { print $4 }') free)"
    t0=$(now)
    "$BIN/cuzk-bench" gen-params -t porep --sector-size "$SIZE" --seed 1 --out "$PARAMS" | tee "$OUT/gen-params.txt"
    log "gen-params done in $(elapsed "$t0") s; $(du -sh "$PARAMS" | cut -f1) on disk, $(df -h "$WORK" | awk 'NR == 2 { print $4 }') free"
  fi
  [[ "$STEP" == params ]] && exit 0
fi

# ---- 2. the daemon -----------------------------------------------------------------
cat > "$WORK/cuzk.toml" <<TOML
[daemon]
listen = "unix://$SOCK"
status_listen = "127.0.0.1:$PORT"
[srs]
param_cache = "$PARAMS"
TOML
PID=
SCRAPER=
cleanup() {
  [[ -n "$SCRAPER" ]] && kill "$SCRAPER" 2> /dev/null || true
  if [[ -n "$PID" ]] && kill -0 "$PID" 2> /dev/null; then kill -TERM "$PID" || true; wait "$PID" || true; fi
}
trap cleanup EXIT

start_daemon() {  # $1: run label
  rm -f "$SOCK"
  T_START=$(now)
  "$BIN/cuzk" --config "$WORK/cuzk.toml" 2> "$OUT/daemon-$1.log" &
  PID=$!
  for _ in $(seq 600); do [[ -S "$SOCK" ]] && break; sleep 0.1; done
  [[ -S "$SOCK" ]] || { tail -20 "$OUT/daemon-$1.log"; log "the daemon did not start"; exit 1; }
  log "daemon $1 (pid $PID) listening after $(elapsed "$T_START") s"
}

stop_daemon() {  # $1: run label
  local t0 rc=0
  log "daemon $1 peak RSS $(peak_rss_gib "$PID") GiB; SIGTERM"
  t0=$(now)
  kill -TERM "$PID"
  wait "$PID" || rc=$?
  log "daemon $1 exited with status $rc $(elapsed "$t0") s after SIGTERM"
  PID=
}

scrape() {  # every 5 s while the daemon lives: /status and /metrics, and its RSS
  while kill -0 "$PID" 2> /dev/null; do
    {
      echo "## $(date -u +%T) rss_kib=$(awk '/VmRSS/ { print $2 }' "/proc/$PID/status" 2> /dev/null)"
      "$BIN/cuzk-bench" status --addr "$ADDR" 2>&1 || true
    } >> "$OUT/status-scrape.txt"
    "$BIN/cuzk-bench" metrics --addr "$ADDR" >> "$OUT/metrics-scrape.txt" 2>&1 || true
    sleep 5
  done
}

start_daemon 1
t0=$(now)
"$BIN/cuzk-bench" preload -c "$CIRCUIT" --addr "$ADDR" | tee -a "$OUT/operator.log"
log "PreloadSRS $CIRCUIT took $(elapsed "$t0") s; ready $(elapsed "$T_START") s after start; RSS peak so far $(peak_rss_gib "$PID") GiB"
scrape &
SCRAPER=$!

# ---- 3. the batch over gRPC --------------------------------------------------------
log "batch: $N proofs of $SIZE, $J at a time"
"$BIN/cuzk-bench" batch -t porep --synthetic "$SIZE" --seed 100 -c "$N" -j "$J" --addr "$ADDR" \
  --json "$OUT/batch.json" --out-dir "$OUT/proofs" --daemon-pid "$PID" --daemon-log "$OUT/daemon-1.log" \
  --daemon-config "$WORK/cuzk.toml" --label "operator path $SIZE" | tee "$OUT/batch.txt"
"$BIN/cuzk-bench" status --addr "$ADDR" > "$OUT/status-after-batch.txt" 2>&1 || true

# ---- 4. timeline and verification -----------------------------------------------------
"$BIN/cuzk-bench" timeline --log "$OUT/daemon-1.log" --svg "$OUT/timeline.svg" | tee -a "$OUT/operator.log" || true
valid=0
for ((i = 0; i < N; i++)); do
  p="$OUT/proofs/proof-$i.bin"
  [[ -f "$p" ]] || { log "proof $i missing"; continue; }
  if "$BIN/cuzk-bench" verify -t porep --c1 "$OUT/proofs/c1-$i.json" --params "$PARAMS" --proof "$p" > /dev/null; then
    other=$(((i + 1) % N))
    if [[ "$other" != "$i" ]] &&
       "$BIN/cuzk-bench" verify -t porep --c1 "$OUT/proofs/c1-$other.json" --params "$PARAMS" --proof "$p" > /dev/null; then
      log "proof $i ALSO verified against C1 $other"
    else
      valid=$((valid + 1))
    fi
  else
    log "proof $i INVALID"
  fi
done
log "verified $valid/$N proofs (each valid for its own C1, rejected for another)"
kill "$SCRAPER" 2> /dev/null || true
SCRAPER=
stop_daemon 1

# ---- 5. restart and prove once more ---------------------------------------------------
start_daemon 2
# the first proof's C1 again: no generation time inside the measurement
# shellcheck disable=SC2046  # two options, word-split on purpose
"$BIN/cuzk-bench" batch -t porep --c1 "$OUT/proofs/c1-0.json" $(cat "$OUT/proofs/c1-0.args") -c 1 -j 1 --addr "$ADDR" \
  --json "$OUT/restart.json" --out-dir "$OUT/restart" --daemon-pid "$PID" | tee "$OUT/restart.txt"
# TIMELINE times are ms since the engine started
first_gpu_ms=$(grep -o 'TIMELINE,[0-9]*,GPU_START' "$OUT/daemon-2.log" | head -1 | cut -d, -f2)
log "restart: first partition's GPU work ${first_gpu_ms:-?} ms after the engine started"
if "$BIN/cuzk-bench" verify -t porep --c1 "$OUT/proofs/c1-0.json" --params "$PARAMS" \
     --proof "$OUT/restart/proof-0.bin" > /dev/null; then
  log "restart proof valid"
else
  log "restart proof INVALID"
fi
stop_daemon 2
