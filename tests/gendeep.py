#!/usr/bin/env python3
"""Generate a pprof profile with deep stacks, in protoc text format, for
the reports that keep whole stacks (folded, traces, flame). Stdlib only.

usage: gendeep.py DEPTH SAMPLES > profile.txtpb
Functions f0..f(DEPTH-1), one location each (every 7th with two more
inlined lines, so a location's frames also come from the report's frame
table); sample i is the stack f0 (leaf) .. f(DEPTH-1) (root), its value
i + 1, its leaf shifted by i so that the stacks differ.
"""
import sys

depth, nsamples = int(sys.argv[1]), int(sys.argv[2])
strings = [""]
out = []
for i in range(depth):
    strings.append("f%d" % i)
    out.append("function { id: %d name: %d system_name: %d }" % (i + 1, i + 1, i + 1))
out.append('mapping { id: 1 memory_start: 4194304 memory_limit: 838860800 has_functions: true }')
for i in range(depth):
    lines = "line { function_id: %d line: %d }" % (i + 1, i + 1)
    if i % 7 == 3 and depth > 2:
        # two inlined callees: the location's innermost lines come first
        lines = ("line { function_id: %d line: 1 } line { function_id: %d line: 2 } "
                 % ((i + 2) % depth + 1, (i + 5) % depth + 1)) + lines
    out.append("location { id: %d mapping_id: 1 address: %d %s }"
               % (i + 1, 0x400000 + 16 * i, lines))
for k in range(nsamples):
    ids = [((j + k) % depth) + 1 if j == 0 else j + 1 for j in range(depth)]
    out.append("sample { location_id: [%s] value: [%d] }" % (", ".join(map(str, ids)), k + 1))
out.append('sample_type { type: %d unit: %d }' % (len(strings), len(strings) + 1))
strings += ["samples", "count"]
out.extend('string_table: "%s"' % x for x in strings)
print("\n".join(out))
