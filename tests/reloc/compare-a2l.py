#!/usr/bin/env python3
"""Compare psym addr -a with binutils addr2line -a -f -i on an object file.

usage: compare-a2l.py PSYM.txt ADDR2LINE.txt SYMS.txt
Both outputs answer the same addresses of one section; SYMS.txt lists that
section's function symbols as "VALUE SIZE" (hex, from readelf -sW). Every
address must get the same chain of (function, file:line). Two documented
policy differences of addr2line are not counted as disagreement:
- it gives the discriminator of the innermost row to every frame of an
  inline chain; psym (as llvm-symbolizer) gives it to the innermost only,
  so callers' discriminators are dropped before comparing;
- it writes line 0 as "?"; psym addr writes 0;
- it names an address no function symbol covers (alignment padding) after
  the preceding symbol; psym leaves it unnamed (as llvm-symbolizer does):
  there only the file:line is compared.
Exits 1 on any other difference, printing the first 20.
"""
import re
import sys


def groups(path):
    out, cur, addr = [], None, None
    lines = open(path, errors="replace").read().splitlines()
    i = 0
    while i < len(lines):
        if re.match(r"^0x[0-9a-f]+$", lines[i]):
            addr = int(lines[i], 16)
            cur = []
            out.append((addr, cur))
            i += 1
            continue
        cur.append((lines[i], lines[i + 1] if i + 1 < len(lines) else ""))
        i += 2
    return out


def strip_disc(chain):
    out = []
    for k, (n, l) in enumerate(chain):
        l = re.sub(r":\?( |$)", r":0\1", l)
        if k:
            l = re.sub(r" \(discriminator \d+\)$", "", l)
        out.append((n, l))
    return out


def main():
    ours, ref = groups(sys.argv[1]), groups(sys.argv[2])
    syms = []
    for l in open(sys.argv[3]):
        v, s = l.split()
        syms.append((int(v, 16), int(s, 16) if s.startswith("0x") else int(s)))
    if len(ours) != len(ref):
        print("different number of answers: %d vs %d" % (len(ours), len(ref)))
        return 1
    bad = []
    for (a, o), (b, r) in zip(ours, ref):
        o, r = strip_disc(o), strip_disc(r)
        covered = any(v <= a < v + s for v, s in syms)
        if not covered and o and r and o[-1][0] == "??":
            o = o[:-1] + [("(padding)", o[-1][1])]
            r = r[:-1] + [("(padding)", r[-1][1])]
        if a != b or o != r:
            bad.append((a, o, r))
    print("agreement: %d/%d addresses" % (len(ours) - len(bad), len(ours)))
    for a, o, r in bad[:20]:
        print("  0x%x\n    psym:      %s\n    addr2line: %s" % (a, o, r))
    return 1 if bad else 0


sys.exit(main())
