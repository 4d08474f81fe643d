#!/usr/bin/env python3
"""Inputs with many mappings, for memory tests (stdlib only; independent
of psym).

  genmany.py profile N OUT [ELF]
      An unsymbolized pprof profile (gzip) with N file mappings, each its
      own file (/nonexistent/libNNNNNNN.so) with its own build ID, one
      location and one sample each; with ELF, its first mapping is ELF at
      0x400000 (offset 0) with a location at each address given on stdin
      (hex, one a line), so a real binary is resolved among them.
  genmany.py log N OUT
      A crash log of N frames, each in its own module
      (/nonexistent/libNNNNNNN.so+0xADDR), for psym addr --filter.
"""
import gzip
import struct
import sys


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, v):
    """A varint field."""
    return varint(num << 3) + varint(v)


def ld(num, b):
    """A length-delimited field."""
    return varint(num << 3 | 2) + varint(len(b)) + b


def profile(n, out, elf=None):
    strings = ["", "samples", "count"]
    body = bytearray()
    body += ld(1, field(1, 1) + field(2, 2))  # sample_type
    addrs = []
    if elf:
        addrs = [int(w, 16) for w in sys.stdin.read().split()]
    mappings, locations, samples = [], [], []
    mid = 0
    lid = 0
    if elf:
        mid += 1
        strings.append(elf)
        mappings.append(ld(3, field(1, mid) + field(2, 0x400000) + field(3, 0x800000) +
                           field(4, 0) + field(5, len(strings) - 1)))
        for a in addrs:
            lid += 1
            locations.append(ld(4, field(1, lid) + field(2, mid) + field(3, a)))
            samples.append(ld(2, ld(1, varint(lid)) + ld(2, varint(1))))
    for i in range(n):
        mid += 1
        lid += 1
        start = 0x10000000 + i * 0x10000
        strings.append("/nonexistent/lib%07d.so" % i)
        name = len(strings) - 1
        strings.append("%040x" % (0xB1D0000000 + i))
        bid = len(strings) - 1
        mappings.append(ld(3, field(1, mid) + field(2, start) + field(3, start + 0x10000) +
                           field(4, 0) + field(5, name) + field(6, bid)))
        locations.append(ld(4, field(1, lid) + field(2, mid) + field(3, start + 0x123)))
        samples.append(ld(2, ld(1, varint(lid)) + ld(2, varint(1))))
    for part in (samples, mappings, locations):
        for m in part:
            body += m
    for s in strings:
        body += ld(6, s.encode())
    with gzip.open(out, "wb", compresslevel=6) as f:
        f.write(bytes(body))


def log(n, out):
    with open(out, "w") as f:
        for i in range(n):
            f.write("    frame in /nonexistent/lib%07d.so+0x%x\n" % (i, 0x1000 + i))


if __name__ == "__main__":
    if sys.argv[1] == "profile":
        profile(int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    elif sys.argv[1] == "log":
        log(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit("usage: genmany.py profile|log N OUT [ELF]")
