#!/usr/bin/env python3
"""Make a small synthetic x86-64 ELF core for the core reader's hostile
input tests: one thread (NT_PRSTATUS: pid, signal, rip, rsp), NT_PRPSINFO
(comm), NT_FILE mapping PATH at 0x400000 (rip inside it), a stack segment
of one page at 0x7ff000, and optionally a huge segment of zeros.

usage: mkcore.py OUT [--path PATH] [--comm COMM] [--rip ADDR] [--zeros BYTES] [--sig N]
The mapping of PATH is 1 MiB at 0x400000 (a non-PIE executable's place),
none of its bytes in the core; rip defaults to 0x400123.
PATH may hold escapes (\\n, \\x1b) as Python's bytes literals do; OUT
"-" writes to standard output (for a pipe into a compressor).
"""
import argparse
import struct
import sys

PT_LOAD, PT_NOTE = 1, 4
NT_PRSTATUS, NT_PRPSINFO, NT_FILE = 1, 3, 0x46494C45
EXE, STACK = 0x400000, 0x7FF000


def note(name, typ, desc):
    name += b"\0"
    return (struct.pack("<III", len(name), len(desc), typ) + name + b"\0" * (-len(name) % 4)
            + desc + b"\0" * (-len(desc) % 4))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--path", default="/usr/bin/prog")
    ap.add_argument("--comm", default="prog")
    ap.add_argument("--zeros", type=int, default=0)
    ap.add_argument("--sig", type=int, default=11)
    ap.add_argument("--rip", type=lambda x: int(x, 0), default=EXE + 0x123)
    a = ap.parse_args()
    path = a.path.encode().decode("unicode_escape").encode("latin-1")
    comm = a.comm.encode().decode("unicode_escape").encode("latin-1")

    regs = [0] * 27
    regs[16] = a.rip                # rip
    regs[19] = STACK + 0x800        # rsp
    regs[4] = 0                     # rbp: no frame chain
    pr = bytearray(336)
    struct.pack_into("<I", pr, 0, a.sig)
    struct.pack_into("<H", pr, 12, a.sig)
    struct.pack_into("<I", pr, 32, 4242)
    struct.pack_into("<27Q", pr, 112, *regs)
    ps = bytearray(136)
    struct.pack_into("<I", ps, 24, 4242)
    ps[40:40 + min(15, len(comm))] = comm[:15]
    ps[56:56 + min(79, len(comm))] = comm[:79]
    nf = struct.pack("<QQ", 1, 4096) + struct.pack("<QQQ", EXE, EXE + 0x100000, 0) + path + b"\0"
    notes = (note(b"CORE", NT_PRSTATUS, bytes(pr)) + note(b"CORE", NT_PRPSINFO, bytes(ps))
             + note(b"CORE", NT_FILE, nf))

    loads = [(EXE, 0x100000, 5, b""), (STACK, 0x1000, 6, b"\0" * 0x1000)]
    if a.zeros:
        loads.append((0x10000000000, a.zeros, 6, None))
    n = 1 + len(loads)
    off = 64 + 56 * n
    ph = [struct.pack("<IIQQQQQQ", PT_NOTE, 0, off, 0, 0, len(notes), 0, 4)]
    off += len(notes)
    for vaddr, memsz, flags, content in loads:
        size = memsz if content is None else len(content)
        ph.append(struct.pack("<IIQQQQQQ", PT_LOAD, flags, off, vaddr, 0, size, memsz, 4096))
        off += size
    eh = bytearray(64)
    eh[0:16] = b"\x7fELF\x02\x01\x01" + b"\0" * 9
    struct.pack_into("<HHIQQQIHHHHHH", eh, 16, 4, 62, 1, 0, 64, 0, 0, 64, 56, n, 64, 0, 0)
    out = sys.stdout.buffer if a.out == "-" else open(a.out, "wb")
    out.write(bytes(eh) + b"".join(ph) + notes)
    for vaddr, memsz, flags, content in loads:
        if content is not None:
            out.write(content)
        else:
            chunk, left = b"\0" * (1 << 20), memsz
            while left:
                k = min(left, len(chunk))
                out.write(chunk[:k])
                left -= k
    out.close()


if __name__ == "__main__":
    main()
