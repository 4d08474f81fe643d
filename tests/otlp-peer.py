#!/usr/bin/env python3
"""Compare psym's reading of an OTLP profile (`psym show --json`) with the
protojson rendering of the same file made by an independent decoder.

Usage: otlp-peer.py PEER.pb.json PSYM-SHOW.json

Reads the OTLP/JSON by itself (no psym code): for every profile of every
resource and scope, every sample's points (value, timestamp), its stack of
frames (mapping file, build ID, address, and the profiler's function names
with their lines), and its attributes (resource, profile, sample). psym's
pprof must hold exactly the same multiset of points, each with the same
frames, labels and sample type. Exits 1 naming the first difference.
"""
import collections
import json
import sys


def otlp_points(path):
    d = json.load(open(path))
    dic = d["dictionary"]
    st = dic.get("stringTable", [])

    def s(i):
        return st[i] if i else ""

    def anyval(v):
        if "stringValue" in v:
            return ("str", v["stringValue"])
        if "stringValueStrindex" in v:
            return ("str", s(v["stringValueStrindex"]))
        if "intValue" in v:
            return ("num", int(v["intValue"]))
        if "boolValue" in v:
            return ("str", "true" if v["boolValue"] else "false")
        return None

    attrs = dic.get("attributeTable", [])

    def dict_attrs(ix):
        out = []
        for i in ix:
            a = attrs[i]
            v = anyval(a.get("value", {}))
            if v:
                out.append((s(a.get("keyStrindex", 0)),) + v)
        return out

    maps = dic.get("mappingTable", [])
    locs = dic.get("locationTable", [])
    funcs = dic.get("functionTable", [])
    stacks = dic.get("stackTable", [])

    def build_id(m):
        for k, kind, v in dict_attrs(m.get("attributeIndices", [])):
            if k == "process.executable.build_id.gnu":
                return v
        return ""

    def frame(li):
        loc = locs[li]
        mi = loc.get("mappingIndex", 0)
        m = maps[mi] if mi else {}
        lines = tuple(
            (s(funcs[ln.get("functionIndex", 0)].get("nameStrindex", 0)), int(ln.get("line", 0)))
            for ln in loc.get("lines", [])
        )
        return (s(m.get("filenameStrindex", 0)) if mi else "", build_id(m) if mi else "",
                int(loc.get("address", 0)), lines)

    pts = collections.Counter()
    for rp in d.get("resourceProfiles", []):
        rattrs = []
        for kv in rp.get("resource", {}).get("attributes", []):
            v = anyval(kv.get("value", {}))
            if v:
                rattrs.append((kv["key"],) + v)
        for sp in rp.get("scopeProfiles", []):
            for p in sp.get("profiles", []):
                stype = (s(p.get("sampleType", {}).get("typeStrindex", 0)),
                         s(p.get("sampleType", {}).get("unitStrindex", 0)))
                pattrs = dict_attrs(p.get("attributeIndices", []))
                for smp in p.get("samples", []):
                    stack = stacks[smp.get("stackIndex", 0)]
                    frames = tuple(frame(i) for i in stack.get("locationIndices", []) if i)
                    labels = rattrs + pattrs + dict_attrs(smp.get("attributeIndices", []))
                    vals = [int(v) for v in smp.get("values", [])]
                    ts = [int(t) for t in smp.get("timestampsUnixNano", [])]
                    n = max(len(vals), len(ts))
                    for k in range(n):
                        lab = list(labels)
                        if ts:
                            lab.append(("timestamp", "num", ts[k]))
                        pts[(stype, vals[k] if vals else 1, frames,
                             tuple(sorted(lab)))] += 1
    return pts


def psym_points(path):
    d = json.load(open(path))
    maps = {m["id"]: m for m in d["mappings"]}
    funcs = {f["id"]: f for f in d["functions"]}
    locs = {l["id"]: l for l in d["locations"]}
    types = [(t["type"], t["unit"]) for t in d["sample_types"]]

    def frame(lid):
        loc = locs[lid]
        m = maps.get(loc["mapping_id"], {})
        lines = tuple((funcs[ln["function_id"]]["name"], ln["line"]) for ln in loc["lines"])
        return (m.get("filename", ""), m.get("build_id", ""), loc["address"], lines)

    pts = collections.Counter()
    for smp in d["samples"]:
        nz = [(i, v) for i, v in enumerate(smp["values"]) if v]
        if len(nz) > 1:
            raise SystemExit("a psym sample has values of several types: %r" % smp["values"])
        i, v = nz[0] if nz else (0, 0)
        lab = []
        for l in smp["labels"]:
            if "str" in l:
                lab.append((l["key"], "str", l["str"]))
            else:
                lab.append((l["key"], "num", l["num"]))
        pts[(types[i], v, tuple(frame(x) for x in smp["location_ids"]),
             tuple(sorted(lab)))] += 1
    return pts


def main():
    want = otlp_points(sys.argv[1])
    got = psym_points(sys.argv[2])
    if sum(want.values()) == 0:
        raise SystemExit("the peer file has no samples (the oracle is wrong)")
    missing = want - got
    extra = got - want
    if missing or extra:
        for k in list(missing)[:3]:
            print("only in the peer rendering:", k)
        for k in list(extra)[:3]:
            print("only in psym:", k)
        sys.exit(1)
    frames = {f for k in want for f in k[2]}
    print("equal: %d points, %d distinct samples, %d distinct frames (%d named)" % (
        sum(want.values()), len(want), len(frames), sum(1 for f in frames if f[3])))


main()
