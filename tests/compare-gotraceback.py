#!/usr/bin/env python3
"""Compare psym's answers with a Go program's own traceback (SIGQUIT with
GOTRACEBACK=system): every frame printed with pc= comes after the frames
inlined into it ("f(...)" lines without a pc), innermost first, each with
file:line, which the runtime derived from the program's .gopclntab for
pc - 1 (a return address; the runtime backs up one byte too), except in
the frame the signal interrupted (the first of its goroutine, at the
"PC=" the header prints): that pc is no return address, the runtime
reads it as it is. Generic functions are printed by the runtime as
pkg.F[...] (the table has the shapes): psym's names are brought to that
spelling before comparing.

usage: compare-gotraceback.py TRACEBACK pcs    -> the addresses (pc - 1), hex
       compare-gotraceback.py TRACEBACK PSYM.json  -> agreement; exit 1 below 99.5%
       compare-gotraceback.py TRACEBACK PSYM.json outer
           -> psym read the table without its inline trees: each pc must
              have the outer function only, with the runtime's file:line
              where nothing is inlined there and none where something is
              (the table's would be the inlined body's); exit 1 unless all
"""
import json
import re
import sys


def generic(name):
    out, depth = [], 0
    for c in name:
        if c == "[":
            if depth == 0:
                out.append("[...]")
            depth += 1
        elif c == "]":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(c)
    return "".join(out)


def chains(path):
    out, group, name, trap, first = [], [], None, None, False
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"^PC=(0x[0-9a-f]+) ", line)
        if m and trap is None:
            trap = int(m.group(1), 16)
        if line.startswith("\t") and name is not None:
            m = re.match(r"^\t(.*):(\d+)(?: \+0x[0-9a-f]+)?(?: .*pc=(0x[0-9a-f]+))?$", line)
            if m:
                group.append((name, m.group(1), int(m.group(2))))
                if m.group(3):
                    pc = int(m.group(3), 16)
                    out.append((pc if first and pc == trap else pc - 1, group))
                    group, first = [], False
            name = None
            continue
        if line.startswith("goroutine "):
            first = True
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
    psym[int(o["Address"], 16)] = [(generic(s["FunctionName"]), s["FileName"], s["Line"])
                                   for s in o["Symbol"]]
outer = len(sys.argv) > 3 and sys.argv[3] == "outer"
agree = funcs = inlined = 0
for pc, want in tb:
    got = psym.get(pc, [])
    if outer:
        inlined += len(want) > 1
        want = [want[-1] if len(want) == 1 else (want[-1][0], "", 0)]
    if got == want:
        agree += 1
    else:
        print("  0x%x: psym %s, runtime %s" % (pc, got, want))
    if [g[0] for g in got] == [w[0] for w in want]:
        funcs += 1
n = len(tb)
print("%d pcs: whole inline chains %d (%.1f%%), functions %d (%.1f%%)"
      % (n, agree, 100.0 * agree / n if n else 0, funcs, 100.0 * funcs / n if n else 0))
if outer:
    print("outer functions only: %d of %d pcs, %d of them inside inlined bodies"
          % (agree, n, inlined))
    sys.exit(0 if n >= 10 and inlined and agree == n else 1)
sys.exit(0 if n >= 10 and agree * 1000 >= n * 995 and funcs == n else 1)
