#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Instruction counts per kernel from `cuobjdump -sass` output.

Usage: cuobjdump -sass BINARY > sass.txt
       scripts/sass-opcount.py [--blocks N] sass.txt SUBSTRING [SUBSTRING...]
Also reads nvdisasm output (functions as `.text.NAME:` sections), which is
what scripts/sass-offline.sh writes on a machine without a GPU.
For every function whose (mangled) name contains one of the substrings:
the total instruction count, the multiply-add family (IMAD*) and its slots
(an IMAD.WIDE, which writes a register pair, counted as two: the
multiply-add pipe's share, which the instruction count alone hides; e.g. an
Fp squaring is 592 instructions against a multiplication's 440, but 446
slots against 578, and measures faster), IADD3, LOP3 and local-memory
traffic (LDL/STL: spills), then the ten most frequent opcodes.
--blocks N also lists the function's basic blocks of at least N
instructions (start address, size, multiply-add slots, the branch that
ends it and its target): a kernel's hot path is then read off block by
block, apart from the rare paths inlined beside it (the doubling inside a
complete mixed addition), which whole-function counts mix in.
Used to record instructions per field multiplication of the hot kernels
(bench/RESULTS.md) on the GPU machine, where cuobjdump exists.
"""
import collections
import re
import sys


def functions(path):
    """(name, instructions, labels) per function: instructions as (address,
    opcode, text), labels (nvdisasm's .L_x_N) as name -> address."""
    name, ins, labels, pending = None, [], {}, []
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"\s*Function : (\S+)", line) or re.match(r"\s*\.text\.(\S+):", line)
            if m:
                if name:
                    yield name, ins, labels
                name, ins, labels, pending = m.group(1), [], {}, []
                continue
            m = re.match(r"\s*(\.L_x_\d+):", line)
            if m:
                pending.append(m.group(1))
                continue
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+((?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)[^;]*)", line)
            if m and name:
                addr = int(m.group(1), 16)
                for label in pending:
                    labels[label] = addr
                pending = []
                ins.append((addr, m.group(3), m.group(2).strip()))
    if name:
        yield name, ins, labels


def imad_slots(ops):
    return sum(2 if ".WIDE" in op else 1 for op in ops if op.startswith("IMAD"))


def branch_target(text, labels):
    m = re.search(r"BRA\s.*?(\.L_x_\d+)", text) or re.search(r"BRA\s.*?(0x[0-9a-f]+)", text)
    if not m:
        return None
    return labels.get(m.group(1)) if m.group(1).startswith(".L") else int(m.group(1), 16)


def print_blocks(ins, labels, min_size):
    ends = ("BRA", "EXIT", "RET", "CALL", "BRX", "JMP")
    leaders = {ins[0][0]} | set(labels.values())
    for i, (_, op, _) in enumerate(ins[:-1]):
        if op.split(".")[0] in ends:
            leaders.add(ins[i + 1][0])
    block = []
    for i, item in enumerate(ins):
        block.append(item)
        if i + 1 < len(ins) and ins[i + 1][0] not in leaders:
            continue
        if len(block) >= min_size:
            _, last_op, last = block[-1]
            target = branch_target(last, labels)
            to = f" -> {target:#x}" if target is not None else ""
            guard = "conditional " if last.startswith("@") else ""
            print(f"  block {block[0][0]:#07x}: {len(block):5d} instructions, "
                  f"{imad_slots([op for _, op, _ in block]):5d} IMAD slots, ends {guard}{last_op}{to}")
        block = []


def main():
    args = sys.argv[1:]
    min_block = None
    if args[:1] == ["--blocks"] and len(args) > 1:
        min_block, args = int(args[1]), args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    wanted = args[1:]
    for name, ins, labels in functions(args[0]):
        if not any(w in name for w in wanted):
            continue
        ops = [op for _, op, _ in ins]
        base = collections.Counter(op.split(".")[0] for op in ops)
        imad = sum(v for k, v in base.items() if k.startswith("IMAD"))
        print(f"{name}\n  total {len(ops)}  IMAD* {imad} ({imad_slots(ops)} slots)  IADD3 {base['IADD3']}  "
              f"LOP3 {base['LOP3']}  LDL {base['LDL']}  STL {base['STL']}")
        print("  top: " + ", ".join(f"{k} {v}" for k, v in base.most_common(10)))
        if min_block is not None and ins:
            print_blocks(ins, labels, min_block)


if __name__ == "__main__":
    main()
