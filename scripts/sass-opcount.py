#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Instruction counts per kernel from `cuobjdump -sass` output.

Usage: cuobjdump -sass BINARY > sass.txt
       scripts/sass-opcount.py sass.txt SUBSTRING [SUBSTRING...]
Also reads nvdisasm output (functions as `.text.NAME:` sections), which is
what scripts/sass-offline.sh writes on a machine without a GPU.
For every function whose (mangled) name contains one of the substrings:
the total instruction count, the multiply-add family (IMAD*) and its slots
(an IMAD.WIDE, which writes a register pair, counted as two: the
multiply-add pipe's share, which the instruction count alone hides; e.g. an
Fp squaring is 592 instructions against a multiplication's 440, but 446
slots against 578, and measures faster), IADD3, LOP3 and local-memory
traffic (LDL/STL: spills), then the ten most frequent opcodes. Used to record instructions per field multiplication of the hot
kernels (bench/RESULTS.md) on the GPU machine, where cuobjdump exists.
"""
import collections
import re
import sys


def functions(path):
    name, ops = None, []
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"\s*Function : (\S+)", line) or re.match(r"\s*\.text\.(\S+):", line)
            if m:
                if name:
                    yield name, ops
                name, ops = m.group(1), []
                continue
            m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
            if m and name:
                ops.append(m.group(1))
    if name:
        yield name, ops


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    wanted = sys.argv[2:]
    for name, ops in functions(sys.argv[1]):
        if not any(w in name for w in wanted):
            continue
        base = collections.Counter(op.split(".")[0] for op in ops)
        imad = sum(v for k, v in base.items() if k.startswith("IMAD"))
        slots = sum(2 if ".WIDE" in op else 1 for op in ops if op.startswith("IMAD"))
        print(f"{name}\n  total {len(ops)}  IMAD* {imad} ({slots} slots)  IADD3 {base['IADD3']}  "
              f"LOP3 {base['LOP3']}  LDL {base['LDL']}  STL {base['STL']}")
        print("  top: " + ", ".join(f"{k} {v}" for k, v in base.most_common(10)))


if __name__ == "__main__":
    main()
