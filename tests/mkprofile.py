#!/usr/bin/env python3
"""Write an unsymbolized pprof profile (protoc text format) the way a
collector would: executable mappings from a copy of /proc/PID/maps with the
build IDs of their files (read with readelf -n), one location per address,
one sample per stack. Python stdlib only; independent of psym.

usage: mkprofile.py MAPS STACKS > profile.txtpb
  MAPS    a copy of /proc/PID/maps
  STACKS  lines of runtime addresses (hex), leaf first, optional "count=N"
Extra mappings: lines "mapping START LIMIT OFFSET NAME [BUILDID]" in STACKS.
"""
import subprocess
import sys


def build_id(path):
    try:
        out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    except OSError:
        return ""
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return ""


def main():
    maps_file, stacks_file = sys.argv[1], sys.argv[2]
    strings = [""]
    index = {"": 0}

    def s(x):
        if x not in index:
            index[x] = len(strings)
            strings.append(x)
        return index[x]

    mappings = []
    for line in open(maps_file):
        parts = line.split(None, 5)
        if len(parts) < 5 or "x" not in parts[1]:
            continue
        start, limit = (int(v, 16) for v in parts[0].split("-"))
        offset = int(parts[2], 16)
        name = parts[5].strip() if len(parts) > 5 else ""
        bid = build_id(name) if name.startswith("/") else ""
        mappings.append([start, limit, offset, name, bid])
    stacks = []
    for line in open(stacks_file):
        words = line.split()
        if not words:
            continue
        if words[0] == "mapping":
            mappings.append([int(words[1], 16), int(words[2], 16), int(words[3], 16),
                             words[4] if len(words) > 4 else "",
                             words[5] if len(words) > 5 else ""])
            continue
        count = 1
        addrs = []
        for w in words:
            if w.startswith("count="):
                count = int(w[6:])
            else:
                addrs.append(int(w, 16))
        stacks.append((addrs, count))
    locs = {}
    out = []
    out.append('sample_type { type: %d unit: %d }' % (s("samples"), s("count")))
    for addrs, count in stacks:
        ids = []
        for a in addrs:
            if a not in locs:
                locs[a] = len(locs) + 1
            ids.append(locs[a])
        out.append("sample { location_id: [%s] value: %d }" % (", ".join(map(str, ids)), count))
    for i, (start, limit, offset, name, bid) in enumerate(mappings, 1):
        out.append("mapping { id: %d memory_start: %d memory_limit: %d file_offset: %d "
                   "filename: %d build_id: %d }" % (i, start, limit, offset, s(name), s(bid)))
    for a, lid in sorted(locs.items(), key=lambda kv: kv[1]):
        mid = 0
        for i, (start, limit, _o, _n, _b) in enumerate(mappings, 1):
            if start <= a < limit:
                mid = i
                break
        out.append("location { id: %d mapping_id: %d address: %d }" % (lid, mid, a))
    for x in strings:
        out.append("string_table: %s" % ('"' + x.replace("\\", "\\\\").replace('"', '\\"') + '"'))
    print("\n".join(out))


main()
