#!/usr/bin/env python3
"""cmp-folded.py FOLDED TRACES: psym folded output against go tool pprof
-traces on the same profile and options: the same stacks (root first,
"(inline)" marks dropped) with the same summed values. Exit 1 if not."""
import collections
import re
import sys

ours = collections.Counter()
for line in open(sys.argv[1]):
    stack, v = line.rstrip("\n").rsplit(" ", 1)
    ours[stack] += int(v)
theirs = collections.Counter()
block = []


def flush():
    if block:
        theirs[";".join(reversed([f for _, f in block]))] += int(block[0][0])


def strip(name):
    return re.sub(r" \((partial-)?inline\)$", "", name.strip())


for line in open(sys.argv[2]):
    if line.startswith("-----------+"):
        flush()
        block = []
        continue
    m = re.match(r"^\s*(-?\d+)\s+(\S.*)$", line)
    if m and not block:
        block.append((m.group(1), strip(m.group(2))))
        continue
    m = re.match(r"^\s{10,}(\S.*)$", line)
    if m and block and not re.match(r"^\s*\w+:\[", line):
        block.append((block[0][0], strip(m.group(1))))
flush()
diff = (ours - theirs) + (theirs - ours)
print("psym %d stacks, pprof %d stacks, %d differ" % (len(ours), len(theirs), len(diff)))
for k in list(diff)[:5]:
    print("  ", k[:200], ours.get(k), theirs.get(k))
sys.exit(1 if diff or (not ours and theirs) else 0)
