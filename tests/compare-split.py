#!/usr/bin/env python3
"""Compare psym's inline chains on a split-DWARF binary with llvm-symbolizer's.

usage: compare-split.py PSYM.jsonl LLVM.jsonl TWIN.jsonl MIN_PERCENT
PSYM and LLVM answer the split-DWARF binary (psym addr --json,
llvm-symbolizer --inlines --output-style=JSON, both with the .dwo files in
place); TWIN is llvm-symbolizer on the same program built without
-gsplit-dwarf (same sources, directory and flags; the caller checks that its
.text is byte for byte the same), or "-" when there is none.

An address agrees when psym and llvm-symbolizer give the same frames
(function, file, line). Where they differ and the non-split twin gives
exactly psym's answer, the difference is llvm-symbolizer's: LLVM 14 reads the
DW_RLE_offset_pair ranges of a split unit without the skeleton's base address
(DW_AT_low_pc), so it loses the inlined calls of a unit whose code does not
start at address 0. Those are counted as agreeing, and listed.
Prints the agreement and every disagreement (up to 40); exits 1 below
MIN_PERCENT.
"""
import json
import sys


def chain(obj):
    out = []
    for s in obj.get("Symbol", []):
        fn = s.get("FunctionName") or "??"
        fi = s.get("FileName") or "??"
        out.append((fn, fi, int(s.get("Line") or 0)))
    if out == [("??", "??", 0)]:
        return []
    return out


def load(path):
    return [json.loads(l) for l in open(path) if l.strip()]


def main():
    ours, ref = load(sys.argv[1]), load(sys.argv[2])
    twin = load(sys.argv[3]) if sys.argv[3] != "-" else None
    min_pct = float(sys.argv[4])
    if len(ours) != len(ref) or (twin is not None and len(twin) != len(ref)):
        print("different number of answers")
        return 1
    agree = excused = 0
    bad, exc = [], []
    for i, (o, r) in enumerate(zip(ours, ref)):
        a, b = chain(o), chain(r)
        if a == b:
            agree += 1
        elif twin is not None and a == chain(twin[i]):
            excused += 1
            exc.append(r.get("Address"))
        else:
            bad.append((r.get("Address"), a, b))
    n = len(ref)
    pct = 100.0 * (agree + excused) / n if n else 100.0
    print("agreement: %d/%d addresses (%.2f%%), of which %d where llvm-symbolizer "
          "misreads the split unit (its non-split twin agrees with psym)"
          % (agree + excused, n, pct, excused))
    if exc:
        print("  llvm-symbolizer's split-unit misreadings at: %s%s"
              % (" ".join(exc[:12]), " ..." if len(exc) > 12 else ""))

    def short(c):
        return [(f[:60], fi.rsplit("/", 1)[-1], l) for f, fi, l in c]
    for addr, a, b in bad[:40]:
        print("  %s\n    psym: %s\n    llvm: %s" % (addr, short(a), short(b)))
    return 0 if pct >= min_pct else 1


sys.exit(main())
