#!/usr/bin/env python3
"""Generate a random symbolized pprof profile (protoc text format) with five
sample types in units pprof scales (ns..hours, B..MB, GCU), counts and a unit
pprof does not know, values from 0 to ~1e13; inline frames, a nameless
function, file names pprof cleans, raw addresses inside a mapping and in no
mapping. For comparing psym top with go tool pprof -top byte for byte.

usage: genunits.py SEED > profile.txtpb
"""
import random, sys
r = random.Random(int(sys.argv[1]))
units = ["nanoseconds", "microseconds", "milliseconds", "seconds", "bytes", "kilobytes",
         "megabytes", "count", "widgets", "nanogcu", "hours", "B", "MB", "ms", "us"]
strings, index = [""], {"": 0}
def s(x):
    if x not in index:
        index[x] = len(strings); strings.append(x)
    return index[x]
out = []
types = r.sample(units, 5)
for i, u in enumerate(types):
    out.append("sample_type { type: %d unit: %d }" % (s("t%d_%s" % (i, u)), s(u)))
for i in range(1, 13):
    nm = "" if i == 12 else "f%d" % i
    out.append("function { id: %d name: %d system_name: %d filename: %d start_line: %d }"
               % (i, s(nm), s("sys%d" % i), s("./src/../a/f%d.c" % (i % 3)), i))
out.append('mapping { id: 1 memory_start: 4096 memory_limit: 1048576 filename: %d has_functions: true }' % s("/usr/bin/app"))
nloc = 40
for lid in range(1, nloc + 1):
    if lid % 9 == 0:   # raw, no mapping
        out.append("location { id: %d address: %d }" % (lid, 0x900000 + lid * 16)); continue
    if lid % 7 == 0:   # raw, in the mapping
        out.append("location { id: %d mapping_id: 1 address: %d }" % (lid, 0x1000 + lid * 16)); continue
    fl = r.sample(range(1, 13), r.choice([1, 1, 2, 3]))
    out.append("location { id: %d mapping_id: 1 address: %d %s }" % (lid, 0x1000 + lid * 16,
               " ".join("line { function_id: %d line: %d }" % (f, r.randrange(1, 30)) for f in fl)))
scale = [r.choice([1, 1000, 10**6, 10**9, 10**12]) for _ in types]
for _ in range(150):
    st = [r.randrange(1, nloc + 1) for _ in range(r.randrange(1, 10))]
    vals = [r.randrange(0, 50) * sc // r.choice([1, 7, 100]) for sc in scale]
    out.append("sample { location_id: [%s] value: [%s] }" % (", ".join(map(str, st)), ", ".join(map(str, vals))))
out.append("duration_nanos: %d" % r.choice([0, 10**10, 123456789]))
for x in strings:
    out.append('string_table: "%s"' % x)
print("\n".join(out))
