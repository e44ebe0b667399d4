#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Daemon demo at 2 KiB (CPU backend, seeded TEST parameters, not a trusted
# setup): generates WindowPoSt and WinningPoSt inputs, starts build/bin/cuzk on
# a unix socket with the HTTP status listener, proves both through gRPC with
# cuzk-bench single, verifies the returned proofs with cuzk-bench verify,
# prints status, metrics and the TIMELINE lines, then stops the daemon with
# SIGTERM (by its pid) and checks it exits 0. Usage: scripts/daemon-demo.sh [BUILD_DIR]
set -euo pipefail
BUILD=${1:-build}
B="$BUILD/bin"
WORK=$(mktemp -d /tmp/cuzk-demo.XXXXXX)
SOCK="$WORK/cuzk.sock"
PORT=${CUZK_DEMO_STATUS_PORT:-9821}
cleanup() { [ -n "${PID:-}" ] && kill -0 "$PID" 2>/dev/null && kill -TERM "$PID" || true; }
trap cleanup EXIT

"$B/cuzk-bench" gen-post -t wpost --out-dir "$WORK/wpost" --param-cache "$WORK/params" --seed 1
"$B/cuzk-bench" gen-post -t winning --out-dir "$WORK/winning" --param-cache "$WORK/params" --seed 2
cat > "$WORK/cuzk.toml" <<TOML
[daemon]
listen = "unix://$SOCK"
status_listen = "127.0.0.1:$PORT"
[srs]
param_cache = "$WORK/params"
[memory]
total_budget = "4GiB"
TOML
"$B/cuzk" --config "$WORK/cuzk.toml" 2> "$WORK/daemon.log" &
PID=$!
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done

"$B/cuzk-bench" single -t wpost --addr "unix://$SOCK" --vanilla "$WORK/wpost/vanilla.json" \
  --registered-proof 10 --randomness "$(cat "$WORK/wpost/randomness.hex")" --out "$WORK/wpost.proof"
"$B/cuzk-bench" verify -t wpost --proof "$WORK/wpost.proof" --vanilla "$WORK/wpost/vanilla.json" \
  --registered-proof 10 --randomness "$(cat "$WORK/wpost/randomness.hex")" --param-cache "$WORK/params"
"$B/cuzk-bench" single -t winning --addr "unix://$SOCK" --vanilla "$WORK/winning/vanilla.json" \
  --registered-proof 0 --randomness "$(cat "$WORK/winning/randomness.hex")" --out "$WORK/winning.proof"
"$B/cuzk-bench" verify -t winning --proof "$WORK/winning.proof" --vanilla "$WORK/winning/vanilla.json" \
  --registered-proof 0 --randomness "$(cat "$WORK/winning/randomness.hex")" --param-cache "$WORK/params"

"$B/cuzk-bench" status --addr "unix://$SOCK"
"$B/cuzk-bench" metrics --addr "unix://$SOCK" | grep -E '^cuzk_(proofs_completed_total|memory_reserved_bytes|srs_bytes)'
if command -v curl > /dev/null; then curl -s "127.0.0.1:$PORT/status" | head -20; fi
grep '^TIMELINE' "$WORK/daemon.log" | sort -s -t, -k2 -n

kill -TERM "$PID"
wait "$PID"
echo "daemon exited with status $? after SIGTERM"
PID=
rm -rf "$WORK"
