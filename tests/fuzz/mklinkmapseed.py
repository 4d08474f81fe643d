#!/usr/bin/env python3
"""Make link-map cores from a core of a dynamically linked program.

usage: mklinkmapseed.py CORE PROG OUTDIR

CORE is a 64-bit little-endian core without NT_FILE (QEMU's user-mode
cores) of PROG, a non-PIE or PIE executable. Writes OUTDIR/linkmap.core:
CORE with the notes and, of its memory, the executable's first page (taken
from PROG: QEMU leaves it out, the kernel dumps it), of each segment its
pages up to the last byte that the walk of the link map reads (the dynamic
section, r_debug, each link_map and its name), 16 KiB of the thread's stack
from its stack pointer up, and nothing of the rest (the segments keep their place
with p_filesz 0). Then hostile variants of it:
  linkmap-loop.core    the last link_map's l_next points back to the second
  linkmap-noname.core  one library's l_name points outside the core
  linkmap-nodebug.core DT_DEBUG is 0 (as before the dynamic linker ran)
  linkmap-huge.core    the chain goes on through 4200 more entries (in a
                       segment added for them)
Prints the number of link_map entries found.
"""
import os
import struct
import sys

# The ELF core reading and writing of the core reader's other seeds.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkcoreseed import build, notes, pack_notes, phdrs  # noqa: E402

PT_LOAD, PT_NOTE, PT_DYNAMIC = 1, 4, 2
NT_PRSTATUS, NT_AUXV = 1, 6
AT_PHDR, AT_ENTRY = 3, 9
DT_NULL, DT_DEBUG = 0, 21
HUGE = 4200
HUGE_AT = 0x6f00000000


class Mem:
    def __init__(self, loads):
        self.loads = [[v, m, f, bytearray(c)] for v, m, f, c in loads]

    def at(self, addr, n):
        for v, _, _, c in self.loads:
            if v <= addr and addr + n <= v + len(c):
                return c, addr - v
        raise KeyError(hex(addr))

    def q(self, addr):
        c, o = self.at(addr, 8)
        return struct.unpack_from("<Q", c, o)[0]

    def put_q(self, addr, v):
        c, o = self.at(addr, 8)
        struct.pack_into("<Q", c, o, v)

    def cstr(self, addr):
        for v, _, _, c in self.loads:
            if v <= addr < v + len(c):
                o = addr - v
                return bytes(c[o: c.index(0, o) if 0 in c[o:] else len(c)])
        return b""

    def out(self):
        return [(v, m, f, bytes(c)) for v, m, f, c in self.loads]


def main():
    core, prog, outdir = sys.argv[1:4]
    d = open(core, "rb").read()
    exe = open(prog, "rb").read()
    ph = phdrs(d)
    ns = []
    for p in ph:
        if p[0] == PT_NOTE:
            ns += notes(d[p[2]: p[2] + p[5]])
    aux, sps = {}, []
    for name, typ, desc in ns:
        if name.rstrip(b"\0") == b"CORE" and typ == NT_AUXV:
            for i in range(0, len(desc) - 15, 16):
                k, v = struct.unpack_from("<QQ", desc, i)
                aux.setdefault(k, v)
        if name.rstrip(b"\0") == b"CORE" and typ == NT_PRSTATUS:
            sps.append(struct.unpack_from("<Q", desc, 112 + 8 * 31)[0])
    e_entry, = struct.unpack_from("<Q", exe, 24)
    bias = aux[AT_ENTRY] - e_entry
    xph = phdrs(exe)
    first = min(p[3] for p in xph if p[0] == PT_LOAD) + bias
    dyn = [p[3] + bias for p in xph if p[0] == PT_DYNAMIC][0]
    full = Mem([(v, m, f, d[o: o + fs]) for t, f, o, v, _, fs, m, _ in ph if t == PT_LOAD])
    # the chain: DT_DEBUG -> r_debug -> r_map -> l_next ..., and the bytes it reads
    need = [(dyn, 16 * 64)]
    i, rdebug = dyn, 0
    while True:
        tag, val = full.q(i), full.q(i + 8)
        if tag == DT_NULL:
            break
        if tag == DT_DEBUG:
            rdebug, debug_at = val, i
        i += 16
    chain, cur = [], full.q(rdebug + 8)
    need.append((rdebug, 16))
    while cur and len(chain) < 64:
        chain.append(cur)
        need += [(cur, 40), (full.q(cur + 8), len(full.cstr(full.q(cur + 8))) + 1)]
        cur = full.q(cur + 24)
    print(len(chain))
    loads = []
    for typ, flags, off, vaddr, _, filesz, memsz, _ in ph:
        if typ != PT_LOAD:
            continue
        # the segment's bytes up to the last one the walk reads, to its page end
        last = max([a + n - vaddr for a, n in need if vaddr <= a < vaddr + filesz] + [0])
        content = d[off: off + min(filesz, (last + 4095) & ~4095)]
        if vaddr == first:
            content = exe[: min(4096, memsz)]
        for sp in sps:
            if vaddr <= sp < vaddr + filesz:
                lo = sp & ~0xfff
                content = d[off + lo - vaddr: off + min(filesz, sp - vaddr + 16384)]
                loads.append((lo, memsz - (lo - vaddr), flags, content))
                break
        else:
            loads.append((vaddr, memsz, flags, content))
    blob = pack_notes(ns)
    os.makedirs(outdir, exist_ok=True)
    w = lambda n, m: open(os.path.join(outdir, n), "wb").write(build(d, m.out(), blob))
    mem = Mem(loads)
    w("linkmap.core", mem)
    lib = [a for a in chain if mem.cstr(mem.q(a + 8)).endswith(b"libcrash.so")]
    m = Mem(loads)
    m.put_q(chain[-1] + 24, chain[1])
    w("linkmap-loop.core", m)
    m = Mem(loads)
    m.put_q(debug_at + 8, 0)
    w("linkmap-nodebug.core", m)
    m = Mem(loads)
    m.put_q((lib or chain[1:])[0] + 8, 0xdead00000000)
    w("linkmap-noname.core", m)
    # entries 16 bytes apart, overlapping: entry k's l_name is its own
    # address (its l_addr: 0, so its name is ""), its l_next entry k + 1's
    extra = bytearray(16 * HUGE + 32)
    for k in range(HUGE):
        struct.pack_into("<QQ", extra, 16 * k, 0, HUGE_AT + 16 * k)
        struct.pack_into("<Q", extra, 16 * k + 24, HUGE_AT + 16 * (k + 1) if k + 1 < HUGE else 0)
    m = Mem(loads + [(HUGE_AT, len(extra), 6, bytes(extra))])
    m.put_q(chain[-1] + 24, HUGE_AT)
    w("linkmap-huge.core", m)


if __name__ == "__main__":
    main()
