#!/usr/bin/env python3
"""cmp-names.py [--system] A.txt B.txt | --list A.txt: two profiles in protoc text format; the
function name of every line of every location compared, location by
location (by address). Prints each differing pair of names once and a
count line. --system: A's system names
against B's names; --list: the names of A's frames. Exits 1 when a location differs or none was compared."""
import re, sys

def load(path):
    strings, funcs, locs = [], {}, {}
    cur = None
    txt = open(path).read()
    for m in re.finditer(r'^string_table: "((?:[^"\\]|\\.)*)"', txt, re.M):
        strings.append(bytes(m.group(1), 'latin1').decode('unicode_escape').encode('latin1').decode('utf-8'))
    for m in re.finditer(r'^function \{\n(.*?)^\}', txt, re.M | re.S):
        f = dict(re.findall(r'^  (\w+): (\d+)', m.group(1), re.M))
        funcs[f['id']] = (strings[int(f.get('name', 0))], strings[int(f.get('system_name', 0))])
    for m in re.finditer(r'^location \{\n(.*?)^\}', txt, re.M | re.S):
        body = m.group(1)
        addr = re.search(r'address: (\d+)', body)
        fids = re.findall(r'function_id: (\d+)', body)
        locs[int(addr.group(1)) if addr else 0] = [funcs[f] for f in fids]
    return locs

if sys.argv[1] == "--list":  # the names of A's frames, one a line
    for n in sorted({f[0] for v in load(sys.argv[2]).values() for f in v}):
        print(n)
    sys.exit(0)
system = sys.argv[1] == "--system"  # A's system names against B's names
if system:
    del sys.argv[1]
a, b = load(sys.argv[1]), load(sys.argv[2])
if system:
    a = {k: [(f[1], f[1]) for f in v] for k, v in a.items()}
diff = same = 0
seen = set()
for addr in sorted(set(a) | set(b)):
    x, y = a.get(addr, []), b.get(addr, [])
    xn, yn = [f[0] for f in x], [f[0] for f in y]
    if xn == yn:
        same += 1
        continue
    diff += 1
    for p, q in zip(xn, yn):
        if p != q and (p, q) not in seen:
            seen.add((p, q))
            print("psym: %s\npprof: %s\n" % (p, q))
print("%d locations same, %d differ" % (same, diff))
sys.exit(1 if diff or not same else 0)
