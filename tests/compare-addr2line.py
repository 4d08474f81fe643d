#!/usr/bin/env python3
"""Compare psym's demangled function names with binutils addr2line -f -i -C.

usage: compare-addr2line.py PSYM.jsonl ADDR2LINE.txt MIN_PERCENT
PSYM.jsonl is `psym addr --json` output; ADDR2LINE.txt is the output of
`addr2line -a -f -i -C -e BIN` on the same addresses. Both use GNU's
demangler, so names must match exactly (after collapsing white space);
only the chain of function names is compared (addr2line's own DWARF reader
is independent of libdwarf). Exits 1 below MIN_PERCENT.

Two documented policy differences of addr2line are excused, not counted:
- it names an address no symbol covers (padding, _start's tail) after the
  preceding symbol, ignoring symbol sizes; psym (like llvm-symbolizer)
  leaves it unnamed;
- it names the physical function by its DWARF name (main) where psym (like
  llvm-symbolizer) uses the symbol table's name of the part (main.cold), so
  the outermost frame is compared without such suffixes.
"""
import json
import re
import sys


def a2l_groups(path):
    groups, cur = [], None
    lines = open(path, errors="replace").read().splitlines()
    i = 0
    while i < len(lines):
        l = lines[i]
        if re.match(r"^0x[0-9a-f]+$", l):
            cur = []
            groups.append(cur)
            i += 1
            continue
        if cur is not None and i + 1 < len(lines):
            cur.append(l)
            i += 2
            continue
        i += 1
    return groups


def norm(n):
    n = re.sub(r"\s+", " ", n).strip()
    return "??" if n in ("", "??") else n


ours = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
theirs = a2l_groups(sys.argv[2])
if len(ours) != len(theirs):
    print("different number of answers: %d vs %d" % (len(ours), len(theirs)))
    sys.exit(1)
SUFFIX = re.compile(r"(\.(cold|part\.\d+|isra\.\d+|constprop\.\d+|lto_priv\.\d+))+$|"
                    r"( \[clone [^\]]*\])+$")


def base(n):
    n = SUFFIX.sub("", n)
    return re.sub(r"\(.*$", "", n) if "(" in n else n


agree, excused, bad = 0, 0, []
for o, t in zip(ours, theirs):
    a = [norm(s["FunctionName"]) for s in o["Symbol"]]
    b = [norm(x) for x in t]
    if a == b:
        agree += 1
    elif a == ["??"]:
        excused += 1
    elif len(a) == len(b) and a[:-1] == b[:-1] and base(a[-1]) == base(b[-1]):
        agree += 1
    else:
        bad.append((o["Address"], a, b))
n = len(ours) - excused
pct = 100.0 * agree / n if n else 100.0
print("addr2line agreement: %d/%d addresses (%.2f%%), %d unnamed by psym excused"
      % (agree, n, pct, excused))
for addr, a, b in bad[:20]:
    print("  %s\n    psym:      %s\n    addr2line: %s" % (addr, [x[:70] for x in a], [x[:70] for x in b]))
sys.exit(0 if pct >= float(sys.argv[3]) else 1)
