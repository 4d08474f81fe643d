#!/usr/bin/env python3
"""Samples of short-lived processes that got their mapping, from a profile
decoded by protoc (independent of psym): for the samples whose comm label
is COMM (* for any), how many have user frames, and how many of those have their leaf
user frame in a mapping, and in which file.
With PERFMAP (a perf-PID.map), also how many samples have their leaf in
one of its JIT symbols ("jit"), and how many of those in a mapping.
With --entry=FILE:OFFSET (a file name and the hex file offset of its entry
point, e.g. ld.so's, from readelf), also how many samples have one user
frame at that entry, as a sample taken inside an exec has ("entry"): in
FILE's mapping at OFFSET (or OFFSET - 1, a user frame under kernel frames
is written as a return address), or in no mapping at that page offset;
and how many of those are in FILE's mapping ("inimage").
Usage: protoc --decode=perftools.profiles.Profile profile.proto <P |
       churn-loss.py [--entry=FILE:OFFSET] COMM [PERFMAP]"""
import re
import sys

args = sys.argv[1:]
entry = None
if args and args[0].startswith("--entry="):
    name, off = args.pop(0)[len("--entry="):].rsplit(":", 1)
    entry = (name, (int(off, 16), int(off, 16) - 1))
comm = args[0]
jit_ranges = []
if len(args) > 1:
    for line in open(args[1], errors="replace"):
        f = line.split(" ", 2)
        if len(f) >= 2:
            try:
                jit_ranges.append((int(f[0], 16), int(f[0], 16) + int(f[1], 16)))
            except ValueError:
                pass
    jit_ranges.sort()
text = sys.stdin.read()
strings = [bytes(s, "utf-8").decode("unicode_escape") for s in re.findall(r'^string_table: "(.*)"$', text, re.M)]
maps = {}
spans = {}
for m in re.findall(r'^mapping \{(.*?)^\}', text, re.M | re.S):
    mid = int(re.search(r'^  id: (\d+)', m, re.M).group(1))
    fn = re.search(r'filename: (\d+)', m)
    maps[mid] = strings[int(fn.group(1))] if fn else ""
    start = re.search(r'^  memory_start: (\d+)', m, re.M)
    off = re.search(r'^  file_offset: (\d+)', m, re.M)
    spans[mid] = (int(start.group(1)) if start else 0, int(off.group(1)) if off else 0)
locs = {}
for l in re.findall(r'^location \{(.*?)^\}', text, re.M | re.S):
    lid = int(re.search(r'^  id: (\d+)', l, re.M).group(1))
    mid = re.search(r'^  mapping_id: (\d+)', l, re.M)
    addr = re.search(r'^  address: (\d+)', l, re.M)
    locs[lid] = (int(mid.group(1)) if mid else 0, int(addr.group(1)) if addr else 0)
total = mapped = jit = jit_mapped = at_entry = in_image = 0
files = {}
for s in re.findall(r'^sample \{(.*?)^\}', text, re.M | re.S):
    labels = dict()
    for lab in re.findall(r'label \{(.*?)\}', s, re.S):
        k = int(re.search(r'key: (\d+)', lab).group(1))
        v = re.search(r'str: (\d+)', lab)
        if v:
            labels[strings[k]] = strings[int(v.group(1))]
    if comm != "*" and labels.get("comm") != comm:
        continue
    n = int(re.findall(r'^  value: (\d+)', s, re.M)[0])
    user = [locs[int(i)] for i in re.findall(r'^  location_id: (\d+)', s, re.M)
            if locs.get(int(i), (0, 1 << 63))[1] < (1 << 47)]
    if not user:
        continue
    total += n
    leaf = user[0][1]
    if any(a <= leaf < b for a, b in jit_ranges):
        jit += n
        jit_mapped += n if user[0][0] else 0
    if entry and len(user) == 1:
        mid, a = user[0]
        if not mid and (a & 0xfff) in [o & 0xfff for o in entry[1]]:
            at_entry += n
        elif mid and maps[mid].rsplit("/", 1)[-1] == entry[0] and \
                a - spans[mid][0] + spans[mid][1] in entry[1]:
            at_entry += n
            in_image += n
    if user[0][0]:
        mapped += n
        f = maps.get(user[0][0], "?").rsplit("/", 1)[-1]
        files[f] = files.get(f, 0) + n
ratio = mapped / total if total else 0.0
print("samples %d mapped %d ratio %.4f files %s" % (total, mapped, ratio,
      " ".join("%s:%d" % kv for kv in sorted(files.items(), key=lambda kv: -kv[1]))))
if jit_ranges:
    print("jit %d jitmapped %d" % (jit, jit_mapped))
if entry:
    print("entry %d inimage %d" % (at_entry, in_image))
