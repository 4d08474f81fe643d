#!/usr/bin/env python3
"""Generate a random symbolized pprof profile with every kind of frame the
flame graph colours apart, each function's name saying its kind:

  user_*    user code, in /usr/bin/app and /usr/bin/node
  inl_*     user code inlined into its caller (never a location's last line)
  jit_*     JIT code: in anonymous memory (//anon) and in the mapping perf
            gives code a perf map names (/tmp/perf-4242.map)
  JS:*      JIT code by its name (node's), in /usr/bin/node
  k_*       the kernel ([kernel.kallsyms]) and a module (ext4.ko); k_inl_*
            inlined kernel code (still the kernel's)
  [...]     unsymbolized code (locations without lines)

Stacks: user code at the root, maybe JIT code, maybe the kernel at the leaf.
Stdlib only.

usage: genkinds.py SEED > profile.txtpb
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


out = []
ids = {"fn": 0, "loc": 0}
maps = [("[kernel.kallsyms]", 0xffffffff81000000, 0xffffffffa0000000),
        ("/lib/modules/6.1.0-13-amd64/kernel/fs/ext4/ext4.ko", 0xffffffffc0000000, 0xffffffffc0100000),
        ("/usr/bin/app", 0x400000, 0x500000),
        ("//anon", 0x7f0000000000, 0x7f0000100000),
        ("/tmp/perf-4242.map", 0x7f1000000000, 0x7f1000100000),
        ("/usr/bin/node", 0x800000, 0x900000),
        ("/usr/lib/x86_64-linux-gnu/libfoo.so.1", 0x7f2000000000, 0x7f2000100000)]
for i, (name, lo, hi) in enumerate(maps):
    out.append("mapping { id: %d memory_start: %d memory_limit: %d filename: %d has_functions: true }"
               % (i + 1, lo, hi, s(name)))
next_addr = {i + 1: lo + 0x100 for i, (name, lo, hi) in enumerate(maps)}


def fn(name):
    ids["fn"] += 1
    out.append("function { id: %d name: %d system_name: %d filename: %d start_line: 1 }"
               % (ids["fn"], s(name), s(name), s("src/%s.c" % name.split("_")[0])))
    return ids["fn"]


def loc(mapping, names):
    """A location of mapping (1-based) with these functions, innermost first."""
    ids["loc"] += 1
    next_addr[mapping] += 0x40
    lines = " ".join("line { function_id: %d line: %d }" % (f, 10 + r.randrange(50)) for f in names)
    out.append("location { id: %d mapping_id: %d address: %d %s }"
               % (ids["loc"], mapping, next_addr[mapping], lines))
    return ids["loc"]


user = [fn("user_%s%d" % (r.choice(["run", "read", "parse", "loop"]), k)) for k in range(10)]
# Long names (C++'s), wider than their frames until one zooms in.
user += [fn("user_std::vector<std::basic_string<char>>::_M_realloc_insert<std::basic_string<char>"
            " const&>(__gnu_cxx::__normal_iterator<std::basic_string<char>*>, %d)" % k) for k in range(3)]
inl = [fn("inl_%s%d" % (r.choice(["get", "add", "hash"]), k)) for k in range(6)]
node = [fn("user_node%d" % k) for k in range(4)]
js = [fn("JS:*handler%d" % k) for k in range(5)]
anon = [fn("jit_anon%d" % k) for k in range(5)]
perfmap = [fn("jit_perfmap%d" % k) for k in range(5)]
kern = [fn("k_%s%d" % (r.choice(["sys_", "do_", "vfs_"]), k)) for k in range(8)]
kinl = [fn("k_inl_%d" % k) for k in range(3)]
kmod = [fn("k_ext4_%d" % k) for k in range(4)]

app_locs = [loc(3, [f]) for f in user]
# Inlined user code: one or two inl_ lines inside a user function.
app_locs += [loc(3, r.sample(inl, r.randrange(1, 3)) + [r.choice(user)]) for _ in range(8)]
app_unknown = [loc(3, []) for _ in range(2)] + [loc(7, []) for _ in range(2)]
node_locs = [loc(6, [f]) for f in node]
js_locs = [loc(6, [f]) for f in js]
jit_locs = [loc(4, [f]) for f in anon] + [loc(5, [f]) for f in perfmap]
kern_locs = [loc(1, [f]) for f in kern] + [loc(1, [r.choice(kinl), r.choice(kern)]) for _ in range(3)]
kern_locs += [loc(2, [f]) for f in kmod]

for _ in range(400):
    if r.random() < 0.3:
        stack = [r.choice(node_locs) for _ in range(r.randrange(1, 4))]  # root first here
        stack += [r.choice(js_locs) for _ in range(r.randrange(0, 4))]
    else:
        stack = [r.choice(app_locs) for _ in range(r.randrange(1, 6))]
        if r.random() < 0.15:
            stack.append(r.choice(app_unknown))
        if r.random() < 0.3:
            stack += [r.choice(jit_locs) for _ in range(r.randrange(1, 4))]
    if r.random() < 0.4:
        stack += [r.choice(kern_locs) for _ in range(r.randrange(1, 4))]
    n = r.randrange(1, 20)
    out.append("sample { location_id: [%s] value: [%d] }"
               % (", ".join(map(str, reversed(stack))), n * 10000000))
out.insert(0, "sample_type { type: %d unit: %d }" % (s("cpu"), s("nanoseconds")))
out.append("period_type { type: %d unit: %d } period: 10000000" % (s("cpu"), s("nanoseconds")))
out.append("duration_nanos: 4000000000")
for x in strings:
    out.append('string_table: "%s"' % x)
print("\n".join(out))
