#!/usr/bin/python3
"""Write an OTLP profile (opentelemetry-proto 1.10.0) of one program from
`perf script` output, as the OpenTelemetry eBPF profiler ships native
frames: a mapping per file (its runtime range, file offset and build ID or
htlhash attribute), an unsymbolized location per address, a stack per
sample (leaf first). Shares no code with psym: it uses the classes protoc
generates from proto/otlp_profiles.proto (Debian's python3-protobuf).

usage: otlp-from-perf.py PB2_DIR SCRIPT.txt BINARY-BASENAME ID-KIND ID OUT LOADS
  SCRIPT.txt: perf script -F pid,ip,dso --show-mmap-events (perf prints
  each frame as the file's ELF address)
  LOADS: readelf -lW of the binary (to turn those back into the runtime
  addresses a profiler records)
  ID-KIND: gnu or htlhash (the attribute process.executable.build_id.KIND)
Only frames of BINARY-BASENAME are kept (the other files are not under
test); prints the number of samples and locations.
"""
import re
import sys

sys.path.insert(0, sys.argv[1])
import otlp_profiles_pb2 as pb  # noqa: E402

script, base, kind, ident, out, loads = sys.argv[2:8]
# (vaddr, offset, size) of each executable PT_LOAD.
segs = []
for line in open(loads):
    f = line.split()
    if f and f[0] == "LOAD" and "E" in f[6:-1]:
        segs.append((int(f[2], 16), int(f[1], 16), int(f[5], 16)))


def runtime(vaddr, m):
    for sv, so, sz in segs:
        if sv <= vaddr < sv + sz:
            return m[0] + (vaddr - sv + so) - m[2]
    return None

maps = []  # (start, end, pgoff, path)
stacks = []
cur = None
mm = re.compile(r"PERF_RECORD_MMAP2? .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) .*\]: (\S+) (\S+)")
for line in open(script, errors="replace"):
    m = mm.search(line)
    if m:
        start, size, off, prot, path = m.groups()
        if "x" in prot and path.endswith("/" + base):
            maps.append((int(start, 16), int(start, 16) + int(size, 16), int(off, 16), path))
        continue
    if not line.startswith("\t"):
        if line.strip():
            cur = []
            stacks.append(cur)
        continue
    f = line.split()
    if cur is not None and len(f) >= 2 and re.fullmatch(r"[0-9a-f]+", f[0]):
        dso = f[-1].strip("()")
        if dso.endswith("/" + base) and maps:
            ip = runtime(int(f[0], 16), maps[0])
            if ip is not None:
                cur.append(ip)

d = pb.ProfilesData()
dic = d.dictionary
strings = {}


def s(x):
    if x not in strings:
        strings[x] = len(dic.string_table)
        dic.string_table.append(x)
    return strings[x]


s("")
dic.mapping_table.add()
dic.location_table.add()
dic.function_table.add()
dic.link_table.add()
dic.attribute_table.add()
dic.stack_table.add()
a = dic.attribute_table.add()
a.key_strindex = s("process.executable.build_id." + kind)
a.value.string_value = ident
for start, end, off, path in maps:
    m = dic.mapping_table.add()
    m.memory_start, m.memory_limit, m.file_offset = start, end, off
    m.filename_strindex = s(path)
    m.attribute_indices.append(1)
locs = {}
p = d.resource_profiles.add().scope_profiles.add().profiles.add()
p.sample_type.type_strindex = s("samples")
p.sample_type.unit_strindex = s("count")
for st in stacks:
    ix = []
    for ip in st:
        mi = next((i + 1 for i, m in enumerate(maps) if m[0] <= ip < m[1]), 0)
        if not mi:
            continue
        if ip not in locs:
            loc = dic.location_table.add()
            loc.mapping_index = mi
            loc.address = ip
            locs[ip] = len(dic.location_table) - 1
        ix.append(locs[ip])
    if not ix:
        continue
    k = dic.stack_table.add()
    k.location_indices.extend(ix)
    smp = p.samples.add()
    smp.stack_index = len(dic.stack_table) - 1
    smp.values.append(1)
open(out, "wb").write(d.SerializeToString())
print(len(p.samples), len(locs))
