#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/check-format.sh checked on a throw-away git tree holding the
# repository's .clang-format: it passes a formatted file, names a misformatted
# one (and only that one) with the `make format` hint and exit 1, formats it
# with --fix, then passes; and it refuses (exit 2) a missing clang-format or
# one of another major version. Exit 77 (skipped) when clang-format 14 is
# not installed.
# Usage: check_format_test.sh <repository root>
set -euo pipefail
root="$(cd "$1" && pwd)"
check="$root/scripts/check-format.sh"

# the binary check-format.sh picks
cf="${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}"
if [ -z "$cf" ] || ! command -v "$cf" >/dev/null 2>&1; then
  echo "SKIP: no clang-format installed"
  exit 77
fi
if ! "$cf" --version | grep -q 'version 14\.'; then
  echo "SKIP: $cf is not clang-format 14 ($("$cf" --version))"
  exit 77
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

cp "$root/.clang-format" "$tmp/"
mkdir -p "$tmp/src" "$tmp/include"
printf '%s\n' '// formatted' 'int square(int x) { return x * x; }' >"$tmp/src/good.cpp"
printf '%s\n' '#pragma once' 'namespace demo {' 'struct point {' '  int x, y;' '};' '}  // namespace demo' \
  >"$tmp/include/good.hpp"
# misformatted: spacing, a body that fits on one line, a pointer on the right
printf '%s\n' 'int  add( int a,int b )' '{' '  return a+b;' '}' 'const char *name();' >"$tmp/src/bad.cu"
git -C "$tmp" init -q
git -C "$tmp" add .

# 1. the misformatted file is named, the formatted ones are not
set +e
out="$("$check" "$tmp" 2>&1)"
rc=$?
set -e
echo "$out"
[ "$rc" = 1 ] || fail "expected exit 1 for a misformatted file, got $rc"
grep -q '^  src/bad.cu$' <<<"$out" || fail "src/bad.cu not listed"
grep -q 'good' <<<"$out" && fail "a formatted file was listed"
grep -q 'make format' <<<"$out" || fail "no 'make format' hint"

# 2. --diff shows the change
set +e
out="$("$check" --diff "$tmp" 2>&1)"
set -e
grep -q '^+int add(int a, int b) { return a + b; }$' <<<"$out" || fail "--diff does not show the fix"

# 3. --fix formats it, after which the check passes
"$check" --fix "$tmp"
"$check" "$tmp" || fail "still misformatted after --fix"
grep -q '^const char\* name();$' "$tmp/src/bad.cu" || fail "--fix did not apply the style"

# 4. a missing clang-format, and one of another major version, are refused
set +e
CLANG_FORMAT="$tmp/no-such-clang-format" "$check" "$tmp" >"$tmp/out" 2>&1
rc=$?
set -e
cat "$tmp/out"
[ "$rc" = 2 ] || fail "expected exit 2 without clang-format, got $rc"
grep -q 'not found' "$tmp/out" || fail "no 'not found' message"
printf '%s\n' '#!/bin/sh' 'echo "clang-format version 18.1.8"' >"$tmp/clang-format-18"
chmod +x "$tmp/clang-format-18"
set +e
CLANG_FORMAT="$tmp/clang-format-18" "$check" "$tmp" >"$tmp/out" 2>&1
rc=$?
set -e
cat "$tmp/out"
[ "$rc" = 2 ] || fail "expected exit 2 for clang-format 18, got $rc"
grep -q 'tuned for' "$tmp/out" || fail "no version message"
echo "check-format refuses and accepts what it should"
