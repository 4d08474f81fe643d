#!/usr/bin/env python3
"""Write N unsymbolized pprof profiles (binary protobuf, uncompressed) over a
set of non-PIE executables, the way a collector would record one process
each: one executable mapping at 0x400000 with the file's build ID (read with
readelf -n), one location per address, stacks of 1-4 addresses taken from
the functions nm lists. Profile i uses binary i % len(BINARIES). Python
stdlib only; independent of psym.

usage: genbatch.py OUTDIR N BINARY...
Writes OUTDIR/pNNNNN.pb and prints one "INPUT<TAB>OUTPUT" manifest line per
profile to stdout with OUTPUT = out/pNNNNN.pb (the caller rewrites the
output directory with sed when it wants another).
"""
import os
import random
import subprocess
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    return varint(num << 3 | wire) + payload


def vfield(num, n):
    return field(num, 0, varint(n))


def lfield(num, data):
    return field(num, 2, varint(len(data)) + data)


def packed(num, values):
    return lfield(num, b"".join(varint(v) for v in values))


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return ""


def functions(path):
    out = subprocess.run(["nm", "-S", path], capture_output=True, text=True).stdout
    funcs = []
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in ("T", "t") and int(p[1], 16) > 0:
            funcs.append((int(p[0], 16), int(p[1], 16)))
    return funcs


def profile(seed, binary, bid, funcs):
    r = random.Random(seed)
    strings, index = [""], {"": 0}

    def s(x):
        if x not in index:
            index[x] = len(strings)
            strings.append(x)
        return index[x]

    msg = bytearray()
    msg += lfield(1, vfield(1, s("samples")) + vfield(2, s("count")))
    locs = {}
    for _ in range(r.randrange(20, 41)):
        stack = []
        for _ in range(r.randrange(1, 5)):
            start, size = r.choice(funcs)
            addr = start + r.randrange(0, max(1, min(size, 48)))
            if addr not in locs:
                locs[addr] = len(locs) + 1
            stack.append(locs[addr])
        msg += lfield(2, packed(1, stack) + packed(2, [r.randrange(1, 100)]))
    msg += lfield(3, vfield(1, 1) + vfield(2, 0x400000) + vfield(3, 0x500000) +
                  vfield(4, 0) + vfield(5, s(binary)) + vfield(6, s(bid)))
    for addr, lid in sorted(locs.items(), key=lambda kv: kv[1]):
        msg += lfield(4, vfield(1, lid) + vfield(2, 1) + vfield(3, addr))
    for x in strings:
        msg += lfield(6, x.encode())
    return bytes(msg)


def main():
    outdir, n, bins = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    info = [(os.path.abspath(b), build_id(b), functions(b)) for b in bins]
    os.makedirs(outdir, exist_ok=True)
    for i in range(n):
        path, bid, funcs = info[i % len(info)]
        name = "p%05d.pb" % i
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(profile(i, path, bid, funcs))
        print("%s\tout/%s" % (os.path.join(outdir, name), name))


main()
