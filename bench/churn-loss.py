#!/usr/bin/env python3
"""Leaf frames in no mapping, counted without psym.

churn-loss.py COMM [PERFMAP] < DECODED
    Samples of short-lived processes that got their mapping, from a profile
    decoded by protoc (independent of psym): for the samples whose comm
    label is COMM (* for any), how many have user frames, and how many of those have
    their leaf user frame in a mapping, and in which file. With PERFMAP (a
    perf-PID.map), also how many samples have their leaf in one of its JIT
    symbols ("jit"), and how many of those in a mapping. With
    --entry=FILE:OFFSET before COMM (a file name and the hex file offset of
    its entry point, e.g. ld.so's, from readelf), also how many samples have
    one user frame at that entry, as a sample taken inside an exec has
    ("entry"): in FILE's mapping at OFFSET (or OFFSET - 1, a user frame
    under kernel frames is written as a return address), or in no mapping
    at that page offset; and how many of those are in FILE's mapping
    ("inimage").

churn-loss.py --by-comm [--perf] [--pids FILE] [--perfmaps DIR] < INPUT
    The same measure for every comm: per comm, the samples with user
    frames, those whose leaf user frame (the sampled IP when the sample is
    in user mode, else where it entered the kernel) is unknown, their share,
    and a few examples (pid:address). INPUT is protoc's decode of a
    psym-collect profile, or with --perf the output of
    `perf script -F comm,pid,ip,dso` of a perf record -g (a leaf is unknown
    when perf printed its dso as [unknown]). --pids: count only the samples
    of these pids (one a line). --perfmaps: a leaf that lies in one of the
    JIT symbols of its pid's perf-PID.map (or perf-PID.map.zst) there is
    known (column "jit": the samples whose leaf is in such a symbol).

churn-loss.py --count [--not-pids PID,...] < DECODED
    The profile's samples (the first value summed; without those whose pid
    label is one of PIDs), its time_nanos and duration_nanos.

churn-loss.py --descendants PID < TASKS
    The pids of PID and of every process it started, from
    `perf script --show-task-events` (its PERF_RECORD_FORK lines), one a line.

Usage: protoc --decode=perftools.profiles.Profile profile.proto <P |
       churn-loss.py [--entry=FILE:OFFSET] COMM [PERFMAP]"""
import os
import re
import subprocess
import sys

USER_END = 1 << 47


def jit_ranges(path):
    """The [start, end) ranges of a perf map's symbols, sorted."""
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-dc", path], capture_output=True, check=True).stdout
        lines = data.decode("utf-8", "replace").splitlines()
    else:
        lines = open(path, errors="replace").read().splitlines()
    ranges = []
    for line in lines:
        f = line.split(" ", 2)
        if len(f) >= 2:
            try:
                ranges.append((int(f[0], 16), int(f[0], 16) + int(f[1], 16)))
            except ValueError:
                pass
    ranges.sort()
    return ranges


def in_ranges(ranges, addr):
    return any(a <= addr < b for a, b in ranges)


def profile_samples(text, spans=None):
    """Each sample of a protoc-decoded profile, as (labels, count, user
    frames as (mapping id, address) leaf first), and the mappings' files;
    with SPANS (a dict), also each mapping's (memory_start, file_offset)."""
    strings = [bytes(s, "utf-8").decode("unicode_escape")
               for s in re.findall(r'^string_table: "(.*)"$', text, re.M)]
    maps = {}
    for m in re.findall(r'^mapping \{(.*?)^\}', text, re.M | re.S):
        mid = int(re.search(r'^  id: (\d+)', m, re.M).group(1))
        fn = re.search(r'filename: (\d+)', m)
        maps[mid] = strings[int(fn.group(1))] if fn else ""
        if spans is not None:
            start = re.search(r'^  memory_start: (\d+)', m, re.M)
            off = re.search(r'^  file_offset: (\d+)', m, re.M)
            spans[mid] = (int(start.group(1)) if start else 0, int(off.group(1)) if off else 0)
    locs = {}
    for l in re.findall(r'^location \{(.*?)^\}', text, re.M | re.S):
        lid = int(re.search(r'^  id: (\d+)', l, re.M).group(1))
        mid = re.search(r'^  mapping_id: (\d+)', l, re.M)
        addr = re.search(r'^  address: (\d+)', l, re.M)
        locs[lid] = (int(mid.group(1)) if mid else 0, int(addr.group(1)) if addr else 0)
    samples = []
    for s in re.findall(r'^sample \{(.*?)^\}', text, re.M | re.S):
        labels = dict()
        for lab in re.findall(r'label \{(.*?)\}', s, re.S):
            k = int(re.search(r'key: (\d+)', lab).group(1))
            v = re.search(r'str: (\d+)', lab)
            num = re.search(r'num: (\d+)', lab)
            if v:
                labels[strings[k]] = strings[int(v.group(1))]
            elif num:
                labels[strings[k]] = int(num.group(1))
        n = int(re.findall(r'^  value: (\d+)', s, re.M)[0])
        user = [locs[int(i)] for i in re.findall(r'^  location_id: (\d+)', s, re.M)
                if locs.get(int(i), (0, 1 << 63))[1] < USER_END]
        samples.append((labels, n, user))
    return samples, maps


def profile_leaves(text):
    """Each sample with user frames of a protoc-decoded profile, as
    (comm, pid, count, leaf address, mapped, leaf file)."""
    samples, maps = profile_samples(text)
    for labels, n, user in samples:
        if not user:
            continue
        mid, leaf = user[0]
        f = maps.get(mid, "?").rsplit("/", 1)[-1] if mid else ""
        yield labels.get("comm", "?"), labels.get("pid", 0), n, leaf, bool(mid), f


def perf_leaves(lines):
    """The same from `perf script -F comm,pid,ip,dso` of a perf record -g:
    a sample is its header line "COMM PID" and its frame lines."""
    head = re.compile(r'^(.*?)\s+(\d+)\s*$')
    frame = re.compile(r'^\s+([0-9a-f]+) \((.*)\)\s*$')
    cur = None
    for line in lines:
        m = frame.match(line)
        if m and cur is not None:
            addr = int(m.group(1), 16)
            if addr < USER_END and cur[2] is None:
                cur[2] = (addr, m.group(2))
            continue
        if cur is not None and cur[2] is not None:
            addr, dso = cur[2]
            yield cur[0], cur[1], 1, addr, dso != "[unknown]", dso.rsplit("/", 1)[-1]
        cur = None
        m = head.match(line)
        if m and "PERF_RECORD" not in line:
            cur = [m.group(1).strip(), int(m.group(2)), None]
    if cur is not None and cur[2] is not None:
        addr, dso = cur[2]
        yield cur[0], cur[1], 1, addr, dso != "[unknown]", dso.rsplit("/", 1)[-1]


def descendants(root, lines):
    """root and every pid forked from it or its children (perf's task events)."""
    fork = re.compile(r'PERF_RECORD_FORK\((\d+):\d+\):\((\d+):\d+\)')
    kids = {}
    for line in lines:
        m = fork.search(line)
        if m and m.group(1) != m.group(2):
            kids.setdefault(int(m.group(2)), set()).add(int(m.group(1)))
    seen, todo = {root}, [root]
    while todo:
        for k in kids.get(todo.pop(), ()):
            if k not in seen:
                seen.add(k)
                todo.append(k)
    return seen


def by_comm(leaves, pids, perfmaps, nexamples=4):
    """Per comm: [samples, unknown, jit, examples of unknown leaves]."""
    jit_of = {}
    per = {}
    for comm, pid, n, leaf, mapped, _ in leaves:
        if pids is not None and pid not in pids:
            continue
        jit = False
        if perfmaps:
            if pid not in jit_of:
                jit_of[pid] = []
                for name in ("perf-%d.map" % pid, "perf-%d.map.zst" % pid):
                    p = os.path.join(perfmaps, name)
                    if os.path.exists(p):
                        jit_of[pid] = jit_ranges(p)
                        break
            jit = in_ranges(jit_of[pid], leaf)
        c = per.setdefault(comm, [0, 0, 0, []])
        c[0] += n
        c[2] += n if jit else 0
        if not mapped and not jit:
            c[1] += n
            if len(c[3]) < nexamples:
                c[3].append("%d:%#x" % (pid, leaf))
    return per


def main_by_comm(argv):
    perf = "--perf" in argv
    pids = perfmaps = None
    if "--pids" in argv:
        pids = {int(l) for l in open(argv[argv.index("--pids") + 1]) if l.strip()}
    if "--perfmaps" in argv:
        perfmaps = argv[argv.index("--perfmaps") + 1]
    leaves = perf_leaves(sys.stdin) if perf else profile_leaves(sys.stdin.read())
    per = by_comm(leaves, pids, perfmaps)
    tot = [0, 0, 0]
    for comm, (n, unk, jit, ex) in sorted(per.items(), key=lambda kv: -kv[1][0]):
        print("comm %s samples %d unknown %d share %.4f jit %d examples %s"
              % (comm.replace(" ", "_"), n, unk, unk / n, jit, ",".join(ex) or "-"))
        tot = [tot[0] + n, tot[1] + unk, tot[2] + jit]
    print("total samples %d unknown %d share %.4f jit %d"
          % (tot[0], tot[1], tot[1] / tot[0] if tot[0] else 0.0, tot[2]))


def main_one(comm, perfmap, entry=None):
    ranges = jit_ranges(perfmap) if perfmap else []
    total = mapped = jit = jit_mapped = at_entry = in_image = 0
    files = {}
    spans = {}
    samples, maps = profile_samples(sys.stdin.read(), spans)
    for labels, n, user in samples:
        if not user or (comm != "*" and labels.get("comm", "?") != comm):
            continue
        mid, leaf = user[0]
        total += n
        if ranges and in_ranges(ranges, leaf):
            jit += n
            jit_mapped += n if mid else 0
        if entry and len(user) == 1:
            if not mid and (leaf & 0xfff) in [o & 0xfff for o in entry[1]]:
                at_entry += n
            elif mid and maps[mid].rsplit("/", 1)[-1] == entry[0] and \
                    leaf - spans[mid][0] + spans[mid][1] in entry[1]:
                at_entry += n
                in_image += n
        if mid:
            mapped += n
            f = maps.get(mid, "?").rsplit("/", 1)[-1]
            files[f] = files.get(f, 0) + n
    ratio = mapped / total if total else 0.0
    print("samples %d mapped %d ratio %.4f files %s" % (total, mapped, ratio,
          " ".join("%s:%d" % kv for kv in sorted(files.items(), key=lambda kv: -kv[1]))))
    if ranges:
        print("jit %d jitmapped %d" % (jit, jit_mapped))
    if entry:
        print("entry %d inimage %d" % (at_entry, in_image))


def main_count(argv):
    text = sys.stdin.read()
    skip = set()
    if "--not-pids" in argv:
        skip = {int(p) for p in argv[argv.index("--not-pids") + 1].split(",") if p}
    samples, _ = profile_samples(text)
    n = sum(c for labels, c, _ in samples if labels.get("pid", 0) not in skip)
    t = re.search(r'^time_nanos: (\d+)', text, re.M)
    d = re.search(r'^duration_nanos: (\d+)', text, re.M)
    print("%d %s %s" % (n, t.group(1) if t else 0, d.group(1) if d else 0))


if __name__ == "__main__":
    if sys.argv[1] == "--count":
        main_count(sys.argv[2:])
    elif sys.argv[1] == "--by-comm":
        main_by_comm(sys.argv[2:])
    elif sys.argv[1] == "--descendants":
        for p in sorted(descendants(int(sys.argv[2]), sys.stdin)):
            print(p)
    else:
        args = sys.argv[1:]
        entry = None
        if args[0].startswith("--entry="):
            name, off = args.pop(0)[len("--entry="):].rsplit(":", 1)
            entry = (name, (int(off, 16), int(off, 16) - 1))
        main_one(args[0], args[1] if len(args) > 1 else None, entry)
