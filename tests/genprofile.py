#!/usr/bin/env python3
"""Generate a random *symbolized* pprof profile in protoc text format, for
comparing psym's reports with go tool pprof's. Stdlib only.

usage: genprofile.py SEED > profile.txtpb
Functions with simple names, locations with 1-3 lines (inline frames), deep
stacks with recursion, two sample types (samples/count, cpu/nanoseconds),
labels, some unsymbolized locations.
"""
import random
import sys

r = random.Random(int(sys.argv[1]))
strings, index = [""], {"": 0}


def s(x):
    if x not in index:
        index[x] = len(strings)
        strings.append(x)
    return index[x]


nfunc = 40
funcs = [("fn_%02d" % i, "src/file_%d.c" % (i % 7), 10 + i * 3) for i in range(nfunc)]
out = []
for i, (name, file, line) in enumerate(funcs, 1):
    out.append("function { id: %d name: %d system_name: %d filename: %d start_line: %d }"
               % (i, s(name), s(name), s(file), line))
out.append('mapping { id: 1 memory_start: 4194304 memory_limit: 8388608 filename: %d has_functions: true }'
           % s("/bin/generated"))
nloc = 120
for lid in range(1, nloc + 1):
    addr = 0x400000 + lid * 0x40
    if lid % 17 == 0:
        out.append("location { id: %d mapping_id: 1 address: %d }" % (lid, addr))
        continue
    nl = r.choice([1, 1, 1, 2, 3])
    fl = r.sample(range(1, nfunc + 1), nl)
    lines = " ".join("line { function_id: %d line: %d }" % (f, 100 + r.randrange(50)) for f in fl)
    out.append("location { id: %d mapping_id: 1 address: %d %s }" % (lid, addr, lines))
for _ in range(400):
    depth = r.randrange(1, 25)
    stack = [r.randrange(1, nloc + 1) for _ in range(depth)]
    if r.random() < 0.2:  # recursion: a location repeated
        stack = stack + stack[: r.randrange(1, depth + 1)]
    n = r.randrange(1, 20)
    out.append("sample { location_id: [%s] value: [%d, %d] label { key: %d str: %d } label { key: %d num: %d } }"
               % (", ".join(map(str, stack)), n, n * 10000000, s("comm"), s(r.choice(["a", "b"])),
                  s("pid"), r.choice([100, 200])))
out.insert(0, "sample_type { type: %d unit: %d }" % (s("samples"), s("count")))
out.insert(1, "sample_type { type: %d unit: %d }" % (s("cpu"), s("nanoseconds")))
out.append("period_type { type: %d unit: %d } period: 10000000" % (s("cpu"), s("nanoseconds")))
for x in strings:
    out.append('string_table: "%s"' % x)
print("\n".join(out))
