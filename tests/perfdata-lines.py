#!/usr/bin/env python3
"""Compare a symbolized profile's lines and inline frames with llvm-symbolizer's.

usage: perfdata-lines.py [--aliases] PROFILE.txt BINARY MIN_PERCENT [DEBUGFILE]

PROFILE.txt: `protoc --decode` of the profile psym wrote. Every location
in BINARY's mapping is turned back into the binary's address (through its
PT_LOAD segments, from `readelf -lW`) and given to `llvm-symbolizer
--inlines`; a location agrees when both name the same chain of frames
(leaf first; names normalized as perfdata-compare.py does: psym and LLVM
spell some demangled names differently) with the same line numbers.
--aliases: names of one address in BINARY's symbol tables and its debug
file's (nm) count as one (a C library's __GI___clone3 and clone3: psym
and LLVM pick different ones of a function's aliases).
DEBUGFILE: the separate debug file llvm-symbolizer reads instead of
BINARY (one from a distribution's -dbg package that is not installed).
Exit 1 when fewer than MIN_PERCENT of the locations agree.
"""
import ast
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

compare = import_module("perfdata-compare")
norm = compare.norm


def parse(path):
    """protoc's text format: a list of top-level (name, value) with messages as dicts."""
    root = {}
    stack = [root]
    with open(path, errors="replace") as fp:
        for line in fp:
            line = line.strip()
            if line.endswith("{"):
                d = {}
                stack[-1].setdefault(line[:-1].strip(), []).append(d)
                stack.append(d)
            elif line == "}":
                stack.pop()
            elif ":" in line:
                k, v = line.split(":", 1)
                v = v.strip()
                if v.startswith('"'):
                    v = ast.literal_eval("b" + v).decode("utf-8", "replace")
                elif re.match(r"^-?\d+$", v):
                    v = int(v)
                stack[-1].setdefault(k.strip(), []).append(v)
    return root


def loads(binary):
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout
    segs = []
    for m in re.finditer(r"^\s*LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)", out, re.M):
        segs.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)))
    return segs


def main():
    aliases = "--aliases" in sys.argv
    if aliases:
        sys.argv.remove("--aliases")
    prof, binary, minpct = parse(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    debug = sys.argv[4] if len(sys.argv) > 4 else binary
    one_name = lambda n: n  # noqa: E731
    if aliases:
        compare.add_aliases(binary)
        dbg = debug if debug != binary else compare.debug_file(binary)
        if dbg and os.path.isfile(dbg):
            compare.add_aliases(dbg)
        one_name = compare.alias
    strs = prof["string_table"]
    one = lambda d, k: d.get(k, [0])[0]  # noqa: E731
    # A DWARF name with no linkage name is the system name; the name is
    # it as pprof simplifies it (every "(...)" and "<...>" removed, so
    # "operator()<T>" is "operator"): the system name is compared then.
    funcs = {}
    for f in prof.get("function", []):
        name, sysname = strs[one(f, "name")], strs[one(f, "system_name")]
        funcs[one(f, "id")] = sysname if sysname and not sysname.startswith("_Z") else name
    maps = [m for m in prof["mapping"] if os.path.basename(strs[one(m, "filename")]) == os.path.basename(binary)]
    if not maps:
        print("FAIL: no mapping of %s" % binary)
        return 1
    segs = loads(binary)
    todo = []
    for loc in prof.get("location", []):
        m = [m for m in maps if one(m, "id") == one(loc, "mapping_id")]
        if not m:
            continue
        m = m[0]
        off = one(loc, "address") - one(m, "memory_start") + one(m, "file_offset")
        va = [off - o + v for (o, v, sz) in segs if o <= off < o + sz]
        if not va:
            continue
        frames = [(funcs.get(one(ln, "function_id"), "?"), one(ln, "line")) for ln in loc.get("line", [])]
        todo.append((va[0], frames))
    if not todo:
        print("FAIL: no locations in %s" % binary)
        return 1
    res = subprocess.run(
        ["llvm-symbolizer", "--inlines", "--output-style=JSON", "--obj=" + debug] + ["0x%x" % a for a, _ in todo],
        capture_output=True,
        text=True,
    ).stdout
    # One JSON array of every address (LLVM 14), or one object per line.
    res = json.loads(res) if res.lstrip().startswith("[") else [json.loads(x) for x in res.splitlines()]
    same, bad = 0, []
    for (addr, frames), line in zip(todo, res):
        want = [(one_name(norm(f["FunctionName"])), f["Line"]) for f in line["Symbol"]]
        got = [(one_name(norm(f)), ln) for f, ln in frames]
        if all(ln == 0 for _, ln in want):
            continue  # no line table there (the PLT: LLVM says _init)
        # A name LLVM 14's demangler leaves mangled: the line alone is compared.
        got = [(w[0] if w[0].startswith("_Z") else g[0], g[1]) for g, w in zip(got, want)] + got[len(want):]
        if got == want:
            same += 1
        else:
            bad.append((addr, got, want))
    n = same + len(bad)
    pct = 100.0 * same / n if n else 0.0
    print("locations in %s with lines: %d, agreeing with llvm-symbolizer: %d (%.2f%%)" % (binary, n, same, pct))
    for addr, got, want in bad[:5]:
        print("  0x%x psym %s llvm %s" % (addr, got, want))
    if pct < minpct:
        print("FAIL: fewer than %.2f%% agree" % minpct)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
