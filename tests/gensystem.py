#!/usr/bin/env python3
"""Generate a random symbolized *system-wide* pprof profile, shaped as
psym-collect writes one after psym symbolize: several processes (two with
the same comm), each with its binary and the shared libc, kernel frames on
top of some stacks, labels comm (string), pid and tid (numbers) and a
numeric label with a unit ("bytes"), inline frames and unsymbolized code.
Stdlib only.

usage: gensystem.py SEED > profile.txtpb
"""
import hashlib
import random
import sys

r = random.Random(int(sys.argv[1]))
strings, index = [""], {"": 0}


def s(x):
    if x not in index:
        index[x] = len(strings)
        strings.append(x)
    return index[x]


procs = [("nginx", 1001, "/usr/sbin/nginx"), ("nginx", 1002, "/usr/sbin/nginx"),
         ("python3", 2001, "/usr/bin/python3.11"), ("bash", 3001, "/usr/bin/bash"),
         ("postgres", 4001, "/usr/lib/postgresql/15/bin/postgres")]
binaries = sorted({p[2] for p in procs}) + ["/usr/lib/x86_64-linux-gnu/libc.so.6"]
out, funcs, locs = [], {}, {}
mid = 0
fid = 0
lid = 0
out.append("mapping { id: 1 memory_start: 18446744071562067968 memory_limit: 18446744073709551615 "
           "filename: %d has_functions: true }" % s("[kernel.kallsyms]"))
maps = {"[kernel.kallsyms]": 1}
for i, b in enumerate(binaries):
    maps[b] = i + 2
    out.append("mapping { id: %d memory_start: %d memory_limit: %d filename: %d build_id: %d "
               "has_functions: true }" % (i + 2, 0x400000 + i * 0x1000000, 0x400000 + (i + 1) * 0x1000000,
                                          s(b), s(hashlib.sha1(b.encode()).hexdigest())))
for b in ["[kernel.kallsyms]"] + binaries:
    short = b.rsplit("/", 1)[-1].split(".")[0]
    fl = []
    for k in range(12 if b != "[kernel.kallsyms]" else 8):
        fid += 1
        if b == "[kernel.kallsyms]":
            name, file = r.choice(["do_", "sys_", "__x64_", "vfs_"]) + "k%d" % k, "kernel/f%d.c" % (k % 3)
        else:
            name, file = "%s_%s%d" % (short, r.choice(["run", "read", "loop", "parse"]), k), \
                "src/%s/m%d.c" % (short, k % 4)
        out.append("function { id: %d name: %d system_name: %d filename: %d start_line: %d }"
                   % (fid, s(name), s(name), s(file), 10 + k))
        fl.append(fid)
    funcs[b] = fl
    ll = []
    base = 0xffffffff81000000 if b == "[kernel.kallsyms]" else 0x400000 + (maps[b] - 2) * 0x1000000
    for k in range(25):
        lid += 1
        addr = base + 0x100 + k * 0x40
        if k % 11 == 10:
            out.append("location { id: %d mapping_id: %d address: %d }" % (lid, maps[b], addr))
        else:
            nl = r.choice([1, 1, 2, 3])
            lines = " ".join("line { function_id: %d line: %d }" % (f, 100 + r.randrange(90))
                             for f in r.sample(fl, nl))
            out.append("location { id: %d mapping_id: %d address: %d %s }" % (lid, maps[b], addr, lines))
        ll.append(lid)
    locs[b] = ll
for _ in range(600):
    comm, pid, exe = r.choice(procs)
    stack = [r.choice(locs[exe]) for _ in range(r.randrange(1, 10))]  # root last
    if r.random() < 0.5:
        stack = [r.choice(locs[binaries[-1]]) for _ in range(r.randrange(1, 4))] + stack
    if r.random() < 0.3:
        stack = [r.choice(locs["[kernel.kallsyms]"]) for _ in range(r.randrange(1, 5))] + stack
    if r.random() < 0.15:
        stack = stack + stack[: r.randrange(1, len(stack) + 1)]
    n = r.randrange(1, 30)
    labels = "label { key: %d str: %d } label { key: %d num: %d } label { key: %d num: %d }" % (
        s("comm"), s(comm), s("pid"), pid, s("tid"), pid + r.randrange(3))
    if r.random() < 0.5:
        labels += " label { key: %d num: %d num_unit: %d }" % (s("bytes"), r.choice([512, 2048, 8192, 1 << 20]),
                                                              s("bytes"))
    out.append("sample { location_id: [%s] value: [%d, %d] %s }"
               % (", ".join(map(str, stack)), n, n * 10101010, labels))
out.insert(0, "sample_type { type: %d unit: %d }" % (s("samples"), s("count")))
out.insert(1, "sample_type { type: %d unit: %d }" % (s("cpu"), s("nanoseconds")))
out.append("period_type { type: %d unit: %d } period: 10101010" % (s("cpu"), s("nanoseconds")))
out.append("duration_nanos: 5000000000")
for x in strings:
    out.append('string_table: "%s"' % x)
print("\n".join(out))
