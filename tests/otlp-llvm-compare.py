#!/usr/bin/env python3
"""Every location psym symbolized equals llvm-symbolizer's answer.

usage: otlp-llvm-compare.py SHOW.json BINARY LOADS [OTLP-PB2-DIR OUT.otlp.pb]
SHOW.json: psym show --json of the symbolized pprof (names not demangled:
each function's system_name, the linkage name, else its name);
BINARY: the unstripped binary (locations of mappings of its base name are
compared, others skipped); LOADS: its readelf -lW. Each location's
runtime address is turned into the file's virtual address by its mapping
(start, file offset) and the PT_LOAD segments, then asked of
llvm-symbolizer --inlines --no-demangle: the chain of (function, line) must
be the same, innermost first. With OUT.otlp.pb, psym's OTLP output is read
by protoc's Python classes and must hold the same chains. Exits 1 on the
first difference; prints the count compared.
"""
import json
import subprocess
import sys

show, binary, loads = sys.argv[1:4]
segs = []
for line in open(loads):
    f = line.split()
    if f and f[0] == "LOAD":
        segs.append((int(f[2], 16), int(f[1], 16), int(f[4], 16)))


def vaddr(off):
    for sv, so, sz in segs:
        if so <= off < so + sz:
            return sv + off - so
    raise SystemExit("offset %#x is in no segment" % off)


d = json.load(open(show))
maps = {m["id"]: m for m in d["mappings"]}
funcs = {f["id"]: f for f in d["functions"]}
want = {}
addrs = []
base = binary.rsplit("/", 1)[-1]
for loc in d["locations"]:
    m = maps.get(loc["mapping_id"])
    if not m or m["filename"].rsplit("/", 1)[-1] != base:
        continue  # another file (libc, the kernel): not under test
    va = vaddr(loc["address"] - m["memory_start"] + m["file_offset"])
    addrs.append((loc, va))
if not addrs:
    raise SystemExit("no locations: the profile proves nothing")
out = subprocess.run(["llvm-symbolizer", "--inlines", "--no-demangle", "--output-style=JSON",
                      "-e", binary] + ["%#x" % va for _, va in addrs],
                     capture_output=True, text=True, check=True).stdout
answers = []
for l in out.splitlines():
    if l.strip():
        a = json.loads(l)
        answers.extend(a if isinstance(a, list) else [a])
bad = 0
for (loc, va), ans in zip(addrs, answers):
    llvm = [(f["FunctionName"], f["Line"]) for f in ans["Symbol"]]
    got = [(funcs[l["function_id"]]["system_name"] or funcs[l["function_id"]]["name"], l["line"])
           for l in loc["lines"]]
    want[loc["address"]] = llvm
    if got != llvm:
        bad += 1
        print("%#x (vaddr %#x): psym %r, llvm-symbolizer %r" % (loc["address"], va, got, llvm))
if bad:
    sys.exit(1)
n_inl = sum(1 for v in want.values() if len(v) > 1)
print("pprof: %d locations equal llvm-symbolizer (%d with inline frames)" % (len(addrs), n_inl))
if len(sys.argv) > 5:
    sys.path.insert(0, sys.argv[4])
    import otlp_profiles_pb2 as pb  # noqa: E402
    o = pb.ProfilesData()
    o.ParseFromString(open(sys.argv[5], "rb").read())
    dic = o.dictionary
    st = dic.string_table
    seen = 0
    for loc in dic.location_table[1:]:
        got = [(st[dic.function_table[l.function_index].system_name_strindex] or
                st[dic.function_table[l.function_index].name_strindex], l.line) for l in loc.lines]
        if loc.address not in want:
            continue
        seen += 1
        if got != want[loc.address]:
            print("OTLP %#x: psym %r, llvm-symbolizer %r" % (loc.address, got, want[loc.address]))
            sys.exit(1)
    if seen != len(want):
        raise SystemExit("OTLP output has %d of the %d locations" % (seen, len(want)))
    print("OTLP: %d locations equal llvm-symbolizer" % seen)
