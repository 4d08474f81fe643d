#!/usr/bin/env python3
"""compare-names.py OURS A2L GDB NM: psym's unwound chain of a program built
with return-address signing (-mbranch-protection=pac-ret) against gdb's
frame chain at the same stop of the same program built without it. gdb
(13, on qemu 7.2's stub, which reports no PAC masks) cannot strip signed
return addresses, so it is the oracle through the unsigned build: the
chains must name the same functions. A2L is `addr2line -a -f -i` on psym's
addresses (the outermost name of each is the physical function); GCC's
clone suffixes (.part.N, .constprop.N, .isra.N) and leading underscores
are dropped on both sides (addr2line takes glibc's names from its symbol
table, where __qsort_r and qsort_r are one address and gdb picks the
other); NM (`nm` of the signed build) makes names of one address one
(raise and gsignal). Exit 1 and a report on any difference."""
import re
import sys

SUFFIX = re.compile(r"(\.(cold|part|isra|constprop|lto_priv)(\.\d+)?)+$")


byaddr = {}
for l in open(sys.argv[4]):
    p = l.split()
    if len(p) == 3:
        byaddr.setdefault(p[0], []).append(SUFFIX.sub("", p[2]).lstrip("_"))
canon = {}
for names in byaddr.values():
    for n in names:
        canon.setdefault(n, min(names))


def norm(name):
    n = SUFFIX.sub("", name).lstrip("_")
    return canon.get(n, n)

ours = [l.split()[0] for l in open(sys.argv[1]) if not l.startswith("stop")]
names, cur = [], None
lines = open(sys.argv[2]).read().splitlines()
i = 0
while i < len(lines):
    if re.fullmatch(r"0x[0-9a-f]+", lines[i]):
        cur = []
        names.append(cur)
        i += 1
        continue
    cur.append(lines[i])
    i += 2
got = [norm(n[-1]) if n else "??" for n in names]
want = []
for l in open(sys.argv[3]):
    pc, kind, name = l.split()[:3]
    if kind in ("inl", "tail"):
        continue
    want.append(norm(name))
if len(ours) != len(got):
    print("addr2line answered %d of %d addresses" % (len(got), len(ours)))
    sys.exit(1)
if got[:len(want)] != want:
    print("psym: %s\ngdb:  %s" % (",".join(got), ",".join(want)))
    sys.exit(1)
print("%d functions agree (%s)" % (len(want), ",".join(want)))
