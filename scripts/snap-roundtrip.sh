#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SnapDeals end to end at one sector size (default 2KiB; 8MiB works the same,
# with a ~12 M-constraint circuit): (1) test parameters from our seeded setup
# (TEST parameters: anyone with the seed can forge proofs), cached under
# $CUZK_SNAP_DATA (default data/snap) per size; two synthetic updates
# (cuzk-bench gen-vanilla -t snap, seeds 1 and 2); (2) prove in process
# (cuzk-bench prove -t snap), check the proof is partitions x 192 bytes,
# verify it against its commitments (valid) and the other update's (invalid);
# (3) the daemon (build/bin/cuzk on a unix socket): cuzk-bench single -t snap
# with the commitments, verify the returned proof the same two ways, SIGTERM.
# Usage: scripts/snap-roundtrip.sh [BUILD_DIR] [SIZE]   (SNAP_SKIP_INPROC=1 skips step 2)
set -euo pipefail
BUILD=${1:-build}
SIZE=${2:-2KiB}
B="$BUILD/bin"
DATA=${CUZK_SNAP_DATA:-data/snap}/$SIZE
mkdir -p "$DATA"
WORK=$(mktemp -d /tmp/cuzk-snap.XXXXXX)
SOCK="$WORK/cuzk.sock"
cleanup() {
  if [ -n "${PID:-}" ] && kill -0 "$PID" 2>/dev/null; then kill -TERM "$PID" || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
case "$SIZE" in
  2KiB) PARTS=1; REG=0 ;;
  8MiB) PARTS=4; REG=1 ;;
  512MiB) PARTS=16; REG=2 ;;
  *) echo "snap-roundtrip: size $SIZE is not supported here" >&2; exit 2 ;;
esac

echo "== SnapDeals $SIZE round trip (data in $DATA)"
if ! ls "$DATA"/params/*.vk > /dev/null 2>&1; then
  echo "-- generating $SIZE SnapDeals test parameters (seeded setup, once)"
  "$B/cuzk-bench" gen-params -t snap --sector-size "$SIZE" --seed 1 --out "$DATA/params.tmp"
  rm -rf "$DATA/params" && mv "$DATA/params.tmp" "$DATA/params"
fi
for s in 1 2; do
  [ -f "$DATA/vanilla-$s.json" ] ||
    "$B/cuzk-bench" gen-vanilla -t snap --sector-size "$SIZE" --seed "$s" --check --out "$DATA/vanilla-$s.json" \
      --commitments-out "$DATA/comms-$s.txt"
done
read -r -a C1 < "$DATA/comms-1.txt"
read -r -a C2 < "$DATA/comms-2.txt"

check_size() {
  local n
  n=$(stat -c %s "$1")
  [ "$n" -eq $((PARTS * 192)) ] || { echo "snap-roundtrip: $1 has $n bytes, expected $((PARTS * 192))" >&2; exit 1; }
}
verify_both() {  # the proof against its own update (valid) and the other one (invalid)
  "$B/cuzk-bench" verify -t snap --sector-size "$SIZE" --params "$DATA/params" --proof "$1" "${C1[@]}"
  if "$B/cuzk-bench" verify -t snap --sector-size "$SIZE" --params "$DATA/params" --proof "$1" "${C2[@]}"; then
    echo "snap-roundtrip: a proof verified against another update" >&2
    exit 1
  fi
}

if [ -z "${SNAP_SKIP_INPROC:-}" ]; then  # SNAP_SKIP_INPROC=1: the daemon part only
  echo "-- proving in process"
  "$B/cuzk-bench" prove -t snap --vanilla "$DATA/vanilla-1.json" "${C1[@]}" --params "$DATA/params" \
    --out "$WORK/inproc.proof"
  check_size "$WORK/inproc.proof"
  verify_both "$WORK/inproc.proof"
fi

cat > "$WORK/cuzk.toml" <<TOML
[daemon]
listen = "unix://$SOCK"
[srs]
param_cache = "$(cd "$DATA/params" && pwd)"
[memory]
total_budget = "12GiB"
TOML
echo "-- starting the daemon"
"$B/cuzk" --config "$WORK/cuzk.toml" 2> "$WORK/daemon.log" &
PID=$!
for _ in $(seq 200); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || { cat "$WORK/daemon.log"; echo "snap-roundtrip: the daemon did not start" >&2; exit 1; }
echo "-- proving through gRPC"
"$B/cuzk-bench" single -t snap --addr "unix://$SOCK" --registered-proof "$REG" --vanilla "$DATA/vanilla-1.json" \
  "${C1[@]}" --out "$WORK/daemon.proof"
check_size "$WORK/daemon.proof"
verify_both "$WORK/daemon.proof"
grep TIMELINE "$WORK/daemon.log" | tail -n 5 || true
kill -TERM "$PID"
wait "$PID"
PID=
echo "== SnapDeals $SIZE round trip: OK"
