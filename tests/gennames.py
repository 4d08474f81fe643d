#!/usr/bin/env python3
"""gennames.py NAMES > profile.txtpb: a symbolized pprof profile (protoc
text format) with one function per line of NAMES, named by it and with it
as its system name (as a symbolizer that does not demangle writes), one
location and one sample each, values 1, 2, 3... so that a report lists
every name. Stdlib only."""
import sys

strings, index = [""], {"": 0}


def s(x):
    if x not in index:
        index[x] = len(strings)
        strings.append(x)
    return index[x]


out = ['sample_type { type: %d unit: %d }' % (s("samples"), s("count"))]
out.append('mapping { id: 1 memory_start: 4096 memory_limit: 268435456 filename: %d '
           'has_functions: true }' % s("/nonexistent/names"))
names = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
for i, n in enumerate(names, 1):
    out.append("function { id: %d name: %d system_name: %d }" % (i, s(n), s(n)))
    out.append("location { id: %d mapping_id: 1 address: %d line { function_id: %d } }"
               % (i, 4096 + 16 * i, i))
    out.append("sample { location_id: [%d] value: [%d] }" % (i, i))
for x in strings:
    out.append('string_table: "%s"' % x.replace("\\", "\\\\").replace('"', '\\"'))
print("\n".join(out))
