#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# SASS of one CUDA source file on a machine without a GPU or cuobjdump.
#
# Usage: scripts/sass-offline.sh BUILD_DIR SOURCE.cu OUT.sass
#   BUILD_DIR: a configured CUDA build (its compile_commands.json gives the
#   flags); SOURCE.cu: a project source, compiled again as an sm_90 cubin
#   with those flags; OUT.sass: nvdisasm's listing, which
#   scripts/sass-opcount.py reads (instruction counts per kernel).
#
# Why: instruction counts and register use of the hot kernels can be read
# before any device time is spent. The CUDA toolkit here has nvcc and ptxas
# only; Debian's nvidia-cuda-toolkit package (non-free, CUDA 11.8) has an
# nvdisasm that still decodes sm_90 code. It does not read the ELF header
# of a CUDA 13 cubin (another OS/ABI byte and e_flags layout), so a copy
# with the old header values is written for it: the code bytes are
# untouched. The package is fetched once, unpacked under
# ${XDG_CACHE_HOME:-~/.cache}/cuzk-nvdisasm, never installed. Counts match
# cuobjdump -sass on the GPU machine for the same cubin; anything that
# decides a default is still measured there.
set -eu

[ $# -eq 3 ] || { sed -n '3,9p' "$0"; exit 2; }
build=$1 src=$(realpath "$2") out=$3
cache=${XDG_CACHE_HOME:-$HOME/.cache}/cuzk-nvdisasm
nvdisasm=$cache/usr/bin/nvdisasm

if [ ! -x "$nvdisasm" ]; then
  mkdir -p "$cache/lists/partial" "$cache/archives/partial"
  cat >"$cache/nonfree.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  apt_opts="-o Dir::Etc::SourceList=$cache/nonfree.sources -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists=$cache/lists -o Dir::Cache=$cache"
  # shellcheck disable=SC2086
  apt-get $apt_opts update >/dev/null
  # shellcheck disable=SC2086
  (cd "$cache" && apt-get $apt_opts download nvidia-cuda-toolkit >/dev/null)
  dpkg-deb -x "$cache"/nvidia-cuda-toolkit_*.deb "$cache"
  rm -f "$cache"/nvidia-cuda-toolkit_*.deb
fi

cmd=$(python3 - "$build/compile_commands.json" "$src" <<'EOF'
import json, sys
for e in json.load(open(sys.argv[1])):
    if e["file"] == sys.argv[2]:
        print(e["directory"] + "\t" + e["command"])
        break
EOF
)
[ -n "$cmd" ] || { echo "sass-offline: $src is not in $build/compile_commands.json" >&2; exit 1; }
dir=${cmd%%"	"*}
compile=${cmd#*"	"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the same flags, one sm_90 cubin instead of the object file
compile=$(printf '%s' "$compile" | sed -e 's/ -c / /' -e 's/ -o [^ ]*//' -e 's/--generate-code=[^ ]*//g')
(cd "$dir" && eval "$compile -arch=sm_90 -cubin -o $tmp/k.cubin")
python3 - "$tmp/k.cubin" "$tmp/old.cubin" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
d[7], d[8] = 0x33, 7                         # EI_OSABI, EI_ABIVERSION of CUDA 11
struct.pack_into("<I", d, 0x30, 0x5a055a)    # e_flags: sm_90, 64-bit addresses
open(sys.argv[2], "wb").write(d)
EOF
"$nvdisasm" "$tmp/old.cubin" >"$out"
echo "sass-offline: $(grep -c '^\s*/\*[0-9a-f]*\*/' "$out") instructions in $out"
