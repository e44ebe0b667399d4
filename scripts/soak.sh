#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The long soak (docs/RELIABILITY.md): the daemon_soak test of
# cuzk_daemon_tests (mixed WinningPoSt / WindowPoSt / multi-partition jobs
# from six loopback gRPC clients at full memory budget, with invalid
# requests, cancellations and resubmissions) for SECONDS (default 1800 =
# 30 minutes) instead of the default suite's 30 s. It prints the test's
# summary line (jobs by outcome, budget peak, RSS over the run) and exits
# with the test's status. The log goes to $CUZK_SOAK_LOG (default
# soak-<date>.log in the current folder).
# Usage: scripts/soak.sh [BUILD_DIR] [SECONDS]
set -euo pipefail
BUILD=${1:-build}
SECONDS_TO_RUN=${2:-1800}
BIN=$(find "$BUILD" -name cuzk_daemon_tests -type f -perm -u+x | head -n1)
if [[ -z "$BIN" ]]; then
  echo "soak: no cuzk_daemon_tests under $BUILD (cmake --build $BUILD --target cuzk_daemon_tests)" >&2
  exit 2
fi
LOG=${CUZK_SOAK_LOG:-soak-$(date +%Y%m%d-%H%M%S).log}
echo "soak: $BIN for $SECONDS_TO_RUN s, log $LOG" >&2
set +e
CUZK_SOAK_SECONDS=$SECONDS_TO_RUN "$BIN" --gtest_filter='daemon_soak.*' >"$LOG" 2>&1
rc=$?
set -e
grep -E '^soak:|test seed|OK \]|FAILED' "$LOG" || true
exit $rc
