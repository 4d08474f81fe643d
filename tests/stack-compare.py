#!/usr/bin/env python3
"""Compare psym stack --json with eu-stack -i -s and gdb's 'thread apply all bt'.

usage: stack-compare.py PSYM.json EU.txt GDB.txt OWN STOPS

OWN: comma-separated basenames of the test's own modules (their frames are
compared by function name and file:line); STOPS: comma-separated function
names where a thread's comparison ends (main, the thread start routines).
Every thread of eu-stack must be in psym's output with the same frames
(addresses: psym records callers as return address - 1, eu-stack and gdb
show the return address) down to the first stop; the test's own frames
must agree with gdb's by name and basename:line. Prints one line per
thread compared, and the differences; exit 1 on any.
"""
import json
import os
import re
import sys


def strip_nested(s, o, c):
    out, depth = [], 0
    for ch in s:
        if ch == o:
            depth += 1
        elif ch == c and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def norm(name):
    """A function's name without return type, template arguments, parameters, clone suffixes."""
    if name is None:
        return None
    name = re.sub(r" \[clone [^]]*\]", "", name)
    name = name.replace("operator()", "operator").replace("operator<", "operator_lt")
    name = strip_nested(strip_nested(name, "<", ">"), "(", ")")
    name = name.split()[-1] if name.split() else name
    return re.sub(r"\.(cold|part\.\d+|isra\.\d+|constprop\.\d+)$", "", name)


def cut(frames, stops):
    for i, f in enumerate(frames):
        if norm(f["function"]) in stops:
            return frames[: i + 1]
    return frames


def read_psym(path):
    with open(path) as fp:
        core = json.loads(fp.readline())
    threads = {}
    for t in core["threads"]:
        threads[t["tid"]] = [
            {
                "address": int(f["address"], 16),
                "function": f["function"],
                "file": f["file"],
                "line": f["line"],
                "module": os.path.basename(f["module"] or ""),
            }
            for f in t["frames"]
        ]
    return core, threads


def read_eu(path):
    threads, cur, last = {}, None, None
    for line in open(path, errors="replace"):
        m = re.match(r"TID (\d+):", line)
        if m:
            cur = threads.setdefault(int(m.group(1)), [])
            continue
        # "#0  0xADDR FUNCTION - MODULE", or without a function "#0  0xADDR - MODULE"
        m = re.match(r"#\d+\s+0x([0-9a-f]+)(?:\s+(.*?))??(?:\s+-\s+(\S+))?\s*$", line)
        if m and cur is not None:
            last = {
                "address": int(m.group(1), 16),
                "function": m.group(2) if m.group(2) not in (None, "", "-", "??") else None,
                "module": m.group(3) or "",
                "file": None,
                "line": None,
            }
            cur.append(last)
            continue
        m = re.match(r"\s+(\S+?):(\d+)(?::\d+)?\s*$", line)
        if m and last is not None:
            last["file"], last["line"] = m.group(1), int(m.group(2))
    return threads


def read_gdb(path):
    threads, cur = {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"Thread \d+ .*LWP (\d+)", line)
        if m:
            cur = threads.setdefault(int(m.group(1)), [])
            continue
        m = re.match(r"#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(.*?\)(?: at (\S+):(\d+))?(?: from (\S+))?\s*$", line)
        if m and cur is not None:
            cur.append({"function": m.group(1), "file": m.group(2),
                        "line": int(m.group(3)) if m.group(3) else None})
    return threads


def own_frames(frames, own, by_file):
    out = []
    for f in frames:
        if by_file:
            if f["file"] and os.path.basename(f["file"]) in own:
                out.append(f)
        elif f["module"] in own:
            out.append(f)
    return out


def main():
    psym_path, eu_path, gdb_path, own, stops = sys.argv[1:6]
    own = set(own.split(","))
    stops = set(stops.split(","))
    core, ours = read_psym(psym_path)
    bad = []
    eu = read_eu(eu_path) if eu_path != "-" else {}
    gdb = read_gdb(gdb_path) if gdb_path != "-" else {}
    if eu_path != "-" and set(eu) != set(ours):
        bad.append("threads differ: eu-stack %s, psym %s" % (sorted(eu), sorted(ours)))
    for tid, theirs in sorted(eu.items()):
        mine = cut(ours.get(tid, []), stops)
        theirs = cut(theirs, stops)
        if len(mine) != len(theirs):
            bad.append("thread %d: %d frames, eu-stack %d:\n  psym %s\n  eu   %s" % (
                tid, len(mine), len(theirs),
                [norm(f["function"]) for f in mine], [norm(f["function"]) for f in theirs]))
            continue
        for i, (a, b) in enumerate(zip(mine, theirs)):
            if a["address"] not in (b["address"], b["address"] - 1):
                bad.append("thread %d frame %d: 0x%x, eu-stack 0x%x" % (tid, i, a["address"], b["address"]))
            if (a["module"] in own and b["function"] is None and (a["function"] or "").endswith("@plt")
                    and a["function"] in [f["function"] for f in gdb.get(tid, [])]):
                # A thread stopped in a PLT stub: eu-stack names no stub
                # (libdwfl has no synthetic @plt symbols), gdb does, as psym.
                print("# thread %d frame %d: %s as gdb names it (eu-stack: no name)" % (tid, i, a["function"]))
            elif a["module"] in own and norm(a["function"]) != norm(b["function"]):
                bad.append("thread %d frame %d: %s, eu-stack %s" % (tid, i, a["function"], b["function"]))
            if a["module"] in own and b["line"] and not a["line"]:
                bad.append("thread %d frame %d: %s without a line, eu-stack %s:%s" % (
                    tid, i, a["function"], b["file"], b["line"]))
            if (a["module"] in own and a["line"] and b["line"] and
                    (a["line"], os.path.basename(a["file"])) != (b["line"], os.path.basename(b["file"]))):
                bad.append("thread %d frame %d: %s:%s, eu-stack %s:%s" % (
                    tid, i, a["file"], a["line"], b["file"], b["line"]))
        print("# thread %d: %d frames agree with eu-stack" % (tid, len(mine)))
    for tid, theirs in sorted(gdb.items()):
        mine = [(norm(f["function"]), f["line"]) for f in own_frames(cut(ours.get(tid, []), stops), own, True)]
        theirs = [(norm(f["function"]), f["line"]) for f in own_frames(cut(theirs, stops), own, True)]
        if not theirs:
            continue
        if mine != theirs:
            bad.append("thread %d: own frames %s, gdb %s" % (tid, mine, theirs))
        else:
            print("# thread %d: %d own frames agree with gdb" % (tid, len(mine)))
    for b in bad:
        print("DIFF " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
