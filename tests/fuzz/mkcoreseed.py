#!/usr/bin/env python3
"""Make the core fuzz target's seeds from a real core (x86-64 or AArch64).

usage: mkcoreseed.py CORE OUTDIR

Writes OUTDIR/small.core: CORE with the notes and, of its memory, only the
first page of each file mapping (ELF header, program headers, build-ID
note) and 16 KiB of each thread's stack from its stack pointer up (the
other segments keep their place with p_filesz 0): a real core of a few
tens of KiB. Then hostile variants of it:
  lying-note.core      a note whose descsz runs past its PT_NOTE
  trunc-load.core      the stack segments cut off by the end of the file
  ntfile-count.core    NT_FILE claiming 2^40 files
  ntfile-nopaths.core  NT_FILE's paths cut off (no terminating NUL)
  loop-stack.core      every thread's frame pointer and stack point at
                       themselves (an rbp chain that loops)
  threads.core         400 threads (NT_PRSTATUS repeated)
  phnum.core           e_phnum = 0xffff (PN_XNUM) with no section header
"""
import os
import struct
import sys

PT_LOAD, PT_NOTE = 1, 4


def phdrs(d):
    phoff, = struct.unpack_from("<Q", d, 32)
    phnum, = struct.unpack_from("<H", d, 56)
    return [list(struct.unpack_from("<IIQQQQQQ", d, phoff + 56 * i)) for i in range(phnum)]


def notes(buf):
    off, out = 0, []
    while off + 12 <= len(buf):
        nsz, dsz, typ = struct.unpack_from("<III", buf, off)
        name = buf[off + 12: off + 12 + nsz]
        doff = off + 12 + ((nsz + 3) & ~3)
        out.append((name, typ, buf[doff: doff + dsz]))
        off = doff + ((dsz + 3) & ~3)
    return out


def pack_notes(ns):
    out = b""
    for name, typ, desc in ns:
        out += struct.pack("<III", len(name), len(desc), typ)
        out += name + b"\0" * (-len(name) % 4) + desc + b"\0" * (-len(desc) % 4)
    return out


def build(ehdr, loads, note_blob):
    """An ELF core: header, phdrs (PT_NOTE first), notes, then the loads' bytes."""
    n = 1 + len(loads)
    phoff = 64
    data_off = phoff + 56 * n
    out_ph = [[PT_NOTE, 0, data_off, 0, 0, len(note_blob), 0, 4]]
    body = bytearray(note_blob)
    for vaddr, memsz, flags, content in loads:
        out_ph.append([PT_LOAD, flags, data_off + len(body), vaddr, 0, len(content), memsz, 4096])
        body += content
    h = bytearray(ehdr[:64])
    struct.pack_into("<Q", h, 32, phoff)
    struct.pack_into("<Q", h, 40, 0)
    struct.pack_into("<H", h, 56, n)
    struct.pack_into("<H", h, 60, 0)
    struct.pack_into("<H", h, 62, 0)
    return bytes(h) + b"".join(struct.pack("<IIQQQQQQ", *p) for p in out_ph) + bytes(body)


def main():
    core, outdir = sys.argv[1:3]
    d = open(core, "rb").read()
    machine, = struct.unpack_from("<H", d, 18)
    ph = phdrs(d)
    ns = []
    for p in ph:
        if p[0] == PT_NOTE:
            ns += notes(d[p[2]: p[2] + p[5]])
    keep = {}
    sps = []
    for name, typ, desc in ns:
        if name.rstrip(b"\0") == b"CORE" and typ == 1:
            sp = struct.unpack_from("<Q", desc, 112 + 8 * (19 if machine == 62 else 31))[0]
            sps.append(sp)
        if name.rstrip(b"\0") == b"CORE" and typ == 0x46494c45:
            count, page = struct.unpack_from("<QQ", desc, 0)
            for i in range(count):
                start, end, off = struct.unpack_from("<QQQ", desc, 16 + 24 * i)
                if off == 0:
                    keep[start] = 4096
    loads = []
    for p in ph:
        if p[0] != PT_LOAD:
            continue
        typ, flags, off, vaddr, _, filesz, memsz, _ = p
        content = b""
        if vaddr in keep:
            content = d[off: off + min(filesz, keep[vaddr])]
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
    small = build(d, loads, blob)
    w = lambda n, b: open(os.path.join(outdir, n), "wb").write(b)
    w("small.core", small)
    # a note claiming more than its segment
    b = bytearray(small)
    struct.pack_into("<I", b, 64 + 56 * (1 + len(loads)) + 4, 0x7ffffff0)
    w("lying-note.core", bytes(b))
    # stack segments past the end of the file
    b = bytearray(small)
    for i, (vaddr, memsz, flags, content) in enumerate(loads):
        if any(vaddr <= sp < vaddr + memsz for sp in sps):
            struct.pack_into("<Q", b, 64 + 56 * (1 + i) + 8, len(b) - 100)
    w("trunc-load.core", bytes(b))
    # NT_FILE lies
    def with_ntfile(f):
        out = []
        for name, typ, desc in ns:
            if name.rstrip(b"\0") == b"CORE" and typ == 0x46494c45:
                desc = f(bytearray(desc))
            out.append((name, typ, bytes(desc)))
        return build(d, loads, pack_notes(out))
    def lie_count(desc):
        struct.pack_into("<Q", desc, 0, 1 << 40)
        return desc
    def no_paths(desc):
        count, = struct.unpack_from("<Q", desc, 0)
        return desc[: 16 + 24 * count + 3]
    w("ntfile-count.core", with_ntfile(lie_count))
    w("ntfile-nopaths.core", with_ntfile(no_paths))
    # a looping frame-pointer chain: rbp = rsp, [rsp] = rsp
    out, looped = [], []
    for name, typ, desc in ns:
        if name.rstrip(b"\0") == b"CORE" and typ == 1 and machine == 62:
            desc = bytearray(desc)
            sp, = struct.unpack_from("<Q", desc, 112 + 8 * 19)
            struct.pack_into("<Q", desc, 112 + 8 * 4, sp)
            struct.pack_into("<Q", desc, 112 + 8 * 16, 0x1234)
            looped.append(sp)
            desc = bytes(desc)
        out.append((name, typ, desc))
    lloads = []
    for vaddr, memsz, flags, content in loads:
        content = bytearray(content)
        for sp in looped:
            if vaddr <= sp < vaddr + len(content) - 16:
                struct.pack_into("<QQ", content, sp - vaddr, sp, sp + 1)
        lloads.append((vaddr, memsz, flags, bytes(content)))
    w("loop-stack.core", build(d, lloads, pack_notes(out)))
    # many threads
    first = [n for n in ns if n[1] == 1][0]
    many = [n for n in ns if n[1] != 1] + [first] * 400
    w("threads.core", build(d, [(v, m, f, b"") for v, m, f, _ in loads], pack_notes(many)))
    b = bytearray(small)
    struct.pack_into("<H", b, 56, 0xffff)
    w("phnum.core", bytes(b))


if __name__ == "__main__":
    main()
