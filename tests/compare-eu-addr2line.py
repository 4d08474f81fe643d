#!/usr/bin/env python3
"""Compare psym addr -a (addr2line style) with eu-addr2line -a -f -i.

usage: cmp-eu.py PSYM.txt EU.txt MIN_PERCENT [ALIASES]
Both outputs: an address line (0x...), then per frame a function line and
a FILE:LINE[:COL] line, innermost first; eu-addr2line's function lines say
"NAME inlined at F:L:C in OUTER". Names are compared without GCC's clone
suffixes (.cold, .part.N, .isra.N, .constprop.N: psym names the outermost
frame from the symbol table, elfutils from DWARF), files by path, lines as
numbers; "??" and "??:0" frames count as unknown. ALIASES (a file of
lines "NAME NAME...": symbols at one address, as a kernel module's
init_module and its module_init function) makes those names one for the
outermost frame.
"""
import re
import sys

SUFFIX = re.compile(r"(\.(cold|part|isra|constprop|lto_priv)(\.\d+)?)+$")


def parse(path):
    out, cur = {}, None
    lines = [l.rstrip("\n") for l in open(path)]
    i = 0
    while i < len(lines):
        l = lines[i]
        if re.fullmatch(r"0x[0-9a-f]+", l):
            cur = int(l, 16)
            out[cur] = []
            i += 1
            continue
        name = l.split(" inlined at ")[0]
        loc = lines[i + 1] if i + 1 < len(lines) else "??:0"
        loc = re.sub(r" \(discriminator \d+\)$", "", loc)  # as addr2line prints them
        m = re.match(r"^(.*?):(\d+|\?)(?::\d+)?$", loc)
        f, n = (m.group(1), m.group(2)) if m else (loc, "0")
        n = int(n) if n.isdigit() else 0
        out[cur].append((SUFFIX.sub("", name), f if f != "??" else "??", n))
        i += 2
    for k, v in out.items():
        if v == [("??", "??", 0)]:
            out[k] = []
    return out


ours, ref = parse(sys.argv[1]), parse(sys.argv[2])
if len(sys.argv) > 4:
    canon = {}
    for l in open(sys.argv[4]):
        for n in l.split():
            canon[n] = l.split()[0]
    for chains in (ours, ref):
        for a, c in chains.items():
            if c:
                c[-1] = (canon.get(c[-1][0], c[-1][0]),) + c[-1][1:]
agree, bad = 0, []
for a in ref:
    if ours.get(a) == ref[a]:
        agree += 1
    else:
        bad.append(a)
pct = 100.0 * agree / max(len(ref), 1)
print("agreement: %d/%d addresses (%.2f%%)" % (agree, len(ref), pct))
for a in bad[:40]:
    print("  0x%x\n    psym: %s\n    eu:   %s" % (a, ours.get(a), ref[a]))
sys.exit(0 if pct >= float(sys.argv[3]) and len(ours) == len(ref) else 1)
