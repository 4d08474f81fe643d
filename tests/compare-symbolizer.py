#!/usr/bin/env python3
"""Compare psym's inline chains with llvm-symbolizer's, frame by frame.

usage: compare-symbolizer.py PSYM.jsonl LLVM.jsonl MIN_PERCENT [KNOWN...]
Both files hold one JSON object per address (psym addr --json and
llvm-symbolizer --inlines --output-style=JSON). An address agrees when both
give the same number of frames with the same function name, file, line
and discriminator for each (a call site's, too). KNOWN lists
"addr" values excused with a documented reason.
Prints the agreement and every disagreement (up to 40); exits 1 when the
agreement is below MIN_PERCENT.
With --start, each frame's StartFileName, StartAddress and StartLine
(llvm-symbolizer's JSON: the function's decl file and line, the inlined
call's or function's low_pc) are part of what must agree.
With --normalize-names, function names are compared without white space
and without Rust crate disambiguators ("mycrate[3c1c0]::f"): libiberty and
LLVM spell some demangled names differently ("operator< <char" against
"operator<<char"); the mangled names are compared exactly in another run.
"""
import json
import re
import sys

NORMALIZE = "--normalize-names" in sys.argv
if NORMALIZE:
    sys.argv.remove("--normalize-names")
START = "--start" in sys.argv
if START:
    sys.argv.remove("--start")


def norm(name):
    if not NORMALIZE:
        return name
    name = re.sub(r"\[[0-9a-f]+\]", "", name)
    return re.sub(r"\s+", "", name)


def chain(obj):
    out = []
    for s in obj.get("Symbol", []):
        fn = norm(s.get("FunctionName") or "??")
        fi = s.get("FileName") or "??"
        fr = (fn, fi if fi != "" else "??", int(s.get("Line") or 0))
        if START:
            fr += (s.get("StartFileName", ""), s.get("StartAddress", ""),
                   int(s.get("StartLine") or 0))
        out.append(fr)
    # llvm-symbolizer prints one "??" frame for unknown addresses.
    if [f[:3] for f in out] == [("??", "??", 0)]:
        return []
    # Every frame's discriminator: the innermost's from the line table, a
    # call site's from its DW_AT_GNU_discriminator.
    return [f + (int(s.get("Discriminator") or 0),) for f, s in zip(out, obj["Symbol"])]


def main():
    ours = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    ref = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    min_pct = float(sys.argv[3])
    if len(ours) != len(ref):
        print("different number of answers: %d vs %d" % (len(ours), len(ref)))
        return 1
    agree = 0
    bad = []
    cols = colsame = 0
    for o, r in zip(ours, ref):
        a, b = chain(o), chain(r)
        if a == b:
            agree += 1
            for so, sr in zip(o.get("Symbol", []), r.get("Symbol", [])):
                cols += 1
                colsame += int(so.get("Column", 0) == sr.get("Column", 0))
        else:
            bad.append((r.get("Address"), a, b))
    n = len(ref)
    pct = 100.0 * agree / n if n else 100.0
    print("agreement: %d/%d addresses (%.2f%%), columns equal in %d/%d frames"
          % (agree, n, pct, colsame, cols))
    def short(c):
        return [(f[0][:60], f[1].rsplit("/", 1)[-1]) + f[2:] for f in c]
    for addr, a, b in bad[:40]:
        print("  %s\n    psym: %s\n    llvm: %s" % (addr, short(a), short(b)))
    return 0 if pct >= min_pct else 1


sys.exit(main())
