#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The C/C++/CUDA layout check: every tracked source must be exactly what
# clang-format makes of it with the tree's .clang-format.
#
#   scripts/check-format.sh [--fix] [--diff] [DIR]
#
# DIR is a git work tree (default: this repository). Without options: lists
# the files that differ and exits 1 (0 when none do). --diff: also prints
# what clang-format would change. --fix: rewrites the files in place (what
# `make format` runs).
#
# The style is tuned for clang-format 14 (Debian bookworm's clang-format,
# installed by scripts/install-deps.sh). Other major versions lay out some
# code differently, so with any other version the script refuses to run
# (exit 2) rather than report files that are formatted. CLANG_FORMAT names
# the binary; by default clang-format-14, else clang-format.
#
# Files: git ls-files *.c *.h *.cc *.cpp *.hpp *.cu *.cuh. Nothing tracked is
# third-party or generated (protobuf/gRPC output and build_info.cpp are
# written into the build folder), so nothing is excluded; a file that must
# keep its layout would go in `exclude` below, with the reason.
set -euo pipefail

required_major=14
patterns=('*.c' '*.h' '*.cc' '*.cpp' '*.hpp' '*.cu' '*.cuh')
exclude=()

fix=0
show_diff=0
dir=""
for arg in "$@"; do
  case "$arg" in
    --fix) fix=1 ;;
    --diff) show_diff=1 ;;
    -h | --help)
      sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "check-format: unknown option $arg" >&2
      exit 2
      ;;
    *) dir="$arg" ;;
  esac
done
dir="${dir:-$(cd "$(dirname "$0")/.." && pwd)}"

# ---- the clang-format binary and its version --------------------------------
if [ -n "${CLANG_FORMAT:-}" ]; then
  cf="$CLANG_FORMAT"
elif command -v "clang-format-$required_major" >/dev/null 2>&1; then
  cf="clang-format-$required_major"
else
  cf="clang-format"
fi
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "check-format: $cf not found. The layout is checked with clang-format $required_major:" >&2
  echo "  install it with scripts/install-deps.sh (Debian package clang-format), or set CLANG_FORMAT." >&2
  exit 2
fi
version_line="$("$cf" --version 2>/dev/null || true)"
major="$(sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p' <<<"$version_line" | head -n1)"
if [ "$major" != "$required_major" ]; then
  echo "check-format: $cf is '${version_line:-of unknown version}'; .clang-format is tuned for" >&2
  echo "  clang-format $required_major, and other major versions lay out some code differently (the" >&2
  echo "  check would report formatted files). Install clang-format $required_major (Debian bookworm's" >&2
  echo "  clang-format, scripts/install-deps.sh) or point CLANG_FORMAT at a clang-format $required_major binary." >&2
  exit 2
fi

# ---- the files ---------------------------------------------------------------
cd "$dir"
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check-format: $dir is not a git work tree (the files checked are the tracked ones)" >&2
  exit 2
fi
if [ ! -f .clang-format ]; then
  echo "check-format: no .clang-format in $dir" >&2
  exit 2
fi
files=()
while IFS= read -r -d '' f; do
  skip=0
  for x in "${exclude[@]}"; do [ "$f" = "$x" ] && skip=1; done
  [ "$skip" = 1 ] || files+=("$f")
done < <(git ls-files -z -- "${patterns[@]}")
if [ ${#files[@]} -eq 0 ]; then
  echo "check-format: no C/C++/CUDA sources tracked in $dir"
  exit 0
fi

if [ "$fix" = 1 ]; then
  printf '%s\0' "${files[@]}" | xargs -0 "$cf" --style=file -i
  echo "check-format: formatted ${#files[@]} files with $cf ($version_line)"
  exit 0
fi

# ---- the check ---------------------------------------------------------------
# One clang-format pass over all the files names the candidates (a second a
# tree); each is then confirmed by comparing clang-format's output with it.
if ! "$cf" --style=file --dump-config >/dev/null; then
  echo "check-format: $cf cannot read $dir/.clang-format" >&2
  exit 2
fi
status=0
report="$(printf '%s\0' "${files[@]}" |
  xargs -0 "$cf" --style=file --dry-run --Werror --ferror-limit=1 2>&1)" || status=$?
candidates=()
while IFS= read -r f; do
  [ -n "$f" ] && candidates+=("$f")
done <<<"$(sed -n 's/^\(.*\):[0-9][0-9]*:[0-9][0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$report" | sort -u)"
if [ "$status" != 0 ] && [ ${#candidates[@]} -eq 0 ]; then
  echo "check-format: $cf failed (exit $status) without naming a file:" >&2
  printf '%s\n' "$report" | head -n 20 >&2
  exit 2
fi
differ=()
for f in "${candidates[@]}"; do
  if [ -f "$f" ] && ! "$cf" --style=file "$f" | cmp -s - "$f"; then
    differ+=("$f")
  fi
done
if [ ${#differ[@]} -eq 0 ]; then
  echo "check-format: ${#files[@]} files match .clang-format ($version_line)"
  exit 0
fi
echo "check-format: ${#differ[@]} of ${#files[@]} files differ from what $cf makes of them:"
printf '  %s\n' "${differ[@]}"
if [ "$show_diff" = 1 ]; then
  for f in "${differ[@]}"; do
    "$cf" --style=file "$f" | diff -u --label "a/$f" --label "b/$f" "$f" - || true
  done
fi
echo "Run \`make format\` (clang-format $required_major over the tracked sources) and commit the result."
exit 1
