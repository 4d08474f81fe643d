#!/usr/bin/env python3
"""Compare psym's answers with a Go program's own traceback (SIGQUIT with
GOTRACEBACK=system): every frame printed with pc= comes after the frames
inlined into it ("f(...)" lines without a pc), innermost first, each with
file:line, which the runtime derived from the program's .gopclntab for
pc - 1 (a return address; the runtime backs up one byte too).

usage: compare-gotraceback.py TRACEBACK pcs    -> the addresses (pc - 1), hex
       compare-gotraceback.py TRACEBACK PSYM.json  -> agreement; exit 1 below 99.5%
"""
import json
import re
import sys


def chains(path):
    out, group, name = [], [], None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("\t") and name is not None:
            m = re.match(r"^\t(.*):(\d+)(?: \+0x[0-9a-f]+)?(?: .*pc=(0x[0-9a-f]+))?$", line)
            if m:
                group.append((name, m.group(1), int(m.group(2))))
                if m.group(3):
                    out.append((int(m.group(3), 16) - 1, group))
                    group = []
            name = None
            continue
        group = group if line and not line.startswith("goroutine ") else []
        if line.startswith("created by ") or not line or line.startswith("\t"):
            name, group = None, []
            continue
        i = line.rfind("(")
        name = line[:i] if i > 0 and line.endswith(")") else None
    return out


tb = chains(sys.argv[1])
if sys.argv[2] == "pcs":
    for pc, _ in tb:
        print("0x%x" % pc)
    sys.exit(0)
psym = {}
for line in open(sys.argv[2]):
    o = json.loads(line)
    psym[int(o["Address"], 16)] = [(s["FunctionName"], s["FileName"], s["Line"])
                                   for s in o["Symbol"]]
agree = funcs = 0
for pc, want in tb:
    got = psym.get(pc, [])
    if got == want:
        agree += 1
    else:
        print("  0x%x: psym %s, runtime %s" % (pc, got, want))
    if [g[0] for g in got] == [w[0] for w in want]:
        funcs += 1
n = len(tb)
print("%d pcs: whole inline chains %d (%.1f%%), functions %d (%.1f%%)"
      % (n, agree, 100.0 * agree / n if n else 0, funcs, 100.0 * funcs / n if n else 0))
sys.exit(0 if n >= 10 and agree * 1000 >= n * 995 and funcs == n else 1)
